"""Knowledge reviews (issue 14) as jobs of the PostgreSQL ledger's queue (issue 18): the
web asks, a ``domino-ledger worker`` process works the review out and keeps it by the
match's head, the page shows it; asking again while the job waits or runs joins it.

The review is checked against the one ``analyse --report`` works out from the same
file (``cli_knowledge.report_object``, same seed and samples).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from ledger.analysis.cli_knowledge import REPORT_VERSION
from ledger.jobs.queue import KNOWLEDGE, QueueJobs, knowledge_key
from ledger.store import db
from ledger.store.jobs import analyses, jobqueue, knowledge_reviews
from tests.store.conftest import ROOT, SAMPLES, Schemas
from tests.store.helpers import import_path
from tests.web.webtest_support import expected_report
from web.access import Access, Mode
from web.app import create_app

QUICK = "domena-2.json"  # two sides: its review takes seconds
TOKEN = "owner-token-0123456789"
OWNER = {"Authorization": f"Bearer {TOKEN}"}


def _worker(url: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "web.cli", "worker", "--db", url, "--lease", "5"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _app(url: str) -> TestClient:
    return TestClient(create_app(url, access=Access(mode=Mode.KEYS, owner_token=TOKEN)))


def _jobs(engine: Any) -> list[str]:
    with engine.connect() as c:
        return [str(r) for r in c.execute(text(
            "SELECT entrypoint FROM pgqueuer ORDER BY id")).scalars()]


@pytest.mark.postgres
def test_a_worker_reviews_the_match_the_web_asked_for(schemas: Schemas) -> None:
    url = schemas.new()
    engine = db.open_db(url, migrate=True)
    (imported,) = import_path(engine, SAMPLES / QUICK)
    mid = imported.id
    assert mid is not None
    worker: subprocess.Popen[str] | None = None
    try:
        with _app(url) as one, _app(url) as two:
            assert one.get(f"/api/matches/{mid}/knowledge").status_code == 404  # not asked
            assert 'id="ask-review"' in one.get(f"/matches/{mid}").text
            asked = one.post(f"/matches/{mid}/knowledge", headers=OWNER,
                             follow_redirects=False)
            assert asked.status_code == 303
            # Another server, asked again while the job waits: the same job, not a second.
            again = two.post(f"/matches/{mid}/knowledge",
                             headers={**OWNER, "Accept": "application/json"})
            assert again.status_code == 202 and again.json()["status"] == "queued"
            assert _jobs(engine) == [KNOWLEDGE]
            assert one.app.state.analysis_jobs.started == 1  # type: ignore[attr-defined]
            assert two.app.state.analysis_jobs.started == 0  # type: ignore[attr-defined]
            assert 'id="review-progress"' in two.get(f"/matches/{mid}").text

            worker = _worker(url)
            seen: list[dict[str, Any]] = []
            deadline = time.monotonic() + 600
            while True:
                res = two.get(f"/api/matches/{mid}/knowledge")
                if res.status_code != 202:
                    break
                seen.append(res.json())
                if seen[-1]["status"] == "running":  # asked while it runs: joined too
                    assert one.post(f"/matches/{mid}/knowledge",
                                    headers={**OWNER, "Accept": "application/json"}
                                    ).status_code in (200, 202)
                assert time.monotonic() < deadline, "no worker reviewed the match"
                time.sleep(0.1)
            assert res.status_code == 200, res.text
            assert res.json() == expected_report(QUICK)
            for p in seen:
                assert p["status"] in ("queued", "running") and 0 <= p["done"] <= p["total"]
            assert len({p["total"] for p in seen if p["total"]}) <= 1  # deals of the match
            page = one.get(f"/matches/{mid}").text
            assert 'id="review-players"' in page and 'id="review-progress"' not in page
            assert one.app.state.analysis_jobs.started == 1  # type: ignore[attr-defined]
            assert isinstance(one.app.state.analysis_jobs, QueueJobs)  # type: ignore[attr-defined]
        worker.send_signal(signal.SIGTERM)
        out, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
        done = [line.split()[1] for line in out.splitlines() if line.startswith("done ")]
        with engine.connect() as c:
            at = analyses.head(c, mid)
            assert at is not None
            key = knowledge_key(mid, res.json()["samples"], at)
            assert done == [key.name]  # worked out once, by the worker
            assert knowledge_reviews.get(c, mid, at, key.part, REPORT_VERSION) == res.json()
            assert c.execute(text("SELECT count(*) FROM job_progress")).scalar_one() == 0
            log = c.execute(text("SELECT entrypoint, status::text FROM pgqueuer_log "
                                 "WHERE status NOT IN ('queued', 'picked')")).all()
            assert [tuple(r) for r in log] == [(KNOWLEDGE, "successful")]
    finally:
        if worker is not None and worker.poll() is None:
            worker.kill()
            worker.communicate(timeout=30)
        engine.dispose()


@pytest.mark.postgres
def test_a_review_for_an_old_head_is_never_shown(schemas: Schemas) -> None:
    """Asked for a live match, which is then recorded further before a worker comes: the
    old head's job is ended with nothing worked out, and the page asks afresh."""
    import orjson

    url = schemas.new()
    engine = db.open_db(url, migrate=True)
    match = orjson.loads((SAMPLES / QUICK).read_bytes())
    events = match["events"]
    worker: subprocess.Popen[str] | None = None
    try:
        with TestClient(create_app(url)) as client:
            mid = int(client.post("/api/matches", json={"table": match["table"],
                                                        "seats": match["seats"]}).json()["id"])
            seq = 0
            for ev in events[:7]:
                got = client.post(f"/api/matches/{mid}/events",
                                  json={"expected_seq": seq, "event": ev})
                assert got.status_code == 201, got.text
                seq = got.json()["next_seq"]
            jobs: QueueJobs = client.app.state.analysis_jobs  # type: ignore[attr-defined]
            with engine.connect() as c:
                assert jobs.ask_knowledge(c, mid).status == "queued"  # type: ignore[union-attr]
            got = client.post(f"/api/matches/{mid}/events",
                              json={"expected_seq": seq, "event": events[7]})
            assert got.status_code == 201, got.text
            with engine.connect() as c:  # the job of the old head is not this head's
                assert jobs.ask_knowledge(c, mid, start=False) is None
                old = next(iter(jobqueue.progress_of(c, KNOWLEDGE, mid)))
                assert old.last_seq < analyses.head(c, mid).last_seq  # type: ignore[union-attr]
            worker = _worker(url)
            deadline = time.monotonic() + 120
            while True:
                with engine.connect() as c:
                    if not jobqueue.progress_of(c, KNOWLEDGE, mid):
                        break
                assert time.monotonic() < deadline, "the old head's job was not ended"
                time.sleep(0.1)
            with engine.connect() as c:
                assert knowledge_reviews.current(c, mid, REPORT_VERSION) is None
                assert jobs.ask_knowledge(c, mid, start=False) is None
        worker.send_signal(signal.SIGTERM)
        out, err = worker.communicate(timeout=60)
        assert worker.returncode == 0, err
        assert [line.split()[0] for line in out.splitlines()] == ["known"]
    finally:
        if worker is not None and worker.poll() is None:
            worker.kill()
            worker.communicate(timeout=30)
        engine.dispose()
