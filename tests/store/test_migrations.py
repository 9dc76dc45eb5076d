"""Migrations run up and down, on an empty and on a filled database, and match the models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, inspect, select

from ledger.store import db
from ledger.store.jobs.jobqueue import QUEUE_TABLES
from ledger.store.log.verify import verify
from ledger.store.models import SQLModel
from tests.store.helpers import count, import_path, matches
from tests.store.test_rebuild_snapshots import _dump, _rebuild

LEDGER_TABLES = {"matches", "events", "deal_rows", "match_summaries", "player_totals",
                 "snapshots", "analyses", "match_heads", "recorder_keys",
                 "knowledge_reviews", "job_claims"}


def _tables(engine: Engine) -> set[str]:
    """The ledger's tables; a PostgreSQL ledger's job queue (0008) is checked apart."""
    got = set(inspect(engine).get_table_names()) - {"alembic_version"}
    if engine.dialect.name == "postgresql" and db.current_revision(engine) is not None:
        assert got >= QUEUE_TABLES or not got & QUEUE_TABLES, got
        got -= QUEUE_TABLES
    return got


def test_up_and_down_on_an_empty_database(url: str) -> None:
    engine = db.make_engine(url)
    try:
        assert _tables(engine) == set()
        db.upgrade(engine)
        assert _tables(engine) == LEDGER_TABLES
        assert db.current_revision(engine) == db.head_revision()
        db.downgrade(engine, "base")
        assert _tables(engine) == set() and db.current_revision(engine) is None
        db.upgrade(engine)
        assert _tables(engine) == LEDGER_TABLES
    finally:
        engine.dispose()


def test_up_and_down_on_a_filled_database(engine: Engine, corpus_file: Path) -> None:
    import_path(engine, corpus_file)
    before, rows, stored = _dump(engine), count(engine), matches(engine)
    # Down to the facts only: the read models go, the events stay and still verify.
    db.downgrade(engine, "0001")
    assert _tables(engine) == {"matches", "events"}
    assert count(engine) == rows
    with engine.connect() as c:
        assert all(v.ok for v in verify(c))
    db.upgrade(engine)
    _rebuild(engine)
    assert _dump(engine) == before
    # Down to nothing, up again: an empty ledger that takes the same matches back.
    db.downgrade(engine, "base")
    assert _tables(engine) == set()
    db.upgrade(engine)
    assert matches(engine) == 0
    import_path(engine, corpus_file)
    assert matches(engine) == stored and count(engine) == rows
    assert _timeless(_dump(engine)) == _timeless(before)


def _timeless(dump: dict[str, list[tuple[object, ...]]]) -> dict[str, list[tuple[object, ...]]]:
    # A re-import records new times, so its chain ends in another hash; the rest is equal.
    head = 3  # match_summaries.head_hash
    return {**dump, "match_summaries": [r[:head] + r[head + 1:]
                                        for r in dump["match_summaries"]]}


def test_the_migrations_build_what_the_models_describe(engine: Engine) -> None:
    with engine.connect() as c:
        # The job queue's tables are pgqueuer's and ledger.store.jobs.jobqueue's, not models.
        context = MigrationContext.configure(c, opts={"include_name": _not_queue})
        diff = compare_metadata(context, SQLModel.metadata)
    assert diff == []


def _not_queue(name: str | None, kind: str, _parent: object) -> bool:
    return not (kind == "table" and name in QUEUE_TABLES)


def test_the_job_queue_is_postgresql_s_and_comes_and_goes_alone(url: str) -> None:
    engine = db.make_engine(url)
    try:
        db.upgrade(engine)
        every = set(inspect(engine).get_table_names())
        assert (every >= QUEUE_TABLES) == url.startswith("postgresql")
        assert not every & QUEUE_TABLES or url.startswith("postgresql")
        db.downgrade(engine, "0007")
        assert not set(inspect(engine).get_table_names()) & QUEUE_TABLES
        assert _tables(engine) == LEDGER_TABLES - {"job_claims"}
    finally:
        engine.dispose()


def test_a_server_database_is_migrated_only_on_request(url: str) -> None:
    if not url.startswith("postgresql"):
        engine = db.open_db(url)  # an embedded SQLite file brings itself up to date
        assert db.current_revision(engine) == db.head_revision()
        engine.dispose()
        return
    import pytest

    from ledger.store.errors import SchemaOutOfDate

    with pytest.raises(SchemaOutOfDate, match="db upgrade"):
        db.open_db(url)
    engine = db.make_engine(url)
    db.upgrade(engine)
    engine.dispose()
    db.open_db(url).dispose()


def test_an_embedded_ledger_runs_in_wal_mode(engine: Engine) -> None:
    if engine.dialect.name != "sqlite":
        assert engine.dialect.driver == "psycopg"
        return
    with engine.connect() as c:
        assert c.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert c.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_the_analyses_cache_comes_and_goes_alone(engine: Engine, corpus_file: Path) -> None:
    from ledger.store.jobs import analyses
    from ledger.store.models import ANALYSES

    import_path(engine, corpus_file)
    with db.writing(engine) as s:
        conn = db.write_connection(s)
        at = analyses.head(conn, 1)
        assert at is not None
        analyses.put(conn, 1, 0, at, "v1", {"best": [1, 0]})
        s.commit()
    before, rows = _dump(engine), count(engine)
    # 0003 holds only the cache: below it the read models and the facts stay as they were.
    db.downgrade(engine, "0002")
    assert _tables(engine) == LEDGER_TABLES - {"analyses", "match_heads", "recorder_keys",
                                               "knowledge_reviews", "job_claims"}
    assert _dump(engine) == before and count(engine) == rows
    db.upgrade(engine)
    assert _tables(engine) == LEDGER_TABLES
    assert count(engine, ANALYSES) == 0  # a cache starts empty: worked out again when asked
    with engine.connect() as c:
        assert all(v.ok for v in verify(c))


def test_0004_gives_every_stored_match_its_head(url: str, corpus_file: Path) -> None:
    from ledger.store.log.heads import read_head as read
    from ledger.store.models import EVENTS, MATCHES
    from ledger.store.recording import live

    engine = db.make_engine(url)
    try:
        db.upgrade(engine)
        import_path(engine, corpus_file)
        with db.writing(engine) as s:
            empty = live.start_match(s, {"table": {"rules": "domena"}, "seats": ["A", "B"]})
        db.downgrade(engine, "0003")  # a ledger of before heads: then up, and they are filled
        assert "match_heads" not in _tables(engine)
        db.upgrade(engine)
        with engine.connect() as c:
            for mid in c.execute(select(MATCHES.c.id)).scalars():
                last = c.execute(select(EVENTS.c.seq, EVENTS.c.hash)
                                 .where(EVENTS.c.match_id == mid)
                                 .order_by(EVENTS.c.seq.desc()).limit(1)).one_or_none()
                want = (0, None) if last is None else (last.seq + 1, bytes(last.hash))
                assert read(c, mid) == want
            assert read(c, empty) == (0, None)
            # Going below 0005 dropped the live match's recorder key: verify says so.
            got = {v.match_id: v.broken for v in verify(c)}
            assert all(b is None for mid, b in got.items() if mid != empty)
            assert got[empty] is not None and got[empty].code == "key-missing"
    finally:
        engine.dispose()


def test_the_revisions_read_without_alembic_are_alembics(url: str) -> None:
    from alembic.script import ScriptDirectory

    assert db.head_revision() == ScriptDirectory.from_config(
        db.alembic_config()).get_current_head()
    engine = db.make_engine(url)

    def alembics() -> str | None:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()

    try:
        assert db.current_revision(engine) is None and alembics() is None
        for revision in ("0001", "0004", "head"):
            db.upgrade(engine, revision)
            assert db.current_revision(engine) == alembics() is not None
        assert db.current_revision(engine) == db.head_revision()
    finally:
        engine.dispose()


def test_an_import_into_an_up_to_date_ledger_loads_no_alembic(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.store.conftest import ROOT, SAMPLES

    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    db.open_db(url).dispose()
    sample = next(p for p in sorted(SAMPLES.glob("*.json")) if "expected" not in p.name)
    code = ("import sys; from web.cli import main; "
            f"code = main(['import', {str(sample)!r}, '--db', {url!r}, '--no-progress']); "
            "print(code, sorted(m for m in sys.modules if m.split('.')[0] == 'alembic'))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert done.stdout.splitlines()[-1] in ("0 []", "1 []"), done.stdout + done.stderr


def test_0012_gives_every_live_match_the_audit_of_its_line(engine: Engine) -> None:
    # A live match stored before issue 29 kept each step's warnings only: a pass that the
    # reveal shows was illegal stayed unflagged, and ``verify`` (which now audits the
    # line) would name the difference. 0012 stores the audit's findings.
    from ledger.store.models import MATCHES, PLAYER_TOTALS
    from ledger.store.recording import live
    from tests.store.test_live_equals_import import HEADER, _events

    with db.writing(engine) as s:
        mid = live.start_match(s, HEADER)
        seq = 0
        for ev in _events():
            seq = live.append(s, mid, ev, expected_seq=seq).next_seq
    def faulty(c: Any) -> int:
        return int(c.execute(select(PLAYER_TOTALS.c.faulty)
                             .where(PLAYER_TOTALS.c.name == "Karim")).scalar_one())

    db.downgrade(engine, "0011")
    with engine.connect() as c:
        m = c.execute(select(MATCHES).where(MATCHES.c.id == mid)).one()
        assert (m.ok, m.errors, m.findings) == (True, 0, [])  # as the appends before 0012 left it
        assert faulty(c) == 0
    db.upgrade(engine)
    with engine.connect() as c:
        assert faulty(c) == 1
        m = c.execute(select(MATCHES).where(MATCHES.c.id == mid)).one()
        assert not m.ok and m.errors == 6  # each of seat 1's six passes
        assert {f["code"] for f in m.findings} >= {"illegal-pass"}
        # the whole ledger, the players' totals too (they count a faulty match)
        assert [v.describe() for v in verify(c) if not v.ok] == []
