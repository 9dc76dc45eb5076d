"""The analysis route off the request: how soon it answers, how long a deal takes, and what
a running analysis costs the other pages.

    python benchmarks/analysis_jobs.py [--sample sahrat-fives-4.json] [--deal 1]
                                       [--seconds 120] [--requests 40]

Stores one sample match in a fresh SQLite ledger, serves the app with uvicorn on a
free localhost port, and times, as the client sees them (round trips):

- the matches list (``/matches``) with nothing running (idle);
- the analysis route's first answer for the deal (202 at once: a job started);
- the matches list again while that job runs in its worker process;
- the time until the analysis is ready (asked every 0.1 s), and its answer once known;
- a new app over the same ledger (a restart): the deal's first answer, from the store.

Prints the numbers; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ledger.jobs.service import Settings  # noqa: E402
from ledger.store.db import open_db, writing  # noqa: E402
from ledger.store.imports.importer import import_file  # noqa: E402
from ledger.store.jobs.analyses import head  # noqa: E402
from web.app import create_app  # noqa: E402


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(app: Any) -> Iterator[str]:
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def _ms(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"p50 {statistics.median(ms):7.2f} ms   p95 {p95:7.2f} ms   max {ms[-1]:7.2f} ms" \
           f"   ({len(ms)} requests)"


def _timed(client: httpx.Client, path: str, **params: Any) -> tuple[float, httpx.Response]:
    start = time.perf_counter()
    res = client.get(path, params=params)
    return time.perf_counter() - start, res


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", default="sahrat-fives-4.json",
                        help="a file of sample_matches/ (its first match)")
    parser.add_argument("--deal", type=int, default=1, help="the deal, 1-based")
    parser.add_argument("--seconds", type=float, default=120.0,
                        help="the time limit per deal (the app's setting)")
    parser.add_argument("--requests", type=int, default=40,
                        help="matches-list requests per measure")
    args = parser.parse_args(argv)

    folder = Path(tempfile.mkdtemp(prefix="bench-analysis-"))
    url = f"sqlite:///{folder / 'ledger.db'}"
    engine = open_db(url)
    with writing(engine) as session:
        (got,) = import_file(session, str(ROOT / "sample_matches" / args.sample))
    assert got.id is not None
    match_id = got.id
    with engine.connect() as conn:
        at = head(conn, match_id)
    engine.dispose()
    assert at is not None
    settings = Settings(seconds=args.seconds, workers=1)
    path = f"/api/matches/{match_id}/analysis"

    app = create_app(url, settings)
    with serving(app) as base, httpx.Client(base_url=base, timeout=600) as client:
        jobs = app.state.analysis_jobs
        client.get("/matches")  # the first request warms the templates
        idle = [_timed(client, "/matches")[0] for _ in range(args.requests)]
        first, res = _timed(client, path, deal=args.deal)
        started = time.perf_counter() - first
        busy: list[float] = []
        while len(busy) < args.requests and jobs.job(match_id, args.deal - 1, at) is not None:
            took, _ = _timed(client, "/matches")
            if jobs.job(match_id, args.deal - 1, at) is not None:  # still running after it
                busy.append(took)
        polls = 1
        while res.status_code == 202:
            time.sleep(0.1)
            res = client.get(path, params={"deal": args.deal})
            polls += 1
        ready = time.perf_counter() - started
        body = res.json()
        known = [_timed(client, path, deal=args.deal)[0] for _ in range(args.requests)]
        job = jobs.recent[-1] if jobs.recent else None
    restarted = create_app(url, settings)
    with serving(restarted) as base, httpx.Client(base_url=base, timeout=600) as client:
        again, res2 = _timed(client, path, deal=args.deal)
        solved_again = restarted.state.analysis_jobs.started

    print(f"\n{args.sample} deal {args.deal}, time limit {args.seconds:g} s, 1 worker; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    print(f"analysis, first answer:        {first * 1000:8.2f} ms  (status "
          f"{202 if polls > 1 else res.status_code})")
    print(f"analysis, ready after:         {ready:8.2f} s   ({polls} requests; "
          f"{job.total if job else '?'} positions; note: {body.get('note') or 'none'})")
    print(f"analysis, known (memory):      {_ms(known)}")
    print(f"analysis, after a restart:     {again * 1000:8.2f} ms  (status {res2.status_code}, "
          f"{solved_again} job(s) started: from the store)")
    print(f"/matches, idle:                {_ms(idle)}")
    if busy:
        print(f"/matches, while it solves:     {_ms(busy)}")
    else:
        print("/matches, while it solves:     (the analysis was ready before any request)")
    return 0


if __name__ == "__main__":
    # The worker processes start with "spawn": they import this file as a module, and
    # must not run the benchmark again.
    sys.exit(main())
