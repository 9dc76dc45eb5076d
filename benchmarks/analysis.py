"""Perfect-information analysis of 4-seat pass deals against the ``dominoes`` package.

For ``--deals`` random deals (the first deal of seeded random legal matches of a
4-seat pass table: all 28 tiles dealt, the holder of 6-6 opens with it) this
times:

- the full per-move analysis of the deal as ``domino-ledger analyse`` makes it
  (``review_match``: best play from the start, every option of every decision,
  the value after every move), from a cold start (a new solver per deal);
- the ``dominoes`` package's ``search.alphabeta`` from the same opening: a
  ``dominoes.Game`` with the same four hands, seat 0 first in the same turn order,
  6-6 played by its holder (what ``Game.new(starting_domino=...)`` does), on a
  ``SkinnyBoard`` as the package's own search players use "for performance". It
  scores deals its own way, so only the times compare. ``--full-board`` also times
  it on the default ``Board`` that ``Game.new`` builds.

Prints medians (wall clock and CPU time of this process) and their ratio; asserts
nothing about time.

    python benchmarks/analysis.py [--deals 20] [--seed 1] [--preset domena] [--full-board]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dominoes
from dominoes import search

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ledger.analysis.review import review_match  # noqa: E402
from ledger.analysis.solver import DealSolver  # noqa: E402
from ledger.engine.fold import advance  # noqa: E402
from ledger.engine.state import State  # noqa: E402
from ledger.events import Dealt, Event  # noqa: E402
from ledger.formats.reader import parse_match  # noqa: E402
from ledger.rules import make_rules  # noqa: E402
from ledger.rules.base import Rules  # noqa: E402
from ledger.sim.generator import generate_match  # noqa: E402

PRESETS = ("domena", "sahrat-partner")


def first_deal(preset: str, seed: int) -> tuple[Rules, list[Event], Dealt]:
    """The events of a random match up to the end of its first deal, and that deal."""
    record = parse_match(generate_match(preset, 4, {}, seed=seed))
    events = [ev for ev in record.events if ev is not None]
    deals = [i for i, ev in enumerate(events) if isinstance(ev, Dealt)]
    end = deals[1] if len(deals) > 1 else len(events)
    dealt = events[0]
    assert isinstance(dealt, Dealt)
    return make_rules(preset, 4), events[:end], dealt


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def dominoes_game(dealt: Dealt, skinny: bool) -> dominoes.Game:
    hands = [dominoes.Hand([dominoes.Domino(t.high, t.low) for t in hand or ()])
             for hand in dealt.hands]
    opener = dominoes.Domino(6, 6)
    holder = next(s for s, hand in enumerate(hands) if opener in hand)
    board = dominoes.SkinnyBoard() if skinny else dominoes.Board()
    game = dominoes.Game(board, hands, [], holder, ((opener, True),), holder, None)
    game.make_move(opener, True)
    return game


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--preset", choices=PRESETS, default="domena")
    ap.add_argument("--full-board", action="store_true",
                    help="also time dominoes on its default Board (several times slower)")
    args = ap.parse_args()

    rows = []
    print(f"{args.deals} deals of {args.preset}, 4 seats, all 28 tiles dealt "
          f"(seeds {args.seed}..{args.seed + args.deals - 1})")
    print(f"{'seed':>5} {'decisions':>9} {'root s':>8} {'analysis s':>10} "
          f"{'dominoes s':>10} {'ratio':>6}")
    for seed in range(args.seed, args.seed + args.deals):
        rules, events, dealt = first_deal(args.preset, seed)

        def root(rules: Rules = rules, dealt: Dealt = dealt) -> object:
            st = State(rules)
            advance(st, dealt, 0, [], [])
            return DealSolver(st).outcome(st)

        _, root_cpu, _ = timed(root)
        wall, cpu, reviews = timed(lambda rules=rules, events=events: review_match(
            rules, events, deals=[0]))
        (review,) = reviews
        assert review.analysed, review.note
        d_wall, d_cpu, _ = timed(lambda dealt=dealt: search.alphabeta(dominoes_game(dealt, True)))
        row: dict[str, float] = {"wall": wall, "cpu": cpu, "d_wall": d_wall, "d_cpu": d_cpu,
                                 "root": root_cpu}
        if args.full_board:
            f_wall, f_cpu, _ = timed(lambda dealt=dealt: search.alphabeta(
                dominoes_game(dealt, False)))
            row.update(f_wall=f_wall, f_cpu=f_cpu)
        rows.append(row)
        print(f"{seed:>5} {len(review.decisions):>9} {root_cpu:>8.3f} {cpu:>10.3f} "
              f"{d_cpu:>10.3f} {d_cpu / cpu:>6.1f}", flush=True)

    def med(key: str) -> float:
        return statistics.median(r[key] for r in rows)

    print()
    print(f"root value only (CPU), median:              {med('root'):.3f} s")
    print(f"full per-move analysis, median:             {med('wall'):.3f} s wall, "
          f"{med('cpu'):.3f} s CPU (max {max(r['cpu'] for r in rows):.3f} s CPU)")
    print(f"dominoes search.alphabeta (SkinnyBoard):    {med('d_wall'):.3f} s wall, "
          f"{med('d_cpu'):.3f} s CPU")
    if args.full_board:
        print(f"dominoes search.alphabeta (Board):          {med('f_wall'):.3f} s wall, "
              f"{med('f_cpu'):.3f} s CPU")
    print(f"ratio of medians (dominoes / analysis):     {med('d_wall') / med('wall'):.1f}x wall, "
          f"{med('d_cpu') / med('cpu'):.1f}x CPU")
    print(f"median of per-deal ratios (CPU):            "
          f"{statistics.median(r['d_cpu'] / r['cpu'] for r in rows):.1f}x")
    if args.full_board:
        print(f"ratio against the default Board (CPU):      {med('f_cpu') / med('cpu'):.1f}x")


if __name__ == "__main__":
    main()
