"""The analyses cache (ledger.store.jobs.analyses) on SQLite and PostgreSQL: kept per match, deal,
head and version; a stale head never answers; a cache the facts' guards leave alone."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from sqlalchemy import Engine, func, select, text
from sqlalchemy.exc import DBAPIError

from ledger.store import db
from ledger.store.errors import MatchNotFound
from ledger.store.jobs import analyses
from ledger.store.jobs.analyses import Head
from ledger.store.jobs.jobqueue import QUEUE_TABLES
from ledger.store.log.verify import verify
from ledger.store.models import ANALYSES, SUMMARIES
from ledger.store.recording import live
from tests.store.conftest import SAMPLES
from tests.store.helpers import count, import_path, sql
from tests.store.test_cli import run
from tests.store.test_live import record, start

BODY: dict[str, Any] = {"deal": 0, "best": [3, 0], "swing": {"data": [], "layout": {}},
                        "note": "ünïcode and \"quotes\""}


def _put(engine: Engine, match_id: int, deal: int, at: Head, version: str,
         body: dict[str, Any]) -> None:
    with db.writing(engine) as s:
        analyses.put(db.write_connection(s), match_id, deal, at, version, body)
        s.commit()


def _get(engine: Engine, match_id: int, deal: int, at: Head, version: str
         ) -> dict[str, Any] | None:
    with engine.connect() as c:
        return analyses.get(c, match_id, deal, at, version)


def test_the_head_is_the_last_stored_event(stored: tuple[Engine, int, Head]) -> None:
    engine, match_id, at = stored
    with engine.connect() as c:
        summary = c.execute(select(SUMMARIES).where(SUMMARIES.c.match_id == match_id)).one()
        assert (at.last_seq, at.hash) == (summary.last_seq, bytes(summary.head_hash))
        with pytest.raises(MatchNotFound):
            analyses.head(c, 999_999)


def test_a_live_match_gets_a_new_head_with_each_event(engine: Engine) -> None:
    match = orjson.loads((SAMPLES / "domena-2.json").read_bytes())
    match_id = start(engine, match)
    with engine.connect() as c:
        assert analyses.head(c, match_id) is None  # no event yet: nothing to analyse
    record(engine, match_id, match["events"][:3])
    with engine.connect() as c:
        first = analyses.head(c, match_id)
    assert first is not None
    with db.writing(engine) as s:
        live.append(s, match_id, match["events"][3], expected_seq=first.last_seq + 1)
    with engine.connect() as c:
        second = analyses.head(c, match_id)
    assert second is not None
    assert second.last_seq > first.last_seq and second.hash != first.hash


def test_kept_per_deal_head_and_version(stored: tuple[Engine, int, Head]) -> None:
    engine, match_id, at = stored
    assert _get(engine, match_id, 0, at, "v1") is None
    _put(engine, match_id, 0, at, "v1", BODY)
    assert _get(engine, match_id, 0, at, "v1") == BODY
    assert _get(engine, match_id, 1, at, "v1") is None          # another deal
    assert _get(engine, match_id, 0, at, "v2") is None          # another version
    stale = Head(at.last_seq - 1, at.hash)
    assert _get(engine, match_id, 0, stale, "v1") is None       # the events were others
    other = Head(at.last_seq, bytes(32))
    assert _get(engine, match_id, 0, other, "v1") is None


def test_a_new_answer_replaces_a_stale_one_never_a_newer_one(
        stored: tuple[Engine, int, Head]) -> None:
    engine, match_id, at = stored
    older = Head(at.last_seq - 5, bytes(32))
    _put(engine, match_id, 0, older, "v1", {"old": True})
    _put(engine, match_id, 0, at, "v1", BODY)
    assert _get(engine, match_id, 0, at, "v1") == BODY
    assert count(engine, ANALYSES) == 1  # one row per deal: the stale one was replaced
    # A slow worker that finishes last, for the older events, does not undo the newer.
    _put(engine, match_id, 0, older, "v1", {"old": True})
    assert _get(engine, match_id, 0, at, "v1") == BODY
    # Another version replaces it whatever its head (its answers are the ones served now).
    _put(engine, match_id, 0, at, "v2", {"v2": True})
    assert _get(engine, match_id, 0, at, "v2") == {"v2": True}
    assert _get(engine, match_id, 0, at, "v1") is None


def test_clear_forgets_all_or_one_match(engine: Engine) -> None:
    ids = [got.id for name in ("domena-2.json", "arab-block-2.json")
           for got in import_path(engine, SAMPLES / name) if got.id is not None]
    with engine.connect() as c:
        heads = [analyses.head(c, i) for i in ids]
    for match_id, at in zip(ids, heads, strict=True):
        assert at is not None
        for deal in range(3):
            _put(engine, match_id, deal, at, "v1", BODY)
    assert count(engine, ANALYSES) == 6
    with db.writing(engine) as s:
        assert analyses.clear(db.write_connection(s), ids[0]) == 3
        s.commit()
    assert count(engine, ANALYSES) == 3
    with db.writing(engine) as s:
        assert analyses.clear(db.write_connection(s)) == 3
        s.commit()
    assert count(engine, ANALYSES) == 0


def test_a_cache_the_append_only_guards_leave_alone(stored: tuple[Engine, int, Head]) -> None:
    engine, match_id, at = stored
    _put(engine, match_id, 0, at, "v1", BODY)
    # The guards are on the facts only...
    with engine.connect() as c:
        if engine.dialect.name == "sqlite":
            guarded = {r[0] for r in c.execute(text(
                "SELECT tbl_name FROM sqlite_master WHERE type = 'trigger'"))}
        else:
            guarded = {r[0] for r in c.execute(text(
                "SELECT event_object_table FROM information_schema.triggers "
                "WHERE trigger_schema = current_schema()"))}
    # pgqueuer's own table (a PostgreSQL ledger's job queue, 0008) carries its notify
    # trigger, which guards nothing.
    assert guarded - QUEUE_TABLES == {"events", "matches", "match_heads"}
    # ...so the cache's rows may be changed and dropped, while events still may not.
    sql(engine, "UPDATE analyses SET body = '{}' WHERE match_id = :m", m=match_id)
    # (A row changed so is no longer served: its seal does not hold, issue 32.)
    assert count(engine, ANALYSES) == 1 and _get(engine, match_id, 0, at, "v1") is None
    sql(engine, "DELETE FROM analyses")
    assert count(engine, ANALYSES) == 0
    if engine.dialect.name == "postgresql":
        _put(engine, match_id, 0, at, "v1", BODY)
        sql(engine, "TRUNCATE analyses")
        assert count(engine, ANALYSES) == 0
    with pytest.raises(DBAPIError, match="append-only"):
        sql(engine, "DELETE FROM events WHERE match_id = :m", m=match_id)
    with engine.connect() as c:
        assert all(v.ok for v in verify(c))


def test_rebuild_empties_the_cache(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    engine = db.open_db(url, migrate=True)
    try:
        (got,) = import_path(engine, SAMPLES / "domena-2.json")
        assert got.id is not None
        with engine.connect() as c:
            at = analyses.head(c, got.id)
        assert at is not None
        _put(engine, got.id, 0, at, "v1", BODY)
        code, out, _ = run(capsys, "rebuild", "--db", url)
        assert code == 0 and "rebuilt the read models of 1 match(es)" in out
        with engine.connect() as c:
            assert c.execute(select(func.count()).select_from(ANALYSES)).scalar_one() == 0
    finally:
        engine.dispose()
