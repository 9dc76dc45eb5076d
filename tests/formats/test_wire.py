"""Wire objects of domino-match/1 <-> events, and the format's rule for a missing ``end``."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from ledger.audit import audit_record
from ledger.events import (
    Abandoned,
    BlockClaimed,
    BlockDetected,
    BotSeated,
    DealEndClaimed,
    DealScored,
    Dealt,
    DrawAgreed,
    Drew,
    Event,
    FivesScored,
    HandsRevealed,
    MatchEndClaimed,
    MatchEnded,
    Passed,
    Played,
    Resigned,
)
from ledger.formats.reader import parse_match
from ledger.formats.wire import event_from_dict, event_to_dict, parse_event
from ledger.tiles import ALL_TILES, Tile

T = Tile.parse
RECORDED: list[Event] = [
    Dealt(hands=(tuple(ALL_TILES[:7]), None), stock=tuple(ALL_TILES[14:]), at="2026-11-01T20:15Z"),
    Played(seat=1, tile=T("6-3"), end="right"),
    Played(seat=0, tile=T("6-3"), reversed=True),
    Drew(seat=0, tile=None),
    Drew(seat=1, tile=T("0-0"), at="2026-11-01T20:16Z"),
    Passed(seat=1),
    BlockClaimed(),
    HandsRevealed(hands=((T("1-1"),), ())),
    DealEndClaimed(result="tie", winner=None, points=0),
    DealEndClaimed(result="out", winner=1, points=None),
    BotSeated(seat=1),
    Resigned(seat=0),
    Abandoned(reason="no moves for 7 days"),
    Abandoned(),
    DrawAgreed(),
    MatchEndClaimed(winner=None, scores=(40, 40)),
]
DERIVED: list[Event] = [
    BlockDetected(deal=2),
    FivesScored(deal=0, seat=1, points=10),
    DealScored(deal=0, result="out", winner=1, points=23, scores=(0, 23), leader=0,
               pips=(23, 0)),
    MatchEnded(winner=0, scores=(101, 7), reason="target"),
]


@pytest.mark.parametrize("event", RECORDED + DERIVED, ids=lambda e: e.TYPE)
def test_written_events_have_only_the_format_fields(event: Event) -> None:
    """Regression: ClassVars (TYPE, DERIVED) leaked into every deal_end, match_end, etc."""
    out = event_to_dict(event)
    names = {f.name for f in dataclasses.fields(event)} - {"at", "reversed"}
    assert out["type"] == event.TYPE
    assert set(out) - {"type", "at"} <= names
    assert "TYPE" not in out and "DERIVED" not in out


@pytest.mark.parametrize("event", RECORDED, ids=lambda e: e.TYPE)
def test_recorded_events_round_trip(event: Event) -> None:
    assert parse_event(event_to_dict(event), 2) == event


@pytest.mark.parametrize("event", DERIVED, ids=lambda e: e.TYPE)
def test_derived_events_round_trip(event: Event) -> None:
    assert event_from_dict(event_to_dict(event), 2) == event


# --- "end may be left out when every end the tile fits would leave the same open
# numbers (and, in Fives, the same count); the tile then goes on the first end it
# fits in the order left, right, up, down" (match-format.md, play).

HANDS = [["3-3", "2-1", "5-3", "6-0", "5-0", "4-0", "6-4"],
         ["3-1", "3-2", "6-5", "6-2", "5-2", "4-1", "0-0"]]


def _record(preset: str, last: dict[str, Any]) -> Any:
    # 3-3 is the highest double dealt: seat 0 opens it. After 3-1, 2-1 and 3-2 on the
    # left, the left end shows a plain 3 and the right end the double 3-3.
    events: list[dict[str, Any]] = [
        {"type": "deal", "hands": HANDS},
        {"type": "play", "seat": 0, "tile": "3-3"},
        {"type": "play", "seat": 1, "tile": "3-1", "end": "left"},
        {"type": "play", "seat": 0, "tile": "2-1", "end": "left"},
        {"type": "play", "seat": 1, "tile": "3-2", "end": "left"},
        last,
    ]
    match = {"format": "domino-match/1", "table": {"rules": preset}, "seats": ["A", "B"],
             "events": events}
    return audit_record(parse_match(match))


@pytest.mark.parametrize("preset", ["arab-block", "domena"])
def test_end_may_be_left_out_when_both_ends_leave_the_same_numbers(preset: str) -> None:
    """Regression: the engine compared "a double lies at this end" too, which the format
    does not, and stopped such a record with missing-end."""
    report = _record(preset, {"type": "play", "seat": 0, "tile": "5-3"})
    assert report.errors == []
    assert report.state.open_ends() == [("left", 5), ("right", 3)]  # the first end it fits


def test_in_fives_the_same_play_must_name_its_end() -> None:
    """Sahrat Fives: 3-3 opened is the spinner. On the left, 5-3 leaves 5 and the
    uncovered spinner (5 + 3 + 3 = 11); on the right it covers the spinner's second side,
    opening up and down: 3, 5, 3, 3 (count 3 + 5 = 8). Different: the end must be named."""
    report = _record("sahrat-fives", {"type": "play", "seat": 0, "tile": "5-3"})
    assert [(f.event, f.code) for f in report.errors] == [(5, "missing-end")]
    named = _record("sahrat-fives", {"type": "play", "seat": 0, "tile": "5-3", "end": "right"})
    assert named.errors == []
    assert sorted(n for _, n in named.state.open_ends()) == [3, 3, 3, 5]
