"""What a kept page is keyed by (ledger/store/pages/versions.py, web/page_cache.py): the ledger's
version moves with every match stored and every event appended, a match's version with
its own head and its kept reviews, on both databases; on a SQLite file the server reads
them through a connection of its own (``QuickVersions``), which must answer exactly what
the engine's pool answers, at every step, and never raise for a fault of the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from ledger.store import db
from ledger.store.jobs import knowledge_reviews
from ledger.store.jobs.analyses import Head, head
from ledger.store.pages.versions import EngineVersions, QuickVersions
from ledger.store.recording import live
from tests.store.conftest import SAMPLES
from tests.store.helpers import import_path


def _answers(engine: Engine, ids: list[int]) -> list[Any]:
    """Every version the engine gives, and the quick reader's the same on SQLite."""
    slow = EngineVersions(engine)
    got = [slow.ledger(), *(slow.match(i) for i in ids)]
    quick = QuickVersions.of(engine)
    if engine.dialect.name == "sqlite":
        assert quick is not None
        try:
            assert [quick.ledger(), *(quick.match(i) for i in ids)] == got
        finally:
            quick.close()
    else:
        assert quick is None  # PostgreSQL: through the pool, in a thread
    return got


def test_versions_move_with_every_write(engine: Engine, corpus: list[dict[str, Any]]) -> None:
    (imported,) = import_path(engine, SAMPLES / "domena-2.json")
    assert imported.id is not None
    first = imported.id
    match = corpus[0]
    with db.writing(engine) as s:
        second = live.start_match(s, {"table": match["table"], "seats": match["seats"]})
    missing = second + 1000
    seen = [_answers(engine, [first, second, missing])]
    assert seen[0][3] is None  # no such match: nothing is kept for it
    assert seen[0][2][0] == 0  # a live match with no event yet
    for event in match["events"][:3]:
        with db.writing(engine) as s:
            live.append(s, second, event)
        seen.append(_answers(engine, [first, second, missing]))
        before, now = seen[-2], seen[-1]
        assert now[0] != before[0]  # the ledger moved
        assert now[1] == before[1]  # the other match's page did not
        assert now[2] != before[2]  # its own did
    with engine.connect() as c:
        at = head(c, first)
    assert isinstance(at, Head)
    with db.writing(engine) as s:
        knowledge_reviews.put(db.write_connection(s), first, at, 8, "v-test", {"players": []})
        s.commit()
    kept = _answers(engine, [first, second, missing])
    assert kept[1][:2] == seen[-1][1][:2] and kept[1][2] == seen[-1][1][2] + 1
    assert kept[0] == seen[-1][0]  # a review is not a change of the ledger's matches


def test_the_quick_reader_answers_none_for_a_broken_file(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    engine = db.open_db(f"sqlite:///{path}", migrate=True)
    quick = QuickVersions.of(engine)
    assert quick is not None
    try:
        assert quick.ledger() == (0, 0)
        quick.close()
        engine.dispose()
        for extra in tmp_path.glob("ledger.db-*"):
            extra.unlink()
        path.write_bytes(b"this is not a database" * 100)
        assert quick.ledger() is None and quick.match(1) is None
    finally:
        quick.close()


def test_only_a_sqlite_file_is_read_quickly(tmp_path: Path) -> None:
    memory = db.open_db("sqlite://", migrate=True)
    try:
        assert QuickVersions.of(memory) is None
    finally:
        memory.dispose()
