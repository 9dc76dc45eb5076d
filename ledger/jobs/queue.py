"""Deal analyses through the PostgreSQL ledger's job queue: the web asks, workers anywhere
answer (ledger.store.jobs.jobqueue holds the queue; this module is the deal kind of work).

``QueueJobs`` is the app's analyses backend on such a ledger (ledger.jobs.service picks
it): a request reads the deal's kept answer for the match's head, else its job's
progress, else queues the job (``WEB`` priority, before any bulk work) and answers
``Pending``. It starts nothing of its own: the server stays stateless, and the answer
comes from whichever worker did the work.

``Work`` is what a worker does with a deal's job: it looks for the answer first (work
done once is never done again, even by a duplicate), skips a job whose match has been
recorded further (its answer would be for an old head, which nobody is shown), then
works the deal out in a solver process of its own (ledger.jobs.worker, with the
server's time limit and kill, ``solve``) and keeps the answer and ends the job's progress
in one transaction. ``domino-ledger worker`` runs it (``cmd_worker``); ``analyse --all``
queues a whole ledger or, on SQLite, runs it here on every core (``analyse_all``).

A match's review by what each player knew (issue 14) is a job too, of kind
``knowledge``: keyed by the match's head and the deals sampled per decision (the
``part`` of its key), so a second ask while it waits or runs joins it, and a review for
an old head is never shown as current; the same worker works it out (``Work.knowledge``,
progress in deals done of total) and keeps it in ``knowledge_reviews``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from ledger.i18n import Phrase
from ledger.jobs import knowledge_report
from ledger.jobs.deal_analysis import VERSION, Task
from ledger.jobs.service import (
    AnalysisBackend,
    AnalysisError,
    DealNotFound,
    Pending,
    Settings,
    Solved,
    TooManyWaiting,
    _task,
    solve,
)
from ledger.jobs.worker import Worker
from ledger.store import db
from ledger.store.jobs import analyses, jobqueue, knowledge_reviews
from ledger.store.jobs.analyses import Head
from ledger.store.jobs.jobqueue import BULK, WEB, JobKey, Report

KIND = "deal"
KNOWLEDGE = knowledge_report.KNOWLEDGE
RETRY_AFTER = 3600.0  # seconds a failed or late answer stands before a request tries again
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def has_queue(engine: Any) -> bool:
    with engine.connect() as conn:
        return jobqueue.has_queue(conn)


def deal_key(match_id: int, deal: int, at: Head) -> JobKey:
    return JobKey(KIND, match_id, deal, at.last_seq, at.hash, VERSION)


knowledge_key = knowledge_report.job_key


class QueueJobs(AnalysisBackend):
    """Analyses and knowledge reviews asked of the job queue and read back from the
    ledger."""

    def __init__(self, engine: Any, settings: Settings | None = None) -> None:
        self.engine = engine
        self.settings = settings or Settings()
        self.started = 0

    def ask(self, conn: Any, match_id: int, deal: int, client: str = ""
            ) -> dict[str, Any] | Pending:
        at = analyses.head(conn, match_id)
        if at is None:
            raise DealNotFound.of(match_id, deal)
        body = analyses.get(conn, match_id, deal, at, VERSION)
        if body is not None:
            return body
        key = deal_key(match_id, deal, at)
        got = _standing(jobqueue.progress(conn, key), lambda reason: Phrase(
            "the analysis of deal {deal} failed: {reason}", deal=deal + 1, reason=reason))
        if got is not None:
            return got
        # Its job may have ended, its answer kept in the same transaction, since our first
        # read (PostgreSQL's reads each see what is committed): read it once more.
        body = analyses.get(conn, match_id, deal, at, VERSION)
        if body is not None:
            return body
        _task(conn, match_id, deal)  # DealNotFound, ReplayUnavailable: said now, not queued
        return self._queue(conn, key, client)

    def ask_knowledge(self, conn: Any, match_id: int, client: str = "",
                      start: bool = True) -> dict[str, Any] | Pending | None:
        """The match's review for its head as stored now, or how far its job is (deals
        done of total); not ``start``: None rather than a new job (a page that only
        looks reads no events)."""
        at = analyses.head(conn, match_id)
        if at is None:
            raise DealNotFound.of(match_id, 0)
        if not start:
            for key, got in jobqueue.progress_of(conn, KNOWLEDGE, match_id).items():
                if key.head_hash == at.hash and key.version == knowledge_report.VERSION:
                    return _standing(got, _review_failed)
            return None
        # ReplayUnavailable: said now
        task = knowledge_report.task(conn, match_id, self.settings.knowledge_samples)
        body = knowledge_reviews.get(conn, match_id, at, task.samples,
                                     knowledge_report.VERSION)
        if body is not None:
            return body
        key = knowledge_key(match_id, task.samples, at)
        known = _standing(jobqueue.progress(conn, key), _review_failed)
        if known is None:  # as in ``ask``: its job may have ended since the first read
            known = knowledge_reviews.get(conn, match_id, at, task.samples,
                                          knowledge_report.VERSION)
        return known if known is not None else self._queue(conn, key, client)

    def _queue(self, conn: Any, key: JobKey, client: str) -> Pending:
        mine = jobqueue.waiting(conn, client)
        if mine >= self.settings.per_client:
            raise TooManyWaiting(Phrase("{waiting} deals you asked for are waiting to be "
                                      "analysed; ask again when one is done", waiting=mine))
        self.started += jobqueue.enqueue(self.engine, [key], client, WEB)
        return Pending("queued", 0, 0)

    def close(self) -> None:
        """Nothing runs here: the queued jobs wait for the workers."""


def _standing(got: jobqueue.Progress | None, failure: Callable[[str], Phrase]
              ) -> dict[str, Any] | Pending | None:
    """What a job's progress answers: how far it is, a late answer, its failure (raised)
    while it stands; None: ask again."""
    if got is None:
        return None
    age = (datetime.now(UTC) - got.updated).total_seconds()
    if got.state in ("queued", "running"):
        return Pending(got.state, got.done, got.total)
    if got.state == "late" and got.body is not None and age < RETRY_AFTER:
        return got.body
    if got.state == "failed" and age < RETRY_AFTER:
        raise AnalysisError(failure(got.error or "?"))
    return None


def _review_failed(reason: str) -> Phrase:
    return Phrase("the review by what each player knew failed: {reason}", reason=reason)


class Work:
    """A job as a worker does it (``jobqueue.Handler``: ``__call__`` a deal's,
    ``knowledge`` a match's review), in the calling thread's own solver process;
    ``close`` ends them all."""

    def __init__(self, engine: Any, settings: Settings) -> None:
        self.engine = engine
        self.settings = settings
        self.queue = not db.is_sqlite(engine)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._workers: list[Worker] = []
        self.closing = False

    def kinds(self) -> Mapping[str, jobqueue.Handler]:
        return {KIND: self, KNOWLEDGE: self.knowledge}

    def __call__(self, key: JobKey, report: Report) -> bool:
        _same_version(key, VERSION)
        at = Head(key.last_seq, key.head_hash)
        task = self._look(key, lambda conn: analyses.get(
            conn, key.match_id, key.part, at, VERSION) is not None,
            lambda conn: self._task(conn, key, at))
        if task is None:
            return True
        solved = self._solve(task, report)
        if solved.late:
            if self.queue:
                with db.writing(self.engine) as session:
                    jobqueue.ended_late(db.write_connection(session), key, solved.body)
                    session.commit()
            return False
        self._keep(key, solved.body)
        return False

    def knowledge(self, key: JobKey, report: Report) -> bool:
        """A match's review by what each player knew, kept for the job's head (progress:
        deals done of the match's)."""
        _same_version(key, knowledge_report.VERSION)
        at = Head(key.last_seq, key.head_hash)
        task = self._look(key, lambda conn: knowledge_reviews.get(
            conn, key.match_id, at, key.part, key.version) is not None,
            lambda conn: knowledge_report.task(conn, key.match_id, key.part))
        if task is None:
            return True
        solved = self._solve(task, report)
        if solved.late:  # a review is never cut short by the clock: said, not kept
            raise RuntimeError("the review ran over its time limit")
        with db.writing(self.engine) as session:
            conn = db.write_connection(session)
            knowledge_reviews.put(conn, key.match_id, at, key.part, key.version, solved.body)
            if self.queue:
                jobqueue.finished(conn, key)
            session.commit()
        return False

    def _look(self, key: JobKey, known: Callable[[Any], bool],
              task_of: Callable[[Any], Task]) -> Task | None:
        """The job's task; None when its answer is kept or its match has been recorded
        further since it was asked (nobody is shown an old head's answer). Such a job is
        ended at once on a queue's ledger, in one statement (``jobqueue.settle``): a job
        with nothing to work out costs one visit to the database."""
        if self.queue:
            with self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
                if jobqueue.settle(c, key):
                    return None
        at = Head(key.last_seq, key.head_hash)
        with db.read_session(self.engine) as session:
            conn = session.connection()
            if not known(conn) and analyses.head(conn, key.match_id) == at:
                return task_of(conn)
        return None

    def _solve(self, task: Task, report: Report) -> Solved:
        solved = solve(self._worker(), task, self.settings, report,
                       closing=lambda: self.closing)
        if solved is None:
            raise RuntimeError("the worker is stopping")
        return solved

    def _task(self, conn: Any, key: JobKey, at: Head) -> Task:
        """The deal's task; the match read once for its deals that follow in this thread
        (a backlog comes match by match)."""
        last: tuple[int, Head, Task] | None = getattr(self._local, "task", None)
        if last is None or last[:2] != (key.match_id, at):
            task = _task(conn, key.match_id, key.part)
            self._local.task = (key.match_id, at, task)
            return task
        if key.part >= last[2].dealt:
            raise DealNotFound.of(key.match_id, key.part)
        return replace(last[2], deal=key.part)

    def _keep(self, key: JobKey, body: dict[str, Any] | None) -> None:
        with db.writing(self.engine) as session:
            conn = db.write_connection(session)
            if body is not None:
                analyses.put(conn, key.match_id, key.part, Head(key.last_seq, key.head_hash),
                             VERSION, body)
            if self.queue:
                jobqueue.finished(conn, key)
            session.commit()

    def _worker(self) -> Worker:
        worker: Worker | None = getattr(self._local, "worker", None)
        if worker is None:
            worker = self._local.worker = Worker()
            with self._lock:
                self._workers.append(worker)
        return worker

    def close(self) -> None:
        self.closing = True
        with self._lock:
            for worker in self._workers:
                worker.stop()


def _same_version(key: JobKey, version: str) -> None:
    if key.version != version:
        raise RuntimeError(f"the job asks for version {key.version} of its {key.kind} work; "
                           f"this worker makes {version} (run the same release as the web)")


# --- domino-ledger worker -------------------------------------------------------------


def cmd_worker(args: argparse.Namespace) -> int:
    from ledger.store.errors import StoreError

    url = db.resolve_url(args.db)
    name = jobqueue.worker_name()
    try:
        # Its connections named: pg_stat_activity tells which are a worker's.
        engine = db.open_db(jobqueue.named_url(url, name))
        if not has_queue(engine):
            raise jobqueue.QueueError("this ledger has no job queue: workers take their jobs "
                                      "from a PostgreSQL ledger at schema 0008 or later "
                                      "(domino-ledger db upgrade); an embedded SQLite ledger's "
                                      "server analyses in its own processes")
    except Exception as exc:
        print(f"domino-ledger: {db.explain(exc)}", file=sys.stderr)
        return EXIT_USAGE
    work = Work(engine, Settings.from_env())
    worker = jobqueue.Worker(
        url, work.kinds(), concurrency=args.concurrency, lease=args.lease, name=name,
        line=lambda text: print(text, flush=True),
        news=lambda text: print(f"domino-ledger: worker {name}: {text}", file=sys.stderr,
                               flush=True))

    async def run() -> int:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, worker.stop)
        return await worker.run()

    print(f"domino-ledger: worker {worker.name}: {args.concurrency} at a time, taking jobs "
          f"from {engine.url.render_as_string(hide_password=True)}", file=sys.stderr,
          flush=True)
    try:
        done = asyncio.run(run())
    except StoreError as exc:
        print(f"domino-ledger: {exc.message}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # the database went away: said in one line, a supervisor restarts
        print(f"domino-ledger: worker {worker.name} stopped: {db.explain(exc)}",
              file=sys.stderr)
        return EXIT_FAILED
    finally:
        work.close()
        engine.dispose()
    print(f"domino-ledger: worker {worker.name} stopped after {done} jobs", file=sys.stderr)
    return EXIT_OK


# --- domino-ledger analyse --all ------------------------------------------------------


def analyse_all(args: argparse.Namespace) -> int:
    """Every scored deal without an answer for its head: queued (PostgreSQL), or worked
    out here on every core (SQLite); a progress bar on stderr."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from ledger.exports.selection import SelectionError, parse_since

    try:
        since = parse_since(args.since) if args.since else None
        engine = db.open_db(args.db)
    except (SelectionError, Exception) as exc:
        print(f"domino-ledger: {db.explain(exc)}", file=sys.stderr)
        return EXIT_USAGE
    try:
        with engine.connect() as conn:
            todo = analyses.unanalysed(conn, VERSION, since, args.preset)
            queue = jobqueue.has_queue(conn)
        keys = [deal_key(m, d, at) for m, d, at in todo]
        bar = Progress("{task.description}", BarColumn(), MofNCompleteColumn(),
                       TimeRemainingColumn(), console=Console(stderr=True), transient=False)
        with bar:
            if queue:
                return _queue_all(engine, keys, bar, args, since)
            return _here_all(engine, keys, bar, args.jobs)
    finally:
        engine.dispose()


def _queue_all(engine: Any, keys: list[JobKey], bar: Any, args: argparse.Namespace,
               since: datetime | None) -> int:
    step = 500
    queued = 0
    task = bar.add_task("queueing", total=len(keys))
    for i in range(0, len(keys), step):
        queued += jobqueue.enqueue(engine, keys[i:i + step], "analyse --all", BULK)
        bar.advance(task, len(keys[i:i + step]))
    bar.console.print(f"{len(keys)} deals to analyse: {queued} queued now, "
                      f"{len(keys) - queued} were queued already; `domino-ledger worker` on "
                      "any machine that reaches the database works them out")
    if args.no_wait or not keys:
        return EXIT_OK
    done = bar.add_task("analysed", total=len(keys))
    while True:
        with engine.connect() as conn:
            left = len(analyses.unanalysed(conn, VERSION, since, args.preset))
            failed = jobqueue.failures(conn, [k.name for k in keys])
        bar.update(done, completed=len(keys) - left - failed)
        if left <= failed:
            break
        time.sleep(1.0)
    if failed:
        bar.console.print(f"{failed} deals could not be analysed (the replay's Analysis "
                          "panel says why)")
    return EXIT_FAILED if failed else EXIT_OK


def _here_all(engine: Any, keys: list[JobKey], bar: Any, jobs: int | None) -> int:
    work = Work(engine, Settings.from_env())
    n = jobs or max(1, os.cpu_count() or 1)
    bar.console.print(f"{len(keys)} deals to analyse here, {n} at a time")
    task = bar.add_task("analysing", total=len(keys))
    failed = 0
    try:
        with ThreadPoolExecutor(n, thread_name_prefix="analyse") as pool:
            futures = {pool.submit(work, key, Report()): key for key in keys}
            for fut in as_completed(futures):
                key = futures[fut]
                try:
                    fut.result()
                except Exception as exc:
                    failed += 1
                    bar.console.print(f"match {key.match_id} deal {key.part}: {exc}")
                bar.advance(task)
    except KeyboardInterrupt:
        work.close()
        raise
    finally:
        work.close()
    return EXIT_FAILED if failed else EXIT_OK
