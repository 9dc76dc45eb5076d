"""Issue 19: the analysis queue is shared fairly, and its worker dies with its server.

Clients are told apart by their address: the requests here come from different
loopback addresses (127.0.0.2, .3, .4: every 127.x address is this machine on Linux)
to one real server, whose single worker is kept busy by a deal too large to solve
in its short time limit.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from webtest_support import SAMPLES, serving

from ledger.jobs.service import AnalysisJobs, Settings
from ledger.store import db
from ledger.store.imports.importer import import_file

QUICK = "domena-2.json"      # its deals solve in milliseconds
SLOW = "sahrat-fives-4.json"  # four sides with Fives: its first deal takes many seconds
ROOT = Path(__file__).resolve().parents[2]
# Positions solved before the worker is killed: the next ones of SLOW's first deal take
# 15 s and more each, and a worker says nothing (it cannot notice a closed pipe) meanwhile.
DEEP = 21


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, AnalysisJobs, dict[str, int]]]:
    from web.app import create_app

    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    engine = db.open_db(url)
    ids: dict[str, int] = {}
    try:
        for name in (QUICK, SLOW):
            with db.writing(engine) as session:
                (got,) = import_file(session, str(SAMPLES / name))
                assert got.id is not None
                ids[name] = got.id
    finally:
        engine.dispose()
    # The slow deal: stopped at 1 s, its worker killed at 4 s, then its shape alone.
    app = create_app(url, Settings(seconds=1, kill_after=4, workers=1, per_client=2))
    with serving(app) as base:
        yield base, app.state.analysis_jobs, ids


def _client(base: str, address: str) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=base, transport=transport, timeout=60)


def _ask(client: httpx.Client, match_id: int, deal: int) -> httpx.Response:
    return client.get(f"/api/matches/{match_id}/analysis", params={"deal": deal})


def test_one_client_cannot_fill_the_queue(served: tuple[str, AnalysisJobs, dict[str, int]]
                                          ) -> None:
    base, jobs, ids = served
    quick = ids[QUICK]
    with _client(base, "127.0.0.3") as x, _client(base, "127.0.0.2") as a, \
            _client(base, "127.0.0.4") as b:
        assert _ask(x, ids[SLOW], 1).status_code == 202  # keeps the one worker busy
        assert [_ask(a, quick, d).status_code for d in (1, 2)] == [202, 202]
        refused = _ask(a, quick, 3)
        assert refused.status_code == 429  # this client's share is full (issue 32: was 503)
        assert refused.json()["error"]["code"] == "analysis-busy"
        assert "2 deals you asked for are waiting" in refused.json()["error"]["message"]
        # Another client is still served, and asking for a deal already queued joins it.
        assert _ask(b, quick, 4).status_code == 202
        started = jobs.started
        assert _ask(b, quick, 1).status_code == 202
        assert jobs.started == started == 4
        deadline = time.monotonic() + 120
        while _ask(a, quick, 2).status_code == 202 and time.monotonic() < deadline:
            time.sleep(0.2)
        # In turn, not first come first served: a's first, then b's, then a's second.
        order = [(j.key[0], j.key[1] + 1) for j in jobs.recent]
        assert order == [(ids[SLOW], 1), (quick, 1), (quick, 4), (quick, 2)], order
        assert _ask(a, quick, 3).status_code == 202  # its turn again


_SERVER = f"""
import sys, time
import orjson
from ledger.formats.reader import parse_match
from ledger.jobs.worker import Worker
from ledger.jobs.deal_analysis import Task

rec = parse_match(orjson.loads(open(sys.argv[1], "rb").read()))
h = rec.header
task = Task(1, 0, h.preset, dict(h.options), tuple(h.seats), tuple(rec.events))
worker = Worker()
pipe = worker.ready()
pipe.send((task, 600.0))
print(worker.proc.pid, flush=True)
while pipe.recv()[1] < {DEEP}:  # progress: positions done
    pass
print("deep", flush=True)
while True:
    time.sleep(1)
"""


def _alive(pid: int) -> bool:
    """Running, or sleeping: anything but gone or a zombie (dead, waiting to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.slow(reason="a served process and its worker killed and waited for: 4-9 s")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_worker_dies_with_its_server_killed_by_kill_9() -> None:
    worker = 0
    server = subprocess.Popen([sys.executable, "-c", _SERVER, str(SAMPLES / SLOW)],
                              stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert server.stdout is not None
        worker = int(server.stdout.readline())
        assert server.stdout.readline().strip() == "deep"
        assert _alive(worker)
        os.kill(server.pid, signal.SIGKILL)
        server.wait(10)
        deadline = time.monotonic() + 5
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(worker), "the worker runs on after its server was killed"
    finally:
        server.kill()
        server.wait(10)
        if worker and _alive(worker):
            os.kill(worker, signal.SIGKILL)
