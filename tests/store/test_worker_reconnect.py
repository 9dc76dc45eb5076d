"""A worker that loses the database connects again instead of exiting (issue 18).

On the real PostgreSQL: the worker's connections (named in ``pg_stat_activity`` by
``jobqueue.application_name``) are ended by the server, once while it idles and once in
the middle of a job; it says so on stderr, connects again, finishes that job and takes
the jobs queued afterwards. A worker that cannot reach the database at all waits longer
each time, up to a bound, and still stops when told.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import Engine, create_engine, text

from ledger.jobs.deal_analysis import VERSION
from ledger.jobs.queue import deal_key
from ledger.store import db
from ledger.store.jobs import analyses, jobqueue
from ledger.store.jobs.analyses import Head
from ledger.store.jobs.jobqueue import BULK, WEB, JobKey
from tests.store.conftest import PG_SERVER, ROOT, SAMPLES, Schemas
from tests.store.helpers import import_path

# A deal whose analysis runs long enough to be seen running (a worker writes "running"
# at its next flush of progress, jobqueue.FLUSH = 0.5 s): four-seat Sahrat Fives' first,
# seconds of search. Three-seat Selminha's longest, used before, now ends before that
# flush on a quiet machine, and the wait for it to run never saw it.
SLOW_FILE, SLOW_DEAL = "sahrat-fives-4.json", 0
QUICK_FILE = "domena-2.json"


def _until(what: str, check: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"waited {timeout:g} s for {what}")
        time.sleep(0.05)


def _kept(engine: Engine, keys: list[JobKey]) -> bool:
    with engine.connect() as c:
        return all(analyses.get(c, k.match_id, k.part, Head(k.last_seq, k.head_hash),
                                VERSION) is not None for k in keys)


def _terminate(admin: Engine, app: str) -> int:
    """End every connection of the worker named ``app``, as a server restart would."""
    with admin.connect() as c:
        return int(c.execute(text(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE application_name = :app"), {"app": app}).scalar_one())


def _connections(admin: Engine, app: str) -> int:
    with admin.connect() as c:
        return int(c.execute(text("SELECT count(*) FROM pg_stat_activity "
                                  "WHERE application_name = :app"), {"app": app}).scalar_one())


@pytest.mark.postgres
def test_a_worker_whose_connections_are_ended_connects_again(schemas: Schemas) -> None:
    url = schemas.new()
    engine = db.open_db(url, migrate=True)
    admin = create_engine(PG_SERVER, isolation_level="AUTOCOMMIT")
    worker: subprocess.Popen[str] | None = None
    try:
        ids = {name: import_path(engine, SAMPLES / name)[0].id for name in
               (QUICK_FILE, SLOW_FILE)}
        with engine.connect() as c:
            todo = analyses.unanalysed(c, VERSION)
        quick = [deal_key(m, d, at) for m, d, at in todo if m == ids[QUICK_FILE]]
        slow = next(deal_key(m, d, at) for m, d, at in todo
                    if m == ids[SLOW_FILE] and d == SLOW_DEAL)
        worker = subprocess.Popen(
            [sys.executable, "-m", "web.cli", "worker", "--db", url, "--lease", "3"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        app = jobqueue.application_name(f"{os.uname().nodename}:{worker.pid}")

        jobqueue.enqueue(engine, quick[:2], "test", BULK)
        _until("the first jobs", lambda: _kept(engine, quick[:2]), 120)
        # Idle, then every connection of the worker's ended by the server.
        assert _terminate(admin, app) >= 2  # the queue's and the notices' at least
        jobqueue.enqueue(engine, quick[2:4], "test", BULK)
        _until("the jobs queued after the loss", lambda: _kept(engine, quick[2:4]), 120)
        assert worker.poll() is None

        # In the middle of a job: it still ends, and the worker takes the next ones.
        jobqueue.enqueue(engine, [slow], "test", WEB)

        def running() -> bool:
            with engine.connect() as c:
                p = jobqueue.progress(c, slow)
            return p is not None and p.state == "running"

        _until("the slow deal to start", running, 120)
        _until("the worker's connections", lambda: _connections(admin, app) >= 2, 30)
        assert _terminate(admin, app) >= 2
        _until("the slow deal to be kept", lambda: _kept(engine, [slow]), 300)
        jobqueue.enqueue(engine, quick[4:], "test", BULK)
        _until("the rest", lambda: _kept(engine, quick[4:]), 120)
        assert worker.poll() is None

        worker.send_signal(signal.SIGTERM)
        out, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
        assert err.count("lost the database") >= 2, err
        assert "connected to the database again" in err
        assert "stopped after" in err and "Traceback" not in err
        said = Counter(line.split()[1] for line in out.splitlines()
                       if line.split()[0] in ("done", "known"))
        assert {k.name for k in [*quick, slow]} <= set(said)
        with engine.connect() as c:  # nothing is left claimed or half-said
            _until("the queue to empty", lambda: jobqueue.counts(c).get("queued", 0) == 0
                   and jobqueue.counts(c).get("picked", 0) == 0, 30)
            assert c.execute(text("SELECT count(*) FROM job_progress")).scalar_one() == 0
    finally:
        if worker is not None and worker.poll() is None:
            worker.kill()
            worker.communicate(timeout=30)
        engine.dispose()
        admin.dispose()


def test_a_worker_that_cannot_reach_the_database_waits_longer_each_time() -> None:
    said: list[str] = []
    worker = jobqueue.Worker("postgresql+psycopg://postgres@127.0.0.1:9/nowhere", {},
                             line=said.append, news=said.append)

    async def run() -> int:
        async def stop_later() -> None:
            await asyncio.sleep(4.0)
            worker.stop()

        stopper = asyncio.create_task(stop_later())
        done = await asyncio.wait_for(worker.run(), 30)
        await stopper
        return done

    # A thread of its own: the browser tests' Playwright keeps an event loop running in
    # this one for the rest of the session.
    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(asyncio.run, run()).result() == 0
    waits = [float(m.group(1)) for line in said
             if (m := re.search(r"connecting again in ([\d.]+) s", line))]
    assert len(waits) >= 3 and all(line.startswith("lost the database") for line in said)
    assert waits[:3] == [0.5, 1.0, 2.0]
    assert max(waits) <= jobqueue.RECONNECT[1]
