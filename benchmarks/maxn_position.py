"""One max-n position of 4-seat Sahrat Fives in C: visits, positions kept, CPU and wall.

Where ``benchmarks/maxn.py`` times a deal's whole review, this solves a single position
(the start of deal ``--deal`` of seeded random matches, or the position ``--after`` that
many plays and passes later) once, with a fresh table of ``--slots`` (default the
machine's, ``NATIVE_SLOTS``) and ``--threads`` threads, and prints what a change to the
search should be judged by: the positions visited and kept (the same from run to run
with one thread) beside the seconds (which vary with the machine's load: compare two
builds in the same run, alternating).

Prints numbers; asserts nothing about time.

    python benchmarks/maxn_position.py [--seeds 1 2 3] [--deal 0] [--after 0]
                                       [--threads 1] [--fibers K] [--slots N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ledger.analysis.solver import DealSolver, _NativeSearch  # noqa: E402
from ledger.engine.fold import advance  # noqa: E402
from ledger.engine.state import State  # noqa: E402
from ledger.events import Dealt, Passed, Played  # noqa: E402
from ledger.formats.partial import rebuild_hands  # noqa: E402
from ledger.formats.reader import parse_match  # noqa: E402
from ledger.rules import make_rules  # noqa: E402
from ledger.sim.generator import generate_match  # noqa: E402

PRESET, SEATS = "sahrat-fives", 4


def position(seed: int, deal: int, after: int) -> State | None:
    """The position ``after`` moves into deal ``deal`` of seed ``seed``'s match."""
    record = parse_match(generate_match(PRESET, SEATS, {}, seed=seed))
    rebuilt, _ = rebuild_hands(list(record.events))
    st = State(make_rules(PRESET, SEATS))
    moves = -1
    for i, ev in enumerate(rebuilt):
        if ev is None:
            return None
        advance(st, ev, i, [], [])
        if isinstance(ev, Dealt) and st.deal == deal:
            moves = 0
        elif moves >= 0 and isinstance(ev, (Played, Passed)):
            moves += 1
        if moves == after:
            return st if st.phase == "playing" else None
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, nargs="*", default=[1, 2, 3])
    ap.add_argument("--deal", type=int, default=0)
    ap.add_argument("--after", type=int, default=0, help="plays and passes into the deal")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--fibers", type=int, default=None,
                    help="searches per thread (default solver.FIBERS)")
    ap.add_argument("--slots", type=int, default=0, help="table room (0: the machine's)")
    args = ap.parse_args()
    if _NativeSearch is None:
        sys.exit("the C search is not built (no C compiler when the project was installed)")
    for seed in args.seeds:
        st = position(seed, args.deal, args.after)
        if st is None:
            print(f"seed {seed}: no such position")
            continue
        solver = DealSolver(st, threads=args.threads, fibers=args.fibers,
                            native_slots=args.slots or None)
        cpu, wall = time.process_time(), time.perf_counter()
        outcome = solver.outcome(st)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        native = solver._native
        assert native is not None
        print(f"seed {seed} deal {args.deal} after {args.after}: {outcome}, visits "
              f"{native.nodes / 1e6:.1f} M, kept {native.stored / 1e6:.2f} M, CPU {cpu:.2f} s, "
              f"wall {wall:.2f} s", flush=True)


if __name__ == "__main__":
    main()
