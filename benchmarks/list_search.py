"""The matches list's player search and column orders, timed against the plain list.

    python benchmarks/list_search.py [--matches 5000] [--repeat 30] [--db artifacts/bench-list.db]

Fills a SQLite ledger with generated matches (``benchmarks/web.py``'s ``fill``: kept and
reused), then times ``ledger.store.read.list_page`` (the query the page runs, no HTTP) for the
anchor, the newest page with no filter, and for a player typed in full, in part, in
capitals, and for each column order. Prints the median and p95 of each, in ms, and its
ratio to the anchor's median in the same run. Numbers, not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import text  # noqa: E402

from ledger.store.db import open_db  # noqa: E402
from ledger.store.read import SORTS, Filters, list_page  # noqa: E402


def _bench_web() -> object:
    # benchmarks/web.py fills the ledger; it is a script, not a package module.
    spec = importlib.util.spec_from_file_location("bench_web", ROOT / "benchmarks" / "web.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--db", type=Path, default=ROOT / "artifacts" / "bench-list.db")
    args = parser.parse_args(argv)
    args.db.parent.mkdir(parents=True, exist_ok=True)
    _bench_web().fill(args.db, args.matches)  # type: ignore[attr-defined]
    engine = open_db(f"sqlite:///{args.db}")
    with engine.connect() as conn:
        name = str(conn.execute(text(
            "SELECT name FROM player_totals ORDER BY matches DESC LIMIT 1")).scalar_one())
        names = int(conn.execute(text("SELECT count(*) FROM player_totals")).scalar_one())
        cases: list[tuple[str, Filters]] = [
            ("anchor: newest page, no filter", Filters()),
            (f"player {name!r}, typed in full", Filters.of(name, *[None] * 5)),
            (f"player {name[:2]!r}, part of the name", Filters.of(name[:2], *[None] * 5)),
            (f"player {name.upper()!r}, in capitals", Filters.of(name.upper(), *[None] * 5)),
            *[(f"ordered by {key}, descending", Filters.of(None, *[None] * 5, key, "desc"))
              for key in SORTS if key != "id"],
        ]
        print(f"{args.db}: {args.matches} matches, {names} player names; "
              f"{args.repeat} runs each")
        anchor = None
        for label, filters in cases:
            times = []
            for _ in range(args.repeat):
                started = time.perf_counter()
                list_page(conn, filters)
                times.append((time.perf_counter() - started) * 1000)
            median = statistics.median(times)
            p95 = sorted(times)[int(0.95 * (len(times) - 1))]
            anchor = anchor or median
            print(f"  {label:45} median {median:7.2f} ms  p95 {p95:7.2f} ms  "
                  f"x{median / anchor:5.1f} the anchor")
    engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
