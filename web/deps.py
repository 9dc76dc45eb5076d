"""What routes get from the app: the ledger's engine, database sessions and the analysis
jobs (in one place).

Reads use ``get_session``; routes that write use ``get_write_session``, whose
transactions take SQLite's write lock at BEGIN (the store's write functions
ask for that by themselves too, so either works for them), or, for the live API's
many small writes, ``get_writer`` (one queue per process, fair between processes).
``get_analysis_jobs`` is the app's analyses backend (``ledger.jobs.backends.open_jobs``:
made and closed by the app's lifespan) as the request's client asks for them: each client
address has its own share of the queue.

``MatchId`` and ``DbInt`` bound every integer of a path or a query to what the
database's INTEGER columns hold (32 bits on PostgreSQL, which refuses a larger value
compared with one): a larger one is a 422 that names the parameter, never an overflow
deep in a driver (a 500).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Annotated, TypeVar

import anyio
import anyio.to_thread
from annotated_types import Interval
from fastapi import Depends, Path, Request

from ledger.jobs.service import AnalysisBackend, ClientJobs
from ledger.store.handles import Engine, Session, read_session, write_session
from ledger.store.write import Writer
from web.access import client_address

INT_MIN, INT_MAX = -(2**31), 2**31 - 1  # match ids, seqs, steps: INTEGER columns
PAGE_THREADS = 2  # per process: the heavy pages' own threads (``page_work``)
T = TypeVar("T")

DbInt = Annotated[int, Interval(ge=INT_MIN, le=INT_MAX)]
MatchId = Annotated[int, Path(ge=1, le=INT_MAX, description="a match's id in the ledger")]


# The dependencies are coroutines: FastAPI runs a plain function (and each half of a
# generator) in its thread pool, a hand-over to a thread and back that cost every page
# more than reading its match did. None of them waits on anything: a session connects
# only when the route first uses it, in the route's own thread. Closing one ends its
# transaction (a rollback: no waiting on SQLite, a short round trip to PostgreSQL).


async def get_engine(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


async def get_session(engine: Annotated[Engine, Depends(get_engine)]
                      ) -> AsyncIterator[Session]:
    with read_session(engine) as session:
        yield session


async def get_write_session(engine: Annotated[Engine, Depends(get_engine)]
                            ) -> AsyncIterator[Session]:
    with write_session(engine) as session:
        yield session


async def get_writer(request: Request) -> Writer:
    """The app's live writer: appends queued and batched per process
    (ledger/store/recording/writer.py)."""
    writer: Writer = request.app.state.writer
    return writer


async def get_analysis_jobs(request: Request) -> ClientJobs:
    jobs = getattr(request.app.state, "analysis_jobs", None)
    if not isinstance(jobs, AnalysisBackend):
        raise RuntimeError("the app's analysis jobs start with its lifespan, which has not run")
    # Behind a trusted proxy every client comes from its address: each gets its own share
    # by the address the proxy forwarded for (web.access).
    return jobs.for_client(client_address(request))


ReadSession = Annotated[Session, Depends(get_session)]
WriteSession = Annotated[Session, Depends(get_write_session)]
Writes = Annotated[Writer, Depends(get_writer)]
Jobs = Annotated[ClientJobs, Depends(get_analysis_jobs)]


def page_threads() -> anyio.CapacityLimiter:
    """The threads the heavy pages share in one app (made by its lifespan)."""
    return anyio.CapacityLimiter(PAGE_THREADS)


async def page_work(request: Request, work: Callable[[], T]) -> T:
    """A much read page's reads and rendering (the replay, a match's page, the API's list)
    in the app's page threads.

    A plain route runs in the server's pool of 40 threads: under load every request in
    flight had its own, and they took the interpreter's lock from one another all the
    time. Two threads per process still keep a database wait off the event loop, as the
    pool did (a wait there would hold up the requests that give connections back), and
    uploads and the other routes keep the shared pool. benchmarks/load.py, replay pages,
    50 clients, two processes, this against the shared pool in the same run: 1.17-1.40x
    the requests per second, p99 0.30-0.42 s against 0.50-0.68 s.
    """
    limiter: anyio.CapacityLimiter | None = getattr(request.app.state, "page_threads", None)
    return await anyio.to_thread.run_sync(work, limiter=limiter)
