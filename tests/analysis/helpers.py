"""Shared by the analysis tests: a plain brute-force search and positions to try it on.

The brute force is written from the rules as ``ledger/analysis/solver.py``'s module
doc states them, on the engine's own states (``legal_moves`` and ``advance``): no
pruning, no memo, no compact state. It shares no code with the solver, so the two
agree only if the solver's search and terminal values are right.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import cache
from typing import Any

from ledger.engine.fold import advance
from ledger.engine.moves import Move, legal_moves
from ledger.engine.state import CLOSED, State
from ledger.events import Dealt, Event, Played
from ledger.formats.canonical import match_hash
from ledger.formats.reader import MatchRecord, parse_match
from ledger.rules import make_rules
from ledger.rules.base import Rules
from ledger.sim.generator import generate_match
from ledger.tiles import Tile, mask_of

Vec = tuple[int, ...]


def after(st: State, move: Move) -> State:
    """The engine's state after ``move`` (a draw takes the stock's next tile)."""
    child = st.copy()
    tile = st.stock[st.stock_pos] if move.kind == "draw" and st.stock else None
    assert st.to_move is not None
    advance(child, move.event(st.to_move, tile), None, [], [])
    return child


def result_of(st: State) -> Vec:
    """Points per side at the end of a finished deal, in-deal Fives scores included."""
    vec = list(st.in_deal)
    res = st.last_result
    if res is not None and res.winner is not None:
        vec[st.rules.side_of(res.winner)] += res.points
    return tuple(vec)


def maxn_preference(vec: Vec, start: Vec, side: int) -> tuple[int, ...]:
    """The max-n order of the solver's doc, on the points still to come.

    Own points first; then the strongest other side's points (fewer is better);
    then the others' total (fewer is better); then the points in seat order, lowest first.
    """
    future = [v - s for v, s in zip(vec, start, strict=True)]
    others = [v for i, v in enumerate(future) if i != side]
    return (future[side], -max(others), -sum(others), *(-v for v in future))


def brute(st: State) -> Vec:
    """Best-play outcome by exhaustive search."""
    if st.phase != "playing":
        return result_of(st)
    rules = st.rules
    assert st.to_move is not None
    side = rules.side_of(st.to_move)
    best: Vec | None = None
    for move in legal_moves(st):
        vec = brute(after(st, move))
        if best is None or better(rules, vec, best, side, tuple(st.in_deal)):
            best = vec
    assert best is not None
    return best


def exhaustive() -> Callable[[State], Vec]:
    """``brute`` that remembers each position's future points (a whole deal is millions of
    lines, far fewer positions). A position is the engine's whole state but for the
    points already scored: every hand, the board, the stock's place, who moves.
    """
    memo: dict[tuple[object, ...], Vec] = {}

    def search(st: State) -> Vec:
        if st.phase != "playing":
            return result_of(st)
        start = tuple(st.in_deal)
        key = (tuple(st.hands), tuple(st.ends), tuple(st.doubles), st.spinner, st.arms,
               st.stock_pos, st.to_move, st.table)
        future = memo.get(key)
        if future is None:
            assert st.to_move is not None
            side = st.rules.side_of(st.to_move)
            best: Vec | None = None
            for move in legal_moves(st):
                vec = search(after(st, move))
                if best is None or better(st.rules, vec, best, side, start):
                    best = vec
            assert best is not None
            future = memo[key] = tuple(b - a for a, b in zip(start, best, strict=True))
        return tuple(a + f for a, f in zip(start, future, strict=True))

    return search


def better(rules: Rules, vec: Vec, than: Vec, side: int, start: Vec) -> bool:
    if rules.sides == 2:
        # Two sides: the margin; among equal margins the first move in legal order.
        return vec[side] - vec[1 - side] > than[side] - than[1 - side]
    return maxn_preference(vec, start, side) > maxn_preference(than, start, side)


def brute_options(st: State) -> list[tuple[str, Vec]]:
    return [(str(m), brute(after(st, m))) for m in legal_moves(st)]


def match_states(preset: str, seats: int, options: dict[str, Any] | None,
                 seed: int) -> Iterator[tuple[State, list[State]]]:
    """For each deal of a generated match: its start state and the states before each move."""
    record = parse_match(generate_match(preset, seats, options or {}, seed=seed))
    rules = make_rules(preset, seats, options or {})
    st = State(rules)
    start: State | None = None
    line: list[State] = []
    for i, ev in enumerate(record.events):
        if start is not None and st.phase == "playing" and not isinstance(ev, Dealt):
            line.append(st.copy())
        advance(st, ev, i, [], [])
        if isinstance(ev, Dealt) and not st.redeal_due:
            if start is not None:
                yield start, line
            start, line = st.copy(), []
        elif start is not None and st.phase != "playing" and line:
            yield start, line
            start, line = None, []


def endgame(preset: str, seats: int, options: dict[str, Any] | None, seed: int,
            held: int) -> tuple[State, State] | None:
    """The first deal's start and its first position with at most ``held`` tiles in hands."""
    for start, line in match_states(preset, seats, options, seed):
        for st in line:
            if sum(h.bit_count() for h in st.hands) <= held and st.to_move is not None:
                return start, st
        return None
    return None


def position(rules: Rules, hands: Sequence[Sequence[str]], ends: tuple[int, int],
             to_move: int, *, leader: int = 0, in_deal: Sequence[int] | None = None,
             stock: Sequence[str] = ()) -> State:
    """A hand-made position in the middle of a deal: the tiles held, the two open ends.

    Every tile held by nobody and not in ``stock`` counts as laid (or out of play).
    """
    st = State(rules)
    st.phase = "playing"
    st.deal = 0
    held = [mask_of(Tile.parse(t) for t in hand) for hand in hands]
    st.hands = held
    st.hidden = [0] * rules.seats
    stock_tiles = tuple(Tile.parse(t) for t in stock)
    st.stock = stock_tiles if rules.draws and rules.stock_size else None
    st.stock_pos = 0
    st.stock_left = len(stock_tiles)
    if st.stock is not None:
        # The listed stock is its end: the tiles before it were drawn already.
        missing = rules.stock_size - len(stock_tiles)
        st.stock = (*(Tile.parse("0-0"),) * missing, *stock_tiles)
        st.stock_pos = missing
    everything = mask_of(Tile.parse(t) for hand in hands for t in hand) | mask_of(stock_tiles)
    st.table = ((1 << 28) - 1) & ~everything
    st.ends[:] = [ends[0], ends[1], CLOSED, CLOSED]
    st.doubles[:] = [False] * 4
    st.to_move = to_move
    st.leader = leader
    st.last_player = (to_move - 1) % rules.seats
    st.plays = 1
    if in_deal is not None:
        st.in_deal = list(in_deal)
    return st


def play(st: State, text: str) -> State:
    """The state after the move written ``text`` ("6-3 right", "draw", "pass")."""
    move = Move.parse(text)
    legal = legal_moves(st)
    assert move in legal, f"{text} is not legal here: {', '.join(map(str, legal))}"
    return after(st, move)


def events_of(objs: Sequence[dict[str, Any]], seats: int) -> list[Event]:
    from ledger.formats.wire import parse_event

    return [parse_event(o, seats) for o in objs]


__all__ = ["Played", "after", "brute", "brute_options", "endgame", "events_of", "exhaustive",
           "match_states", "maxn_preference", "play", "position", "result_of"]


def assert_left_out_not_guessed(small: Any, full: Any) -> None:
    """``small``, a deal review with its start left out, holds only ``full``'s values.

    Some positions (the last ones at least) are solved, not all, and every value and
    decision given is the one of the review that solved everything.
    """
    assert small.best is None and full.best is not None and full.note is None
    solved = [s for s in small.steps if s.outcome is not None]
    assert solved and len(solved) < len(small.steps)
    assert small.steps[-1].outcome == full.steps[-1].outcome
    by_event = {s.event: s for s in full.steps}
    for s in solved:
        assert s.outcome == by_event[s.event].outcome
    full_decisions = {d.event: d for d in full.decisions}
    for d in small.decisions:
        assert d == full_decisions[d.event]


@cache
def generated_match(preset: str, seats: int, seed: int) -> tuple[Rules, MatchRecord, str]:
    """A seeded generated match of a table with no options: its rules, record and hash."""
    record = parse_match(generate_match(preset, seats, {}, seed=seed))
    assert record.header is not None
    key = match_hash(record.header, [e for e in record.events if e is not None])
    return make_rules(preset, seats, {}), record, key
