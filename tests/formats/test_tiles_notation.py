"""Tiles as the match format writes them (match-format.md, *Tiles* and the ``play`` row).

"A tile is written as two numbers 0 to 6: "6-3". Readers also accept "63", "3-6",
"6|3", "[6:3]" and the JSON array [6, 3]. The two halves are unordered for
identity. Writers use the high number first." And for the first tile of a deal:
"laid as written, its first number is the left end and its second the right end."
"""

from __future__ import annotations

from typing import Any

import pytest

from ledger.audit import audit_record
from ledger.formats.reader import parse_match
from ledger.formats.wire import event_to_dict, parse_event
from ledger.tiles import ALL_TILES, Tile, TileError

SIX_THREE = ["6-3", "63", "3-6", "6|3", "[6:3]", [6, 3], "36", "3|6", "[3:6]", [3, 6]]
NOT_TILES: list[object] = ["7-1", "6-7", "1-9", "6", "663", "6-3-1", "", "six-three", "6_3",
                           [6], [6, 3, 1], [7, 1], [-1, 3], ["6", "3"], [True, 3], 63, None,
                           6.3, {"high": 6, "low": 3}]


@pytest.mark.parametrize("text", SIX_THREE, ids=str)
def test_every_notation_reads_as_the_one_tile(text: object) -> None:
    tile = Tile.parse(text)
    assert tile is Tile.parse("6-3")  # interned: one object per tile
    assert (tile.high, tile.low, tile.pips) == (6, 3, 9)
    assert str(tile) == "6-3"  # the writer's form, high number first


@pytest.mark.parametrize("value", NOT_TILES, ids=repr)
def test_what_is_not_a_tile_is_refused(value: object) -> None:
    with pytest.raises(TileError):
        Tile.parse(value)


def test_the_28_tiles_are_written_high_first() -> None:
    texts = [str(t) for t in ALL_TILES]
    assert len(set(texts)) == 28
    assert all(int(x[0]) >= int(x[2]) and x[1] == "-" for x in texts)
    assert {str(Tile.parse(f"{b}-{a}")) for a in range(7) for b in range(7)} == set(texts)


@pytest.mark.parametrize("text", SIX_THREE, ids=str)
def test_events_read_any_notation(text: object) -> None:
    play = parse_event({"type": "play", "seat": 0, "tile": text, "end": "left"}, 2)
    draw = parse_event({"type": "draw", "seat": 1, "tile": text}, 2)
    assert play.tile is draw.tile is Tile.parse("6-3")  # type: ignore[attr-defined]
    assert event_to_dict(draw)["tile"] == "6-3"


def test_a_deal_in_mixed_notations() -> None:
    deal = parse_event({"type": "deal", "hands": [["6-3", "55", [4, 1], "[2:0]", "1|1", "0-6",
                                                   "4-3"], None]}, 2)
    assert event_to_dict(deal)["hands"] == [["6-3", "5-5", "4-1", "2-0", "1-1", "6-0", "4-3"],
                                            None]


# No doubles dealt and no 6-5, 6-4 or 5-4: 6-3 is the heaviest tile (9 pips, and 6-3
# beats a 5-4 by its higher number), so seat 0 opens with it (seed 003: "If no player
# has a double, the player with the highest-pip tile starts").
HANDS = [["6-3", "5-2", "4-1", "3-0", "6-0", "5-1", "2-0"],
         ["5-3", "4-3", "6-2", "6-1", "4-0", "3-1", "2-1"]]


def _audit(*plays: dict[str, Any]) -> Any:
    match = {"format": "domino-match/1", "table": {"rules": "arab-block"}, "seats": ["A", "B"],
             "events": [{"type": "deal", "hands": HANDS}, *plays]}
    return audit_record(parse_match(match))


@pytest.mark.parametrize("opening", ["3-6", "36", "3|6", "[3:6]", [3, 6]], ids=str)
def test_opening_written_3_6_puts_3_on_the_left(opening: object) -> None:
    report = _audit({"type": "play", "seat": 0, "tile": opening},
                    {"type": "play", "seat": 1, "tile": "5-3", "end": "left"},
                    {"type": "play", "seat": 0, "tile": "6-0", "end": "right"})
    assert report.findings[0].code == "match-unfinished"  # and nothing else
    assert len(report.findings) == 1
    assert report.state.open_ends() == [("left", 5), ("right", 0)]


@pytest.mark.parametrize("opening", ["6-3", "63", "6|3", "[6:3]", [6, 3]], ids=str)
def test_opening_written_6_3_puts_6_on_the_left(opening: object) -> None:
    report = _audit({"type": "play", "seat": 0, "tile": opening},
                    {"type": "play", "seat": 1, "tile": "5-3", "end": "left"})
    assert [(f.event, f.code) for f in report.errors] == [(2, "wrong-end")]
    assert "left end (6)" in report.errors[0].message


def test_the_writer_keeps_an_opening_as_it_was_laid() -> None:
    opening = parse_event({"type": "play", "seat": 0, "tile": "3-6"}, 2)
    assert event_to_dict(opening) == {"type": "play", "seat": 0, "tile": "3-6"}
    assert event_to_dict(parse_event({"type": "play", "seat": 0, "tile": "6-3"}, 2))["tile"] \
        == "6-3"
