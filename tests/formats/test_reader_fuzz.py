"""Damaged records never crash the auditor: whatever the bytes, a report comes back.

Hypothesis damages real sample matches (a field set to any JSON value, an event
dropped, doubled or moved, bytes cut) and the reader + audit must answer with
findings, never an exception ("No tracebacks to users").
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.audit import audit_record
from ledger.formats.reader import parse_match, read_matches

SAMPLES = Path(__file__).resolve().parents[2] / "sample_matches"
BASES = [json.loads((SAMPLES / name).read_text(encoding="utf-8")) for name in (
    "casual-arena-2-one-round.json", "domena-4-one-round.json", "sahrat-fives-2.json",
    "selminha-4-redeal.json")]
BASES.append(json.loads((SAMPLES / "partial" / "selminha-2-some-unknown.json")
                        .read_text(encoding="utf-8")))

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 30) | st.sampled_from(
        ["6-3", "7-1", "left", "up", "out", "block", "tie", "deal", "play", "", "x"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "seat", "tile", "end", "hands", "stock", "winner"]), inner,
        max_size=3),
    max_leaves=8)
KEYS = ["type", "seat", "tile", "end", "hands", "stock", "result", "winner", "points",
        "scores", "reason", "at"]


def _damage(match: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    match = copy.deepcopy(match)
    events = match["events"]
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(events) - 1))
        how = data.draw(st.sampled_from(["field", "drop", "double", "move", "header"]))
        if how == "field" and isinstance(events[i], dict):
            events[i][data.draw(st.sampled_from(KEYS))] = data.draw(json_values)
        elif how == "drop" and len(events) > 1:
            del events[i]
        elif how == "double":
            events.insert(i, copy.deepcopy(events[i]))
        elif how == "move":
            events.insert(data.draw(st.integers(0, len(events) - 1)), events.pop(i))
        else:
            key = data.draw(st.sampled_from(["table", "seats", "format", "events", "source"]))
            match[key] = data.draw(json_values)
            if key == "events":
                return match
    return match


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_damaged_match_gives_a_report_not_an_exception(data: st.DataObject) -> None:
    base = data.draw(st.sampled_from(BASES))
    report = audit_record(parse_match(_damage(base, data)))
    report.to_dict()
    json.dumps(report.to_dict())


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=64), st.integers(0, 400))
def test_damaged_bytes_give_findings_not_an_exception(tmp_path: Path, junk: bytes,
                                                      where: int) -> None:
    raw = json.dumps(BASES[0]).encode()
    for name in ("damaged.jsonl", "damaged.json"):
        path = tmp_path / name
        path.write_bytes(raw[:where] + junk + raw[where:] + b"\n" + raw + b"\n")
        for record in read_matches(path):
            audit_record(record).to_dict()
