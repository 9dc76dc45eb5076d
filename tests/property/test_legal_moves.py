"""ledger.engine.legal_moves against a brute-force referee written from the rule text.

At every position of random legal matches of every table, the engine's moves
must be exactly the candidates (28 tiles x 4 ends, draw, pass) the referee
(tests/property/referee.py, which cites the seed sentences) accepts.
"""

from __future__ import annotations

from hypothesis import given, settings

from ledger.engine import legal_moves, new_state, step
from ledger.tiles import mask_of

from .corpus import Table, recorded_events, rules_of, seeds, tables
from .referee import Referee


def _engine_moves(state: object) -> set[tuple[object, object, object]]:
    moves = legal_moves(state)  # type: ignore[arg-type]
    as_tuples = [(m.kind, m.tile, m.end) for m in moves]
    assert len(set(as_tuples)) == len(as_tuples), f"duplicate moves: {as_tuples}"
    return set(as_tuples)


@settings(max_examples=60, deadline=None)
@given(table=tables(), seed=seeds)
def test_legal_moves_are_exactly_what_the_rules_allow(table: Table, seed: int) -> None:
    preset, seats, _ = table
    events = recorded_events(table, seed)
    referee = Referee(preset, seats)
    state = new_state(rules_of(table))
    assert _engine_moves(state) == referee.moves() == set()
    for i, ev in enumerate(events):
        state = step(state, ev, i).state
        referee.feed(ev)
        # The referee follows the record on its own; it must see the same tiles.
        if referee.phase != "waiting":
            assert [mask_of(h) for h in referee.hands] == state.hands, f"after event {i}"
            assert mask_of(referee.line) == state.table, f"after event {i}"
        expected = referee.moves()
        assert _engine_moves(state) == expected, f"after event {i} ({ev})"
        if expected:
            assert state.to_move == referee.to_move, f"after event {i}: who moves"
