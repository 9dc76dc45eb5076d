"""The reader's and auditor's fast paths give what the plain code gives.

``parse_events`` keeps one event object per distinct play/draw/pass and looks
tiles up by their exact text; ``advance_all`` folds a record with one context.
Neither may change a result: the same events (or the same errors), the same
derived events, the same state.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.audit import audit_record
from ledger.engine import new_state, step
from ledger.formats.reader import parse_match
from ledger.formats.wire import ParseError, _parse_event, parse_events
from ledger.tiles import ALL_TILES

from .corpus import Table, match_dict, recorded_events, rules_of, seeds, tables

TEXTS = [str(t) for t in ALL_TILES] + ["3-6", "63", "6|3", "[3:6]", " 6 - 3 ", "7-1", "x", ""]
ODD = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 5), st.floats(), st.sampled_from(TEXTS),
    st.lists(st.integers(0, 7), max_size=3), st.sampled_from(["left", "right", "up", "middle"]),
    st.dictionaries(st.just("k"), st.integers(), max_size=1),
)
MOVES = st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "draw", "pass"]), "seat": st.integers(0, 4)},
    optional={"tile": st.sampled_from(TEXTS), "end": st.sampled_from(["left", "right", "up"])},
)
EVENTS = st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "draw", "pass", "deal", "reveal", "bogus"])},
    optional={"seat": ODD, "tile": ODD, "end": ODD, "hands": ODD,
              "at": st.one_of(st.none(), st.just("2026-11-01T20:15:00Z"), st.integers())},
)


def _plain(obj: Any, seats: int) -> object:
    """What the event reads as without any cache: the event, or the error's code and text."""
    try:
        return _parse_event(obj, seats)
    except ParseError as exc:
        return (exc.code, exc.message)


@settings(max_examples=60, deadline=None)
@given(objs=st.lists(st.one_of(MOVES, EVENTS, ODD), max_size=12), seats=st.integers(1, 4))
def test_parse_events_reads_every_event_as_the_plain_reader(objs: list[Any], seats: int) -> None:
    expected = [_plain(obj, seats) for obj in objs]
    for _ in range(2):  # a cold and a warm cache
        events, errors = parse_events(objs, seats)
        failed = dict(errors)
        got = [(failed[i].code, failed[i].message) if i in failed else ev
               for i, ev in enumerate(events)]
        assert got == expected
        assert all(events[i] is None for i in failed)


@settings(max_examples=30, deadline=None)
@given(table=tables(), seed=seeds)
def test_the_auditor_derives_what_stepping_through_the_engine_derives(
        table: Table, seed: int) -> None:
    report = audit_record(parse_match(match_dict(table, seed)))
    state = new_state(rules_of(table))
    for i, ev in enumerate(recorded_events(table, seed)):
        result = step(state, ev, i)
        assert report.derived[i] == result.derived, f"event {i}"
        state = result.state
    assert report.state == state
