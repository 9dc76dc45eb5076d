"""The solver against hand-worked positions and a plain brute-force search.

Rules under test: the seeds' scoring (each test names its seed and section) and the
solver's own definition of best play (``ledger/analysis/solver.py``, module doc).
"""

from __future__ import annotations

import pytest

from ledger.analysis.solver import DealSolver, NotAnalysable
from ledger.engine.moves import legal_moves
from ledger.rules import all_tables, make_rules
from tests.analysis.helpers import (
    after,
    brute,
    brute_options,
    endgame,
    exhaustive,
    match_states,
    play,
    position,
    result_of,
)


def options_of(solver: DealSolver, st: object) -> dict[str, tuple[int, ...]]:
    return {str(o.move): o.outcome for o in solver.options(st)}  # type: ignore[arg-type]


# --- positions worked out by hand -------------------------------------------------------


def test_block_game_lay_the_double_first() -> None:
    # Seed 003 ("Passing", "Scoring"): a seat that cannot play passes; going out scores
    # the loser's pips. Ends 3 and 5; seat 0 holds 3-3 and 6-5, seat 1 only 6-0.
    # 3-3 keeps the ends 3|5: seat 1 passes, seat 0 goes out with 6-5 and scores 6.
    # 6-5 opens a 6: seat 1 goes out with 6-0 and scores seat 0's 3-3, 6.
    rules = make_rules("arab-block", 2)
    st = position(rules, [["3-3", "6-5"], ["6-0"]], (3, 5), to_move=0)
    solver = DealSolver(st)
    assert options_of(solver, st) == {"3-3 left": (6, 0), "6-5 right": (0, 6)}
    assert solver.outcome(st) == (6, 0)


def test_pairs_let_the_partner_go_out() -> None:
    # Seed 000 §6-7: a pair wins when either partner goes out and scores both
    # opponents' pips. Ends 5|5. Seat 0 holds 5-0 and 6-5; seat 1 0-1; seat 2 (its
    # partner) 6-6; seat 3 6-2. 5-0 lets seat 1 out: it scores 11 + 12 = 23 for its pair.
    # 6-5: seat 1 has no 5 or 6 and passes, seat 2 goes out with 6-6: 1 + 8 = 9.
    rules = make_rules("domena", 4)
    st = position(rules, [["5-0", "6-5"], ["1-0"], ["6-6"], ["6-2"]], (5, 5), to_move=0)
    solver = DealSolver(st)
    got = options_of(solver, st)
    assert got == {"5-0 left": (0, 23), "5-0 right": (0, 23),
                   "6-5 left": (9, 0), "6-5 right": (9, 0)}
    assert solver.outcome(st) == (9, 0)


def test_fives_counts_and_rounding() -> None:
    # Seed 001 (Fives): after every play the open ends are added and a multiple of 5
    # scores at once; the count at the end of the round is rounded to the nearest 5.
    # Stock empty. Ends 5|2. Seat 0: 2-0, 5-3. Seat 1: 4-3.
    # 2-0 on the 2: ends 5|0 = 5, seat 0 scores 5; seat 1 cannot play; 5-3 on the 5:
    #   ends 3|0 = 3; seat 0 is out with seat 1's 7 pips, rounded to 5: 5 + 5 = 10.
    # 5-3 on the 5: ends 3|2 = 5, seat 0 scores 5; seat 1 goes out with 4-3 (ends 4|2,
    #   6: nothing) and scores seat 0's 2 pips, rounded to 0: 5 to 0.
    rules = make_rules("sahrat-fives", 2)
    st = position(rules, [["2-0", "5-3"], ["4-3"]], (5, 2), to_move=0)
    solver = DealSolver(st)
    assert options_of(solver, st) == {"2-0 right": (10, 0), "5-3 left": (5, 0)}
    assert solver.outcome(st) == (10, 0)


def test_maxn_seat_that_cannot_win_keeps_the_winner_low() -> None:
    # Casual Arena, 3 seats each for himself (seed 004 "Match end": the winner scores
    # every other hand). Stock empty, ends 1|2. Seat 0: 1-0 and 6-2; seat 1: 4-0;
    # seat 2: 6-3. Seat 0 cannot win either way:
    #   1-0 opens a 0: seat 1 goes out and scores 8 + 9 = 17.
    #   6-2 opens a 6: seat 1 passes, seat 2 goes out and scores 1 + 4 = 5.
    # Max-n tie rule: at equal own points (0), the strongest other side scoring least.
    # 6-2 comes second in legal-move order: the rule, not the order, picks it.
    rules = make_rules("casual-arena", 3)
    st = position(rules, [["1-0", "6-2"], ["4-0"], ["6-3"]], (1, 2), to_move=0)
    solver = DealSolver(st)
    assert [str(m) for m in legal_moves(st)] == ["1-0 left", "6-2 right"]
    assert options_of(solver, st) == {"1-0 left": (0, 17, 0), "6-2 right": (0, 0, 5)}
    assert solver.outcome(st) == (0, 0, 5)


def test_draws_follow_the_stock_order() -> None:
    # Seed 000 §5 (two players): no move, you draw one tile at a time until one fits and
    # play it at once; with the boneyard empty you pass. §6: a block goes to the lower
    # hand. Ends 6|6. Seat 0: 1-1. Seat 1: 6-2, 6-3. Stock left, in order: 4-0, 6-5.
    # Seat 0 draws 4-0 (no 6), then 6-5 and plays it: ends 5|6. Seat 1 chooses:
    #   6-2: ends 5|2, nobody can play: seat 0 has 1-1 + 4-0 = 6, seat 1 6-3 = 9:
    #        seat 0 wins the block and scores 9.
    #   6-3: ends 5|3: seat 0 6, seat 1 6-2 = 8: seat 0 scores 8. Seat 1 plays 6-3.
    rules = make_rules("domena", 2)
    st = position(rules, [["1-1"], ["6-2", "6-3"]], (6, 6), to_move=0, stock=["4-0", "6-5"])
    solver = DealSolver(st)
    assert [str(m) for m in legal_moves(st)] == ["draw"]
    assert solver.outcome(st) == (8, 0)
    st = play(play(play(st, "draw"), "draw"), "6-5 left")
    assert options_of(solver, st) == {"6-2 right": (9, 0), "6-3 right": (8, 0)}


def test_hidden_hand_or_unknown_stock_cannot_be_analysed() -> None:
    rules = make_rules("domena", 2)
    st = position(rules, [["1-1"], ["6-2"]], (6, 6), to_move=0, stock=["4-0"])
    st.stock = None
    with pytest.raises(NotAnalysable, match="stock"):
        DealSolver(st)
    st = position(rules, [["1-1"], ["6-2"]], (6, 6), to_move=0, stock=["4-0"])
    st.hidden = [0, 2]
    with pytest.raises(NotAnalysable, match="hidden"):
        DealSolver(st)


# --- against brute force ----------------------------------------------------------------

# Tiles still in hands where brute force stays quick: more seats pass more often, and a
# stock makes lines long.
HELD = {2: 8, 3: 10, 4: 13}
TABLES = [pytest.param(p, s, o, id=f"{p}-{s}{'-teams' if o else ''}")
          for p, s, o in all_tables()]
# The tables whose brute force takes 5-10 s: in the full suite, not the fast one.
SLOW_BRUTE = {"casual-arena-2", "sahrat-fives-4", "selminha-2"}
BRUTE_TABLES = [pytest.param(*t.values, id=t.id, marks=[pytest.mark.slow] * (t.id in SLOW_BRUTE))
                for t in TABLES]


@pytest.mark.parametrize(("preset", "seats", "options"), BRUTE_TABLES)
def test_endgames_agree_with_brute_force(preset: str, seats: int,
                                         options: dict[str, object]) -> None:
    held = 14 if preset == "arab-block" else HELD[seats]  # Arab Block: the whole deal
    checked = 0
    for seed in range(3):
        found = endgame(preset, seats, options, seed, held)
        if found is None:
            continue
        start, st = found
        # The C search and the Python one (installs without a compiler): both.
        for native in (True, False):
            solver = DealSolver(start, native=native)
            assert solver.outcome(st) == brute(st)
            assert [(str(o.move), o.outcome) for o in solver.options(st)] == brute_options(st)
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("preset", ["domena", pytest.param("sahrat-fives", marks=pytest.mark.slow)])
def test_whole_two_seat_draw_deals_agree_with_exhaustive_search(preset: str) -> None:
    # From the first play to the end, drawing from the stock in its order: seed 000 (a
    # boneyard of 14, draw until a tile fits) and seed 001 Fives (in-deal scores too).
    # Every position of the deal, recorded line and alternatives, by one search each.
    start, line = next(iter(match_states(preset, 2, {}, seed=1)))
    search = exhaustive()
    for native in (True, False):
        solver = DealSolver(start, native=native)
        for st in line:
            assert solver.outcome(st) == search(st)
        for st in line[:3]:
            assert [(str(o.move), o.outcome) for o in solver.options(st)] == \
                [(str(m), search(after(st, m))) for m in legal_moves(st)]


@pytest.mark.parametrize(("preset", "seats", "options"), TABLES)
def test_every_position_of_short_deal_ends(preset: str, seats: int,
                                           options: dict[str, object]) -> None:
    # Cross-check of terminal values: the last moves of every deal of a match, each
    # position solved by one solver per deal (one table shared) and by brute force.
    for start, line in match_states(preset, seats, options, seed=11):
        for native in (True, False):
            solver = DealSolver(start, native=native)
            for st in line[-4:]:
                assert solver.outcome(st) == brute(st)


def test_finished_deal_outcome_is_the_engine_result() -> None:
    for start, line in match_states("sahrat-fives", 2, {}, seed=4):
        last = line[-1]
        solver = DealSolver(start)
        for move in legal_moves(last):
            end = after(last, move)
            if end.phase != "playing":
                assert solver.outcome(end) == result_of(end)
                assert any(o.outcome == result_of(end) for o in solver.options(last))
