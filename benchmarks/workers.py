"""Analysis workers on the PostgreSQL ledger's job queue: deals per second with one and
two worker processes, and what the queue costs a job beside the solver's own time.

    python benchmarks/workers.py [--pg URL] [--files domena-2.json ...] [--deals N] [--rounds 2]

Makes a fresh schema in the PostgreSQL database (default: the tests' local ``test``;
dropped at the end), imports sample matches and, for their scored deals:

- the solver's own time: each deal's body built here, one after another, in this
  process (``ledger.jobs.deal_analysis.build``, what a worker's solver process runs);
- one worker, then two, in turn for ``--rounds`` rounds (each ``domino-ledger worker``
  process started and idle first): every deal queued at once, the time until the ledger
  holds every answer (cleared before each run); the ratio of the medians;
- the queue's own cost per job: the same deals queued again (``--overhead-rounds``
  times, the median) while their answers are kept, so a worker takes each job, finds
  its answer and ends it (claim, look up, end, log), with nothing to solve.

Prints the numbers and the load average; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, text  # noqa: E402

from ledger.jobs.deal_analysis import VERSION, build  # noqa: E402
from ledger.jobs.queue import deal_key  # noqa: E402
from ledger.jobs.service import _task  # noqa: E402
from ledger.store import db  # noqa: E402
from ledger.store.imports.importer import import_file  # noqa: E402
from ledger.store.jobs import analyses, jobqueue  # noqa: E402
from ledger.store.jobs.analyses import Head  # noqa: E402
from ledger.store.jobs.jobqueue import BULK, JobKey  # noqa: E402

PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
FILES = ["domena-2.json", "arab-block-2.json", "casual-arena-2.json", "sahrat-draw-2.json",
         "selminha-2.json", "selminha-3.json", "casual-arena-3.json", "domena-4.json"]


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


def _workers(url: str, n: int) -> list[subprocess.Popen[str]]:
    procs = [subprocess.Popen([sys.executable, "-m", "web.cli", "worker", "--db", url],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(n)]
    for p in procs:  # started and listening before the clock starts
        assert p.stderr is not None
        line = p.stderr.readline()
        if "taking jobs" not in line:
            raise SystemExit(f"a worker did not start: {line}{p.stderr.read()}")
    time.sleep(1.0)
    return procs


def _stop(procs: list[subprocess.Popen[str]]) -> list[str]:
    for p in procs:
        p.send_signal(signal.SIGTERM)
    return [p.communicate(timeout=120)[0] for p in procs]


def _kept(engine: object, keys: list[JobKey]) -> int:
    with engine.connect() as c:  # type: ignore[attr-defined]
        return sum(1 for k in keys if analyses.get(
            c, k.match_id, k.part, Head(k.last_seq, k.head_hash), VERSION) is not None)


def _run(engine: object, url: str, keys: list[JobKey], workers: int) -> tuple[float, list[str]]:
    procs = _workers(url, workers)
    try:
        start = time.perf_counter()
        jobqueue.enqueue(engine, keys, "benchmark", BULK)  # type: ignore[arg-type]
        while _kept(engine, keys) < len(keys):
            time.sleep(0.05)
        took = time.perf_counter() - start
    finally:
        outs = _stop(procs)
    return took, outs


def _until_ended(engine: object, keys: list[JobKey]) -> None:
    names = [k.name for k in keys]
    while True:
        with engine.connect() as c:  # type: ignore[attr-defined]
            left = c.execute(text("SELECT count(*) FROM job_progress WHERE key = ANY(:n)"),
                             {"n": names}).scalar_one()
        if left == 0:
            return
        time.sleep(0.02)


def _until_logged(engine: object) -> None:
    """Until the queue holds no job (so that the next round's are queued afresh)."""
    while True:
        with engine.connect() as c:  # type: ignore[attr-defined]
            if c.execute(text("SELECT count(*) FROM pgqueuer")).scalar_one() == 0:
                return
        time.sleep(0.02)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pg", default=PG, help="a PostgreSQL database to make a schema in")
    ap.add_argument("--files", nargs="+", default=FILES, help="sample_matches/ files")
    ap.add_argument("--deals", type=int, default=0, help="at most this many deals (0: all)")
    ap.add_argument("--rounds", type=int, default=2, help="runs of one and of two workers")
    ap.add_argument("--overhead-rounds", type=int, default=3,
                    help="runs of the queue alone (every answer kept)")
    args = ap.parse_args()

    schema = f"bench_workers_{os.getpid()}_{secrets.token_hex(3)}"
    admin = create_engine(args.pg, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = f"{args.pg}?options=-csearch_path%3D{schema}"
    engine = db.open_db(url, migrate=True)
    try:
        for name in args.files:
            with db.writing(engine) as session:
                list(import_file(session, str(ROOT / "sample_matches" / name)))
        with engine.connect() as c:
            todo = analyses.unanalysed(c, VERSION)
            tasks = [_task(c, m, d) for m, d, _ in todo]
        keys = [deal_key(m, d, at) for m, d, at in todo]
        if args.deals:
            keys, tasks = keys[:args.deals], tasks[:args.deals]
        n = len(keys)
        print(f"{n} deals of {len(args.files)} sample matches; {os.cpu_count()} cores; "
              f"{_load()}")

        start = time.perf_counter()
        for task in tasks:
            build(task)
        solver = time.perf_counter() - start
        print(f"solver alone, one process:   {solver:7.2f} s  {n / solver:6.2f} deals/s  "
              f"{1000 * solver / n:7.1f} ms per deal   ({_load()})")

        # One and two workers in turn, so that both see the machine's other load alike.
        runs: dict[int, list[float]] = {1: [], 2: []}
        for _ in range(args.rounds):
            for workers in (1, 2):
                with db.writing(engine) as session:
                    analyses.clear(db.write_connection(session))
                    session.commit()
                took, outs = _run(engine, url, keys, workers)
                runs[workers].append(took)
                shares = [sum(1 for line in out.splitlines() if line.startswith("done "))
                          for out in outs]
                print(f"queue, {workers} worker{'s' if workers > 1 else ' '}:            "
                      f"{took:7.2f} s  {n / took:6.2f} deals/s  {1000 * took / n:7.1f} ms per "
                      f"deal   jobs per worker {shares}   ({_load()})")
        one, two = statistics.median(runs[1]), statistics.median(runs[2])
        print(f"2 workers / 1 worker:        {one / two:7.2f}x  (medians of {args.rounds}: "
              f"{n / one:.2f} and {n / two:.2f} deals/s)")

        # Every answer kept: each job is claimed, looked up and ended, nothing solved.
        # The deals queued again --overhead-rounds times (one worker), the median taken.
        procs = _workers(url, 1)
        empties = []
        try:
            for _ in range(args.overhead_rounds):
                start = time.perf_counter()
                jobqueue.enqueue(engine, keys, "benchmark", BULK)
                _until_ended(engine, keys)
                empties.append(time.perf_counter() - start)
                _until_logged(engine)
        finally:
            _stop(procs)
        empty = statistics.median(empties)
        per_job = empty / n
        print(f"queue alone (answers known): {empty:7.2f} s  {1000 * per_job:7.1f} ms per job "
              f"= {100 * per_job / (solver / n):5.1f}% of the solver's time per deal   "
              f"(median of {len(empties)}: {', '.join(f'{e:.2f}' for e in empties)} s; "
              f"{_load()})")
    finally:
        engine.dispose()
        with admin.connect() as c:
            c.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


if __name__ == "__main__":
    main()
