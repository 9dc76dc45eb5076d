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
from ledger.analysis.review import review_match
from ledger.analysis.solver import DealSolver, TooLarge, _board_code
from ledger.engine.board import fives_count, open_board, place
from ledger.engine.moves import legal_moves
from ledger.engine.state import CLOSED, State
from ledger.formats.reader import parse_match
from ledger.rules import make_rules
from ledger.sim.generator import generate_match
from ledger.tiles import ALL_TILES
from tests.analysis.helpers import after, assert_left_out_not_guessed, match_states

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
