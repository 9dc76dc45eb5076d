"""A worker keeps an answer and ends its job in one transaction, but PostgreSQL's reads
each see what is committed before them: a page that reads the answer (none yet), then the
job (gone by then) must read the answer again rather than say "none" or queue the job
afresh. CI saw the match's review answered 404 "none" once, just as its worker ended.

Each test lets the worker's transaction land exactly between the two reads: the queue's
progress read first commits what the worker commits (``knowledge_reviews.put`` or
``analyses.put``, and ``jobqueue.finished``), then reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from ledger.jobs import knowledge_report
from ledger.jobs.deal_analysis import VERSION as DEAL_VERSION
from ledger.jobs.queue import QueueJobs, deal_key, knowledge_key
from ledger.jobs.service import Pending, Settings
from ledger.store import db
from ledger.store.jobs import analyses, jobqueue, knowledge_reviews
from ledger.store.jobs.analyses import Head
from tests.store.conftest import SAMPLES, Schemas
from tests.store.helpers import import_path
from web.app import create_app

QUICK = "domena-2.json"


@pytest.fixture
def ledger(schemas: Schemas) -> Iterator[tuple[str, Any, int, Head, int]]:
    """A ledger with one match: its url, engine, id, head and review's samples."""
    url = schemas.new()
    engine = db.open_db(url, migrate=True)
    (imported,) = import_path(engine, SAMPLES / QUICK)
    mid = imported.id
    assert mid is not None
    with engine.connect() as c:
        at = analyses.head(c, mid)
        samples = knowledge_report.task(c, mid, Settings.from_env().knowledge_samples).samples
    assert at is not None
    try:
        yield url, engine, mid, at, samples
    finally:
        engine.dispose()


def _finish_first(monkeypatch: pytest.MonkeyPatch, name: str,
                  worker_commits: Callable[[Any], None]) -> list[int]:
    """``jobqueue.<name>`` commits the worker's transaction (once) before it reads."""
    real = getattr(jobqueue, name)
    landed: list[int] = []

    def read(conn: Any, *args: Any) -> Any:
        if not landed:
            worker_commits(None)
            landed.append(1)
        return real(conn, *args)

    monkeypatch.setattr(jobqueue, name, read)
    return landed


def _kept(engine: Any, write: Callable[[Any], None]) -> Callable[[Any], None]:
    """What a worker commits when its answer is worked out: ``write``, one transaction."""
    def commit(_: Any) -> None:
        with db.writing(engine) as session:
            write(db.write_connection(session))
            session.commit()
    return commit


def _jobs(engine: Any) -> int:
    with engine.connect() as c:
        return int(c.execute(text("SELECT count(*) FROM pgqueuer")).scalar_one())


@pytest.mark.postgres
def test_the_review_kept_between_the_reads_is_answered(
        ledger: tuple[str, Any, int, Head, int], monkeypatch: pytest.MonkeyPatch) -> None:
    url, engine, mid, at, samples = ledger
    body = {"samples": samples, "kept": "between the reads"}
    with TestClient(create_app(url)) as client:
        jobs: QueueJobs = client.app.state.analysis_jobs  # type: ignore[attr-defined]
        assert isinstance(jobs, QueueJobs)
        with engine.connect() as c:
            assert isinstance(jobs.ask_knowledge(c, mid), Pending)
        key = knowledge_key(mid, samples, at)

        def write(conn: Any) -> None:
            knowledge_reviews.put(conn, mid, at, samples, knowledge_report.VERSION, body)
            jobqueue.finished(conn, key)

        landed = _finish_first(monkeypatch, "progress_of", _kept(engine, write))
        res = client.get(f"/api/matches/{mid}/knowledge")
        assert landed == [1]  # the worker's transaction landed between the reads
        assert res.status_code == 200, res.text
        assert res.json() == body


@pytest.mark.postgres
def test_the_review_asked_for_again_just_as_it_is_kept_is_not_queued_afresh(
        ledger: tuple[str, Any, int, Head, int], monkeypatch: pytest.MonkeyPatch) -> None:
    _, engine, mid, at, samples = ledger
    jobs = QueueJobs(engine, Settings(knowledge_samples=samples))
    body = {"samples": samples, "kept": "between the reads"}
    landed = _finish_first(monkeypatch, "progress", _kept(engine, lambda conn: (
        knowledge_reviews.put(conn, mid, at, samples, knowledge_report.VERSION, body))))
    with engine.connect() as c:
        got = jobs.ask_knowledge(c, mid)
    assert landed == [1]
    assert got == body
    assert jobs.started == 0 and _jobs(engine) == 0


@pytest.mark.postgres
def test_a_deal_analysed_between_the_reads_is_answered_not_queued(
        ledger: tuple[str, Any, int, Head, int], monkeypatch: pytest.MonkeyPatch) -> None:
    _, engine, mid, at, _ = ledger
    jobs = QueueJobs(engine)
    body = {"deal": 0, "kept": "between the reads"}

    def write(conn: Any) -> None:
        analyses.put(conn, mid, 0, at, DEAL_VERSION, body)
        jobqueue.finished(conn, deal_key(mid, 0, at))

    landed = _finish_first(monkeypatch, "progress", _kept(engine, write))
    with engine.connect() as c:
        got = jobs.ask(c, mid, 0)
    assert landed == [1]
    assert got == body
    assert jobs.started == 0 and _jobs(engine) == 0
