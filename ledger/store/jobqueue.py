"""The job queue of a PostgreSQL ledger: work that any number of workers, on any
machine that reaches the database, take from it; and how far each job is.

The queue is pgqueuer's (its tables come with migration 0008): a job is a row that a
worker claims with ``FOR UPDATE SKIP LOCKED`` and keeps claimed with a heartbeat; a job
whose heartbeat is older than the lease (its worker was killed, or lost the database)
is claimed again by the next worker that asks. Its ``dedupe_key`` is the job's key
(kind, match, part, head, version: ``JobKey``), unique while the job waits or runs, so
the same work is never queued twice; a worker also looks for the answer before it
starts (``Kind.known``), so work finished once is not done again by a late duplicate.

``job_progress`` is ours: per key, ``queued``, ``running`` (``done`` of ``total``),
``failed`` (``error``) or ``late`` (``body``: an answer cut short by the time limit,
served but not kept as the answer). A finished job's row goes: its answer is in the
kind's own table (a deal's in ``analyses``), held for the head it names.

Kinds of work are named (``"deal"``: a deal's analysis, ``part`` its deal;
``"knowledge"``: a match's review by what each player knew, ``part`` the deals sampled
per decision); the code that does one is
given to ``work`` by the command that runs the worker, so the ledger knows nothing of
how an answer is made. Only PostgreSQL has a queue: an embedded SQLite ledger's server
works in process.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import orjson
from sqlalchemy import Engine, text
from sqlalchemy.engine import Connection, make_url

from ledger.store.errors import StoreError

if TYPE_CHECKING:
    from pgqueuer.models import Job

log = logging.getLogger(__name__)

LEASE = 30.0        # seconds without a heartbeat before a claimed job is claimed again
IDLE = 2.0          # seconds between looks at the queue when no notice comes
FLUSH = 0.5         # seconds between writes of the running jobs' progress
WEB, BULK = 10, 0   # priorities: a page's question before a whole ledger's backlog
QUEUE_TABLES = frozenset({"pgqueuer", "pgqueuer_log", "pgqueuer_schedules",
                          "pgqueuer_statistics", "job_progress"})


class QueueError(StoreError):
    """The ledger has no job queue (SQLite, or a PostgreSQL ledger not upgraded)."""


@dataclass(frozen=True, slots=True)
class JobKey:
    """One piece of work: ``part`` (a deal, 0-based) of a match as stored at its head."""

    kind: str
    match_id: int
    part: int
    last_seq: int
    head_hash: bytes
    version: str

    @property
    def name(self) -> str:
        """The job's key in the queue (its dedupe key) and in ``job_progress``."""
        return (f"{self.kind}/{self.match_id}/{self.part}/{self.last_seq}/"
                f"{self.head_hash.hex()}/{self.version}")

    def payload(self) -> bytes:
        return orjson.dumps({"kind": self.kind, "match": self.match_id, "part": self.part,
                             "last_seq": self.last_seq, "head": self.head_hash.hex(),
                             "version": self.version})

    @classmethod
    def of_name(cls, name: str) -> JobKey:
        """The key a ``name`` names (QueueError if it names none)."""
        try:
            kind, match, part, seq, head, version = name.split("/", 5)
            return cls(kind, int(match), int(part), int(seq), bytes.fromhex(head), version)
        except ValueError:
            raise QueueError(f"{name!r} is not a job's key") from None

    @classmethod
    def of_payload(cls, data: bytes | None) -> JobKey:
        try:
            d = orjson.loads(data or b"")
            return cls(str(d["kind"]), int(d["match"]), int(d["part"]), int(d["last_seq"]),
                       bytes.fromhex(d["head"]), str(d["version"]))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise QueueError(f"a queued job's payload is not a job key ({exc})") from None


@dataclass(frozen=True, slots=True)
class Progress:
    """A job's ``job_progress`` row."""

    state: str                      # queued, running, failed, late
    done: int
    total: int
    error: str | None
    body: dict[str, Any] | None     # a late answer
    worker: str | None
    updated: datetime


def has_queue(conn: Connection) -> bool:
    """Whether this ledger holds the job queue (PostgreSQL at revision 0008 or later)."""
    if conn.dialect.name != "postgresql":
        return False
    return bool(conn.execute(text("SELECT to_regclass('job_progress') IS NOT NULL "
                                  "AND to_regclass('pgqueuer') IS NOT NULL")).scalar())


_COLUMNS = "state, done, total, error, body, worker, updated"


def progress(conn: Connection, key: JobKey) -> Progress | None:
    row = conn.execute(text(f"SELECT {_COLUMNS} FROM job_progress WHERE key = :key"),
                       {"key": key.name}).first()
    return None if row is None else _progress(row)


def progress_of(conn: Connection, kind: str, match_id: int) -> dict[JobKey, Progress]:
    """The progress of every job of ``kind`` for the match (a page that knows the match's
    head but not the rest of a key: a knowledge review's samples)."""
    rows = conn.execute(text(f"SELECT key, {_COLUMNS} FROM job_progress "
                             "WHERE kind = :kind AND match_id = :match_id"),
                        {"kind": kind, "match_id": match_id})
    return {JobKey.of_name(row.key): _progress(row) for row in rows}


def _progress(row: Any) -> Progress:
    body = orjson.loads(row.body) if row.body is not None else None
    return Progress(row.state, row.done, row.total, row.error,
                    body if isinstance(body, dict) else None, row.worker, row.updated)


def waiting(conn: Connection, client: str) -> int:
    """How many of ``client``'s jobs wait for a worker."""
    return int(conn.execute(text("SELECT count(*) FROM job_progress WHERE client = :client "
                                 "AND state = 'queued'"), {"client": client}).scalar_one())


def enqueue(engine: Engine, keys: Sequence[JobKey], client: str = "",
            priority: int = WEB) -> int:
    """Queue the jobs of ``keys`` that are not queued or running already; how many were new.

    Each new job's progress starts afresh (a failed or late one is tried again).
    """
    from pgqueuer.db import SyncPsycopgDriver
    from pgqueuer.queries import SyncQueries

    if not keys:
        return 0
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        raw: Any = conn.connection.driver_connection  # psycopg's, in autocommit as pgqueuer needs
        queries = SyncQueries(SyncPsycopgDriver(raw))
        ids = queries.enqueue([k.kind for k in keys], [k.payload() for k in keys],
                              [priority] * len(keys), dedupe_key=[k.name for k in keys],
                              on_conflict="skip")
        rows = [{"key": k.name, "kind": k.kind, "match_id": k.match_id, "part": k.part,
                 "client": client, "new": job is not None} for k, job in zip(keys, ids,
                                                                              strict=True)]
        conn.execute(_QUEUED, rows)
    return sum(1 for job in ids if job is not None)


# A new job starts its row afresh; a duplicate (its job waits or runs) leaves the row be.
_QUEUED = text(
    "INSERT INTO job_progress (key, kind, match_id, part, state, client) "
    "VALUES (:key, :kind, :match_id, :part, 'queued', :client) "
    "ON CONFLICT (key) DO UPDATE SET state = 'queued', done = 0, total = 0, error = NULL, "
    "body = NULL, worker = NULL, client = excluded.client, updated = now() "
    "WHERE CAST(:new AS boolean)")


def failures(conn: Connection, names: Sequence[str]) -> int:
    """How many of the jobs named (``JobKey.name``) failed."""
    return int(conn.execute(text("SELECT count(*) FROM job_progress WHERE state = 'failed' "
                                 "AND key = ANY(:names)"), {"names": list(names)}).scalar_one())


def finished(conn: Connection, key: JobKey) -> None:
    """The job's answer is kept: its progress row goes (call in the answer's transaction)."""
    conn.execute(text("DELETE FROM job_progress WHERE key = :key"), {"key": key.name})


def ended_late(conn: Connection, key: JobKey, body: Mapping[str, Any]) -> None:
    """An answer cut short by the time limit: served, not kept as the answer."""
    conn.execute(text("UPDATE job_progress SET state = 'late', body = :body, updated = now() "
                      "WHERE key = :key"), {"key": key.name, "body": orjson.dumps(body).decode()})


def failed(conn: Connection, key: JobKey, error: str) -> None:
    conn.execute(text("UPDATE job_progress SET state = 'failed', error = :error, "
                      "updated = now() WHERE key = :key"), {"key": key.name, "error": error})


def counts(conn: Connection) -> dict[str, int]:
    """Jobs in the queue by state (queued, picked) and the log's by outcome."""
    out: dict[str, int] = {}
    for status, n in conn.execute(text("SELECT status::text, count(*) FROM pgqueuer "
                                       "GROUP BY status")):
        out[str(status)] = int(n)
    for status, n in conn.execute(text("SELECT 'log:' || status::text, count(*) "
                                       "FROM pgqueuer_log GROUP BY status")):
        out[str(status)] = int(n)
    return out


def conninfo(url: str) -> str:
    """The libpq address of a ``postgresql+psycopg://`` URL (its query, e.g. the search
    path in ``options``, kept)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "postgresql":
        raise QueueError(f"{parsed.render_as_string(hide_password=True)} is not a PostgreSQL "
                         "ledger: only PostgreSQL holds a job queue (an embedded SQLite "
                         "ledger's server analyses in its own processes)")
    return parsed.set(drivername="postgresql").render_as_string(hide_password=False)


# --- workers ------------------------------------------------------------------------


class Report:
    """How far a job is, set by the code doing it (any thread), written by the worker."""

    def __init__(self) -> None:
        self.done = 0
        self.total = 0
        self.dirty = False

    def __call__(self, done: int, total: int) -> None:
        self.done, self.total, self.dirty = max(self.done, done), max(self.total, total), True


# The code of one kind of job: does it (in a thread of the worker's own; it may block)
# and keeps its answer, or raises. Returns True when the answer came from the ledger
# (done before: nothing was worked out).
Handler = Callable[[JobKey, Report], bool]


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


@dataclass
class Worker:
    """Takes jobs of ``kinds`` from the queue of the ledger at ``url`` and does them,
    ``concurrency`` at a time, until ``stop`` (then the jobs running end first)."""

    url: str
    kinds: Mapping[str, Handler]
    concurrency: int = 1
    lease: float = LEASE
    line: Callable[[str], None] = print  # one line per job (a log, not a sentence)
    name: str = ""
    done: int = 0

    def __post_init__(self) -> None:
        self.name = self.name or worker_name()
        self.stopping = False
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        # One thread per slot, for the worker's life: what a handler starts in it (a
        # solver process that dies with its parent thread) stays with it.
        self._slots = [ThreadPoolExecutor(1, thread_name_prefix=f"job-slot-{n}")
                       for n in range(max(1, self.concurrency))]

    def stop(self) -> None:
        """Take no more jobs; ``run`` returns when the running ones have ended."""
        self.stopping = True
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    async def run(self) -> int:
        """Work until stopped; the number of jobs done."""
        import psycopg
        from pgqueuer.db import PsycopgDriver
        from pgqueuer.domain.settings import db_settings
        from pgqueuer.queries import EntrypointExecutionParameter, Queries

        info = conninfo(self.url)
        conn = await psycopg.AsyncConnection.connect(info, autocommit=True)
        listen = await psycopg.AsyncConnection.connect(info, autocommit=True)
        try:
            queries = Queries(PsycopgDriver(conn))
            if not (await queries.has_table("pgqueuer")
                    and await queries.has_table("job_progress")):
                raise QueueError("this ledger has no job queue yet: run `domino-ledger db "
                                 "upgrade` (PostgreSQL ledgers at revision 0008 or later)")
            notices = PsycopgDriver(listen)
            async with notices:
                wake = self._wake = asyncio.Event()
                self._loop = asyncio.get_running_loop()
                await notices.add_listener(db_settings().channel, lambda _p: wake.set())
                if self.stopping:
                    return self.done
                await self._work(queries, conn, wake,
                                 {k: EntrypointExecutionParameter(concurrency_limit=0)
                                  for k in self.kinds})
        finally:
            for pool in self._slots:
                pool.shutdown(wait=False, cancel_futures=True)
            await conn.close()
            await listen.close()
        return self.done

    async def _work(self, queries: Any, conn: Any, wake: asyncio.Event,
                    entrypoints: Mapping[str, Any]) -> None:
        from uuid import uuid4

        me = uuid4()
        free = list(self._slots)
        running: dict[asyncio.Task[None], tuple[Job, Report]] = {}
        lease = timedelta(seconds=self.lease)

        async def beat() -> None:
            # The heartbeat is this loop's, never the solver's: a job holds its claim
            # however long one position takes, and loses it only with its worker.
            try:
                await beats()
            except Exception:  # claims no longer held: take no more, let others have them
                log.exception("the worker's heartbeat failed: stopping")
                self.line("stopping: the heartbeat to the database failed")
                self.stop()

        async def beats() -> None:
            while True:
                await asyncio.sleep(min(FLUSH, self.lease / 4))
                if running:
                    await queries.update_heartbeat([job.id for job, _ in running.values()])
                for job, report in list(running.values()):
                    if report.dirty:
                        report.dirty = False
                        await conn.execute(
                            "UPDATE job_progress SET done = %s, total = %s, updated = now() "
                            "WHERE key = %s AND state = 'running'",
                            (report.done, report.total, JobKey.of_payload(job.payload).name))

        beating = asyncio.create_task(beat())
        try:
            while not self.stopping or running:
                if free and not self.stopping:
                    jobs = await queries.dequeue(
                        batch_size=len(free), entrypoints=dict(entrypoints),
                        queue_manager_id=me, global_concurrency_limit=self.concurrency,
                        heartbeat_timeout=lease)
                    mine = {job.id for job, _ in running.values()}
                    jobs = [job for job in jobs if job.id not in mine]
                    for job in jobs:
                        # (A late heartbeat of ours lets our own dequeue claim a job
                        # still running here: it is not started twice.)
                        report = Report()
                        slot = free.pop()
                        task = asyncio.create_task(self._do(queries, conn, job, report, slot))
                        task.add_done_callback(_give_back(free, slot))
                        running[task] = (job, report)
                    if jobs:
                        continue
                wake.clear()
                waiter = asyncio.ensure_future(wake.wait())
                await asyncio.wait({waiter, *running}, timeout=IDLE,
                                   return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                for task in [t for t in running if t.done()]:
                    del running[task]
        finally:
            beating.cancel()

    async def _do(self, queries: Any, conn: Any, job: Job, report: Report,
                  slot: ThreadPoolExecutor) -> None:
        from pgqueuer.models import TracebackRecord

        loop = asyncio.get_running_loop()
        started = loop.time()
        name = f"job {job.id}"
        try:
            key = JobKey.of_payload(job.payload)
            name = key.name
            handler = self.kinds[key.kind]
            await conn.execute("UPDATE job_progress SET state = 'running', worker = %s, "
                               "updated = now() WHERE key = %s", (self.name, key.name))
            known = await loop.run_in_executor(slot, handler, key, report)
        except Exception as exc:
            log.exception("%s failed", name)
            self.line(f"failed {name}: {exc}")
            await conn.execute("UPDATE job_progress SET state = 'failed', error = %s, "
                               "updated = now() WHERE key = %s", (str(exc), name))
            await queries.log_jobs([(job, "exception",
                                     TracebackRecord.from_exception(exc, job.id))])
            return
        await queries.log_jobs([(job, "successful", None)])
        self.done += 1
        self.line(f"{'known' if known else 'done'} {name} {loop.time() - started:.3f}s")


def _give_back(free: list[ThreadPoolExecutor], slot: ThreadPoolExecutor
               ) -> Callable[[asyncio.Task[None]], None]:
    """A job's slot goes back to the free ones when its task ends, however it ends."""
    return lambda _task: free.append(slot)
