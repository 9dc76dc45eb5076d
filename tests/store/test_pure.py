"""The ledger's pure parts: the row mapper, the hash chain and the snapshot encoding."""

from __future__ import annotations

from typing import Any

import pytest

from ledger.audit import audit_record
from ledger.engine.fold import advance
from ledger.engine.state import State
from ledger.events import Dealt, Event
from ledger.formats.reader import parse_match
from ledger.formats.wire import event_to_dict
from ledger.rules import make_rules
from ledger.store.imports.importer import prepare
from ledger.store.log import snapshots
from ledger.store.log.hashing import content_hash, event_hash, genesis
from ledger.store.log.mapper import Header, event_of, payload_of


def _events(match: dict[str, Any]) -> list[Event]:
    """A match's recorded events and what the rules derived from them."""
    report = audit_record(parse_match(match))
    out: list[Event] = []
    for ev, derived in zip(report.events, report.derived, strict=False):
        assert ev is not None
        out.append(ev)
        out.extend(derived)
    return out


def test_every_event_survives_the_row_and_back(corpus: list[dict[str, Any]]) -> None:
    # A row keeps the canonical wire object; reading it back must give the same value,
    # derived events (scores, pips, reasons) included, or the ledger would change history.
    kinds: set[str] = set()
    for match in corpus:
        seats = len(match["seats"])
        for ev in _events(match):
            kind = "derived" if ev.DERIVED else "recorded"
            assert event_of(kind, payload_of(ev), seats) == ev
            kinds.add(ev.TYPE)
    assert {"deal", "play", "deal_scored", "match_ended", "reveal", "deal_end"} <= kinds


def test_the_chain_covers_every_field_of_a_row() -> None:
    base = dict(prev=b"\0" * 32, seq=3, recorded_index=2, kind="recorded", type_="play",
                recorded_at="2026-11-29T12:00:00.000000", payload='{"seat":0}')
    digest = event_hash(**base)  # type: ignore[arg-type]
    changes: dict[str, object] = {"prev": b"\1" * 32, "seq": 4, "recorded_index": 3,
                                  "kind": "derived", "type_": "pass",
                                  "recorded_at": "2026-11-29T12:00:00.000001",
                                  "payload": '{"seat":1}'}
    for field, value in changes.items():
        assert event_hash(**{**base, field: value}) != digest, field  # type: ignore[arg-type]


def test_genesis_depends_on_the_header() -> None:
    a = Header("domena", ("Ali", "Omar"), {})
    b = Header("domena", ("Omar", "Ali"), {})
    c = Header("domena", ("Ali", "Omar"), {"target": 50})
    assert len({genesis(h.canonical()) for h in (a, b, c)}) == 3


def test_content_hash_ignores_tile_notation_but_not_content(corpus: list[dict[str, Any]]
                                                           ) -> None:
    # match-format.md, Tiles: readers accept "63", "6|3" and [6, 3] for "6-3".
    match = corpus[0]
    respelled = dict(match, events=[_respell(e) for e in match["events"]])
    assert respelled["events"] != match["events"]
    a = prepare(parse_match(match))
    b = prepare(parse_match(respelled))
    assert a is not None and b is not None
    assert a.content_hash == b.content_hash
    swapped = dict(match, seats=list(reversed(match["seats"])))
    c = prepare(parse_match(swapped))
    assert c is not None and c.content_hash != a.content_hash
    assert content_hash("{}", ["a", "b"]) != content_hash("{}", ["b", "a"])


def _respell(ev: dict[str, Any]) -> dict[str, Any]:
    def tile(t: str | None) -> object:
        return None if t is None else [int(t[0]), int(t[2])]

    out = dict(ev)
    if ev["type"] in ("play", "draw") and ev.get("tile"):
        out["tile"] = tile(ev["tile"])
    if ev["type"] == "deal":
        out["hands"] = [[f"{t[0]}|{t[2]}" for t in h] for h in ev["hands"]]
    return out


@pytest.mark.parametrize("n", range(0, 26, 5))
def test_a_snapshot_decodes_to_the_state_it_encoded(corpus: list[dict[str, Any]], n: int
                                                    ) -> None:
    match = corpus[n]
    rec = parse_match(match)
    assert rec.header is not None
    rules = make_rules(rec.header.preset, len(rec.header.seats), rec.header.options)
    st = State(rules)
    checked = 0
    for i, ev in enumerate(rec.events):
        assert ev is not None
        advance(st, ev, i, [], [])
        if isinstance(ev, Dealt) or i % 17 == 0:
            assert snapshots.decode(snapshots.encode(st), rules) == st
            checked += 1
    assert checked > 0


def test_the_snapshot_encoding_refuses_what_it_does_not_know() -> None:
    with pytest.raises(TypeError):
        snapshots._enc({1, 2})


def test_wire_objects_are_stored_canonically() -> None:
    ev = Dealt(hands=((),))
    assert payload_of(ev) == payload_of(ev)
    assert list(event_to_dict(ev)) == ["type", "hands"]
    assert payload_of(ev).startswith('{"hands"')  # keys sorted: one spelling per event
