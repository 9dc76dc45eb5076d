"""The C max-n search (``ledger/analysis/_maxn.c``) against the Python one and the engine.

Max-n serves the tables where three or four seats each play for himself (seed 001
Sahrat Draw and Fives with 4 seats, seed 003 Selminha with 3, seed 005 Casual Arena
with 3 or 4). Both searches must give the same value and the same options at every
position; brute force checks both on endgames in test_solver.py.
"""

from __future__ import annotations

import random

import pytest

# No skip when the C part is missing: an install that could not build it must say so.
import ledger.analysis._maxn  # noqa: F401
from ledger.analysis.review import DealReview, review_match
from ledger.analysis.solver import DealSolver, TooLarge, _board_code
from ledger.engine.board import fives_count, open_board, place
from ledger.engine.moves import legal_moves
from ledger.engine.state import CLOSED, DOWN, LEFT, RIGHT, UP, State
from ledger.formats.reader import parse_match
from ledger.rules import make_rules
from ledger.sim.generator import generate_match
from ledger.tiles import ALL_TILES
from tests.analysis.helpers import after, assert_left_out_not_guessed, brute, match_states

# Tiles still in hands from which the Python max-n stays quick (Fives has no pruning).
MAXN_TABLES = [("selminha", 3, 13), ("casual-arena", 3, 13), ("casual-arena", 4, 16),
               ("sahrat-draw", 4, 16), ("sahrat-fives", 4, 13)]


@pytest.mark.parametrize(("preset", "seats", "held"), MAXN_TABLES,
                         ids=[f"{p}-{s}" for p, s, _ in MAXN_TABLES])
def test_c_and_python_max_n_agree_on_every_late_position(preset: str, seats: int,
                                                         held: int) -> None:
    checked = 0
    for seed in (1, 2):
        for start, line in match_states(preset, seats, None, seed):
            c, py = DealSolver(start), DealSolver(start, native=False)
            assert c.native and not py.native
            for st in reversed(line):
                if sum(h.bit_count() for h in st.hands) > held:
                    break
                assert c.outcome(st) == py.outcome(st, fresh=False)
                assert c.options(st) == py.options(st)
                checked += 1
    assert checked >= 40


def test_a_tiny_table_drops_values_but_never_changes_one() -> None:
    # A table of 64 positions keeps almost nothing: every value is searched again, and
    # the answers are those of a roomy table.
    for start, line in match_states("casual-arena", 4, None, seed=3):
        tiny, roomy = DealSolver(start, native_slots=64), DealSolver(start)
        for st in line[len(line) // 2:]:
            assert tiny.outcome(st) == roomy.outcome(st)
        assert tiny._native is not None and tiny._native.capacity == 64
        assert tiny._native.stored <= 64


def test_a_position_over_the_visit_limit_is_too_large_not_guessed() -> None:
    record = parse_match(generate_match("sahrat-draw", 4, {}, seed=2))
    rules = make_rules("sahrat-draw", 4)
    (small,) = review_match(rules, record.events, deals=[0], max_nodes=20_000)
    (full,) = review_match(rules, record.events, deals=[0])
    assert "too large to solve exactly" in (small.note or "")
    assert "more than 20,000 positions to search" in (small.note or "")
    assert_left_out_not_guessed(small, full)
    start = next(iter(match_states("sahrat-draw", 4, None, seed=2)))[0]
    with pytest.raises(TooLarge, match="positions to search"):
        DealSolver(start, max_nodes=1000).outcome(start)


def _open_ends(code: int) -> list[tuple[int, bool]]:
    ends = [(code >> 3 * i & 7, bool(code >> 12 + i & 1)) for i in range(4)]
    return sorted(e for e in ends if e[0] != 7)


def test_c_board_is_the_engines_board() -> None:
    # Seed 001, Sahrat Fives: the spinner, its arms and the count of open ends. Random
    # lines of play: after every tile the C board shows the engine's open ends (with the
    # doubles lying at them) and the same count.
    rules = make_rules("sahrat-fives", 4)
    rng = random.Random(5)
    start = next(iter(match_states("sahrat-fives", 4, None, seed=1)))[0]
    search = DealSolver(start)._native
    assert search is not None
    lines = 0
    for _ in range(300):
        st = State(rules)
        opening = rng.choice(ALL_TILES)
        open_board(st, opening, opening.high)
        pool = [t for t in ALL_TILES if t is not opening]
        rng.shuffle(pool)
        for tile in pool:
            ends = [i for i, n in enumerate(st.ends) if n != CLOSED and tile.has(n)]
            if not ends:
                continue
            end = rng.choice(ends)
            code, count = search.place(_board_code(st), tile.index, end)
            place(st, tile, end)
            assert _open_ends(code) == sorted(
                (n, st.doubles[i]) for i, n in enumerate(st.ends) if n != CLOSED)
            assert count == fives_count(st)
        lines += 1
    assert lines == 300


def test_moves_of_a_solved_position_lead_to_solved_positions() -> None:
    # The value of a position is the best of its options under the tie rule: checked on
    # a 3-seat draw table, where the C search keys who drew each held tile.
    for start, line in match_states("selminha", 3, None, seed=4):
        solver = DealSolver(start)
        for st in line[-12:]:
            opts = solver.options(st)
            assert [str(o.move) for o in opts] == [str(m) for m in legal_moves(st)]
            assert solver.outcome(st) == solver.best_of(st, opts)
            for o in opts:
                assert solver.outcome(after(st, o.move)) == o.outcome


def _swap_ends(st: State, i: int, j: int) -> State:
    """``st`` with ends ``i`` and ``j`` exchanged: number, the double lying there, its arm."""
    out = st.copy()
    out.ends[i], out.ends[j] = st.ends[j], st.ends[i]
    out.doubles[i], out.doubles[j] = st.doubles[j], st.doubles[i]
    bit_i, bit_j = st.arms >> i & 1, st.arms >> j & 1
    out.arms = st.arms & ~(1 << i | 1 << j) | bit_i << j | bit_j << i
    return out


def test_the_four_ends_of_an_open_spinner_are_alike() -> None:
    # Seed 001, Sahrat Fives: "once a tile sits on both its left and its right, it also
    # opens an end above and below, so there are 4 ends". From then on an end is what
    # it shows, whether a double lies there and whether its arm holds a tile: the C
    # search keeps one value for boards that differ only in which end is which. A left
    # end exchanged with an armed up end (a right with an armed down end) is the same
    # position for the engine, for brute force and for the C search.
    checked = 0
    for seed in range(1, 6):
        for start, line in match_states("sahrat-fives", 4, None, seed):
            search = DealSolver(start)
            assert search._native is not None
            for st in line:
                if sum(h.bit_count() for h in st.hands) > 11 or st.ends[UP] == CLOSED:
                    continue
                for i, j in ((LEFT, UP), (RIGHT, DOWN)):
                    if not st.arms >> j & 1 or (st.ends[i], st.doubles[i]) == (
                            st.ends[j], st.doubles[j]):
                        continue
                    other = _swap_ends(st, i, j)
                    assert fives_count(other) == fives_count(st)
                    assert _board_code(other) != _board_code(st)
                    # Any tile laid on an end, or on its twin: one board, one count.
                    swapped = {i: j, j: i}
                    for tile in ALL_TILES:
                        for end, n in enumerate(st.ends):
                            if n != CLOSED and tile.has(n):
                                assert search._native.place(_board_code(st), tile.index, end) \
                                    == search._native.place(_board_code(other), tile.index,
                                                            swapped.get(end, end))
                    value = brute(st)
                    assert brute(other) == value
                    assert search.outcome(other) == search.outcome(st) == value
                    checked += 1
    assert checked >= 10


@pytest.mark.slow(reason="a whole four-seat Fives deal searched: 15-30 s")
def test_a_whole_four_seat_fives_deal_is_solved_from_its_start() -> None:
    # Seed 001, Sahrat Fives with 4 seats each for himself: every seat scores during the
    # deal, so max-n can skip almost nothing and the search values every position of the
    # deal (about a hundred million visits). With the default limits nothing is left out,
    # and the values hang together: each step's value is the one of the move made among
    # the options at that decision, and the last one is the deal's result.
    record = parse_match(generate_match("sahrat-fives", 4, {}, seed=21))
    (review,) = review_match(make_rules("sahrat-fives", 4), record.events, deals=[0])
    assert review.note is None and review.best is not None
    assert all(step.outcome is not None for step in review.steps)
    assert review.steps[-1].outcome == review.result
    by_event = {step.event: step for step in review.steps}
    assert len(review.decisions) >= 10
    for d in review.decisions:
        assert d.outcome == by_event[d.event].outcome
        assert d.best in [o.outcome for o in d.options]
    # The first deal opens with 6-6, a forced move: the start is worth what follows it.
    assert review.steps[0].move == "6-6" and review.steps[0].event not in by_decision(review)
    assert review.best == review.steps[0].outcome


def by_decision(review: DealReview) -> set[int]:
    return {d.event for d in review.decisions}


def test_each_opening_tile_of_a_free_lead_is_searched_on_its_own() -> None:
    # Seed 002, Selminha: "In later rounds, the lead passes to the player on the right of
    # whoever led the previous round, and they can open with any tile." Each opening tile
    # is a tree of its own: once the table is more than half full it starts empty for the
    # next one. A table so small that it starts empty for every opening gives the values
    # of a roomy one; a position answered once is not searched again.
    deals = list(match_states("selminha", 3, None, seed=4))
    start = deals[1][0]
    assert start.deal == 1 and len({m.tile for m in legal_moves(start)}) == 7
    small, roomy = DealSolver(start, native_slots=256), DealSolver(start)
    assert small._native is not None
    assert small.options(start) == roomy.options(start)
    assert small._native.stored <= 256
    visited = small._native.nodes
    assert small.outcome(start) == roomy.outcome(start)
    assert small._native.nodes == visited
