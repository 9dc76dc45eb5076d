"""On a PostgreSQL ledger with the job queue (web.analysis_queue.QueueJobs) a knowledge
report is worked out in the app's own worker processes (the queue's workers take deal
jobs only), then kept in the ledger by the match's head like any other."""

from __future__ import annotations

import os
import secrets
import time

import pytest
from sqlalchemy import create_engine, text
from webtest_support import SAMPLES

from ledger.store import analyses, db, knowledge_reviews
from ledger.store.importer import import_file
from web.analysis_backends import open_jobs
from web.analysis_jobs import Pending, Settings
from web.knowledge_report import VERSION

PG = os.environ.get("DOMINO_LEDGER_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")

pytestmark = pytest.mark.postgres


def test_the_queue_backend_has_the_report_worked_out_here() -> None:
    admin = create_engine(PG, isolation_level="AUTOCOMMIT")
    schema = f"kq_t{os.getpid()}_{secrets.token_hex(3)}"
    with admin.connect() as c:
        c.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine = db.open_db(f"{PG}?options=-csearch_path%3D{schema}", migrate=True)
    jobs = open_jobs(engine, Settings(backend="queue"))
    try:
        assert type(jobs).__name__ == "QueueJobs"
        with db.writing(engine) as session:
            (got,) = import_file(session, str(SAMPLES / "domena-2.json"))
        assert got.id is not None
        with engine.connect() as c:
            assert jobs.ask_knowledge(c, got.id, start=False) is None  # nothing started
        guard = time.monotonic() + 600
        seen: list[Pending] = []
        while True:
            with engine.connect() as c:
                answer = jobs.ask_knowledge(c, got.id)
            if not isinstance(answer, Pending):
                break
            seen.append(answer)
            assert time.monotonic() < guard
            time.sleep(0.2)
        assert seen and answer is not None
        assert [p["seat"] for p in answer["report"]] == [0, 1]
        with engine.connect() as c:
            at = analyses.head(c, got.id)
            assert at is not None
            assert knowledge_reviews.get(c, got.id, at, answer["samples"], VERSION) == answer
            assert knowledge_reviews.current(c, got.id, VERSION) == answer
    finally:
        jobs.close()
        engine.dispose()
        with admin.connect() as c:
            c.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()
