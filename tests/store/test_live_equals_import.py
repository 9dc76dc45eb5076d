"""Live equals import (issue 29): a live match is audited by the same walk as its export.

A seat whose hand the recorder did not see passes while it holds a tile that fits; live,
nothing can tell. When the hands are shown at the end of the deal, the pass is judged
against them (arab-block: "a seat that cannot play passes", seed 000), and the match's
findings, as its page and the API read them (``queries.get_match``), are those that
``audit`` gives for the match's export: the same codes, events and sentences.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from ledger.audit import audit_record
from ledger.formats.reader import parse_match
from ledger.store import db
from ledger.store.log.verify import verify
from ledger.store.pages import queries
from ledger.store.recording import live

HEADER = {"table": {"rules": "arab-block"}, "seats": ["Karim", "Lina"]}
# Seat 0 holds a chain it plays out; seat 1 (unseen) holds 6-4, which fits a 6 end.
SEAT0 = ["6-6", "6-5", "5-4", "4-3", "3-2", "2-1", "1-0"]
SEAT1 = ["6-4", "5-5", "3-3", "2-0", "4-4", "5-3", "6-1"]


def _events() -> list[dict[str, Any]]:
    evs: list[dict[str, Any]] = [{"type": "deal", "hands": [SEAT0, None]},
                                 {"type": "play", "seat": 0, "tile": "6-6"}]
    for tile in SEAT0[1:]:
        evs.append({"type": "pass", "seat": 1})
        evs.append({"type": "play", "seat": 0, "tile": tile, "end": "right"})
    evs.append({"type": "reveal", "hands": [[], SEAT1]})
    return evs


def _said(findings: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return sorted((f["event"], f["severity"], f["code"], f["message"]) for f in findings)


def test_a_pass_judged_at_the_reveal_shows_live_as_in_the_export(engine: Engine) -> None:
    with db.writing(engine) as s:
        mid = live.start_match(s, HEADER)
        seq = 0
        for ev in _events():
            seq = live.append(s, mid, ev, expected_seq=seq).next_seq
    with engine.connect() as c:
        page = queries.get_match(c, mid)
        exported = queries.stored_object(c, mid)
        # the read models too: the players' totals count the match as faulty now
        assert [v.describe() for v in verify(c) if not v.ok] == []
    audited = audit_record(parse_match(exported)).to_dict()
    assert "illegal-pass" in {f["code"] for f in audited["findings"]}
    assert _said(page["findings"]) == _said(audited["findings"])
    assert page["ok"] is audited["ok"] is False
    # The reveal taken back: its hands are unknown again, and so is what they proved.
    with db.writing(engine) as s:
        live.append(s, mid, {"type": "undo", "event": len(_events()) - 1}, seq)
    with engine.connect() as c:
        page = queries.get_match(c, mid)
        assert "illegal-pass" not in {f["code"] for f in page["findings"]} and page["ok"]
        assert [v.describe() for v in verify(c) if not v.ok] == []


def test_after_every_append_and_undo_the_findings_are_the_exports_audit(
        engine: Engine, corpus: list[dict[str, Any]]) -> None:
    # A record with every hand shown: the append hands the walked findings on (live_audit)
    # instead of walking the line again; they must stay what the audit of the export says,
    # the opening's "end-on-opening" warning and the open match's last event included.
    match = corpus[6]
    events = [dict(ev) for ev in match["events"]]
    first_play = next(i for i, ev in enumerate(events) if ev["type"] == "play")
    events[first_play]["end"] = "left"
    undo_at = first_play + 3
    with db.writing(engine) as s:
        mid = live.start_match(s, {k: match[k] for k in ("table", "seats")})
        seq = 0
        for i, ev in enumerate(events):
            seq = live.append(s, mid, ev, expected_seq=seq).next_seq
            if i == undo_at:  # taken back and made again: the line walked from the tables
                seq = live.append(s, mid, {"type": "undo", "event": i}, seq).next_seq
                seq = live.append(s, mid, ev, expected_seq=seq).next_seq
            if i > undo_at + 3 and i % 7 and i != len(events) - 1:
                continue
            with engine.connect() as c:
                page = queries.get_match(c, mid)
                audited = audit_record(parse_match(queries.stored_object(c, mid))).to_dict()
            assert _said(page["findings"]) == _said(audited["findings"]), i
            assert page["warnings"] == len(audited["findings"]) - len(
                [f for f in audited["findings"] if f["severity"] == "error"])
    assert "end-on-opening" in {f["code"] for f in page["findings"]}
