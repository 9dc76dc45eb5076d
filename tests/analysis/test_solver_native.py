"""One C search for every table: two sides (alpha-beta on the margin) as well as max-n.

The Python searches of ``ledger/analysis/solver.py`` are the reference: the C search
must give the same value and the same options (so the same best moves) at every
position. The seeds' block rules, written again in C, must give what the rules' own
hooks give. And ``positions.solve``/``solve_many`` value any position, never one whose
search stopped early.
"""

from __future__ import annotations

import random
import signal
import time

import pytest

import ledger.analysis.solver as solver_module
from ledger.analysis.positions import SMALL_SLOTS, solve, solve_many, with_hands
from ledger.analysis.review import review_match
from ledger.analysis.solver import DealSolver, TooLarge, _block_kind
from ledger.engine.moves import legal_moves
from ledger.engine.state import State
from ledger.formats.reader import parse_match
from ledger.rules import all_tables, make_rules
from ledger.rules.base import BlockView
from ledger.sim.generator import generate_match
from ledger.tiles import ALL_TILES, mask_of, tiles_of
from tests.analysis.helpers import after, brute, match_states

TWO_SIDES = [pytest.param(p, s, o, id=f"{p}-{s}{'-teams' if o else ''}")
             for p, s, o in all_tables() if make_rules(p, s, o).sides == 2]
EVERY = [pytest.param(p, s, o, id=f"{p}-{s}{'-teams' if o else ''}")
         for p, s, o in all_tables()]


@pytest.mark.parametrize(("preset", "seats", "options"), TWO_SIDES)
def test_c_and_python_alpha_beta_agree(preset: str, seats: int,
                                       options: dict[str, object]) -> None:
    # Every two-side table (seeds 000-004: pairs, two seats, drawing or passing, Fives):
    # the late positions of the first deals of seeded random matches, value and every
    # option's value, C against the Python search.
    checked = 0
    for seed in (1, 2, 3):
        start, line = next(iter(match_states(preset, seats, options, seed)))
        c, py = DealSolver(start, native=True), DealSolver(start, native=False)
        assert c.native and not py.native
        for st in reversed(line):
            if sum(h.bit_count() for h in st.hands) > 16:
                break
            assert c.outcome(st) == py.outcome(st)
            assert c.options(st) == py.options(st)
            checked += 1
    assert checked >= 20


@pytest.mark.parametrize(("preset", "seats", "options"), TWO_SIDES)
def test_whole_two_side_deals_reviewed_alike(preset: str, seats: int,
                                             options: dict[str, object]) -> None:
    # A whole deal's review (start, every decision's options, every step) in C and in
    # Python: the same review.
    rules = make_rules(preset, seats, options)
    record = parse_match(generate_match(preset, seats, options, seed=5))
    native = solver_module._NativeSearch
    (c,) = review_match(rules, record.events, deals=[0])
    try:
        solver_module._NativeSearch = None  # type: ignore[misc]
        (py,) = review_match(rules, record.events, deals=[0])
    finally:
        solver_module._NativeSearch = native  # type: ignore[misc]
    assert c.best is not None and c.note is None
    assert c == py


def _hook_value(rules: object, hands: list[int], leader: int) -> tuple[int, ...]:
    """The block value by the rules' own hook: the winner scores his losers' pips."""
    from ledger.engine.scoring import round_to_five
    from ledger.rules.base import Rules

    assert isinstance(rules, Rules)
    view = BlockView(tuple(tuple(tiles_of(h)) for h in hands), leader, rules)
    w = rules.block_winner(view)
    vec = [0] * rules.sides
    if w is not None:
        pts = sum(view.pips(s) for s in rules.losers_of(w))
        vec[rules.side_of(w)] = round_to_five(pts) if rules.fives else pts
    return tuple(vec)


@pytest.mark.parametrize(("preset", "seats", "options"), EVERY)
def test_c_block_rules_are_the_rules_hooks(preset: str, seats: int,
                                           options: dict[str, object]) -> None:
    # Seeds 000-004, each table's block rule (fewest pips, pairs' totals, ties to
    # nobody, to the pair, to the first after the leader, to the lowest tile): the C
    # copy against the hook, on random hands of one to four tiles (ties are common).
    rules = make_rules(preset, seats, options)
    assert _block_kind(rules) != 0  # every seed's hook has its C copy
    rng = random.Random(7)
    st = next(iter(match_states(preset, seats, options, 1)))[0]
    for _ in range(400):
        pool = list(ALL_TILES)
        rng.shuffle(pool)
        hands = []
        for _seat in range(seats):
            k = rng.randint(1, 4)
            hands.append(mask_of(pool[:k]))
            del pool[:k]
        leader = rng.randrange(seats)
        st.leader = leader
        search = DealSolver(st, native=True)._native
        assert search is not None
        assert search.block(hands) == _hook_value(rules, hands, leader)


def test_a_two_side_search_over_its_limit_is_too_large_not_guessed() -> None:
    # Seed 000, Domena with two seats (a stock of 14): a visit limit far below what the
    # deal needs leaves positions out, each solved one as the full review has it.
    rules = make_rules("domena", 2)
    record = parse_match(generate_match("domena", 2, {}, seed=2))
    (small,) = review_match(rules, record.events, deals=[0], max_nodes=200)
    (full,) = review_match(rules, record.events, deals=[0])
    assert "more than 200 positions to search" in (small.note or "")
    assert small.best is None and full.best is not None and full.note is None
    by_event = {s.event: s for s in full.steps}
    assert any(s.outcome is None for s in small.steps)
    for s in small.steps:
        assert s.outcome in (None, by_event[s.event].outcome)
    assert set(small.decisions) <= set(full.decisions)
    start = next(iter(match_states("domena", 2, None, seed=2)))[0]
    with pytest.raises(TooLarge, match="positions to search"):
        DealSolver(start, max_nodes=1000).outcome(start)
    got = solve(start, max_nodes=1000)
    assert got.outcome is None and "positions to search" in (got.note or "")


def _mid_positions(preset: str, seats: int, options: dict[str, object], count: int,
                   plays: int = 8) -> list[State]:
    """Seeded random matches' positions after their first deal's ``plays``-th play."""
    out = []
    seed = 0
    while len(out) < count:
        seed += 1
        start, line = next(iter(match_states(preset, seats, options, seed)))
        mid = [st for st in line if st.plays == plays and st.phase == "playing"]
        if mid:
            out.append(mid[0])
    return out


@pytest.mark.parametrize(("preset", "seats", "options"), EVERY)
def test_solve_from_any_position_is_the_deal_solvers_value(
        preset: str, seats: int, options: dict[str, object]) -> None:
    # A prefix of a deal, solved on its own with the small shared table, one deal after
    # another: the value and options of a solver of the whole deal, and brute force on
    # an endgame.
    for start, line in [next(iter(match_states(preset, seats, options, s))) for s in (1, 2)]:
        whole = DealSolver(start)
        late = [st for st in line if sum(h.bit_count() for h in st.hands) <= 9]
        for st in late[:3]:
            got = solve(st, options=True)
            assert got.outcome == whole.outcome(st) == brute(st)
            assert got.options == tuple(whole.options(st))
            side = st.rules.side_of(st.to_move or 0)
            top = max(solver_module.worth(st.rules, o.outcome, side) for o in got.options)
            assert got.best_moves(st) == tuple(
                o.move for o in got.options
                if solver_module.worth(st.rules, o.outcome, side) == top)


def test_hidden_hands_given_by_the_caller() -> None:
    # Seed 000, Domena with four seats: a position where only seat 0's hand is known,
    # the others' hands supplied (as the knowledge review samples them): the value of
    # the position with those hands; without them, no value and the reason.
    start, line = next(iter(match_states("domena", 4, None, 3)))
    st = line[12]
    hidden = st.copy()
    hidden.hidden = [0] + [h.bit_count() for h in st.hands[1:]]
    hidden.hands = [st.hands[0], 0, 0, 0]
    assert solve(hidden).outcome is None and "hidden" in (solve(hidden).note or "")
    got = solve(hidden, hands=st.hands, options=True)
    assert got.outcome == DealSolver(st).outcome(st) == brute(st)
    # Other hands for the same seats: another position, its own value.
    others = list(st.hands)
    others[1], others[2] = st.hands[2], st.hands[1]
    assert solve(hidden, hands=others).outcome == brute(with_hands(st, others))


def test_a_batch_is_solved_on_every_core_as_one_by_one() -> None:
    # Positions of several tables mixed in one batch: solve_many (forked workers) gives
    # what solve gives one at a time, in order.
    positions: list[State] = []
    for preset, seats in (("domena", 4), ("sahrat-fives", 2), ("casual-arena", 3),
                          ("selminha", 2)):
        positions += _mid_positions(preset, seats, {}, 6, plays=10)
    one = [solve(st, options=True) for st in positions]
    many = solve_many(positions, options=True, workers=2)
    assert many == one
    assert all(s.outcome is not None for s in many)
    assert [s.outcome for s in solve_many(positions, workers=1)] == [s.outcome for s in one]


def test_the_shared_search_is_reset_between_deals() -> None:
    # One-position solves reuse one C search per table: a deal's kept bounds must never
    # answer for another deal's position (other hands behind the same tiles held).
    positions = _mid_positions("domena", 4, {}, 8, plays=12)
    assert [solve(st).outcome for st in positions] == \
        [DealSolver(st, native_slots=SMALL_SLOTS).outcome(st) for st in positions]
    assert [solve(st).outcome for st in reversed(positions)] == \
        [DealSolver(st).outcome(st) for st in reversed(positions)]


def test_a_finished_position_is_its_result() -> None:
    start, line = next(iter(match_states("sahrat-fives", 2, None, 4)))
    last = line[-1]
    for move in legal_moves(last):
        end = after(last, move)
        if end.phase != "playing":
            assert solve(end).outcome == DealSolver(start).outcome(end)


def test_without_the_c_search_the_python_one_answers_and_says_so_once(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    # An install without a C compiler (setup.py builds the C part as optional).
    monkeypatch.setattr(solver_module, "_NativeSearch", None)
    monkeypatch.setattr(solver_module, "_said_python", False)
    start, line = next(iter(match_states("domena", 4, None, 1)))
    with caplog.at_level("WARNING", logger="ledger.analysis.solver"):
        first = DealSolver(start)
        second = DealSolver(start)
    assert not first.native and not second.native
    said = [r for r in caplog.records if "C search was not built" in r.getMessage()]
    assert len(said) == 1
    st = line[-6]
    assert first.outcome(st) == brute(st)


def test_two_threads_on_one_position_give_one_threads_values() -> None:
    # Seed 001, Sahrat Fives with four seats (max-n, every seat scores during the deal):
    # positions large enough for the two-thread search (14 tiles held or more) get the
    # value and options of one thread; a visit limit stops both, with no value.
    checked = 0
    for seed in (1, 2):
        start, line = next(iter(match_states("sahrat-fives", 4, None, seed)))
        one, two = DealSolver(start, threads=1), DealSolver(start, threads=2)
        for st in line:
            if not 14 <= sum(h.bit_count() for h in st.hands) <= 15:
                continue
            assert two.outcome(st) == one.outcome(st)
            assert two.options(st) == one.options(st)
            checked += 1
    assert checked >= 2
    start, line = next(iter(match_states("sahrat-fives", 4, None, 3)))
    with pytest.raises(TooLarge, match="positions to search"):
        DealSolver(start, threads=2, max_nodes=5_000).outcome(line[2])


def test_fibers_give_one_searchs_values() -> None:
    # Seed 001 and 002, Sahrat Fives with four seats: several searches of one position on
    # a thread (fibers, switching while the table's memory comes) give the value and
    # options of a single search, on one thread and on two; a visit limit stops them all,
    # with no value.
    checked = 0
    for seed in (1, 2):
        start, line = next(iter(match_states("sahrat-fives", 4, None, seed)))
        one = DealSolver(start, threads=1, fibers=1)
        fibers = [DealSolver(start, threads=1, fibers=6), DealSolver(start, threads=2, fibers=3)]
        for st in line:
            if not 14 <= sum(h.bit_count() for h in st.hands) <= 15:
                continue
            for other in fibers:
                assert other.outcome(st) == one.outcome(st)
                assert other.options(st) == one.options(st)
            checked += 1
        assert one._native is not None and one._native.fibered == 0
        for other in fibers:  # the values above were worked out on fibers
            assert other._native is not None and other._native.fibered > 0
    assert checked >= 2
    start, line = next(iter(match_states("sahrat-fives", 4, None, 3)))
    for threads in (1, 2):
        with pytest.raises(TooLarge, match="positions to search"):
            DealSolver(start, threads=threads, fibers=4, max_nodes=5_000).outcome(line[2])


class _Interrupted(Exception):
    pass


def test_a_signal_stops_a_search_on_fibers_and_the_solver_still_answers() -> None:
    # A signal (Ctrl-C, here an alarm from the kernel) during a first deal's search on
    # fibers (one thread: it holds the GIL and looks at the signals): the handler's
    # exception comes out at once, and the same solver then values a position exactly.
    start, line = next(iter(match_states("sahrat-fives", 4, None, 1)))
    solver = DealSolver(start, threads=1, fibers=6)

    def interrupted(signum: int, frame: object) -> None:
        raise _Interrupted

    old = signal.signal(signal.SIGALRM, interrupted)
    try:
        began = time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        with pytest.raises(_Interrupted):
            solver.outcome(start)  # a whole first deal: several seconds of search
        assert time.monotonic() - began < 3
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert solver._native is not None and solver._native.fibered == 0
    late = next(st for st in line if sum(h.bit_count() for h in st.hands) == 14)
    assert solver.outcome(late) == DealSolver(start, threads=1, fibers=1).outcome(late)
    assert solver._native.fibered == 1
