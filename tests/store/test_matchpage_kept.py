"""Issue 19 (load): a match's standing line is kept per process under its head
(ledger/store/pages/matchpage.py), and the writer's batches go in without a savepoint each
unless one of their writes is refused (ledger/store/recording/writer.py).

What is kept must never be shown for another head: after an append or an undo the
page reads the match as the tables hold it now, the same as a process that kept nothing.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from typing import Any

import pytest
from sqlalchemy import Engine, event, select

from ledger.replay import frame
from ledger.store import db
from ledger.store.errors import Conflict
from ledger.store.jobs import analyses
from ledger.store.log.verify import verify
from ledger.store.models import EVENTS
from ledger.store.pages import matchpage
from ledger.store.read import StoredMatch, load_match, points_lost
from ledger.store.recording import live
from ledger.store.recording.writer import Writer, lock_path


def _start(engine: Engine, match: dict[str, Any]) -> int:
    with db.writing(engine) as s:
        return live.start_match(s, {"table": match["table"], "seats": match["seats"]})


def _append(engine: Engine, match_id: int, event: dict[str, Any]) -> live.Appended:
    with db.writing(engine) as s:
        return live.append(s, match_id, event)


def _fresh(engine: Engine, match_id: int, step: int | None) -> StoredMatch:
    """The match as a process that keeps nothing reads it."""
    saved, matchpage.SIZE = matchpage.SIZE, 0
    try:
        matchpage._kept.clear()
        with engine.connect() as conn:
            return load_match(conn, match_id, step=step)
    finally:
        matchpage.SIZE = saved


def _seen(match: StoredMatch, step: int) -> tuple[Any, ...]:
    assert match.replay is not None
    fr = frame(match.replay, step, snapshot=match.snapshot)
    return fr.step, fr.deal, fr.scores, fr.board.tiles, tuple(h.tiles for h in fr.hands)


def test_a_kept_match_is_read_again_after_an_append_and_an_undo(
        engine: Engine, corpus: list[dict[str, Any]]) -> None:
    match = corpus[0]
    match_id = _start(engine, match)
    events = match["events"]
    for ev in events[:12]:
        _append(engine, match_id, ev)
    with engine.connect() as conn:
        before = load_match(conn, match_id, step=12)
        again = load_match(conn, match_id, step=12)
    assert again.types == before.types and again.derived is before.derived  # kept
    _append(engine, match_id, events[12])
    with engine.connect() as conn:
        after = load_match(conn, match_id, step=13)
    assert len(after.types) == 13 and after.types == _fresh(engine, match_id, 13).types
    assert _seen(after, 13) == _seen(_fresh(engine, match_id, 13), 13)
    _append(engine, match_id, {"type": "undo", "event": 12})
    with engine.connect() as conn:
        undone = load_match(conn, match_id, step=12)
    fresh = _fresh(engine, match_id, 12)
    assert undone.types == fresh.types == before.types
    assert undone.derived == fresh.derived
    assert _seen(undone, 12) == _seen(fresh, 12) == _seen(before, 12)


def test_every_step_of_a_kept_match_is_the_step_of_a_fresh_read(
        engine: Engine, corpus: list[dict[str, Any]]) -> None:
    """Windows and snapshots kept for one step serve the next ones right."""
    match = corpus[1]
    match_id = _start(engine, match)
    for ev in match["events"]:
        _append(engine, match_id, ev)
    last = len(match["events"])
    matchpage._kept.clear()
    with engine.connect() as conn:
        for step in [*range(last + 1), *range(last, -1, -7)]:
            kept = load_match(conn, match_id, step=step)
            assert _seen(kept, step) == _seen(_fresh(engine, match_id, step), step), step


def test_a_refused_write_in_a_batch_leaves_the_others_and_their_order(
        engine: Engine, corpus: list[dict[str, Any]]) -> None:
    """The batch goes in at once; a stale write in it sends it back to a savepoint each,
    and a write that needs the one before it in the same batch still finds it."""
    path = lock_path(engine)
    if path is None:
        pytest.skip("PostgreSQL: each append is a transaction of its own, no batches")
    match = corpus[0]
    match_id = _start(engine, match)
    writer = Writer(engine)
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)  # another process's turn: the writes queue up
    answers: dict[str, Any] = {}

    def ask(name: str, index: int, seq: int) -> None:
        try:
            answers[name] = writer.run(lambda session: live.append(
                session, match_id, match["events"][index], seq, commit=False))
        except Conflict as exc:
            answers[name] = exc

    threads = []
    for args in (("first", 0, 0), ("stale", 0, 7), ("second", 1, None)):
        threads.append(threading.Thread(target=ask, args=args))
        threads[-1].start()
        time.sleep(0.1)  # in this order in the queue
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)
    for t in threads:
        t.join(30)
    writer.close()
    assert isinstance(answers["stale"], Conflict)
    assert isinstance(answers["first"], live.Appended) and answers["first"].index == 0
    assert isinstance(answers["second"], live.Appended) and answers["second"].index == 1
    with engine.connect() as conn:
        kinds = conn.execute(select(EVENTS.c.kind).where(EVENTS.c.match_id == match_id)
                             ).scalars().all()
        assert kinds.count("recorded") == 2
        assert [v.describe() for v in verify(conn) if not v.ok] == []


def test_a_batch_of_good_appends_opens_no_savepoint(
        engine: Engine, corpus: list[dict[str, Any]]) -> None:
    """A savepoint and its release per append were a sixth of the writer's time: a batch
    none of whose writes is refused, or a write alone, runs without one (a refused one
    redoes the batch with them, the test above)."""
    path = lock_path(engine)
    if path is None:
        pytest.skip("PostgreSQL: each append is a transaction of its own, no batches")
    match = corpus[0]
    ids = [_start(engine, match) for _ in range(3)]
    statements: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement.upper())

    event.listen(engine, "before_cursor_execute", seen)
    writer = Writer(engine)
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)  # the writes queue up and go in as one batch
    answers: list[Any] = []
    threads = [threading.Thread(target=lambda i=i: answers.append(writer.run(
        lambda session: live.append(session, i, match["events"][0], 0, commit=False))))
        for i in ids]
    try:
        for t in threads:
            t.start()
        time.sleep(0.3)
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    for t in threads:
        t.join(30)
    writer.close()
    event.remove(engine, "before_cursor_execute", seen)
    assert 1 <= writer.batches <= 2  # the first may go in alone, before the lock is let go
    assert sorted(a.match_id for a in answers) == ids
    assert [s for s in statements if "SAVEPOINT" in s] == []


def test_a_match_says_whether_an_analysis_of_it_is_kept(
        engine: Engine, corpus: list[dict[str, Any]]) -> None:
    """A replay step skips the query for points lost when the match row says no analysis
    is kept; once one is, the step reads it (the whole-match chart's points lost)."""
    match = corpus[0]
    match_id = _start(engine, match)
    for recorded in match["events"][:12]:
        _append(engine, match_id, recorded)
    with engine.connect() as conn:
        seen = load_match(conn, match_id, step=5)
        assert seen.analysed is False
        assert seen.rules is not None and points_lost(conn, match_id, seen.rules) == {}
    with db.writing(engine) as s:
        conn = s.connection()
        at = analyses.head(conn, match_id)
        assert at is not None
        analyses.put(conn, match_id, 0, at, "test", {
            "best": [0] * seen.rules.sides, "decisions": [{"seat": 0, "lost": 3}]})
        s.commit()
    with engine.connect() as conn:
        seen = load_match(conn, match_id, step=5)
        assert seen.analysed is True
        lost = [0] * seen.rules.sides
        lost[seen.rules.side_of(0)] = 3
        assert points_lost(conn, match_id, seen.rules) == {1: lost}
