"""A match's review asked of one server process and followed from another (issue 14).

On an embedded SQLite ledger ``domino-ledger serve`` runs one process per core, each
with its own analysis workers; the review's job is claimed in the ledger
(ledger.store.jobs.job_claims), so every process answers the same progress, a second ask
from any process joins the running job, and a claim whose process died does not stand
for ever. Two apps over one ledger file here (each its own jobs, as two processes), and
a real ``serve --workers 2``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import httpx
from sqlalchemy import update
from webtest_support import expected_report, free_port, ledger_with, serving, wait_until_served

from ledger.jobs import knowledge_report
from ledger.jobs.service import Settings
from ledger.store import db
from ledger.store.jobs import analyses, job_claims
from ledger.store.models import JOB_CLAIMS
from web.app import create_app

QUICK = "domena-2.json"
JSON = {"Accept": "application/json"}
ROOT = Path(__file__).resolve().parents[2]


def _until_done(client: httpx.Client, path: str) -> tuple[httpx.Response, list[int]]:
    """GET ``path`` (a fresh connection each time) until it is not 202: the last answer
    and every status seen."""
    seen = []
    guard = time.monotonic() + 600
    while True:
        res = client.get(path, headers={"Connection": "close"})
        seen.append(res.status_code)
        if res.status_code != 202:
            return res, seen
        assert time.monotonic() < guard, "the review is still being worked out"
        time.sleep(0.1)


def test_asked_of_one_process_followed_and_joined_from_another(tmp_path: Path) -> None:
    url, mid = ledger_with(tmp_path, QUICK)
    one, two = create_app(url), create_app(url)
    path = f"/api/matches/{mid}/knowledge"
    with serving(one) as a, serving(two) as b, httpx.Client(base_url=a) as ca, \
            httpx.Client(base_url=b) as cb:
        assert cb.get(path).status_code == 404                 # nothing asked yet
        asked = ca.post(f"/matches/{mid}/knowledge", headers=JSON)
        assert asked.status_code == 202, asked.text
        again = cb.post(f"/matches/{mid}/knowledge", headers=JSON)  # joins, or it is done
        assert again.status_code in (200, 202), again.text
        last, seen = _until_done(cb, path)
        assert 404 not in seen, seen
        assert last.status_code == 200 and last.json() == expected_report(QUICK)
        jobs_one, jobs_two = one.state.analysis_jobs, two.state.analysis_jobs
        assert (jobs_one.started, jobs_two.started) == (1, 0)
        with db.open_db(url).connect() as c:
            assert job_claims.of_match(c, knowledge_report.KNOWLEDGE, mid) == {}


def test_a_review_whose_process_died_is_asked_again(tmp_path: Path) -> None:
    url, mid = ledger_with(tmp_path, QUICK)
    engine = db.open_db(url)
    with engine.connect() as c:
        at = analyses.head(c, mid)
        task = knowledge_report.task(c, mid, Settings.from_env().knowledge_samples)
    assert at is not None
    key = knowledge_report.job_key(mid, task.samples, at)
    with db.writing(engine) as s:  # a process claimed it, then died without a word
        conn = db.write_connection(s)
        assert job_claims.claim(conn, key, "gone:1/dead") is None
        conn.execute(update(JOB_CLAIMS).where(JOB_CLAIMS.c.key == key.name).values(
            state="running", done=1, beat=job_claims.now() - timedelta(
                seconds=job_claims.LEASE + 1)))
        s.commit()
    app = create_app(url)
    with serving(app) as base, httpx.Client(base_url=base) as c:
        assert c.get(f"/api/matches/{mid}/knowledge").status_code == 404
        assert c.post(f"/matches/{mid}/knowledge", headers=JSON).status_code == 202
        last, _seen = _until_done(c, f"/api/matches/{mid}/knowledge")
        assert last.status_code == 200 and app.state.analysis_jobs.started == 1
    engine.dispose()


def _serve(port: int, url: str) -> subprocess.Popen[bytes]:
    cli = Path(sys.executable).parent / "domino-ledger"
    return subprocess.Popen([str(cli), "serve", "--workers", "2", "--port", str(port),
                             "--db", url], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def test_serve_with_two_workers_answers_one_progress(tmp_path: Path) -> None:
    url, mid = ledger_with(tmp_path, QUICK)
    port = free_port()
    server = _serve(port, url)
    base = f"http://127.0.0.1:{port}"
    engine = db.open_db(url)
    path = f"/api/matches/{mid}/knowledge"
    try:
        wait_until_served(server, f"{base}/api/matches")
        # Each request on a connection of its own: the kernel hands it to either process.
        close = {**JSON, "Connection": "close"}
        with httpx.Client(base_url=base, timeout=60) as c:
            assert c.post(f"/matches/{mid}/knowledge", headers=close).status_code == 202
            seen, owners = [], set()
            guard = time.monotonic() + 600
            while True:
                res = c.get(path, headers=close)
                seen.append(res.status_code)
                if res.status_code != 202:
                    break
                again = c.post(f"/matches/{mid}/knowledge", headers=close)
                assert again.status_code in (200, 202), again.text
                with engine.connect() as conn:
                    owners |= {got.owner for got in job_claims.of_match(
                        conn, knowledge_report.KNOWLEDGE, mid).values()}
                assert time.monotonic() < guard, "the review is still being worked out"
                time.sleep(0.1)
        assert 404 not in seen, seen
        assert res.status_code == 200 and res.json() == expected_report(QUICK)
        assert len(owners) <= 1, owners  # one process worked it out, the other joined
        with engine.connect() as conn:
            assert job_claims.of_match(conn, knowledge_report.KNOWLEDGE, mid) == {}
    finally:
        engine.dispose()
        server.terminate()
        server.wait(30)
