"""Live writes in turn: one writer thread per process, batches, and a fair lock on SQLite.

SQLite has one write lock for the whole file, and a connection that finds it taken
sleeps and tries again (its busy handler: 1 ms at first, then up to 100 ms per try).
With every server thread of every process asking at once, a writer that has waited
long sleeps the longest, and the newest asker wins: issue 19 measured appends whose
answer took 7 s while others took 0.1 s.

So on a SQLite file the writes of a process go through one queue (first come, first
served) to one thread, which takes whatever is waiting (up to ``BATCH``) into one
transaction and commits once. The writes of a batch run one after another without a
savepoint each; only when one of them is refused is the batch rolled back and done
again, each write in a savepoint of its own (the refused one rolls back alone). The
processes take turns through a lock file beside the ledger
(``flock``: a waiter is woken as the lock is let go, never left asleep), and a thread
that just let it go waits a moment before asking again, so that a process that waits
gets its turn. A write's answer is given only after its batch is committed.

On PostgreSQL each write runs in the asking thread, in a transaction of its own: rows
are locked per match, and a waiter is queued by the server.
"""

from __future__ import annotations

import fcntl
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from sqlalchemy import Engine
from sqlmodel import Session

from ledger.store.db import write_session

T = TypeVar("T")
BATCH = 64
_WHOLE = "ledger_whole_batch"  # session.info's mark: the batch runs without a savepoint each
HAND_OVER = 0.001  # seconds a writer waits after letting the lock file go
SWITCH = 0.0005    # the interpreter's thread switch interval in a process that writes


@dataclass
class _Job(Generic[T]):
    work: Callable[[Session], T]
    done: threading.Event = field(default_factory=threading.Event)
    result: T | None = None
    error: BaseException | None = None


def lock_path(engine: Engine) -> Path | None:
    """The lock file the processes writing to a SQLite file take turns by (None: not one)."""
    if engine.dialect.name != "sqlite":
        return None
    database = engine.url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database).expanduser().with_name(Path(database).name + "-writer.lock")


def in_whole_batch(session: Session) -> bool:
    """Whether ``session`` runs a whole batch at once: a write may then leave out a savepoint
    of its own, since any error it raises rolls the batch back to be done again a savepoint
    each (a savepoint and its release were a sixth of an append's time in the writer)."""
    return bool(session.info.get(_WHOLE))


class Writer:
    """Runs writes (a function of a write session, which it commits) in turn."""

    def __init__(self, engine: Engine, batch: int = BATCH) -> None:
        self.engine = engine
        self.batch = batch
        self.lock_file = lock_path(engine)
        self._queue: queue.SimpleQueue[_Job[Any] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()
        self._fd: int | None = None
        self.batches = 0  # transactions committed by the thread (for tests and benchmarks)

    @property
    def queued(self) -> bool:
        """Whether writes go through the thread (a SQLite file) or run where asked."""
        return self.lock_file is not None

    def run(self, work: Callable[[Session], T]) -> T:
        """``work`` done and committed; what it returned, or what it raised."""
        if not self.queued:
            with write_session(self.engine) as session:
                result = work(session)
                session.commit()
                return result
        job: _Job[T] = _Job(work)
        self._ensure_thread()
        self._queue.put(job)
        job.done.wait()
        if job.error is not None:
            raise job.error
        return job.result  # type: ignore[return-value]

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(10)
            self._thread = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _ensure_thread(self) -> None:
        with self._start:
            if self._thread is None:
                # The thread holds the ledger's lock while it works: waiting up to 5 ms (the
                # default) for the interpreter each time another thread had it would keep
                # every other writer out as long.
                sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH))
                self._thread = threading.Thread(target=self._loop, name="ledger-writer",
                                                daemon=True)
                self._thread.start()

    def _loop(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            jobs = [first]
            while len(jobs) < self.batch:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._queue.put(None)  # close after this batch
                    break
                jobs.append(more)
            with self._turn():
                self._commit(jobs)
            for job in jobs:
                job.done.set()
            if not self._queue.empty():  # about to ask again: let a waiting process in
                time.sleep(HAND_OVER)

    def _commit(self, jobs: list[_Job[Any]]) -> None:
        if self._all_at_once(jobs):  # one write alone too: a refusal is rare, redone then
            return
        try:
            with write_session(self.engine) as session:
                for job in jobs:
                    try:
                        with session.begin_nested():  # a refused write leaves the others
                            job.result = job.work(session)
                    except Exception as exc:  # that write's own answer (a 409, a 422)
                        job.error = exc
                session.commit()
                self.batches += 1
        except Exception as exc:  # the commit failed: none of the batch was written
            for job in jobs:
                if job.error is None:
                    job.result, job.error = None, exc

    def _all_at_once(self, jobs: list[_Job[Any]]) -> bool:
        """The batch in one transaction without a savepoint per write: two statements and
        a good part of a write's time fewer when none is refused, as is usual. False, with
        nothing written, when one was refused: the batch is then done again a savepoint
        each (each write is a function of the session: done again, it reads the tables
        as they are again, and a cache it filled is keyed by a head never committed)."""
        with write_session(self.engine) as session:
            session.info[_WHOLE] = True
            try:
                for job in jobs:
                    job.result = job.work(session)
            except Exception:
                session.rollback()
                for job in jobs:
                    job.result = None
                return False
            try:
                session.commit()
                self.batches += 1
            except Exception as exc:  # the commit failed: none of the batch was written
                for job in jobs:
                    job.result, job.error = None, exc
        return True

    @contextmanager
    def _turn(self) -> Iterator[None]:
        fd = self._lock_fd()
        if fd is None:
            yield
            return
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    def _lock_fd(self) -> int | None:
        if self._fd is None and self.lock_file is not None:
            try:
                self._fd = os.open(self.lock_file, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError:  # a read-only folder: the writes themselves will say why
                return None
        return self._fd
