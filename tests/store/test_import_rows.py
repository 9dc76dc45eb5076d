"""The import's fast paths store exactly what the reference definitions give.

``prepare`` computes a match's rows in one pass over bytes, and SQLite takes them in one
statement per match (a JSON document and a string of hashes); ``mapper.chain_rows``,
``hashing.event_hash``/``content_hash`` and ``importer.insert_rows`` (row by row, as
live recording writes) are the definitions they must agree with, byte for byte.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import Engine, select, text

from ledger.audit import audit_record
from ledger.formats.reader import MatchRecord, parse_match
from ledger.store import db
from ledger.store.imports.importer import insert_rows, prepare, store
from ledger.store.log.hashing import (
    canonical,
    content_hash,
    event_hash,
    event_hash_from,
    genesis,
    row_head,
    stamp,
)
from ledger.store.log.mapper import Header, Row, chain_rows, payload_of, unread_type
from ledger.store.models import EVENTS
from ledger.store.recording.live import start_match

NOW = datetime(2026, 11, 29, 12, 34, 56, 789012)
# Strings a file may hold where the ledger keeps them as they are (an unread event's
# type and payload): quotes, backslashes, control characters, right-to-left text,
# characters beyond the BMP, JSON's line separators.
ODD = ['"q"', "back\\slash", "tab\there", "nul\x00byte", "rs\x1eus\x1f", "ليلى",
       "🁣 tile", "line\u2028sep", "x" * 60]


def _odd_match(corpus: list[dict[str, Any]], nul: bool = True) -> dict[str, Any]:
    odd = [s for s in ODD if nul or "\x00" not in s]
    match = dict(corpus[0], seats=["ليلى", 'O"mar'])
    events: list[Any] = list(match["events"])
    events[3:3] = [{"type": s, "seat": 0, "note": s} for s in odd]
    events[9:9] = [5, None, "play", [1, "2"], {"seat": 1, "odd": {"b": odd, "a": 1.5}}]
    match["events"] = events
    return match


def _reference(record: MatchRecord) -> tuple[list[Row], bytes]:
    """The rows and content hash as the definitions give them, one event at a time."""
    report = audit_record(record)
    assert record.header is not None and record.raw is not None
    header_json = Header.of(record.header).canonical()
    items: list[tuple[int, str, str, str]] = []
    recorded: list[str] = []
    for i, raw in enumerate(record.raw["events"]):
        ev = record.events[i]
        item = (i, "unread", unread_type(raw), canonical(raw)) if ev is None else \
            (i, "recorded", ev.TYPE, payload_of(ev))
        items.append(item)
        recorded.append(item[3])
        if i < len(report.derived):
            items += [(i, "derived", d.TYPE, payload_of(d)) for d in report.derived[i]]
    return (chain_rows(genesis(header_json), 0, NOW, items),
            content_hash(header_json, recorded))


def test_prepared_rows_are_the_chained_rows(corpus: list[dict[str, Any]]) -> None:
    for match in [*corpus, _odd_match(corpus)]:
        record = parse_match(match)
        prep = prepare(record, now=NOW)
        assert prep is not None
        rows, digest = _reference(record)
        assert prep.rows == rows
        assert prep.size == len(rows)
        assert prep.content_hash == digest
        assert prep.model.summary["head_hash"] == rows[-1].hash
        assert prep.model.summary["last_seq"] == rows[-1].seq


def test_the_hash_from_bytes_is_the_hash() -> None:
    prev = bytes(range(32))
    for kind, type_, payload in [("recorded", "play", '{"seat":0}'),
                                 ("unread", ODD[3], canonical({"type": ODD})),
                                 ("derived", "deal_scored", canonical({"x": "ليلى"}))]:
        at = stamp(NOW)
        assert event_hash_from(prev, 7, 3, row_head(kind, type_, at), payload.encode()) == \
            event_hash(prev, 7, 3, kind, type_, at, payload)


def _stored(engine: Engine, match_id: int) -> list[tuple[Any, ...]]:
    """A match's rows as stored, with each value's storage type on SQLite."""
    cols = ["seq", "recorded_index", "kind", "type", "payload", "recorded_at", "prev_hash",
            "hash"]
    with engine.connect() as c:
        if engine.dialect.name == "sqlite":
            listed = ", ".join(f"typeof({k}), hex({k})" for k in cols)  # every byte
            return [tuple(r) for r in c.execute(text(
                f"SELECT {listed} FROM events WHERE match_id = :m ORDER BY id"), {"m": match_id})]
        return [tuple(r) for r in c.execute(
            select(*(EVENTS.c[k] for k in cols)).where(EVENTS.c.match_id == match_id)
            .order_by(EVENTS.c.id))]


@pytest.mark.parametrize("which", [0, 5, "odd", "odd with a NUL"])
@pytest.mark.parametrize("made_by", ["writer", "worker"])
def test_a_prepared_match_is_stored_as_rows_inserted_one_by_one(
        engine: Engine, corpus: list[dict[str, Any]], which: int | str, made_by: str) -> None:
    match = corpus[which] if isinstance(which, int) else \
        _odd_match(corpus, nul=which == "odd with a NUL")
    # SQLite's values made by an import's worker, from the rows as they are computed, or
    # by the writer from Prepared.rows_json: the same rows either way.
    prep = prepare(parse_match(match), now=NOW, for_sqlite=made_by == "worker")
    assert prep is not None
    assert (prep.sqlite is not None) is (made_by == "worker")
    # A NUL reaches neither backend's text: the payload keeps it as JSON's escape, and the
    # unread event's type label as U+FFFD (PostgreSQL's text cannot hold it).
    assert ("\\u0000" in prep.rows_json) is (which == "odd with a NUL")
    assert "\x00" not in "".join(str(v) for row in prep.rows for v in row[:5])
    with db.writing(engine) as session:
        imported, new = store(session, prep)
        assert new
        live = start_match(session, {k: v for k, v in match.items() if k != "events"})
        insert_rows(session.connection(), live, prep.rows)
        session.commit()
    assert _stored(engine, imported) == _stored(engine, live)
    assert len(_stored(engine, imported)) == prep.size


def test_a_nul_in_an_unread_type_is_stored_on_every_backend(
        engine: Engine, corpus: list[dict[str, Any]]) -> None:
    # PostgreSQL's text cannot hold a NUL character: a file that has one in an unread
    # event's type goes in all the same (it did not, and the whole import stopped), and
    # the match reads back as the file says. A NUL in a player's name is refused where the
    # header is read (tests/formats/test_values_normalised.py): a name is text everywhere.
    from ledger.store.models import PLAYER_TOTALS
    from ledger.store.pages.queries import stored_object

    match = _odd_match(corpus)
    prep = prepare(parse_match(match), now=NOW)
    assert prep is not None
    assert prepare(parse_match(dict(match, seats=["Ali\x00x", "Omar"]))) is None
    with db.writing(engine) as session:
        imported, new = store(session, prep)
        assert new
    with engine.connect() as c:
        names = set(c.execute(select(PLAYER_TOTALS.c.name)).scalars())
        types = set(c.execute(select(EVENTS.c.type).where(
            EVENTS.c.match_id == imported, EVENTS.c.kind == "unread")).scalars())
        back = stored_object(c, imported)
    assert names == set(match["seats"])
    assert "nul\ufffdbyte" in types
    assert back["seats"] == match["seats"]
    assert [e for e in back["events"] if isinstance(e, dict) and "note" in e] == \
        [e for e in match["events"] if isinstance(e, dict) and "note" in e]
