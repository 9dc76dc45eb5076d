"""The C search against the Python reference off the recorded line.

The other solver tests follow the recorded moves; these leave them at once: from the
start of seeded deals of every table (seeds 000-004, every seat count), seeded random
legal moves (draws from the stock in its order included) lead to positions no player
chose. There the C search must give the Python search's value, every option's value
and so the same best moves; a search stopped by its visit limit gives no value.
"""

from __future__ import annotations

import random

import pytest

from ledger.analysis.positions import solve, solve_many
from ledger.analysis.solver import DealSolver, TooLarge, worth
from ledger.engine.moves import legal_moves
from ledger.engine.state import State
from ledger.rules import all_tables, make_rules
from tests.analysis.helpers import after, brute, match_states

EVERY = [pytest.param(p, s, o, id=f"{p}-{s}{'-teams' if o else ''}")
         for p, s, o in all_tables()]
# Two-seat Fives' brute force takes 5-10 s: in the full suite, not the fast one.
SLOW_BRUTE = {"sahrat-fives-2"}


def _held(st: State) -> int:
    return sum(h.bit_count() for h in st.hands)


def _random_positions(preset: str, seats: int, options: dict[str, object], held: int,
                      count: int) -> list[tuple[State, State]]:
    """(deal start, position) pairs: random legal moves from the start of seeded deals
    until at most ``held`` tiles are in hands, then a random number more."""
    out: list[tuple[State, State]] = []
    for seed in range(1, 40):
        rng = random.Random(seed)
        start, _ = next(iter(match_states(preset, seats, options, seed)))
        st = start
        extra = rng.randrange(3)
        while st.phase == "playing" and (_held(st) > held or extra):
            if _held(st) <= held:
                extra -= 1
            st = after(st, rng.choice(legal_moves(st)))
        if st.phase == "playing" and st.to_move is not None:
            out.append((start, st))
        if len(out) == count:
            break
    return out


def _best(st: State, options: list[tuple[object, tuple[int, ...]]]) -> list[object]:
    side = st.rules.side_of(st.to_move or 0)
    top = max(worth(st.rules, vec, side) for _, vec in options)
    return [m for m, vec in options if worth(st.rules, vec, side) == top]


@pytest.mark.parametrize(("preset", "seats", "options"), EVERY)
def test_c_equals_python_on_seeded_random_positions(preset: str, seats: int,
                                                    options: dict[str, object]) -> None:
    # Python max-n keeps every value (Fives cannot prune): fewer tiles there.
    rules = make_rules(preset, seats, options)
    held = 12 if rules.fives and rules.sides > 2 else 15
    found = _random_positions(preset, seats, options, held, 5)
    assert len(found) >= 3
    for start, st in found:
        c, py = DealSolver(start, native=True), DealSolver(start, native=False)
        c_opts = [(o.move, o.outcome) for o in c.options(st)]
        py_opts = [(o.move, o.outcome) for o in py.options(st)]
        assert c.outcome(st) == py.outcome(st)
        assert c_opts == py_opts
        assert _best(st, c_opts) == _best(st, py_opts)
        got = solve(st, options=True)
        assert got.outcome == c.outcome(st)
        assert list(got.best_moves(st)) == _best(st, py_opts)


@pytest.mark.parametrize(("preset", "seats", "options"), [
    pytest.param(*t.values, id=t.id, marks=[pytest.mark.slow] * (t.id in SLOW_BRUTE))
    for t in EVERY])
def test_random_endgames_equal_brute_force(preset: str, seats: int,
                                           options: dict[str, object]) -> None:
    held = {2: 7, 3: 8, 4: 9}[seats]
    found = _random_positions(preset, seats, options, held, 3)
    assert len(found) >= 2
    for start, st in found:
        assert DealSolver(start, native=True).outcome(st) == brute(st)
        assert solve(st).outcome == brute(st)


def test_a_search_stopped_early_gives_no_value() -> None:
    # Seed 001, Sahrat Fives with four seats, near the start of a deal: far more than
    # 20,000 positions. One by one, in a batch, and with two threads: no value, the
    # reason; a small position of the same batch keeps its value.
    start, line = next(iter(match_states("sahrat-fives", 4, None, 1)))
    big, small = line[1], next(st for st in line if _held(st) <= 9)
    got = solve(big, options=True, max_nodes=20_000)
    assert got.outcome is None and got.options == ()
    assert "more than 20,000 positions" in (got.note or "")
    batch = solve_many([big, small, big, small], max_nodes=20_000, workers=2)
    assert [s.outcome is None for s in batch] == [True, False, True, False]
    assert batch[1].outcome == brute(small)
    with pytest.raises(TooLarge, match="positions to search"):
        DealSolver(start, threads=2, max_nodes=20_000).outcome(big)
