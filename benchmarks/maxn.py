"""Max-n analysis: the C search against the Python one, on every table each for himself.

For ``--deals`` random deals of each table where three or four seats each play for
himself (deal ``--deal`` of seeded random legal matches: 0, the first, opens with the
highest double; on most tables a later deal's leader may open with any tile, so its
start is the choice among seven openings), times the full per-move analysis of the
deal (``review_match``, as ``domino-ledger analyse`` makes it, with its default
limits) with the C search, and with ``--python`` the Python max-n on the same deals.
Says how many deals were solved from their first position, and for the others the
first event from which every position was solved. Fives with four seats is the large
case: every seat scores during the deal, so max-n can skip almost nothing.

``--fibers 1 6`` times each deal once per count of fibers (searches per thread that
switch while the table's memory comes; ``solver.FIBERS``), one after the other in the
same run, and gives the ratio of their medians: CPU seconds and wall seconds.

Prints numbers; asserts nothing about time.

    python benchmarks/maxn.py [--deals 10] [--seed 1] [--deal 0] [--python]
                              [--tables sahrat-fives-4 ...] [--fibers 1 6]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ledger.analysis.solver as solver_module  # noqa: E402
from ledger.analysis.review import DealReview, review_match  # noqa: E402
from ledger.formats.reader import parse_match  # noqa: E402
from ledger.rules import make_rules  # noqa: E402
from ledger.sim.generator import generate_match  # noqa: E402

TABLES = ("selminha-3", "casual-arena-3", "casual-arena-4", "sahrat-draw-4", "sahrat-fives-4")
NATIVE = solver_module._NativeSearch


def first_solved(review: DealReview) -> str:
    """The first event from which every position of the deal was solved."""
    if review.best is not None:
        return "start"
    solved = [s.event for s in review.steps if s.outcome is not None]
    return f"event {solved[0]}" if solved else "none"


def run(preset: str, seats: int, seed: int, deal: int, native: bool
        ) -> tuple[float, DealReview | None]:
    cpu, _, review = timed(preset, seats, seed, deal, native)
    return cpu, review


def timed(preset: str, seats: int, seed: int, deal: int, native: bool
          ) -> tuple[float, float, DealReview | None]:
    """CPU and wall seconds of the deal's review, and the review."""
    record = parse_match(generate_match(preset, seats, {}, seed=seed))
    rules = make_rules(preset, seats)
    solver_module._NativeSearch = NATIVE if native else None  # type: ignore[misc]
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        reviews = review_match(rules, record.events, deals=[deal])
        if not reviews:  # the match ended before that deal
            return 0.0, 0.0, None
        (review,) = reviews
        return time.process_time() - cpu, time.perf_counter() - wall, review
    finally:
        solver_module._NativeSearch = NATIVE  # type: ignore[misc]


def compare_fibers(table: str, counts: list[int], deals: int, first_seed: int,
                   deal: int) -> None:
    """Each deal reviewed once per count of fibers, in turn: CPU and wall seconds."""
    preset, seats = table.rsplit("-", 1)
    cpu: dict[int, list[float]] = {k: [] for k in counts}
    wall: dict[int, list[float]] = {k: [] for k in counts}
    seed = first_seed - 1
    done = 0
    while done < deals:
        seed += 1
        reviews = []
        parts = []
        for k in counts:
            solver_module.FIBERS = k
            c, w, review = timed(preset, int(seats), seed, deal, native=True)
            if review is None:
                break
            cpu[k].append(c)
            wall[k].append(w)
            reviews.append(review)
            parts.append(f"fibers {k}: CPU {c:7.2f} s, wall {w:7.2f} s")
        if not reviews:
            print(f"  {table:15} seed {seed:>3}: the match has no deal {deal}")
            continue
        assert all(r == reviews[0] for r in reviews), "fibers changed the review"
        done += 1
        print(f"  {table:15} seed {seed:>3}: " + "; ".join(parts), flush=True)
    base = counts[0]
    for k in counts:
        print(f"{table} fibers {k}: CPU median {statistics.median(cpu[k]):.2f} s "
              f"(max {max(cpu[k]):.2f}), wall median {statistics.median(wall[k]):.2f} s "
              f"(max {max(wall[k]):.2f}); against fibers {base}: CPU "
              f"{statistics.median(cpu[base]) / statistics.median(cpu[k]):.2f}x, wall "
              f"{statistics.median(wall[base]) / statistics.median(wall[k]):.2f}x", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--deal", type=int, default=0,
                    help="which deal of each match, from 0 (a match that ends sooner is "
                         "skipped)")
    ap.add_argument("--python", action="store_true", help="also time the Python max-n")
    ap.add_argument("--tables", nargs="*", choices=TABLES, default=list(TABLES))
    ap.add_argument("--fibers", type=int, nargs="*", default=None,
                    help="compare these counts of fibers per thread, deal by deal")
    args = ap.parse_args()
    if NATIVE is None:
        sys.exit("the C search is not built (no C compiler when the project was installed)")
    if args.fibers:
        print(f"deal {args.deal} of {args.deals} matches per table (seeds from {args.seed}), "
              f"reviewed with {', '.join(map(str, args.fibers))} fibers per thread in turn")
        for table in args.tables:
            compare_fibers(table, args.fibers, args.deals, args.seed, args.deal)
        return
    print(f"deal {args.deal} of {args.deals} matches per table (seeds from {args.seed}), "
          "CPU seconds of the full per-move analysis of each deal")
    for table in args.tables:
        preset, seats = table.rsplit("-", 1)
        c_times, p_times, solved_from = [], [], []
        seed = args.seed - 1
        while len(c_times) < args.deals:
            seed += 1
            c_cpu, c_review = run(preset, int(seats), seed, args.deal, native=True)
            if c_review is None:
                print(f"  {table:15} seed {seed:>3}: the match has no deal {args.deal}")
                continue
            c_times.append(c_cpu)
            solved_from.append(first_solved(c_review))
            line = f"  {table:15} seed {seed:>3}: C {c_cpu:8.3f} s, solved from {solved_from[-1]}"
            if args.python:
                p_cpu, p_review = run(preset, int(seats), seed, args.deal, native=False)
                assert p_review is not None
                p_times.append(p_cpu)
                line += f"; Python {p_cpu:8.3f} s, solved from {first_solved(p_review)}"
                if c_review.best is not None and p_review.best is not None:
                    assert c_review == p_review, "the two searches disagree"
            print(line, flush=True)
        whole = sum(1 for s in solved_from if s == "start")
        text = (f"{table}: C median {statistics.median(c_times):.3f} s (max {max(c_times):.3f} s),"
                f" {whole}/{len(solved_from)} deals solved from the start")
        if p_times:
            text += (f"; Python median {statistics.median(p_times):.3f} s; ratio of medians "
                     f"{statistics.median(p_times) / statistics.median(c_times):.1f}x")
        print(text, flush=True)


if __name__ == "__main__":
    main()
