"""The solver on every table and seat count: whole deals, the dominoes anchor, batches.

For each table (``ledger.rules.all_tables``), ``--deals`` seeded deals (deal ``--deal``
of seeded random legal matches; 0, the first, opens with the highest double):

- the whole deal's review as ``domino-ledger analyse`` makes it (``review_match``: the
  start, every option of every decision, the value after every move) from a cold start,
  wall clock: median and max, how many deals were solved whole, and positions visited
  per second by the C search;
- on 4-seat Domena, the ``dominoes`` package's ``search.alphabeta`` root value of the
  same deals, in the same run (driven as ``benchmarks/analysis.py`` does: the same four
  hands, 6-6 played by its holder, a ``SkinnyBoard``), and the ratio of medians;
- a batch of ``--batch`` positions after the 8th play of seeded deals, solved by one
  ``solve_many`` call on every core: solves per second of wall clock and per CPU second
  (on a machine others share, the workers wait for a core), and one by one.

Prints numbers and the machine's load; asserts nothing about time.

    python benchmarks/solver.py [--deals 20] [--seed 1] [--deal 0] [--batch 1000]
                                [--tables domena-4 sahrat-fives-4 ...] [--no-dominoes]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ledger.analysis.solver as solver_module  # noqa: E402
from ledger.analysis.positions import solve, solve_many  # noqa: E402
from ledger.analysis.review import review_match  # noqa: E402
from ledger.engine.fold import advance  # noqa: E402
from ledger.engine.state import State  # noqa: E402
from ledger.events import Dealt, Played  # noqa: E402
from ledger.formats.reader import parse_match  # noqa: E402
from ledger.rules import all_tables, make_rules  # noqa: E402
from ledger.sim.generator import generate_match  # noqa: E402


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the batch's workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def table_name(preset: str, seats: int, options: dict[str, Any]) -> str:
    return f"{preset}-{seats}" + ("-teams" if options.get("teams") else "")


class Visits:
    """Counts the positions the C searches of the solvers made meanwhile visit."""

    def __init__(self) -> None:
        self.made: list[solver_module.DealSolver] = []
        self._init = solver_module.DealSolver.__init__

    def __enter__(self) -> Visits:
        made, init = self.made, self._init

        def counting(solver: solver_module.DealSolver, *args: Any, **kw: Any) -> None:
            init(solver, *args, **kw)
            made.append(solver)

        solver_module.DealSolver.__init__ = counting  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        solver_module.DealSolver.__init__ = self._init  # type: ignore[method-assign]

    @property
    def nodes(self) -> int:
        return sum(s._native.nodes for s in self.made if s._native is not None)


def review_deals(preset: str, seats: int, options: dict[str, Any], seed: int, count: int,
                 deal: int) -> list[dict[str, Any]]:
    rules = make_rules(preset, seats, options)
    rows: list[dict[str, Any]] = []
    while len(rows) < count:
        record = parse_match(generate_match(preset, seats, options, seed=seed))
        seed += 1
        with Visits() as visits:
            wall, cpu = time.perf_counter(), time.process_time()
            reviews = review_match(rules, record.events, deals=[deal])
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if not reviews:  # the match ended before that deal
            continue
        (review,) = reviews
        rows.append({"seed": seed - 1, "wall": wall, "cpu": cpu, "nodes": visits.nodes,
                     "whole": review.best is not None, "events": record.events})
    return rows


def dominoes_root(events: list[Any]) -> float:
    """Wall seconds of the dominoes package's alpha-beta from the deal's opening."""
    import dominoes
    from dominoes import search

    dealt = events[0]
    assert isinstance(dealt, Dealt)
    hands = [dominoes.Hand([dominoes.Domino(t.high, t.low) for t in hand or ()])
             for hand in dealt.hands]
    opener = dominoes.Domino(6, 6)
    holder = next(s for s, hand in enumerate(hands) if opener in hand)
    game = dominoes.Game(dominoes.SkinnyBoard(), hands, [], holder, ((opener, True),), holder,
                         None)
    game.make_move(opener, True)
    wall = time.perf_counter()
    search.alphabeta(game)
    return time.perf_counter() - wall


def mid_positions(preset: str, seats: int, options: dict[str, Any], count: int,
                  plays: int = 8) -> list[State]:
    """Positions just after the ``plays``-th play of seeded deals (first deals)."""
    rules = make_rules(preset, seats, options)
    out: list[State] = []
    seed = 0
    while len(out) < count:
        seed += 1
        record = parse_match(generate_match(preset, seats, options, seed=seed))
        st = State(rules)
        done = 0
        for i, ev in enumerate(record.events):
            advance(st, ev, i, [], [])
            if isinstance(ev, Played):
                done += 1
                if done == plays:
                    if st.phase == "playing" and st.to_move is not None:
                        out.append(st.copy())
                    break
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--deal", type=int, default=0)
    ap.add_argument("--batch", type=int, default=1000)
    names = [table_name(p, s, o) for p, s, o in all_tables()]
    ap.add_argument("--tables", nargs="*", choices=names, default=names)
    ap.add_argument("--no-dominoes", action="store_true")
    args = ap.parse_args()
    if solver_module._NativeSearch is None:
        print("the C search is not built: the Python search is timed")
    print(f"load average before: {os.getloadavg()}; {os.cpu_count()} cores")
    print(f"{'table':24} {'deals':>5} {'whole':>5} {'median s':>9} {'max s':>8} "
          f"{'visits/s':>10} {'batch/s':>8} {'/cpu s':>8} {'1-by-1/s':>8} {'left':>4}")
    anchor: list[float] = []
    domena: list[float] = []
    for preset, seats, options in all_tables():
        name = table_name(preset, seats, options)
        if name not in args.tables:
            continue
        rows = review_deals(preset, seats, options, args.seed, args.deals, args.deal) \
            if args.deals else []
        walls = [r["wall"] for r in rows]
        if name == "domena-4" and not args.no_dominoes and args.deal == 0:
            domena = walls
            anchor = [dominoes_root(r["events"]) for r in rows]
        batch = mid_positions(preset, seats, options, args.batch) if args.batch else []
        rate = one_rate = 0.0
        left = 0
        cpu_rate = 0.0
        if batch:
            wall = time.perf_counter()
            cpu = cpu_seconds()
            got = solve_many(batch)
            rate = len(batch) / (time.perf_counter() - wall)
            cpu_rate = len(batch) / (cpu_seconds() - cpu)
            left = sum(s.outcome is None for s in got)
            part = batch[:max(1, len(batch) // 5)]
            wall = time.perf_counter()
            for st in part:
                solve(st)
            one_rate = len(part) / (time.perf_counter() - wall)
        visits = sum(r["nodes"] for r in rows) / max(sum(walls), 1e-9)
        cpus = [r["cpu"] for r in rows]
        print(f"{name:24} {len(rows):>5} {sum(r['whole'] for r in rows):>5} "
              f"{statistics.median(walls) if walls else 0:>9.3f} {max(walls, default=0):>8.3f} "
              f"{visits:>10.3g} {rate:>8.0f} {cpu_rate:>8.0f} {one_rate:>8.0f} {left:>4}"
              f"  (review CPU s: median {statistics.median(cpus) if cpus else 0:.3f}, "
              f"max {max(cpus, default=0):.3f})", flush=True)
    if anchor:
        print(f"dominoes search.alphabeta root value, 4-seat Domena: median "
              f"{statistics.median(anchor):.3f} s (max {max(anchor):.3f} s); whole-deal "
              f"review median {statistics.median(domena):.4f} s: ratio of medians "
              f"{statistics.median(anchor) / statistics.median(domena):.0f}x, median of "
              f"per-deal ratios "
              f"{statistics.median(a / d for a, d in zip(anchor, domena, strict=True)):.0f}x")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
