"""Rebuilding hidden hands (ledger/formats/partial.py) on small records worked by hand."""

from __future__ import annotations

from typing import Any

from ledger.audit import audit_record
from ledger.events import Dealt, Drew
from ledger.formats.partial import rebuild_hands
from ledger.formats.reader import parse_match
from ledger.formats.wire import parse_event
from ledger.rules import make_rules
from ledger.tiles import Tile

T = Tile.parse


def tiles(text: str) -> set[Tile]:
    return {T(t) for t in text.split()}


def move(text: str) -> dict[str, Any]:
    words = text.split()
    if words[1] == "pass":
        return {"type": "pass", "seat": int(words[0])}
    if words[1] == "draw":
        return {"type": "draw", "seat": int(words[0]), "tile": None}
    ev: dict[str, Any] = {"type": "play", "seat": int(words[0]), "tile": words[1]}
    if len(words) > 2:
        ev["end"] = words[2]
    return ev


def events_of(raw: list[dict[str, Any]], seats: int) -> list[Any]:
    return [parse_event(ev, seats) for ev in raw]


# The Arab Block deal of sample_matches/faults.py (checked by hand there): seat 0 opens
# 6-6; it passes at event 5 (ends 0 | 5) and 7 (5 | 5); the deal blocks after 13 with
# ends 1 | 0, seat 0 holding 6-3 4-3 and seat 1 holding 4-2.
BLOCK_HANDS = ["6-6 6-3 4-3 4-0 3-3 2-1 1-1", "6-5 6-4 5-3 5-2 5-0 4-2 3-0"]
BLOCK_MOVES = ["0 6-6", "1 6-4 left", "0 4-0 left", "1 6-5 right", "0 pass", "1 5-0 left",
               "0 pass", "1 5-2 left", "0 2-1 left", "1 5-3 right", "0 3-3 right",
               "1 3-0 right", "0 1-1 left", "1 pass", "0 pass"]


def _block_record() -> list[Any]:
    deal = {"type": "deal", "hands": [None, BLOCK_HANDS[1].split()]}
    return events_of([deal, *map(move, BLOCK_MOVES)], 2)


def test_a_seat_that_passed_holds_none_of_the_numbers_that_showed() -> None:
    rules = make_rules("arab-block", 2)
    _, (hidden,) = rebuild_hands(_block_record(), rules)
    assert hidden.seat == 0 and hidden.unknown == 2
    assert set(hidden.known) == tiles("6-6 4-0 3-3 2-1 1-1")
    # Unseen: 16 tiles. Passing on 0 | 5, on 5 | 5 and (after the block) on 1 | 0, seat
    # 0 held no 0, 5 or 1 it had not laid yet: 0-0 1-0 2-0 6-0 5-1 5-4 5-5 3-1 4-1 6-1 go.
    assert set(hidden.candidates) == tiles("2-2 3-2 4-3 4-4 6-2 6-3")
    assert {T("6-3"), T("4-3")} <= set(hidden.candidates)


def test_without_the_rules_nothing_is_deduced_from_passes() -> None:
    _, (hidden,) = rebuild_hands(_block_record())
    assert len(hidden.candidates) == 16 and hidden.unknown == 2


def test_the_last_hidden_hand_is_what_the_others_leave() -> None:
    """Four seats deal all 28 tiles: three hands shown settle the fourth at once."""
    hands = ["6-4 6-1 5-5 5-0 4-3 3-1 0-0", "6-5 5-3 5-1 4-4 4-2 2-1 2-0",
             "6-2 5-2 4-1 3-3 3-0 1-1 1-0", None]
    raw = [{"type": "deal", "hands": [h.split() if h else None for h in hands]},
           move("3 6-6")]
    events, hidden = rebuild_hands(events_of(raw, 4), make_rules("domena", 4))
    assert hidden == []
    deal = events[0]
    assert isinstance(deal, Dealt) and deal.hands[3] is not None
    assert set(deal.hands[3]) == tiles("6-6 6-3 6-0 5-4 4-0 3-2 2-2")


def test_an_unseen_draw_is_the_tile_played_next_and_only_that() -> None:
    """Seat 1 draws five unseen tiles and plays the fifth at once: that one is known
    ("it can only be the drawn one"); the four it kept are not."""
    raw = [{"type": "deal", "hands": [["6-5", "6-3", "6-2", "3-3", "3-0", "2-2", "2-0"], None]},
           *map(move, ["1 6-6", "0 6-3 right", "1 3-1 right", "0 6-2 left", "1 2-1 right",
                       "0 2-2 left", "1 draw", "1 draw", "1 draw", "1 draw", "1 draw",
                       "1 4-2 right"])]
    events, _ = rebuild_hands(events_of(raw, 2), make_rules("domena", 2))
    draws = [ev for ev in events if isinstance(ev, Drew)]
    assert [d.tile for d in draws] == [None, None, None, None, T("4-2")]


def test_a_redealt_deal_reports_nothing() -> None:
    hands = [["6-4", "6-1", "5-5", "5-0", "4-3", "3-1", "0-0"], None, None, None]
    raw = [{"type": "deal", "hands": hands}, {"type": "deal", "hands": hands}]
    _, hidden = rebuild_hands(events_of(raw, 4), make_rules("selminha", 4))
    assert hidden == []


def test_a_redeal_with_hidden_hands_is_not_called_unexpected() -> None:
    """Selminha: the recorder cannot see whether another hand held four doubles; with
    every hand shown (none holds four) the same redeal is an error."""
    hands = [h.split() for h in ("6-4 6-1 5-5 5-0 4-3 3-1 0-0", "6-5 5-3 5-1 4-4 4-2 2-1 2-0",
                                 "6-2 5-2 4-1 3-3 3-0 1-1 1-0", "6-6 6-3 6-0 5-4 4-0 3-2 2-2")]
    seen = [hands[0], None, None, None]
    for shown, codes in ((seen, []), (hands, ["unexpected-redeal"])):
        match = {"format": "domino-match/1", "table": {"rules": "selminha"},
                 "seats": ["João", "Maria", "Tiago", "Inês"],
                 "events": [{"type": "deal", "hands": shown}, {"type": "deal", "hands": shown}]}
        report = audit_record(parse_match(match))
        assert [f.code for f in report.errors] == codes
