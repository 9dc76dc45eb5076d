"""Analysis workers on the PostgreSQL ledger's job queue (issue 18): two worker
processes, 50 deals, one worker killed with SIGKILL in the middle of a job.

Every deal is analysed exactly once (the workers' own lines, the queue's log and the
ledger agree), the killed worker's job is finished by the other once its lease runs
out, the survivor stops cleanly on SIGTERM, and the web (the app over the same schema)
serves each answer without starting anything itself.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, text

from ledger.jobs.deal_analysis import VERSION
from ledger.jobs.queue import QueueJobs, deal_key
from ledger.jobs.service import Pending
from ledger.store import db
from ledger.store.jobs import analyses, jobqueue
from ledger.store.jobs.analyses import Head
from ledger.store.jobs.jobqueue import BULK, WEB, JobKey
from tests.store.conftest import ROOT, SAMPLES, Schemas
from tests.store.helpers import import_path
from web.app import create_app

# Three-seat Selminha deals are solved by max-n and take a second or more each: the
# one killed mid-job is the longest of them (deal 7 of the sample).
SLOW_FILE, SLOW_DEAL = "selminha-3.json", 6
FILES = ["selminha-3.json", "domena-2.json", "arab-block-2.json", "casual-arena-2.json",
         "sahrat-draw-2.json", "selminha-2.json", "domena-2-timed.json"]
LEASE = 3.0


def _worker(url: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "web.cli", "worker", "--db", url, "--lease", str(LEASE)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "DOMINO_LEDGER_ANALYSIS_SECONDS": "120"})


def _until(what: str, check: object, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail(f"waited {timeout:g} s for {what}")
        time.sleep(0.02)


def _running(engine: Engine, key: JobKey, worker: subprocess.Popen[str]) -> Callable[[], bool]:
    """Whether ``worker`` is running ``key``'s job now, by the job's progress row."""
    name = f"{os.uname().nodename}:{worker.pid}"

    def check() -> bool:
        with engine.connect() as c:
            p = jobqueue.progress(c, key)
        return p is not None and p.state == "running" and p.worker == name

    return check


def _done_lines(out: str) -> list[str]:
    """The keys a worker says it worked out (``done KEY SECONDS``)."""
    return [line.split()[1] for line in out.splitlines() if line.startswith("done ")]


def _fifty_queued(engine: Engine) -> list[JobKey]:
    """The samples imported and 50 deals queued, the slow one first (a page's priority),
    the rest as a bulk backlog."""
    ids = {}
    for name in FILES:
        (imported,) = import_path(engine, SAMPLES / name)
        assert imported.id is not None
        ids[name] = imported.id
    with engine.connect() as c:
        todo = analyses.unanalysed(c, VERSION)
    slow = next(deal_key(m, d, at) for m, d, at in todo
                if m == ids[SLOW_FILE] and d == SLOW_DEAL)
    rest = [deal_key(m, d, at) for m, d, at in todo if (m, d) != (slow.match_id, slow.part)]
    keys = [slow, *rest[:49]]
    assert len(set(keys)) == 50
    assert jobqueue.enqueue(engine, [slow], "test", WEB) == 1
    assert jobqueue.enqueue(engine, keys[1:], "analyse --all", BULK) == 49
    assert jobqueue.enqueue(engine, keys, "again", BULK) == 0  # queued once only
    return keys


def _each_done_once(engine: Engine, keys: list[JobKey], first_out: str,
                    second_out: str) -> None:
    """Every key in one worker's lines, once; the killed one's (keys[0]) by the other; the
    queue's log agrees and nothing is left queued or in progress."""
    said = Counter(_done_lines(first_out) + _done_lines(second_out))
    assert set(said) == {k.name for k in keys}
    assert max(said.values()) == 1
    assert keys[0].name in _done_lines(second_out)
    with engine.connect() as c:
        log = dict(c.execute(text("SELECT status::text, count(*) FROM pgqueuer_log "
                                  "GROUP BY status")).all())
        assert log.get("successful") == 50 and log.get("exception") is None
        assert c.execute(text("SELECT count(*) FROM pgqueuer")).scalar_one() == 0
        assert c.execute(text("SELECT count(*) FROM job_progress")).scalar_one() == 0


def _web_serves_each(url: str, keys: list[JobKey]) -> None:
    """The web shows each answer, from whichever worker made it, and starts nothing."""
    with TestClient(create_app(url)) as client:
        backend = client.app.state.analysis_jobs  # type: ignore[attr-defined]
        assert isinstance(backend, QueueJobs)
        for k in keys:
            res = client.get(f"/api/matches/{k.match_id}/analysis",
                             params={"deal": k.part + 1})
            assert res.status_code == 200, res.text
            body = res.json()
            assert (body["match"], body["number"]) == (k.match_id, k.part + 1)
            assert body["steps"] and "best" in body
        assert backend.started == 0


@pytest.mark.postgres
def test_two_workers_fifty_deals_one_killed_mid_job(schemas: Schemas) -> None:
    url = schemas.new()
    engine = db.open_db(url, migrate=True)
    workers: list[subprocess.Popen[str]] = []
    try:
        keys = _fifty_queued(engine)
        slow = keys[0]
        first = _worker(url)
        workers.append(first)
        _until("the first worker to start the slow deal", _running(engine, slow, first), 120)
        second = _worker(url)
        workers.append(second)
        first.send_signal(signal.SIGKILL)
        first_out, _ = first.communicate(timeout=30)
        with engine.connect() as c:  # it died in the middle: nothing of that job is kept
            assert analyses.get(c, slow.match_id, slow.part,
                                Head(slow.last_seq, slow.head_hash), VERSION) is None
            assert jobqueue.progress(c, slow).state == "running"  # type: ignore[union-attr]
        assert slow.name not in _done_lines(first_out)

        def all_kept() -> bool:
            with engine.connect() as c:
                return all(analyses.get(c, k.match_id, k.part, Head(k.last_seq, k.head_hash),
                                        VERSION) is not None for k in keys)

        _until("every deal to be analysed", all_kept, 600)
        second.send_signal(signal.SIGTERM)
        second_out, second_err = second.communicate(timeout=60)
        assert second.returncode == 0, second_err
        assert "stopped after" in second_err
        _each_done_once(engine, keys, first_out, second_out)
        _web_serves_each(url, keys)
    finally:
        for proc in workers:
            if proc.poll() is None:
                proc.kill()
                proc.communicate(timeout=30)
        engine.dispose()


@pytest.mark.postgres
def test_a_web_request_queues_its_deal_and_a_worker_answers(schemas: Schemas) -> None:
    """The page's round trip: 202 queued, a worker takes it (progress), then 200; a second
    app (another server) sees the same job, never a second one."""
    url = schemas.new()
    engine = db.open_db(url, migrate=True)
    (imported,) = import_path(engine, SAMPLES / "domena-2.json")
    mid = imported.id
    assert mid is not None
    worker: subprocess.Popen[str] | None = None
    try:
        with TestClient(create_app(url)) as one, TestClient(create_app(url)) as two:
            first = one.get(f"/api/matches/{mid}/analysis", params={"deal": 2})
            assert first.status_code == 202 and first.json()["status"] == "queued"
            again = two.get(f"/api/matches/{mid}/analysis", params={"deal": 2})
            assert again.status_code == 202
            assert one.app.state.analysis_jobs.started == 1  # type: ignore[attr-defined]
            assert two.app.state.analysis_jobs.started == 0  # type: ignore[attr-defined]
            missing = one.get(f"/api/matches/{mid}/analysis", params={"deal": 99})
            assert missing.status_code == 404
            worker = _worker(url)
            deadline = time.monotonic() + 120
            while True:
                res = two.get(f"/api/matches/{mid}/analysis", params={"deal": 2})
                if res.status_code == 200:
                    break
                assert res.status_code == 202, res.text
                assert time.monotonic() < deadline, "no worker answered"
                time.sleep(0.05)
            assert res.json()["number"] == 2
            assert one.get(f"/api/matches/{mid}/analysis",
                           params={"deal": 2}).json() == res.json()
        worker.send_signal(signal.SIGTERM)
        out, err = worker.communicate(timeout=60)
        assert worker.returncode == 0, err
        assert len(_done_lines(out)) == 1
    finally:
        if worker is not None and worker.poll() is None:
            worker.kill()
            worker.communicate(timeout=30)
        engine.dispose()


def test_a_worker_refuses_a_ledger_without_a_queue(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    db.open_db(url).dispose()
    got = subprocess.run([sys.executable, "-m", "web.cli", "worker", "--db", url], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert got.returncode == 2
    assert "no job queue" in got.stderr and "Traceback" not in got.stderr


def test_a_job_key_names_its_head_and_version() -> None:
    key = JobKey("deal", 3, 1, 40, bytes(range(32)), VERSION)
    assert JobKey.of_payload(key.payload()) == key
    moved = JobKey("deal", 3, 1, 41, bytes(32), VERSION)
    assert moved.name != key.name  # another head: another job, another answer
    with pytest.raises(jobqueue.QueueError, match="not a job key"):
        JobKey.of_payload(b"{}")


def _analyse_all(url: str, *more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "web.cli", "analyse", "--all", "--db", url,
                           *more], cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.slow(reason="analyse --all works out every deal of a ledger: 6-12 s")
def test_analyse_all_queues_a_ledger_or_works_it_out_here(url: str) -> None:
    """``analyse --all``: on PostgreSQL every scored deal is queued once (``--preset`` and
    ``--since`` choose the matches); on SQLite they are worked out here and kept."""
    engine = db.open_db(url, migrate=True)
    try:
        for name in ("domena-2.json", "selminha-2.json"):
            import_path(engine, SAMPLES / name)
        with engine.connect() as c:
            deals = len(analyses.unanalysed(c, VERSION))
            domena = len(analyses.unanalysed(c, VERSION, preset="domena"))
        assert deals == 16 and domena == 7
        none = _analyse_all(url, "--since", "2100-01-01", "--no-wait")
        assert "0 deals to analyse" in none.stderr
        if url.startswith("postgresql"):
            got = _analyse_all(url, "--preset", "domena", "--no-wait")
            assert got.returncode == 0, got.stderr
            assert "7 deals to analyse: 7 queued now" in " ".join(got.stderr.split())
            got = _analyse_all(url, "--no-wait")
            assert "16 deals to analyse: 9 queued now, 7 were queued already" in " ".join(
                got.stderr.split())
            with engine.connect() as c:
                got_counts = jobqueue.counts(c)
                assert got_counts["queued"] == 16 and "picked" not in got_counts
            return
        got = _analyse_all(url, "--jobs", "2")
        assert got.returncode == 0, got.stderr
        assert "16/16" in got.stderr
        with engine.connect() as c:
            assert analyses.unanalysed(c, VERSION) == []
        assert "0/0" in _analyse_all(url).stderr  # nothing is worked out twice
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_sigterm_ends_the_running_job_first_and_takes_no_other(schemas: Schemas) -> None:
    url = schemas.new()
    engine = db.open_db(url, migrate=True)
    (imported,) = import_path(engine, SAMPLES / SLOW_FILE)
    worker: subprocess.Popen[str] | None = None
    try:
        with engine.connect() as c:
            todo = {d: deal_key(m, d, at) for m, d, at in analyses.unanalysed(c, VERSION)}
        slow, other = todo[SLOW_DEAL], todo[0]
        jobqueue.enqueue(engine, [slow], "test", WEB)
        jobqueue.enqueue(engine, [other], "test", BULK)
        worker = _worker(url)
        _until("the worker to start the slow deal", _running(engine, slow, worker), 120)
        with engine.connect() as c:  # what a page asking now is told
            asked = QueueJobs(engine).ask(c, slow.match_id, slow.part, "someone")
        assert isinstance(asked, Pending) and asked.status == "running"
        worker.send_signal(signal.SIGTERM)
        out, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err
        assert _done_lines(out) == [slow.name]
        with engine.connect() as c:
            assert analyses.get(c, slow.match_id, slow.part,
                                Head(slow.last_seq, slow.head_hash), VERSION) is not None
            left = jobqueue.progress(c, other)
            assert left is not None and left.state == "queued"  # still there for the next
    finally:
        if worker is not None and worker.poll() is None:
            worker.kill()
            worker.communicate(timeout=30)
        engine.dispose()


@pytest.mark.postgres
def test_an_answer_for_an_old_head_is_never_shown(schemas: Schemas) -> None:
    """A live match asked about, then recorded further before a worker came: the old
    head's job is skipped, and the page gets the answer for the match as it is now."""
    import orjson

    url = schemas.new()
    db.open_db(url, migrate=True).dispose()
    match = orjson.loads((SAMPLES / "domena-2.json").read_bytes())
    events = match["events"]
    worker: subprocess.Popen[str] | None = None
    try:
        with TestClient(create_app(url)) as client:
            r = client.post("/api/matches", json={"table": match["table"],
                                                  "seats": match["seats"]})
            mid = int(r.json()["id"])
            seq = 0
            for ev in events[:7]:
                got = client.post(f"/api/matches/{mid}/events",
                                  json={"expected_seq": seq, "event": ev})
                assert got.status_code == 201, got.text
                seq = got.json()["next_seq"]
            assert client.get(f"/api/matches/{mid}/analysis",
                              params={"deal": 1}).status_code == 202
            got = client.post(f"/api/matches/{mid}/events",
                              json={"expected_seq": seq, "event": events[7]})
            assert got.status_code == 201, got.text
            worker = _worker(url)
            deadline = time.monotonic() + 120
            while True:
                res = client.get(f"/api/matches/{mid}/analysis", params={"deal": 1})
                if res.status_code == 200:
                    break
                assert time.monotonic() < deadline, "no answer"
                time.sleep(0.05)
            steps = len(res.json()["steps"])
            assert client.app.state.analysis_jobs.started == 2  # type: ignore[attr-defined]
        worker.send_signal(signal.SIGTERM)
        out, _ = worker.communicate(timeout=60)
        lines = [line.split()[0] for line in out.splitlines()]
        assert sorted(lines) == ["done", "known"]  # the old head's job: nothing worked out
        with TestClient(create_app(url)) as client:
            again = client.get(f"/api/matches/{mid}/analysis", params={"deal": 1})
            assert again.status_code == 200 and len(again.json()["steps"]) == steps
    finally:
        if worker is not None and worker.poll() is None:
            worker.kill()
            worker.communicate(timeout=30)
