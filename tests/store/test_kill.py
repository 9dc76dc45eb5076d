"""An import killed with SIGKILL at a random moment leaves whole matches only; a re-run ends it."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from sqlalchemy import Engine, select

from ledger.formats.reader import read_matches
from ledger.sim.generator import generate_corpus
from ledger.store import db
from ledger.store.imports.importer import prepare
from ledger.store.log.verify import verify
from ledger.store.models import EVENTS, MATCHES, SUMMARIES
from tests.store.conftest import ROOT, write_jsonl


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_jsonl(tmp_path_factory.mktemp("kill") / "many.jsonl",
                       list(generate_corpus(160, seed=5)))


def _import(url: str, path: Path, jobs: int = 0) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "web.cli", "import", str(path), "--db", url,
                             "--json", "--no-progress", "--jobs", str(jobs)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)


def _workers_of(path: Path) -> list[int]:
    """Import worker processes still running on this file."""
    found = []
    for pid in os.listdir("/proc"):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"ledger.store.imports.worker" in cmd and str(path).encode() in cmd:
            found.append(int(pid))
    return found


def _tagged(url: str) -> str:
    """The child's URL: on PostgreSQL its connections carry a name we can wait for."""
    return f"{url}&application_name={TAG}" if url.startswith("postgresql") else url


TAG = f"ledger_kill_{os.getpid()}"


def _wait_for_server(engine: Engine) -> None:
    """A killed client may have sent COMMIT already: wait until its server process is gone,
    so that its last transaction has committed or rolled back before we look."""
    if engine.dialect.name != "postgresql":
        return  # SQLite lives in the killed process: nothing is left running
    deadline = time.monotonic() + 60
    while True:
        with engine.connect() as c:
            left = c.exec_driver_sql("SELECT count(*) FROM pg_stat_activity WHERE "
                                     f"application_name = '{TAG}'").scalar_one()
        if not left:
            return
        assert time.monotonic() < deadline, "the killed import's server process lingers"
        time.sleep(0.05)


def _kill_midway(url: str, path: Path, rng: random.Random, jobs: int) -> int:
    """Start an import, SIGKILL it after a random number of matches and a random pause."""
    after = rng.randint(2, 60)
    pause = rng.uniform(0, 0.05)
    proc = _import(_tagged(url), path, jobs)
    assert proc.stdout is not None
    for _ in range(after):
        if not proc.stdout.readline():
            break
    time.sleep(pause)
    still_running = proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    assert still_running, "the import ended before it was killed: give it a bigger file"
    assert proc.returncode == -signal.SIGKILL
    deadline = time.monotonic() + 30
    while _workers_of(path):  # its workers see their pipe close and end
        assert time.monotonic() < deadline, "an import worker outlived the killed import"
        time.sleep(0.1)
    return after


def _expected(path: Path) -> dict[bytes, list[tuple[Any, ...]]]:
    """Each match's rows as a whole import stores them, by content hash."""
    out = {}
    for rec in read_matches(path):
        prep = prepare(rec)
        assert prep is not None
        out[prep.content_hash] = [(r.seq, r.recorded_index, r.kind, r.type, r.payload)
                                  for r in prep.rows]
    return out


def _assert_whole(engine: Engine, expected: dict[bytes, list[tuple[Any, ...]]]) -> int:
    with engine.connect() as c:
        stored = c.execute(select(MATCHES.c.id, MATCHES.c.content_hash)).all()
        for mid, digest in stored:
            rows = [tuple(r) for r in c.execute(
                select(EVENTS.c.seq, EVENTS.c.recorded_index, EVENTS.c.kind, EVENTS.c.type,
                       EVENTS.c.payload).where(EVENTS.c.match_id == mid)
                .order_by(EVENTS.c.seq))]
            assert rows == expected[bytes(digest)], f"match {mid} is not whole"
            assert c.execute(select(SUMMARIES.c.events).where(SUMMARIES.c.match_id == mid)
                             ).scalar_one() > 0
        assert all(v.ok for v in verify(c))
    return len(stored)


@pytest.mark.slow(reason="a large import killed and run again, in processes: 3-6 s each")
@pytest.mark.parametrize("jobs", [0, 1], ids=["alone", "with-a-worker"])
def test_a_killed_import_leaves_no_partial_match_and_a_rerun_completes(
        url: str, big_file: Path, jobs: int) -> None:
    seed = int.from_bytes(os.urandom(4), "big")
    rng = random.Random(seed)
    engine = db.open_db(url, migrate=True)
    try:
        expected = _expected(big_file)
        seen = 0
        for _ in range(2):  # killed twice: the second run starts where the first one died
            reported = _kill_midway(url, big_file, rng, jobs)
            _wait_for_server(engine)
            stored = _assert_whole(engine, expected)
            # A match is printed after its commit: all those reported are in, whole.
            assert stored >= max(seen, reported), f"seed {seed}"
            seen = stored
        assert 0 < seen < len(expected), f"seed {seed}: killed too late or too early"
        proc = _import(url, big_file, jobs)
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err.decode()
        lines = [orjson.loads(line) for line in out.splitlines()]
        assert len(lines) == len(expected)
        assert sum(1 for x in lines if not x["new"]) == seen, f"seed {seed}"
        assert all(x["ok"] for x in lines)
        assert _assert_whole(engine, expected) == len(expected)
    finally:
        engine.dispose()
