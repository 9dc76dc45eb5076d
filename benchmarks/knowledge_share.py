"""Share of decisions the knowledge review values, per sample match (issue 30).

For every match of ``sample_matches/*.json`` and ``sample_matches/partial/*.json`` (and,
for a record that lists its stock, the same record with the stock left out, as a live
match with hidden draws or a partial record has it), every decision reviewed with K
sampled deals (``--samples``, default 8) on one process: decisions, how many were valued,
their share, how many were valued exactly (every consistent deal solved; the code before
issue 30 has none), decisions left out because the mover's own hand is not in the record,
and the wall clock. Run it on a checkout before the change and after to compare:

    PYTHONPATH=. python benchmarks/knowledge_share.py [--samples 8] [--files a.json ...]

Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

if not os.environ.get("PYTHONPATH"):  # PYTHONPATH=/other/checkout measures that code
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ledger.analysis.knowledge_review import iter_knowledge_reviews  # noqa: E402
from ledger.formats.canonical import match_hash  # noqa: E402
from ledger.formats.reader import parse_match  # noqa: E402
from ledger.rules import make_rules  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _without_stock(obj: dict[str, Any]) -> dict[str, Any] | None:
    events = obj.get("events", [])
    if not any(e.get("type") == "deal" and e.get("stock") for e in events):
        return None
    out = dict(obj)
    out["events"] = [{k: v for k, v in e.items() if k != "stock"} for e in events]
    return out


def _row(name: str, obj: dict[str, Any], k: int) -> list[str]:
    record = parse_match(obj)
    assert record.header is not None
    h = record.header
    rules = make_rules(h.preset, len(h.seats), h.options)
    key = match_hash(h, [e for e in record.events if e is not None])
    start = time.perf_counter()
    total = valued = exact = own_unknown = 0
    for deal in iter_knowledge_reviews(rules, record.events, key, k, workers=1):
        for d in deal.decisions:
            total += 1
            valued += d.reviewed
            exact += bool(getattr(d, "exact", False))
        own_unknown += (deal.note or "").count("own hand is not in the record")
    took = time.perf_counter() - start
    share = f"{100 * valued / total:.1f}%" if total else "-"
    table = f"{h.preset}-{len(h.seats)}"
    return [name, table, str(total), str(valued), share, str(exact), str(own_unknown),
            f"{took:.1f}"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--files", nargs="*")
    args = ap.parse_args(argv)
    files = args.files or sorted(glob.glob(str(ROOT / "sample_matches" / "*.json"))) + sorted(
        f for f in glob.glob(str(ROOT / "sample_matches" / "partial" / "*.json"))
        if not f.endswith(".expected.json"))
    head = ["match", "table", "decisions", "valued", "share", "exact", "own hand unknown",
            "seconds"]
    print(f"K = {args.samples}, one process")
    print(" | ".join(head))
    for f in files:
        obj = json.loads(Path(f).read_text())
        name = str(Path(f).resolve().relative_to(ROOT / "sample_matches"))
        print(" | ".join(_row(name, obj, args.samples)), flush=True)
        bare = _without_stock(obj)
        if bare is not None:
            print(" | ".join(_row(name + " (no stock)", bare, args.samples)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
