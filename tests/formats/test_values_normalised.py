"""Values the ledger cannot hold are findings at every way in (issue 19): the file reader here,
the API and the recorder's form in tests/store/test_names_and_values.py.

A NUL or control character in a name, a name over ``MAX_NAME`` characters, whole numbers
beyond 64 bits and non-numbers in ``source``/``table.options``, more seats than any table,
times that are not times, and tiles written with digits other than ASCII's. Each is one
finding on its own line; the lines after it are read as ever (../shared/match-format.md,
"Container": a bad line must not stop the others).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from ledger.audit import audit_record
from ledger.findings import CODES
from ledger.formats.reader import parse_match, read_matches
from ledger.formats.values import MAX_NAME, MAX_SEATS
from ledger.tiles import Tile, TileError

GOOD: dict[str, Any] = {
    "format": "domino-match/1", "table": {"rules": "domena"}, "seats": ["Ali", "Omar"],
    "events": [{"type": "deal", "hands": [["6-6", "5-3", "4-1", "2-0", "1-1", "6-4", "3-2"],
                                          ["5-5", "6-3", "4-4", "2-1", "0-0", "6-0", "5-1"]]},
               {"type": "play", "seat": 0, "tile": "6-6"}],
}


def _header_problem(match: dict[str, Any]) -> tuple[str, str]:
    rec = parse_match(match)
    assert rec.header is None and len(rec.problems) == 1, rec.problems
    f = rec.problems[0]
    assert f.code in CODES
    return f.code, f.message


@pytest.mark.parametrize(("seats", "says"), [
    (["Ali\x00x", "Omar"], "the name of seat 0 holds the control character U+0000"),
    (["Ali", "Om\x1bar"], "the name of seat 1 holds the control character U+001B"),
    (["Ali", "Om\ud800ar"], "the name of seat 1 holds the control character U+D800"),
    (["x" * (MAX_NAME + 1), "Omar"], f"is {MAX_NAME + 1} characters long; a name has at most"),
    (["\u6f22" * 3000, "Omar"], "is 3000 characters long"),  # 9 KB of UTF-8, no compression
])
def test_a_name_the_ledger_cannot_hold_is_a_bad_name(seats: list[str], says: str) -> None:
    code, message = _header_problem(dict(GOOD, seats=seats))
    assert code == "bad-name" and says in message


def test_names_up_to_the_limit_and_of_any_script_are_read() -> None:
    rec = parse_match(dict(GOOD, seats=["x" * MAX_NAME, "ليلى 🁣 \"q\" tab-less"]))
    assert rec.header is not None and not rec.problems


@pytest.mark.parametrize(("field", "value", "says"), [
    ("source", {"id": 2 ** 64}, "source.id holds a whole number beyond 64 bits"),
    ("source", {"ids": [1, -(2 ** 63) - 1]}, "source.ids[1] holds a whole number beyond 64"),
    ("options", {"target": 2 ** 63}, "table.options.target holds a whole number beyond 64"),
    ("source", {"x": float("nan")}, "source.x holds nan, which is not a JSON number"),
    ("source", {"x": "a\x00b"}, "source.x holds the character U+0000"),
    ("source", {"k\x00": 1}, "source holds the character U+0000"),
    ("source", {"a": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]},
     "source is nested more than 32 levels deep"),
])
def test_a_free_form_value_the_ledger_cannot_hold_is_refused(field: str, value: Any,
                                                             says: str) -> None:
    match = dict(GOOD, source=value) if field == "source" else \
        dict(GOOD, table={"rules": "domena", "options": value})
    code, message = _header_problem(match)
    assert code == "bad-format" and says in message


def test_numbers_within_64_bits_are_kept() -> None:
    rec = parse_match(dict(GOOD, source={"id": 2 ** 63 - 1, "low": -(2 ** 63), "f": 1.5}))
    assert rec.header is not None and rec.header.source == {"id": 2 ** 63 - 1,
                                                            "low": -(2 ** 63), "f": 1.5}


def test_a_hundred_thousand_seats_is_one_finding() -> None:
    code, message = _header_problem(dict(GOOD, seats=["a"] * 100_000))
    assert code == "bad-seat-count"
    assert f"100000 seats: no table is played by more than {MAX_SEATS}" in message


@pytest.mark.parametrize("value", ["not a date", "2026-13-01", "20:15", ""])
def test_started_at_that_is_not_a_time_is_a_finding(value: str) -> None:
    code, message = _header_problem(dict(GOOD, started_at=value))
    assert code == "bad-format" and "started_at is not an ISO 8601 time" in message


@pytest.mark.parametrize("value", ["2026-11-01T20:15:00Z", "2026-11-01",
                                   "2026-11-01T20:15:00+03:00"])
def test_iso_times_are_read(value: str) -> None:
    rec = parse_match(dict(GOOD, started_at=value))
    assert rec.header is not None and not rec.problems


def test_an_event_time_that_is_not_a_time_is_that_events_finding() -> None:
    events = [GOOD["events"][0], dict(GOOD["events"][1], at="yesterday")]
    rec = parse_match(dict(GOOD, events=events))
    assert [(f.event, f.code) for f in rec.problems] == [(1, "bad-event")]
    assert "at is not an ISO 8601 time: 'yesterday'" in rec.problems[0].message


@pytest.mark.parametrize("text", ["６-６", "６６", "[６:６]", "٦-٦", "6-６"])
def test_digits_other_than_ascii_are_no_tile(text: str) -> None:
    with pytest.raises(TileError):
        Tile.parse(text)
    events = [GOOD["events"][0], dict(GOOD["events"][1], tile=text)]
    rec = parse_match(dict(GOOD, events=events))
    assert [(f.event, f.code) for f in rec.problems] == [(1, "bad-tile")]


def test_a_bad_line_never_stops_the_lines_after_it(tmp_path: Path) -> None:
    bad = [dict(GOOD, seats=["Ali\x00", "Omar"]), dict(GOOD, seats=["\u6f22" * 5000, "B"]),
           dict(GOOD, started_at="not a date"), dict(GOOD, source={"id": 2 ** 63}),
           dict(GOOD, seats=["a"] * 100_000)]
    path = tmp_path / "mixed.jsonl"
    # The stdlib writes what orjson will not (integers beyond 64 bits); orjson reads it.
    import json
    path.write_text("".join(json.dumps(m) + "\n" for m in [*bad, GOOD]), encoding="utf-8")
    reports = [audit_record(r) for r in read_matches(path)]
    assert [r.line for r in reports] == [1, 2, 3, 4, 5, 6]
    assert [r.findings[0].code for r in reports[:5]] == \
        ["bad-name", "bad-name", "bad-format", "bad-format", "bad-seat-count"]
    assert reports[5].ok and orjson.dumps(reports[5].to_dict())


@pytest.mark.parametrize("event", [
    {"type": "deal_end", "result": "out", "winner": 0, "points": 2 ** 64},
    {"type": "deal_end", "result": "out", "winner": 0, "points": -(2 ** 63) - 1},
    {"type": "match_end", "winner": 0, "scores": [2 ** 70, 1]},
])
def test_claimed_numbers_beyond_64_bits_are_that_events_finding(event: dict[str, Any]) -> None:
    from ledger.formats.wire import ParseError, parse_event

    with pytest.raises(ParseError) as got:
        parse_event(event, 2)
    assert got.value.code == "bad-event"
    assert len(got.value.message) < 120
