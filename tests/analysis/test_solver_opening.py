"""The value of an empty table (a deal's free opening) on two-side tables without Fives.

``DealSolver.outcome`` there asks each opening tile after the first only whether it beats
the best so far (a window on the C search's MTD(f)), a cheaper question than its exact
value: the knowledge review's luck values thousands of whole deals this way. The answer
must be the one ``best_of`` picks among every option valued exactly, on the starts of
seeded deals of every such table (seeds 1-6, every deal whose opening is free; Arab block
and Casual Arena name the tile that opens every deal, so none of theirs is).
"""

from __future__ import annotations

import pytest

from ledger.analysis.solver import DealSolver
from ledger.engine.moves import legal_moves
from ledger.rules import all_tables, make_rules
from tests.analysis.helpers import match_states

FORCED = {"arab-block", "casual-arena"}   # every deal opens with a tile the rules name
TWO_SIDES = [pytest.param(p, s, o, id=f"{p}-{s}{'-teams' if o else ''}")
             for p, s, o in all_tables()
             if make_rules(p, s, o).sides == 2 and not make_rules(p, s, o).fives
             and p not in FORCED]


@pytest.mark.parametrize(("preset", "seats", "options"), TWO_SIDES)
def test_an_empty_tables_value_is_its_best_options(preset: str, seats: int,
                                                   options: dict[str, object]) -> None:
    checked = 0
    for seed in range(1, 7):
        for start, _line in match_states(preset, seats, options, seed):
            if start.table or start.to_move is None or len(legal_moves(start)) < 2:
                continue
            windowed = DealSolver(start).outcome(start)
            exact = DealSolver(start)
            assert windowed == exact.best_of(start, exact.options(start)), (seed, start.deal)
            checked += 1
    assert checked >= 20, f"only {checked} free openings in the seeded matches"
