"""Append-only for real: the database refuses changes; what slips past is caught by verify."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.exc import DBAPIError

from ledger.store import db
from ledger.store.log.hashing import canonical, event_hash, stamp
from ledger.store.log.verify import verify
from ledger.store.models import EVENTS, MATCHES
from tests.store.conftest import Schemas
from tests.store.helpers import count, drop_triggers, import_path, sql


@pytest.fixture
def filled(engine: Engine, corpus_file: Path) -> Engine:
    import_path(engine, corpus_file)
    return engine


@pytest.mark.parametrize("statement", [
    "UPDATE events SET payload = '{}' WHERE seq = 3",
    "UPDATE events SET hash = prev_hash",
    "DELETE FROM events WHERE seq = 3",
    "DELETE FROM events",
])
def test_the_database_refuses_to_change_events(filled: Engine, statement: str) -> None:
    rows = count(filled)
    with pytest.raises(DBAPIError, match="append-only"):
        sql(filled, statement)
    assert count(filled) == rows
    with filled.connect() as c:
        assert all(v.ok for v in verify(c))


@pytest.mark.postgres
def test_postgres_refuses_truncate_too(schemas: Schemas, corpus_file: Path) -> None:
    engine = db.open_db(schemas.new(), migrate=True)  # SQLite has no TRUNCATE
    try:
        import_path(engine, corpus_file)
        with pytest.raises(DBAPIError, match="append-only"):
            sql(engine, "TRUNCATE events CASCADE")
        with pytest.raises(DBAPIError, match="kept for good"):
            sql(engine, "TRUNCATE matches CASCADE")
    finally:
        engine.dispose()


@pytest.mark.parametrize("statement", [
    "DELETE FROM matches WHERE id = 1",
    "UPDATE matches SET preset = 'arab-block' WHERE id = 2",
    "UPDATE matches SET seat_count = 9 WHERE id = 1",
])
def test_the_database_refuses_to_change_a_match_header(filled: Engine, statement: str) -> None:
    with pytest.raises(DBAPIError, match="refused"):
        sql(filled, statement)


def test_a_matchs_audit_status_may_change(filled: Engine) -> None:
    sql(filled, "UPDATE matches SET status = 'complete' WHERE id = 1")


def _row(engine: Engine, match_id: int, seq: int) -> tuple[int, str, str]:
    with engine.connect() as c:
        r = c.execute(select(EVENTS.c.id, EVENTS.c.type, EVENTS.c.payload)
                      .where(EVENTS.c.match_id == match_id, EVENTS.c.seq == seq)).one()
        return int(r.id), str(r.type), str(r.payload)


def _broken(engine: Engine) -> list[tuple[int, int | None, str]]:
    with engine.connect() as c:
        return [(v.match_id, v.broken.seq, v.broken.code) for v in verify(c)
                if v.broken is not None]


def test_an_edited_event_is_named_by_verify(filled: Engine) -> None:
    drop_triggers(filled)
    row_id, type_, payload = _row(filled, 4, 7)
    assert type_ == "play"
    edited = json.loads(payload)
    edited["seat"] = (edited["seat"] + 1) % 2  # another seat played it
    sql(filled, "UPDATE events SET payload = :p WHERE id = :i", p=canonical(edited), i=row_id)
    assert _broken(filled) == [(4, 7, "hash-mismatch")]


def test_an_edit_that_rehashes_its_row_breaks_the_next_link(filled: Engine) -> None:
    drop_triggers(filled)
    with filled.connect() as c:
        r = c.execute(select(EVENTS).where(EVENTS.c.match_id == 2, EVENTS.c.kind == "derived",
                                           EVENTS.c.type == "deal_scored")
                      .order_by(EVENTS.c.seq).limit(1)).one()
    forged = r.payload.replace('"points":', '"points":1')
    assert forged != r.payload
    digest = event_hash(bytes(r.prev_hash), r.seq, r.recorded_index, r.kind, r.type,
                        stamp(r.recorded_at), forged)
    sql(filled, "UPDATE events SET payload = :p, hash = :h WHERE id = :i", p=forged,
        h=digest, i=r.id)
    assert _broken(filled) == [(2, r.seq + 1, "chain-broken")]


def test_a_rewritten_chain_is_caught_by_the_refold(filled: Engine) -> None:
    # The forger recomputes every hash after the edit: the chain holds, the rules don't.
    drop_triggers(filled)
    with filled.connect() as c:
        rows = c.execute(select(EVENTS).where(EVENTS.c.match_id == 3)
                         .order_by(EVENTS.c.seq)).all()
    target = next(r for r in rows if r.type == "deal_scored")
    prev = bytes(target.prev_hash)
    for r in rows[target.seq:]:
        payload = r.payload.replace('"points":', '"points":1') if r.id == target.id \
            else r.payload
        digest = event_hash(prev, r.seq, r.recorded_index, r.kind, r.type,
                            stamp(r.recorded_at), payload)
        sql(filled, "UPDATE events SET payload = :p, prev_hash = :v, hash = :h WHERE id = :i",
            p=payload, v=prev, h=digest, i=r.id)
        prev = digest
    assert _broken(filled) == [(3, target.seq, "fold-mismatch")]


def test_a_deleted_event_is_named_by_verify(filled: Engine) -> None:
    drop_triggers(filled)
    row_id, _, _ = _row(filled, 5, 10)
    sql(filled, "DELETE FROM events WHERE id = :i", i=row_id)
    assert _broken(filled) == [(5, 11, "missing-event")]


def test_a_changed_header_breaks_the_first_event(filled: Engine) -> None:
    drop_triggers(filled)
    with filled.connect() as c:
        seats = c.execute(select(MATCHES.c.seats).where(MATCHES.c.id == 6)).scalar_one()
    sql(filled, "UPDATE matches SET seats = :s WHERE id = 6",
        s=json.dumps(list(reversed(seats))))
    assert _broken(filled) == [(6, 0, "chain-broken")]
