"""A bulk import lifts SQLite's REPLACE guard on the events (``events_no_replace``) inside
its own write transactions only: every committed state of the file has it, whatever
way a batch ends (``ledger.store.imports.importer.ReplaceGuard``)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError

from ledger.store import db
from ledger.store.imports import importer
from ledger.store.imports.importer import Prepared, ReplaceGuard, store_all
from ledger.store.log.verify import verify
from tests.store.conftest import write_jsonl
from tests.store.helpers import prepared

NAME = ReplaceGuard.NAME


@pytest.fixture
def lite(tmp_path: Path) -> Any:
    eng = db.open_db(f"sqlite:///{tmp_path / 'ledger.db'}", migrate=True)
    yield eng
    eng.dispose()


def _guard_sql(engine: Engine) -> str | None:
    """The guard's text as a fresh connection sees the file (None: not there)."""
    assert engine.url.database is not None
    con = sqlite3.connect(engine.url.database)
    try:
        found = con.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' "
                            "AND name = ?", (NAME,)).fetchone()
    finally:
        con.close()
    return None if found is None else str(found[0])


def _replace_refused(engine: Engine) -> None:
    assert engine.url.database is not None
    con = sqlite3.connect(engine.url.database)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="REPLACE refused"):
            con.execute("REPLACE INTO events SELECT * FROM events LIMIT 1")
    finally:
        con.close()


def test_a_bulk_import_leaves_the_guard_as_it_was_and_lifts_it_only_within_a_batch(
        lite: Engine, corpus: list[dict[str, Any]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    before = _guard_sql(lite)
    assert before is not None
    monkeypatch.setattr(importer, "BATCH_MATCHES", 3)
    seen_inside: list[bool] = []
    real = importer._store_one

    def spying(session: Any, prep: Prepared) -> tuple[int, bool]:
        # Within the import's transaction the guard is gone; any other connection
        # (the file as committed) has it.
        conn = db.write_connection(session)
        here = conn.exec_driver_sql("SELECT count(*) FROM sqlite_master WHERE name = ?",
                                    (NAME,)).scalar_one()
        seen_inside.append(here == 0)
        assert _guard_sql(lite) == before
        return real(session, prep)

    monkeypatch.setattr(importer, "_store_one", spying)
    path = write_jsonl(tmp_path / "some.jsonl", corpus[:8])
    with db.writing(lite) as session:
        got = list(importer.import_file(session, str(path)))
    assert [g.new for g in got] == [True] * 8
    assert seen_inside == [True] * 8
    assert _guard_sql(lite) == before
    _replace_refused(lite)
    with lite.connect() as c:
        assert all(v.ok for v in verify(c))


def test_a_store_that_is_not_bulk_keeps_the_guard(
        lite: Engine, corpus: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    real = importer._store_one
    counts: list[int] = []

    def spying(session: Any, prep: Prepared) -> tuple[int, bool]:
        conn = db.write_connection(session)
        counts.append(conn.exec_driver_sql("SELECT count(*) FROM sqlite_master WHERE name = ?",
                                           (NAME,)).scalar_one())
        return real(session, prep)

    monkeypatch.setattr(importer, "_store_one", spying)
    with db.writing(lite) as session:
        assert len(list(store_all(session, prepared(corpus, 2)))) == 2
    assert counts == [1, 1]


def test_a_failed_first_match_puts_the_guard_back_in_the_open_transaction(
        lite: Engine, corpus: list[dict[str, Any]]) -> None:
    """Nothing to commit when the batch's first match fails: the transaction stays open
    for the caller, who may commit it (the guard must be in it by then)."""
    before = _guard_sql(lite)
    good = prepared(corpus, 2)
    rows = orjson.loads(good[0].rows_json)
    broken = replace(good[0], rows_json=orjson.dumps(rows[:-1]).decode())
    with db.writing(lite) as session:
        with pytest.raises(DBAPIError, match="head"):
            list(store_all(session, [broken, good[1]], bulk=True))
        conn = db.write_connection(session)
        assert conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE name = ?",
                                    (NAME,)).scalar_one() == before
        session.commit()
    assert _guard_sql(lite) == before
    # And after a failure past the first match: the batch before it committed, with it.
    with db.writing(lite) as session:
        with pytest.raises(DBAPIError, match="head"):
            list(store_all(session, [good[1], broken], bulk=True))
        session.commit()
    assert _guard_sql(lite) == before


def test_an_import_stopped_half_way_rolls_back_with_the_guard_there(
        lite: Engine, corpus: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    before = _guard_sql(lite)
    monkeypatch.setattr(importer, "BATCH_SECONDS", 3600.0)
    monkeypatch.setattr(importer, "BATCH_MATCHES", 3)
    preps = prepared(corpus, 5)

    def stopping() -> Any:
        yield from preps[:4]
        raise KeyboardInterrupt

    with db.writing(lite) as session:
        with pytest.raises(KeyboardInterrupt):
            list(store_all(session, stopping(), bulk=True))
        session.rollback()
    assert _guard_sql(lite) == before
    with lite.connect() as c:
        assert c.exec_driver_sql("SELECT count(*) FROM matches").scalar_one() == 3
