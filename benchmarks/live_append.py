"""Live appends: a generated match recorded event by event into a fresh SQLite ledger.

Each append folds its event (the walk's step), stores it, and, since issue 29, audits the
match's standing line again (live equals import). The audit grows with the match; this
prints what an append costs at each length, in this tree or in another (``--tree DIR``,
e.g. ``git archive`` of the commit before a change), so the two can be compared.

    python benchmarks/live_append.py [--matches 6] [--tree DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=6)
    ap.add_argument("--tree", type=Path, default=Path(__file__).resolve().parent.parent)
    args = ap.parse_args()
    sys.path.insert(0, str(args.tree))
    from ledger.sim.generator import generate_match
    from ledger.store import db
    from ledger.store.recording import live

    tables = [("sahrat-draw", 2), ("sahrat-fives", 4), ("casual-arena", 3), ("domena", 4),
              ("selminha", 2), ("arab-block", 2)]
    times: list[tuple[int, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        engine = db.open_db(f"sqlite:///{tmp}/live.db")
        for k in range(args.matches):
            preset, seats = tables[k % len(tables)]
            match = generate_match(preset, seats, seed=k)
            with db.writing(engine) as s:
                mid = live.start_match(s, {"table": match["table"], "seats": match["seats"]})
                seq = 0
                for i, ev in enumerate(match["events"]):
                    t = time.perf_counter()
                    seq = live.append(s, mid, ev, expected_seq=seq).next_seq
                    times.append((i, time.perf_counter() - t))
        engine.dispose()
    print(f"tree {args.tree}: {len(times)} appends over {args.matches} matches, "
          f"mean {statistics.fmean(t for _, t in times) * 1e3:.2f} ms")
    for lo, hi in ((0, 50), (50, 150), (150, 300), (300, 10**9)):
        got = [t for i, t in times if lo <= i < hi]
        if got:
            print(f"  events {lo}-{hi if hi < 10**9 else 'end'}: {len(got)} appends, "
                  f"median {statistics.median(got) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
