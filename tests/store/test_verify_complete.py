"""``verify`` proves completeness and read models (issue 19), on SQLite and PostgreSQL.

What slipped past it before: a tail removed with the events' triggers dropped for the
while, a forged read model, a rehashed payload that is not JSON (a traceback, and the
matches after it never checked), a duplicate sequence number worded as a missing one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.exc import DBAPIError

from ledger.store import db
from ledger.store.log.hashing import event_hash, stamp
from ledger.store.log.verify import verify
from ledger.store.models import EVENTS, MATCHES
from ledger.store.recording import live
from tests.store.helpers import count, drop_triggers, import_path, matches, sql


def _broken(engine: Engine) -> list[tuple[int, int | None, str]]:
    with engine.connect() as c:
        return [(v.match_id, v.broken.seq, v.broken.code) for v in verify(c)
                if v.broken is not None]


def _recorded_live(engine: Engine, match: dict[str, Any]) -> int:
    with db.writing(engine) as s:
        mid = live.start_match(s, {k: match[k] for k in ("table", "seats")})
        seq = 0
        for ev in match["events"]:
            seq = live.append(s, mid, ev, expected_seq=seq).next_seq
    return mid


@pytest.fixture
def filled(engine: Engine, corpus_file: Path, corpus: list[dict[str, Any]]) -> Engine:
    import_path(engine, corpus_file)
    longest = max(corpus[:6], key=lambda m: len(m["events"]))
    _recorded_live(engine, longest)
    return engine


def _rows(engine: Engine, match_id: int) -> int:
    with engine.connect() as c:
        return len(c.execute(select(EVENTS.c.id).where(EVENTS.c.match_id == match_id)).all())


def test_a_tail_removed_behind_the_triggers_is_caught(filled: Engine) -> None:
    live_id = matches(filled)
    assert _rows(filled, live_id) > 100 and _rows(filled, 3) > 100
    assert _broken(filled) == []
    drop_triggers(filled)  # the events' guards, for the while
    sql(filled, "DELETE FROM events WHERE match_id = :m AND seq >= 100", m=live_id)
    sql(filled, "DELETE FROM events WHERE match_id = 3 AND seq >= 100")
    assert _broken(filled) == [(3, 100, "truncated"), (live_id, 100, "truncated")]
    # The head stays where the events were: it may not move back, go, or come anew.
    with filled.connect() as c:
        last = c.execute(select(EVENTS.c.hash).where(EVENTS.c.match_id == live_id,
                                                     EVENTS.c.seq == 99)).scalar_one()
    for statement in ("UPDATE match_heads SET events = 100, head_hash = :h WHERE match_id = :m",
                      "DELETE FROM match_heads WHERE match_id = :m",
                      "INSERT INTO match_heads (match_id, events, head_hash) "
                      "VALUES (:m, 100, :h)"):
        with pytest.raises(DBAPIError, match="refused|duplicate|UNIQUE"):
            sql(filled, statement, m=live_id, h=bytes(last))
    assert _broken(filled)[-1] == (live_id, 100, "truncated")


def test_events_added_past_the_head_are_caught(filled: Engine) -> None:
    drop_triggers(filled)
    with filled.connect() as c:
        r = c.execute(select(EVENTS).where(EVENTS.c.match_id == 2)
                      .order_by(EVENTS.c.seq.desc()).limit(1)).one()
    # A well-chained extra row: only the head knows it was never appended.
    payload = '{"reason":"forged","type":"abandon"}'
    digest = event_hash(bytes(r.hash), r.seq + 1, r.recorded_index + 1, "recorded", "abandon",
                        stamp(r.recorded_at), payload)
    sql(filled, "INSERT INTO events (match_id, seq, recorded_index, kind, type, payload, "
        "recorded_at, prev_hash, hash) VALUES (2, :s, :i, 'recorded', 'abandon', :p, :t, "
        ":v, :h)", s=r.seq + 1, i=r.recorded_index + 1, p=payload, t=r.recorded_at,
        v=bytes(r.hash), h=digest)
    assert _broken(filled) == [(2, r.seq + 1, "beyond-head")]


@pytest.mark.parametrize("statement", [
    "UPDATE match_summaries SET scores = '[999,0]' WHERE match_id = 4",
    "UPDATE match_summaries SET winner = 1 - winner WHERE match_id = 4",
    "UPDATE deal_rows SET points = points + 1 WHERE match_id = 4 AND deal = 0",
    "DELETE FROM deal_rows WHERE match_id = 4 AND deal = 0",
    "DELETE FROM match_summaries WHERE match_id = 4",
])
def test_a_forged_read_model_is_caught(filled: Engine, statement: str) -> None:
    if "scores" in statement and filled.dialect.name == "postgresql":
        statement = statement.replace("'[999,0]'", "'[999,0]'::json")
    sql(filled, statement)
    assert [(m, code) for m, _, code in _broken(filled)] == [(4, "read-model-mismatch")]


def test_a_payload_that_is_not_json_is_that_matchs_problem(filled: Engine) -> None:
    drop_triggers(filled)
    with filled.connect() as c:
        r = c.execute(select(EVENTS).where(EVENTS.c.match_id == 2)
                      .order_by(EVENTS.c.seq.desc()).limit(1)).one()
    digest = event_hash(bytes(r.prev_hash), r.seq, r.recorded_index, r.kind, r.type,
                        stamp(r.recorded_at), "not json")
    sql(filled, "UPDATE events SET payload = 'not json', hash = :h WHERE id = :i", h=digest,
        i=r.id)
    with filled.connect() as c:
        checked = list(verify(c))
    assert len(checked) == matches(filled)  # the matches after it were checked too
    assert [(v.match_id, v.broken.seq, v.broken.code) for v in checked
            if v.broken is not None] == [(2, r.seq, "bad-payload")]
    assert "not JSON" in checked[1].describe()


@pytest.mark.postgres
def test_a_duplicate_sequence_number_is_named_as_such(filled: Engine) -> None:
    if filled.dialect.name != "postgresql":
        pytest.skip("SQLite cannot drop the unique (match, seq) constraint")
    drop_triggers(filled)
    sql(filled, "ALTER TABLE events DROP CONSTRAINT uq_events_match_seq")
    sql(filled, "INSERT INTO events (match_id, seq, recorded_index, kind, type, payload, "
        "recorded_at, prev_hash, hash) SELECT match_id, seq, recorded_index, kind, type, "
        "payload, recorded_at, prev_hash, hash FROM events WHERE match_id = 5 AND seq = 9")
    with filled.connect() as c:
        got = [v for v in verify(c, 5)]
    assert got[0].broken is not None and got[0].broken.code == "duplicate-event"
    assert "event 9 is stored twice" in got[0].describe()
    assert "missing" not in got[0].describe()


# --- SQLite's REPLACE --------------------------------------------------------------------


def _sqlite_only(engine: Engine) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("REPLACE is SQLite's (PostgreSQL's ON CONFLICT DO UPDATE fires UPDATE)")


_EVENT_COLUMNS = "id, match_id, seq, recorded_index, kind, type, payload, recorded_at, " \
    "prev_hash, hash"
_FORGED = _EVENT_COLUMNS.replace("payload", "'{}'")
_FORGED_NEW_ID = _FORGED.replace("id, ", "id + 100000, ", 1)


@pytest.mark.parametrize("statement", [
    f"INSERT OR REPLACE INTO events ({_EVENT_COLUMNS}) SELECT {_FORGED} FROM events "
    "WHERE match_id = 1 AND seq = 3",
    f"REPLACE INTO events ({_EVENT_COLUMNS}) SELECT {_FORGED_NEW_ID} FROM events "
    "WHERE match_id = 1 AND seq = 3",
    "REPLACE INTO matches SELECT id, origin, 'arab-block', seat_count, seats, options, source, "
    "started_at, content_hash, status, ok, errors, warnings, findings, imported_from, "
    "created_at FROM matches WHERE id = 1",
    "INSERT OR REPLACE INTO match_heads (match_id, events, head_hash) VALUES (1, 0, NULL)",
])
def test_sqlite_replace_is_refused_for_any_connection(filled: Engine, statement: str,
                                                      tmp_path: Path) -> None:
    import sqlite3

    _sqlite_only(filled)
    rows = count(filled)
    with pytest.raises(DBAPIError, match="refused"):
        sql(filled, statement)
    # Another program: the sqlite3 module with its own settings (no pragma of ours).
    path = filled.url.database
    assert path is not None
    other = sqlite3.connect(path)
    try:
        with pytest.raises(sqlite3.DatabaseError, match="refused"):
            other.execute(statement)
    finally:
        other.close()
    assert count(filled) == rows
    assert _broken(filled) == []


def test_sqlite_replace_of_the_same_content_keeps_the_stored_match(filled: Engine) -> None:
    _sqlite_only(filled)
    sql(filled, "REPLACE INTO matches (origin, preset, seat_count, seats, options, source, "
        "started_at, content_hash, status, ok, errors, warnings, findings, imported_from, "
        "created_at) SELECT origin, 'arab-block', seat_count, seats, options, source, "
        "started_at, content_hash, status, ok, errors, warnings, findings, imported_from, "
        "created_at FROM matches WHERE id = 1")
    with filled.connect() as c:
        assert c.execute(select(MATCHES.c.preset).where(MATCHES.c.id == 1)).scalar_one() \
            != "arab-block"
    assert _broken(filled) == []


def test_a_header_that_is_not_json_is_that_matchs_problem(filled: Engine) -> None:
    drop_triggers(filled)
    # PostgreSQL's json type refuses the text itself; a string of JSON is no list of names.
    forged = "not json" if filled.dialect.name == "sqlite" else '"not a list"'
    sql(filled, f"UPDATE matches SET seats = '{forged}' WHERE id = 2")
    with filled.connect() as c:
        checked = list(verify(c))
    assert len(checked) == matches(filled)
    assert [v.match_id for v in checked if not v.ok] == [2]  # the others checked as ever
    assert checked[1].broken is not None
    if filled.dialect.name == "sqlite":
        assert checked[1].broken.code == "unreadable"
