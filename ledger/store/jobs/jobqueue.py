"""The job queue of a PostgreSQL ledger: work that any number of workers, on any
machine that reaches the database, take from it; and how far each job is.

The queue is pgqueuer's (its tables come with migration 0008): a job is a row that a
worker claims with ``FOR UPDATE SKIP LOCKED`` and keeps claimed with a heartbeat; a job
whose heartbeat is older than the lease (its worker was killed, or lost the database)
is claimed again by the next worker that asks. Its ``dedupe_key`` is the job's key
(kind, match, part, head, version: ``JobKey``), unique while the job waits or runs, so
the same work is never queued twice; a worker ends every job it claims whose answer is
kept already, or whose match has been recorded further, before it starts anything
(``settle_many``, one statement per claim), so work finished once is not done again by a
late duplicate and an old head's answer is never made.

``job_progress`` is ours: per key, ``queued``, ``running`` (``done`` of ``total``),
``failed`` (``error``) or ``late`` (``body``: an answer cut short by the time limit,
served but not kept as the answer). A finished job's row goes: its answer is in the
kind's own table (a deal's in ``analyses``, a review's in ``knowledge_reviews``), held
for the head it names.

Kinds of work are named (``"deal"``: a deal's analysis, ``part`` its deal;
``"knowledge"``: a match's review by what each player knew, ``part`` the deals sampled
per decision); the code that does one is given to the ``Worker`` by the command that
runs it, so the ledger knows only where answers are kept, not how one is made. Only
PostgreSQL has a queue: an embedded SQLite ledger's server works in process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from uuid import uuid4

import orjson
from sqlalchemy import Engine, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import ArgumentError

from ledger.store.errors import StoreError

if TYPE_CHECKING:
    from pgqueuer.models import Job

log = logging.getLogger(__name__)

BATCH = 16          # jobs claimed per visit beyond the free slots (the answered end at once)
LEASE = 30.0        # seconds without a heartbeat before a claimed job is claimed again
IDLE = 2.0          # seconds between looks at the queue when no notice comes
FLUSH = 0.5         # seconds between writes of the running jobs' progress
RECONNECT = (0.5, 15.0)  # seconds before connecting again: first, at most (doubling)
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


# Raw SQL on purpose: job_progress and pgqueuer's tables exist on PostgreSQL only (0008,
# pgqueuer's own schema), not in the models every backend builds, and the queries use
# PostgreSQL's own forms (to_regclass, ::text, now()).
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


# Where each kind keeps its answers: the job's key names the row (ledger.store.jobs.analyses,
# ledger.store.jobs.knowledge_reviews).
_ANSWERED = {
    "deal": "SELECT 1 FROM analyses WHERE match_id = :match_id AND deal = :part "
            "AND version = :version AND last_seq = :last_seq AND head_hash = :head",
    "knowledge": "SELECT 1 FROM knowledge_reviews WHERE match_id = :match_id "
                 "AND samples = :part AND version = :version AND head_hash = :head",
}


def settle(conn: Connection, key: JobKey) -> bool:
    """End the job, in one statement, if there is nothing to work out: its answer is kept,
    or its match has been recorded further since it was asked (an old head's answer is
    shown to nobody). Whether it was ended."""
    answered = _ANSWERED.get(key.kind)
    if answered is None:
        return False
    return conn.execute(text(
        "DELETE FROM job_progress WHERE key = :key AND (EXISTS (" + answered + ") OR "
        "NOT EXISTS (SELECT 1 FROM (SELECT seq, hash FROM events WHERE match_id = :match_id "
        "ORDER BY seq DESC LIMIT 1) AS head WHERE head.seq = :last_seq "
        "AND head.hash = :head)) RETURNING 1"),
        {"key": key.name, "match_id": key.match_id, "part": key.part,
         "version": key.version, "last_seq": key.last_seq,
         "head": key.head_hash}).first() is not None


# ``settle`` for a batch of keys, on the worker's own (psycopg, autocommit) connection.
_SETTLE_MANY = """
WITH k AS (
  SELECT * FROM unnest(%(keys)s::text[], %(kinds)s::text[], %(matches)s::bigint[],
                       %(parts)s::bigint[], %(seqs)s::bigint[], %(heads)s::bytea[],
                       %(versions)s::text[])
    AS k(key, kind, match_id, part, last_seq, head, version)
  WHERE kind IN ('deal', 'knowledge')),
ended AS (
  SELECT k.key FROM k
  WHERE NOT EXISTS (SELECT 1 FROM (SELECT seq, hash FROM events e WHERE e.match_id = k.match_id
                                   ORDER BY seq DESC LIMIT 1) AS h
                    WHERE h.seq = k.last_seq AND h.hash = k.head)
     OR (k.kind = 'deal' AND EXISTS (
           SELECT 1 FROM analyses a WHERE a.match_id = k.match_id AND a.deal = k.part
           AND a.version = k.version AND a.last_seq = k.last_seq AND a.head_hash = k.head))
     OR (k.kind = 'knowledge' AND EXISTS (
           SELECT 1 FROM knowledge_reviews r WHERE r.match_id = k.match_id
           AND r.samples = k.part AND r.version = k.version AND r.head_hash = k.head)))
DELETE FROM job_progress WHERE key IN (SELECT key FROM ended) RETURNING key
"""


async def settle_many(conn: Any, keys: Sequence[JobKey]) -> set[str]:
    """``settle`` for every key at once (a psycopg ``AsyncConnection``); the names ended."""
    if not keys:
        return set()
    cur = await conn.execute(_SETTLE_MANY, {
        "keys": [k.name for k in keys], "kinds": [k.kind for k in keys],
        "matches": [k.match_id for k in keys], "parts": [k.part for k in keys],
        "seqs": [k.last_seq for k in keys], "heads": [k.head_hash for k in keys],
        "versions": [k.version for k in keys]})
    return {str(row[0]) for row in await cur.fetchall()}


# Claimed in a batch but not started (no free slot): back to the queue for any worker,
# not held here. pgqueuer has no call for it; these are the columns its dequeue sets.
_RELEASE = ("UPDATE pgqueuer SET status = 'queued', queue_manager_id = NULL, slot = NULL, "
            "updated = now() WHERE id = ANY(%s) AND status = 'picked' "
            "AND queue_manager_id = %s")


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


def application_name(name: str) -> str:
    """What a worker's connections are called in ``pg_stat_activity`` (at most 63 bytes)."""
    return f"domino-ledger worker {name}"[:63]


def named_url(url: str, name: str) -> str:
    """``url`` whose connections carry ``application_name(name)`` (a PostgreSQL one;
    any other, or none that parses, as it is: opening it says what is wrong)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return url
    if parsed.get_backend_name() != "postgresql":
        return url
    parsed = parsed.update_query_dict({"application_name": application_name(name)})
    return parsed.render_as_string(hide_password=False)


def lost_errors() -> tuple[type[BaseException], ...]:
    """The errors of a connection to the database that went away (not of a query)."""
    import psycopg
    from sqlalchemy.exc import DisconnectionError, OperationalError

    return (psycopg.OperationalError, psycopg.InterfaceError, OperationalError,
            DisconnectionError, OSError)


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@dataclass
class Worker:
    """Takes jobs of ``kinds`` from the queue of the ledger at ``url`` and does them,
    ``concurrency`` at a time, until ``stop`` (then the jobs running end first).

    A worker that loses the database connects again, waiting longer each time (up to
    ``RECONNECT``), saying so with ``news``; the jobs it runs go on meanwhile and their
    claims are kept by the next connection's heartbeat, or, if it comes too late, taken
    by whichever worker asks next (the lease), and a job whose end could not be written
    is taken again the same way (its answer is found kept: nothing is worked out twice).
    """

    url: str
    kinds: Mapping[str, Handler]
    concurrency: int = 1
    lease: float = LEASE
    line: Callable[[str], None] = print  # one line per job (a log, not a sentence)
    name: str = ""
    done: int = 0
    news: Callable[[str], None] = _stderr  # its own news, a log line: the database lost, back

    def __post_init__(self) -> None:
        self.name = self.name or worker_name()
        self.stopping = False
        self._wake = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        # One thread per slot, for the worker's life: what a handler starts in it (a
        # solver process that dies with its parent thread) stays with it.
        self._slots = [ThreadPoolExecutor(1, thread_name_prefix=f"job-slot-{n}")
                       for n in range(max(1, self.concurrency))]
        self._free = list(self._slots)
        # Jobs running here, kept across connections: the next one beats for them.
        self._running: dict[asyncio.Task[None], tuple[Job, Report]] = {}
        # Written at the next beat, one statement each (a job done by then never
        # needed its own): jobs started, not yet marked running; jobs ended, not logged.
        self._started: list[JobKey] = []
        self._ended: list[tuple[Job, str, Any]] = []
        self._queries: Any = None
        self._conn: Any = None
        self._lost: BaseException | None = None
        self._online = False
        self._me = uuid4()

    def stop(self) -> None:
        """Take no more jobs; ``run`` returns when the running ones have ended."""
        self.stopping = True
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    async def run(self) -> int:
        """Work until stopped, connecting again whenever the database is lost; the number
        of jobs done. QueueError: the ledger has no queue."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        wait = RECONNECT[0]
        try:
            while True:
                try:
                    await self._session()
                    return self.done
                except lost_errors() as exc:
                    self._lost = exc
                    if self._online:
                        wait, self._online = RECONNECT[0], False
                    if self.stopping and not self._running:
                        return self.done
                    self.news(f"lost the database ({_one_line(exc)}); connecting again in "
                             f"{wait:g} s")
                    self._wake.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._wake.wait(), wait)
                    wait = min(RECONNECT[1], 2 * wait)
        finally:
            for pool in self._slots:
                pool.shutdown(wait=False, cancel_futures=True)

    async def _session(self) -> None:
        """One connection's time: connect (and listen), then work until stopped or lost."""
        import psycopg
        from pgqueuer.db import PsycopgDriver
        from pgqueuer.domain.settings import db_settings
        from pgqueuer.queries import Queries

        info = conninfo(self.url)
        app = application_name(self.name)
        async with contextlib.AsyncExitStack() as stack:
            conn = await psycopg.AsyncConnection.connect(info, autocommit=True,
                                                         application_name=app)
            stack.push_async_callback(_close, conn)
            listen = await psycopg.AsyncConnection.connect(info, autocommit=True,
                                                           application_name=app)
            stack.push_async_callback(_close, listen)
            queries = Queries(PsycopgDriver(conn))
            if not (await queries.has_table("pgqueuer")
                    and await queries.has_table("job_progress")):
                raise QueueError("this ledger has no job queue yet: run `domino-ledger db "
                                 "upgrade` (PostgreSQL ledgers at revision 0008 or later)")
            if self._lost is not None:
                self.news("connected to the database again")
            self._queries, self._conn, self._lost, self._online = queries, conn, None, True
            listening = asyncio.create_task(self._listen(listen, db_settings().channel))
            stack.callback(listening.cancel)
            await self._work()

    async def _listen(self, listen: Any, channel: str) -> None:
        """Wake the worker on each notice of a new job; a lost connection wakes it too."""
        from psycopg import sql

        try:
            await listen.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
            async for _note in listen.notifies():
                self._wake.set()
        except lost_errors() as exc:
            self._lost = exc
            self._wake.set()

    async def _work(self) -> None:
        from pgqueuer.queries import EntrypointExecutionParameter

        entrypoints = {k: EntrypointExecutionParameter(concurrency_limit=0)
                       for k in self.kinds}
        lease = timedelta(seconds=self.lease)
        beating = asyncio.create_task(self._beat())
        try:
            while not self.stopping or self._running:
                if self._lost is not None:
                    raise self._lost
                if self._free and not self.stopping:
                    # No budget of pgqueuer's (it counts this worker's claims, stale ones
                    # too: a job whose end was lost with the connection would block it);
                    # the free slots are the budget.
                    jobs = await self._queries.dequeue(
                        batch_size=len(self._free) + BATCH, entrypoints=dict(entrypoints),
                        queue_manager_id=self._me, global_concurrency_limit=None,
                        heartbeat_timeout=lease)
                    if jobs:
                        await self._take(jobs)
                        continue
                self._wake.clear()
                waiter = asyncio.ensure_future(self._wake.wait())
                await asyncio.wait({waiter, *self._running}, timeout=IDLE,
                                   return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                for task in [t for t in self._running if t.done()]:
                    del self._running[task]
        finally:
            beating.cancel()
            await self._quietly(self._flush())

    async def _take(self, jobs: Sequence[Job]) -> None:
        """The jobs of one claim: those with nothing to work out ended at once (one
        statement for all), the rest started while slots are free, and any left over
        given back to the queue. (A late heartbeat of ours lets our own dequeue claim a
        job still running here: it is neither started twice nor given back.)"""
        mine = {job.id for job, _ in self._running.values()}
        keys = {}
        for job in jobs:
            if job.id not in mine:
                with contextlib.suppress(QueueError):  # the slot's try says what is wrong
                    keys[job.id] = JobKey.of_payload(job.payload)
        ended = await settle_many(self._conn, list(keys.values()))
        left = []
        for job in jobs:
            key = keys.get(job.id)
            if job.id in mine:
                continue
            if key is not None and key.name in ended:
                self.done += 1
                self.line(f"known {key.name} 0.000s")
                self._ended.append((job, "successful", None))
            elif self._free:
                self._start(job)
            else:
                left.append(job.id)
        if left:
            await self._conn.execute(_RELEASE, (left, self._me))

    def _start(self, job: Job) -> None:
        report = Report()
        slot = self._free.pop()
        task = asyncio.create_task(self._do(job, report, slot))
        task.add_done_callback(_give_back(self._free, slot))
        self._running[task] = (job, report)

    async def _beat(self) -> None:
        # The heartbeat is this loop's, never the solver's: a job holds its claim
        # however long one position takes, and loses it only with its worker.
        try:
            while True:
                await asyncio.sleep(min(FLUSH, self.lease / 4))
                await self._beats()
        except lost_errors() as exc:  # this connection is gone: the worker makes another
            self._lost = exc
            self._wake.set()

    async def _beats(self) -> None:
        running = list(self._running.values())
        if running:
            await self._queries.update_heartbeat([job.id for job, _ in running])
        await self._flush()
        for job, report in running:
            if report.dirty:
                report.dirty = False
                await self._conn.execute(
                    "UPDATE job_progress SET done = %s, total = %s, updated = now() "
                    "WHERE key = %s AND state = 'running'",
                    (report.done, report.total, JobKey.of_payload(job.payload).name))

    async def _flush(self) -> None:
        """Mark the jobs started since the last beat running (those still waiting: one
        already ended, or failed, stays as it is) and log the jobs ended."""
        started, self._started = self._started, []
        ended, self._ended = self._ended, []
        try:
            if started:
                await self._conn.execute(
                    "UPDATE job_progress SET state = 'running', worker = %s, "
                    "updated = now() WHERE key = ANY(%s) AND state = 'queued'",
                    (self.name, [k.name for k in started]))
            if ended:
                await self._queries.log_jobs(ended)
        except lost_errors():
            # Kept for the next connection: a job ended here but never logged would stay
            # claimed in the queue until another worker's lease took it.
            self._started[:0], self._ended[:0] = started, ended
            raise

    async def _do(self, job: Job, report: Report, slot: ThreadPoolExecutor) -> None:
        from pgqueuer.models import TracebackRecord

        loop = asyncio.get_running_loop()
        started = loop.time()
        name = f"job {job.id}"
        try:
            key = JobKey.of_payload(job.payload)
            name = key.name
            handler = self.kinds[key.kind]
            self._started.append(key)
            known = await loop.run_in_executor(slot, handler, key, report)
        except lost_errors() as exc:  # not the job's fault: the lease gives it to a worker
            self.line(f"lost {name}: the database went away ({_one_line(exc)})")
            return
        except Exception as exc:
            log.exception("%s failed", name)
            self.line(f"failed {name}: {exc}")
            await self._quietly(self._conn.execute(
                "UPDATE job_progress SET state = 'failed', error = %s, updated = now() "
                "WHERE key = %s", (str(exc), name)))
            self._ended.append((job, "exception", TracebackRecord.from_exception(exc, job.id)))
            return
        self.done += 1
        self.line(f"{'known' if known else 'done'} {name} {loop.time() - started:.3f}s")
        self._ended.append((job, "successful", None))

    @staticmethod
    async def _quietly(call: Awaitable[Any]) -> None:
        """A write about a job that a lost connection may keep from being made (the lease
        then gives the job to a worker again)."""
        try:
            await call
        except lost_errors() as exc:
            log.warning("not written, the database is gone: %s", _one_line(exc))


async def _close(conn: Any) -> None:
    with contextlib.suppress(Exception):  # a connection already lost closes as it can
        await conn.close()


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _give_back(free: list[ThreadPoolExecutor], slot: ThreadPoolExecutor
               ) -> Callable[[asyncio.Task[None]], None]:
    """A job's slot goes back to the free ones when its task ends, however it ends."""
    return lambda _task: free.append(slot)
