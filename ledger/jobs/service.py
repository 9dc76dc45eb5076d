"""Deal analyses off the request: one job per (match, stored head, deal), in worker processes.

Solving a deal can take from milliseconds to minutes of CPU, so a request never
waits for it. ``AnalysisJobs.ask`` answers at once with the body when it is known
(kept in memory, else in the store's ``analyses`` table, ``ledger.store.jobs.analyses``)
or with ``Pending`` (done / total positions) while a job works it out; a second
request for the same key joins the running job. Jobs queue for ``workers``
processes (ledger.jobs.worker, started with the "spawn" context so nothing of the
server's threads or database connections is copied into them). The worker gets the
match's table and events from the request, so it never opens the database; results
are written to the store here, in a short transaction of their own.

Time: the worker stops solving after ``seconds`` (positions left out with a note:
the deal could not be solved in time). A worker still busy ``kill_after`` seconds
after it started (a single position that runs on) is killed, and a fresh one works
out the deal's shape with nothing solved, to say so. Such late answers are kept in
memory only: another start tries again. A failure (the analysis raised, the worker
died) is the answer to every request for that key until it is forgotten.

Fairness: each client (the address a request comes from: ``ClientJobs``) may have at
most ``per_client`` jobs waiting, and the workers take waiting jobs from the clients in
turn, so one client asking for every deal of the ledger neither fills the queue nor
makes the others wait behind all of its jobs. A request that joins a job already queued
or running (the same match, head and deal) counts for nobody.

"spawn" starts each worker by importing the main module of the server's process: a
script that runs the app must keep its own work under ``if __name__ == "__main__"``.

A match's review by what each player knew (``ask_knowledge``) runs minutes, and
``serve`` runs one process per core: its job is claimed in the ledger before it starts
(ledger.store.jobs.job_claims), beaten for every few seconds with its progress, and ended with
its answer's transaction, so every process answers the same progress, a second ask from
any process joins it, and a dead process's claim lapses after the lease. Deal analyses,
seconds long, are known per process until their answers are stored.

This is one of two backends behind one interface (``AnalysisBackend``;
``ledger.jobs.backends.open_jobs`` picks): on a PostgreSQL ledger that holds the job
queue (migration 0008) the app only queues and reads, and ``domino-ledger worker``
processes anywhere do the work (ledger.jobs.queue, docs/scaling.md); both run a deal
through ``solve``, with the same time limit and kill. ``$DOMINO_LEDGER_ANALYSIS=local``
keeps this one on PostgreSQL too.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ledger.i18n import Phrase
from ledger.jobs import knowledge_report
from ledger.jobs.deal_analysis import VERSION, Task, late
from ledger.jobs.worker import Worker
from ledger.store import db
from ledger.store.handles import Connection, Engine
from ledger.store.jobs import analyses, job_claims, knowledge_reviews
from ledger.store.jobs.analyses import Head
from ledger.store.jobs.jobqueue import JobKey, worker_name
from ledger.store.read import ReplayUnavailable, load_match

log = logging.getLogger(__name__)

POLL = 0.1           # seconds between looks at the clock while a worker is busy
GIVE_UP = 60.0       # the run after a kill: the deal's shape only, nothing solved
SECONDS = 120.0      # the time limit per deal unless the settings say otherwise
ENV_SECONDS = "DOMINO_LEDGER_ANALYSIS_SECONDS"
ENV_WORKERS = "DOMINO_LEDGER_ANALYSIS_WORKERS"
ENV_BACKEND = "DOMINO_LEDGER_ANALYSIS"   # local: in process even on a PostgreSQL ledger
ENV_SAMPLES = "DOMINO_LEDGER_KNOWLEDGE_SAMPLES"  # deals per decision of a knowledge review


class AnalysisError(Exception):
    """A deal's analysis cannot be given (the app's error handler answers with it).

    ``said`` words the reason in any language; ``message`` is its English.
    """

    code = "analysis-failed"
    status = 500

    def __init__(self, said: Phrase) -> None:
        super().__init__(str(said))
        self.said = said
        self.message = str(said)


class DealNotFound(AnalysisError):
    code = "deal-not-found"
    status = 404

    @classmethod
    def of(cls, match_id: int, deal: int) -> DealNotFound:
        return cls(Phrase("match {match} has no deal {deal} that can be analysed",
                          match=match_id, deal=deal + 1))


class AnalysisBusy(AnalysisError):
    code = "analysis-busy"
    status = 503


class TooManyWaiting(AnalysisBusy):
    """This client's own share of the queue is full: its requests are too many (429), the
    server is not out of service (503: the whole queue full, or the server stopping)."""

    status = 429


@dataclass(frozen=True, slots=True)
class Settings:
    seconds: float = SECONDS           # per deal: what is not solved by then is left out
    kill_after: float | None = None    # a worker busy this long is killed (None: 2x + 10 s)
    workers: int = 1                   # processes solving at once
    waiting: int = 64                  # jobs that may wait for a worker
    per_client: int = 4                # of those, jobs one client may have waiting
    kept: int = 64                     # answers kept in memory
    backend: str = "auto"              # local (own processes), queue (PostgreSQL), auto
    # The most deals drawn per decision of a knowledge review; None: the default cap, 200
    # (knowledge_review.default_samples; a decision stops earlier once its label is
    # settled). The tests ask for a few: a review in seconds.
    knowledge_samples: int | None = None

    @property
    def kill_seconds(self) -> float:
        return self.kill_after if self.kill_after is not None else 2 * self.seconds + 10

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """$DOMINO_LEDGER_ANALYSIS_SECONDS, $DOMINO_LEDGER_ANALYSIS_WORKERS and
        $DOMINO_LEDGER_KNOWLEDGE_SAMPLES, else the defaults (one worker on a machine of two
        cores, two on more: the server keeps one; the review's own cap of samples)."""
        env = os.environ if environ is None else environ
        cores = os.cpu_count() or 1
        workers = int(env.get(ENV_WORKERS) or max(1, min(2, cores - 1)))
        samples = env.get(ENV_SAMPLES)
        return cls(seconds=float(env.get(ENV_SECONDS) or SECONDS), workers=max(1, workers),
                   backend=env.get(ENV_BACKEND) or "auto",
                   knowledge_samples=max(1, int(samples)) if samples else None)


Key = tuple[int, int, Head]  # match, deal (0-based), the match's last event


@dataclass(frozen=True, slots=True)
class Pending:
    """A job not finished yet: ``done`` of ``total`` positions solved (0 of 0: waiting)."""

    status: str          # "queued" or "running"
    done: int
    total: int

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "done": self.done, "total": self.total}


@dataclass
class Job:
    key: Key
    task: Task
    client: str = ""           # who asked first (the request's address)
    state: str = "queued"      # queued, running, done, failed
    done: int = 0
    total: int = 0
    error: str | None = None
    finished: threading.Event = field(default_factory=threading.Event)

    def pending(self) -> Pending:
        return Pending("running" if self.state == "running" else "queued", self.done,
                       self.total)


class AnalysisBackend(ABC):
    """Where the app's deal analyses are worked out: in its own processes (``AnalysisJobs``,
    an embedded SQLite ledger) or by workers anywhere, through the PostgreSQL ledger's job
    queue (ledger.jobs.queue). Routes see only ``ask``, through ``for_client``."""

    started = 0  # jobs this app started (a request that joined one does not count)
    engine: Engine
    settings: Settings

    def for_client(self, client: str) -> ClientJobs:
        """These jobs as ``client`` asks for them (its waiting jobs are counted)."""
        return ClientJobs(self, client)

    @abstractmethod
    def ask(self, conn: Connection, match_id: int, deal: int, client: str = ""
            ) -> dict[str, Any] | Pending:
        """The body of ``deal`` (0-based) of the match as stored now, or how far its job is."""

    @abstractmethod
    def close(self) -> None:
        """Stop what this app runs for its analyses."""

    _local: AnalysisJobs | None = None

    def ask_knowledge(self, conn: Connection, match_id: int, client: str = "",
                      start: bool = True) -> dict[str, Any] | Pending | None:
        """The match's report by what each player knew, for its head as stored now, or how
        far its job is (done / total deals). Here (a backend that does not say otherwise)
        it is worked out in the app's own worker processes; the job queue's backend queues
        it for the workers. Not ``start``: None rather than a new job."""
        if self._local is None and not start:
            return None
        if self._local is None:
            self._local = AnalysisJobs(self.engine, self.settings)
        return self._local.ask_knowledge(conn, match_id, client, start)

    def close_local(self) -> None:
        if self._local is not None:
            self._local.close()


class AnalysisJobs(AnalysisBackend):
    """The app's analysis jobs, their workers and the answers kept in memory."""

    def __init__(self, engine: Engine, settings: Settings | None = None) -> None:
        self.engine = engine
        self.settings = settings or Settings()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._jobs: dict[Key, Job] = {}          # queued or running
        self._queue: OrderedDict[str, deque[Job]] = OrderedDict()  # per client, in turn
        self._waiting = 0
        self._answers: OrderedDict[Key, dict[str, Any]] = OrderedDict()
        self._failed: OrderedDict[Key, AnalysisError] = OrderedDict()
        self._threads: list[threading.Thread] = []
        self._workers: list[Worker] = []
        self._closing = False
        self.started = 0   # jobs started (a request that joined one does not count)
        self.killed = 0    # workers killed for running over the time
        self.recent: deque[Job] = deque(maxlen=self.settings.kept)  # the last jobs finished
        # The reviews this process claimed in the ledger (job_claims): their keys there,
        # beaten for with their progress while they wait or run.
        self.owner = f"{worker_name()}/{uuid.uuid4().hex[:8]}"
        self._claims: dict[Key, JobKey] = {}
        self._beating: threading.Thread | None = None
        self._stopped = threading.Event()

    # --- asking ----------------------------------------------------------------------

    def ask(self, conn: Connection, match_id: int, deal: int, client: str = ""
            ) -> dict[str, Any] | Pending:
        """The body of ``deal`` (0-based) of the match as stored now, or how far its job is.

        ``conn`` reads the match's head and, for a new job, its events, in one transaction.
        """
        at = analyses.head(conn, match_id)
        if at is None:
            raise DealNotFound.of(match_id, deal)
        key = (match_id, deal, at)
        with self._lock:
            known = self._known(key)
        if known is not None:
            return known
        body = analyses.get(conn, match_id, deal, at, VERSION)
        if body is not None:
            with self._lock:
                self._keep(key, body)
            return body
        return self.submit(key, _task(conn, match_id, deal), client)

    def ask_knowledge(self, conn: Connection, match_id: int, client: str = "",
                      start: bool = True) -> dict[str, Any] | Pending | None:
        """The match's review as kept, or how far its job is in whichever process of the
        server runs it (their claims are in the ledger: ``job_claims``); a new job is
        claimed there before it starts, so a second ask, from any process, joins it."""
        at = analyses.head(conn, match_id)
        if at is None:
            raise DealNotFound.of(match_id, 0)
        key = (match_id, knowledge_report.KNOWLEDGE_DEAL, at)
        with self._lock:
            known = self._known(key)
        if known is not None:
            return known
        if not start:
            for jkey, got in job_claims.of_match(conn, knowledge_report.KNOWLEDGE,
                                                 match_id).items():
                if jkey.head_hash == at.hash and jkey.version == knowledge_report.VERSION:
                    return _claimed(got)
            return None
        task = knowledge_report.task(conn, match_id, self.settings.knowledge_samples)
        body = knowledge_reviews.get(conn, match_id, at, task.samples, knowledge_report.VERSION)
        if body is not None:
            with self._lock:
                self._keep(key, body)
            return body
        jkey = knowledge_report.job_key(match_id, task.samples, at)
        theirs = self._claim(jkey)
        if theirs is not None:
            return _claimed(theirs)
        try:
            with self._lock:
                self._claims[key] = jkey
            started = self.submit(key, task, client)
        except BaseException:
            self._unclaim(key, release=True)
            raise
        self._beat_start()
        return started

    def _claim(self, jkey: JobKey) -> job_claims.Claim | None:
        """Claim the job in the ledger for this process: None, or the claim that holds."""
        with db.writing(self.engine) as session:
            got = job_claims.claim(db.write_connection(session), jkey, self.owner)
            session.commit()
        return got

    def _unclaim(self, key: Key, release: bool = False, error: str | None = None) -> None:
        """The job's claim is this process's no more: given up (``release``), failed
        (``error``: said to every process for a while), or ended with its answer."""
        with self._lock:
            jkey = self._claims.pop(key, None)
        if jkey is None or not (release or error is not None):
            return
        try:
            with db.writing(self.engine) as session:
                conn = db.write_connection(session)
                if error is not None:
                    job_claims.failed(conn, jkey, self.owner, error)
                else:
                    job_claims.release(conn, self.owner, [jkey.name])
                session.commit()
        except Exception:  # its heartbeat stops: the lease ends the claim all the same
            log.exception("could not end the claim of %s", jkey.name)

    def _beat_start(self) -> None:
        with self._lock:
            if self._beating is not None or self._closing:
                return
            self._beating = threading.Thread(target=self._beat, daemon=True,
                                             name="analysis-claims")
        self._beating.start()

    def _beat(self) -> None:
        """The claims' heartbeat, with each job's progress, until the app closes."""
        while not self._stopped.wait(job_claims.BEAT):
            with self._lock:
                beats = {jkey.name: (job.state, job.done, job.total)
                         for key, jkey in self._claims.items()
                         if (job := self._jobs.get(key)) is not None}
            if not beats:
                continue
            try:
                with db.writing(self.engine) as session:
                    job_claims.beat(db.write_connection(session), self.owner, beats)
                    session.commit()
            except Exception:  # the next beat tries again (the lease is six beats long)
                log.exception("could not beat for the claimed jobs")

    def submit(self, key: Key, task: Task, client: str = "") -> dict[str, Any] | Pending:
        """Start the job of ``key`` with ``task`` unless it is known or running already
        (then: that answer, or the running job's progress)."""
        with self._lock:
            known = self._known(key)
            if known is not None:
                return known
            if self._closing:
                raise AnalysisBusy(Phrase("the server is stopping; ask again"))
            mine = self._queue.get(client)
            if mine is not None and len(mine) >= self.settings.per_client:
                raise TooManyWaiting(Phrase("{waiting} deals you asked for are waiting to be "
                                          "analysed; ask again when one is done",
                                          waiting=len(mine)))
            if self._waiting >= self.settings.waiting:
                raise AnalysisBusy(Phrase("too many deals are waiting to be analysed "
                                          "({waiting}); ask again later",
                                          waiting=self._waiting))
            job = Job(key, task, client)
            self._jobs[key] = job
            self._queue.setdefault(client, deque()).append(job)
            self._waiting += 1
            self.started += 1
            self._start()
            self._wake.notify()
            return job.pending()

    def job(self, match_id: int, deal: int, at: Head) -> Job | None:
        """The job of a key while it is queued or running (None: none)."""
        with self._lock:
            return self._jobs.get((match_id, deal, at))

    def _known(self, key: Key) -> dict[str, Any] | Pending | None:
        hit = self._answers.get(key)
        if hit is not None:
            self._answers.move_to_end(key)
            return hit
        failed = self._failed.get(key)
        if failed is not None:
            raise type(failed)(failed.said)  # a fresh one for each asker
        job = self._jobs.get(key)
        return None if job is None else job.pending()

    def _keep(self, key: Key, body: dict[str, Any]) -> None:
        self._answers[key] = body
        self._answers.move_to_end(key)
        while len(self._answers) > self.settings.kept:
            self._answers.popitem(last=False)

    # --- the workers -----------------------------------------------------------------

    def _start(self) -> None:
        """Start the worker threads (their processes start with their first job)."""
        if self._threads:
            return
        for n in range(max(1, self.settings.workers)):
            worker = Worker()
            thread = threading.Thread(target=self._serve, args=(worker,), daemon=True,
                                      name=f"analysis-jobs-{n}")
            self._workers.append(worker)
            self._threads.append(thread)
            thread.start()

    def close(self) -> None:
        """Stop every worker (jobs still queued or running are dropped)."""
        with self._lock:
            self._closing = True
            self._wake.notify_all()
            threads = list(self._threads)
        self._stopped.set()
        for thread in threads:
            thread.join(timeout=10)
        for worker in self._workers:
            worker.stop()
        with self._lock:
            mine = list(self._claims)
        for key in mine:  # other processes may start them at once
            self._unclaim(key, release=True)
        self.close_local()

    def _serve(self, worker: Worker) -> None:
        while True:
            with self._lock:
                while not self._queue and not self._closing:
                    self._wake.wait()
                if self._closing:
                    return
                job = self._next()
                job.state = "running"
            try:
                self._run(worker, job)
            except Exception as exc:  # never leave a job hanging: its askers get the error
                log.exception("analysis job %s failed", job.key[:2])
                self._fail(job, AnalysisError(Phrase("the analysis failed: {reason}",
                                                     reason=str(exc))))

    def _next(self) -> Job:
        """The first waiting job of the client whose turn it is; that client goes last."""
        client, jobs = next(iter(self._queue.items()))
        job = jobs.popleft()
        if jobs:
            self._queue.move_to_end(client)
        else:
            del self._queue[client]
        self._waiting -= 1
        return job

    def _run(self, worker: Worker, job: Job) -> None:
        def progress(done: int, total: int) -> None:
            with self._lock:
                job.done = max(job.done, done)
                job.total = max(job.total, total)

        def killed() -> None:
            with self._lock:
                self.killed += 1

        try:
            solved = solve(worker, job.task, self.settings, progress,
                           closing=lambda: self._closing, on_kill=killed)
        except AnalysisError as exc:
            self._fail(job, exc)
            return
        if solved is None:  # the app is closing
            return
        body = solved.body
        with self._lock:
            self._keep(job.key, body)
            self._jobs.pop(job.key, None)
            job.state = "done"
            self.recent.append(job)
        if not solved.late:  # served from memory meanwhile
            self._store(job.key, body)
        self._unclaim(job.key, release=True)  # not kept (late, or the store failed)
        job.finished.set()

    def _fail(self, job: Job, error: AnalysisError) -> None:
        self._unclaim(job.key, error=str(error.said.params.get("reason", error.message)))
        with self._lock:
            self._failed[job.key] = error
            while len(self._failed) > self.settings.kept:
                self._failed.popitem(last=False)
            self._jobs.pop(job.key, None)
            job.state = "failed"
            job.error = error.message
            self.recent.append(job)
        job.finished.set()

    def _store(self, key: Key, body: dict[str, Any]) -> None:
        match_id, deal, at = key
        try:
            with db.writing(self.engine) as session:
                conn = db.write_connection(session)
                if deal == knowledge_report.KNOWLEDGE_DEAL:
                    knowledge_reviews.put(conn, match_id, at, body["samples"],
                                          knowledge_report.VERSION, body)
                    with self._lock:
                        jkey = self._claims.pop(key, None)
                    if jkey is not None:
                        job_claims.finished(conn, jkey)
                else:
                    analyses.put(conn, match_id, deal, at, VERSION, body)
                session.commit()
        except Exception:  # the answer is served from memory all the same
            log.exception("could not keep the analysis of match %s deal %s", match_id,
                          deal + 1)


def _claimed(got: job_claims.Claim) -> Pending:
    """What another process's claim on a review answers: how far it is, or its failure."""
    if got.state == "failed":
        raise AnalysisError(review_failed(got.error or "?"))
    return Pending("running" if got.state == "running" else "queued", got.done, got.total)


def review_failed(reason: str) -> Phrase:
    return Phrase("the review by what each player knew failed: {reason}", reason=reason)


@dataclass(frozen=True, slots=True)
class Solved:
    """A deal worked out: its body, ``late`` when the time limit cut it short (such an
    answer is served, never kept as the deal's answer: another start tries again)."""

    body: dict[str, Any]
    late: bool = False


def solve(worker: Worker, task: Task, settings: Settings, progress: Callable[[int, int], None],
          closing: Callable[[], bool] = lambda: False,
          on_kill: Callable[[], None] = lambda: None) -> Solved | None:
    """``task``'s deal worked out in ``worker`` within the settings' time (None: closing);
    AnalysisError (DealNotFound: the record has no such deal) when it cannot be."""
    s = settings
    got = attempt(worker, task, s.seconds, s.kill_seconds, progress, closing)
    if got[0] == "killed" and task.kind != "deal":  # a whole match: no shape-only retry
        on_kill()
        got = ("failed", Phrase("it could not be worked out in time (the limit is {seconds} "
                                "s)", seconds=f"{s.kill_seconds:g}"))
    if got[0] == "killed":
        on_kill()
        log.warning("analysis of match %s deal %s ran over %.0f s: worker killed",
                    task.match_id, task.deal + 1, s.kill_seconds)
        got = attempt(worker, task, 0.0, GIVE_UP, progress, closing)
        if got[0] == "done":
            got = ("done", got[1], True)
        elif got[0] == "killed":
            got = ("failed", Phrase("it could not be solved in time (the limit is "
                                    "{seconds} s)", seconds=f"{s.seconds:g}"))
    if got[0] == "closing":
        return None
    if got[0] == "done":
        body, stopped = got[1], bool(got[2])
        if body is None:
            raise DealNotFound.of(task.match_id, task.deal)
        return Solved(late(body, s.seconds), True) if stopped else Solved(body)
    # got[1]: one of the phrases above, or the text of the worker's own exception.
    if task.kind != "deal":
        raise AnalysisError(review_failed(got[1]))
    raise AnalysisError(Phrase("the analysis of deal {deal} failed: {reason}",
                               deal=task.deal + 1, reason=got[1]))


def attempt(worker: Worker, task: Task, seconds: float, kill_after: float,
            progress: Callable[[int, int], None], closing: Callable[[], bool]
            ) -> tuple[Any, ...]:
    """One run of ``task`` in ``worker``: its last message, ("killed",) or ("closing",)."""
    try:
        pipe = worker.ready()
        pipe.send((task, seconds))
    except (OSError, EOFError, ValueError) as exc:
        worker.stop()
        return ("failed", Phrase("the worker could not be started ({reason})",
                                 reason=str(exc)))
    deadline = time.monotonic() + kill_after
    while True:
        if closing():
            return ("closing",)
        # The clock first: a worker past its time is killed whatever it would say next.
        left = deadline - time.monotonic()
        if left <= 0:
            worker.stop()
            return ("killed",)
        try:
            if not pipe.poll(min(POLL, left)):
                continue
            message = pipe.recv()
        except (EOFError, OSError):
            code = worker.stop()
            return ("failed", Phrase("the worker process ended (exit code {code})",
                                     code=code))
        if message[0] != "progress":
            return tuple(message)
        progress(int(message[1]), int(message[2]))


@dataclass(frozen=True, slots=True)
class ClientJobs:
    """The app's analysis jobs as one client asks for them (what routes get)."""

    jobs: AnalysisBackend
    client: str

    def ask(self, conn: Connection, match_id: int, deal: int) -> dict[str, Any] | Pending:
        return self.jobs.ask(conn, match_id, deal, self.client)

    def ask_knowledge(self, conn: Connection, match_id: int, start: bool = True
                      ) -> dict[str, Any] | Pending | None:
        return self.jobs.ask_knowledge(conn, match_id, self.client, start)


def _task(conn: Connection, match_id: int, deal: int) -> Task:
    match = load_match(conn, match_id, everything=True)
    if match.replay is None or match.rules is None:
        raise ReplayUnavailable(match_id, match.header.preset)
    h = match.header
    task = Task(match_id, deal, h.preset, dict(h.options), tuple(h.seats),
                tuple(match.replay.events))
    if deal >= task.dealt:
        raise DealNotFound.of(match_id, deal)
    return task
