"""Issue 32, item 9: a key written twice in one object of a match file is a
``duplicate-key`` finding with its line, never a silent last-wins (orjson's choice).

Before, ``{"seat": 0, "seat": 1}`` read as seat 1 and the audit said nothing."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from ledger.findings import CODES
from ledger.formats import duplicates
from ledger.formats.reader import read_matches

SAMPLE = Path(__file__).resolve().parents[2] / "sample_matches" / "arab-block-2.json"


def _sample() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SAMPLE.read_text(encoding="utf-8"))
    return loaded


def _dups(path: Path) -> list[tuple[int | None, int | None, str]]:
    return [(rec.line, f.event, f.message) for rec in read_matches(path)
            for f in rec.problems if f.code == "duplicate-key"]


def test_a_key_twice_in_an_event_of_a_json_lines_file(tmp_path: Path) -> None:
    good = orjson.dumps(_sample()).decode()
    twice = good.replace('"seat":0', '"seat":0,"seat":1', 1)
    assert twice != good
    path = tmp_path / "m.jsonl"
    path.write_text(good + "\n" + twice + "\n", encoding="utf-8")
    (found,) = _dups(path)
    line, event, message = found
    assert line == 2 and event is not None
    assert message == (f'event {event} holds the key "seat" twice, at line 2: which of its '
                       "values is meant cannot be told")
    assert "duplicate-key" in CODES


def test_the_line_of_the_key_in_a_json_document(tmp_path: Path) -> None:
    text = json.dumps(_sample(), indent=2)
    text = text.replace('"rules": ', '"rules": "domena",\n    "rules": ', 1)
    path = tmp_path / "m.json"
    path.write_text(text, encoding="utf-8")
    where = next(i for i, row in enumerate(text.splitlines(), 1) if row.strip().startswith(
        '"rules"') and "domena" not in row)
    (found,) = _dups(path)
    assert found == (None, None, f'table holds the key "rules" twice, at line {where}: which '
                                 "of its values is meant cannot be told")


@pytest.mark.parametrize("text", [
    '{"a": "x:y", "b": {"c": [1, {"d": ":"}]}, "e:f": 1}',
    '{"a": "\\u003a", "b": 1}', '[]', '{}'])
def test_no_key_twice_is_no_finding(text: str) -> None:
    assert duplicates.find(text) == []
    assert not duplicates.may_have(text.encode(), json.loads(text)) or "\\u003a" in text


def test_a_key_twice_hidden_behind_an_escaped_colon_is_still_found() -> None:
    text = '{"a": "\\u003a", "a": 1}'
    assert duplicates.may_have(text.encode(), orjson.loads(text))
    assert [d.key for d in duplicates.find(text)] == ["a"]


def test_the_check_costs_little_on_a_clean_file() -> None:
    data = SAMPLE.read_bytes()
    obj = orjson.loads(data)
    began = time.perf_counter()
    for _ in range(100):
        assert not duplicates.may_have(data, obj)
    per_match = (time.perf_counter() - began) / 100
    began = time.perf_counter()
    for _ in range(100):
        orjson.loads(data)
    parse = (time.perf_counter() - began) / 100
    print(f"duplicate check {per_match * 1e6:.0f} us a match, orjson's parse {parse * 1e6:.0f} us")
    assert per_match < 0.01
