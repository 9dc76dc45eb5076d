"""Tasks spread over forked processes, also from a daemonic process.

``multiprocessing`` refuses to start children from a daemonic process, and the web's
analysis worker is one (it must die with the server). ``fork_map`` forks its workers
itself (``os.fork``): each inherits the tasks as they are in memory (nothing is pickled
to it), is handed task numbers one at a time over a socket pair as it frees up, and sends
each task's answer back (pickled). The answers come out in task order. A worker dies
with the process that forked it (Linux: ``PR_SET_PDEATHSIG``), and the forking process
kills and reaps its workers however the iteration ends. Without ``fork`` (or with one
worker) the tasks run here, one after another: the same answers, since a task depends
on nothing but its number. ``JobPool`` is the same workers for jobs that are asked as
earlier answers come in (the knowledge review asks a decision for more samples only
while its label is not settled).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import traceback
from collections import deque
from collections.abc import Callable, Hashable, Iterator
from multiprocessing.connection import Connection, Pipe, wait
from types import TracebackType
from typing import Generic, TypeVar

T = TypeVar("T")
J = TypeVar("J", bound=Hashable)
PR_SET_PDEATHSIG = 1  # linux/prctl.h


class WorkerFailed(RuntimeError):
    """A task raised in a worker: the worker's traceback, as text."""


def default_workers() -> int:
    """One per core this process may use."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def fork_map(task: Callable[[int], T], count: int, workers: int | None = None) -> Iterator[T]:
    """``task(0)``, ..., ``task(count - 1)``, in order, run by ``workers`` forked processes
    (default: one per core; 1, or no ``fork`` here: in this process)."""
    n = min(workers or default_workers(), count)
    if n <= 1 or not hasattr(os, "fork"):
        for i in range(count):
            yield task(i)
        return
    yield from _Pool(task, count, n).run()


class JobPool(Generic[J, T]):
    """Jobs (small picklable values: ``task``'s argument) handed one at a time to forked
    workers as they free up; more may be submitted while they run, as answers come in
    (what to ask next may depend on them). Without ``fork`` or with one worker the jobs
    run here, in the order submitted. Use it as a context manager: the workers end with
    it. Whatever runs ``task`` must already be in memory when the pool starts."""

    def __init__(self, task: Callable[[J], T], workers: int | None = None) -> None:
        self.task = task
        self.n = workers or default_workers()
        self.queue: deque[J] = deque()
        self.in_flight = 0
        self._pool: _Pool | None = None
        self._idle: list[Connection] = []
        self._busy: list[Connection] = []

    def __enter__(self) -> JobPool[J, T]:
        if self.n > 1 and hasattr(os, "fork"):
            self._pool = _Pool(self.task, 0, self.n)  # type: ignore[arg-type]
            for _ in range(self.n):
                self._pool._start()
            self._idle = list(self._pool.conns)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._pool is not None:
            self._pool.finished = kind is None and not self.in_flight
            self._pool._end()
            self._pool = None

    def submit(self, job: J) -> None:
        self.queue.append(job)
        self._hand_out()

    @property
    def pending(self) -> int:
        """Jobs submitted whose answers have not been taken yet."""
        return len(self.queue) + self.in_flight

    def next_done(self) -> tuple[J, T]:
        """The next job to finish and its answer (WorkerFailed if it raised)."""
        if self._pool is None:
            here = self.queue.popleft()
            return here, self.task(here)
        if not self.in_flight:
            raise LookupError("no job is running")
        ready = wait(self._busy)[0]
        assert isinstance(ready, Connection)
        job, value = self._pool._answer(ready)
        self.in_flight -= 1
        self._busy.remove(ready)
        self._idle.append(ready)
        self._hand_out()
        return job, value  # type: ignore[return-value]

    def _hand_out(self) -> None:
        while self._pool is not None and self._idle and self.queue:
            conn = self._idle.pop()
            conn.send(self.queue.popleft())
            self._busy.append(conn)
            self.in_flight += 1


class _Pool:
    def __init__(self, task: Callable[[int], object], count: int, n: int) -> None:
        self.task, self.count, self.n = task, count, n
        self.pids: list[int] = []
        self.conns: list[Connection] = []
        self.finished = False

    def run(self) -> Iterator[T]:
        try:
            for _ in range(self.n):
                self._start()
            busy = list(self.conns)          # each with a task in hand
            for nxt, conn in enumerate(busy):
                conn.send(nxt)
            nxt = len(busy)
            done: dict[int, object] = {}
            out = 0
            while out < self.count:
                for ready in wait(busy):
                    assert isinstance(ready, Connection)
                    i, value = self._answer(ready)
                    assert isinstance(i, int)
                    done[i] = value
                    if nxt < self.count:
                        ready.send(nxt)
                        nxt += 1
                    else:
                        busy.remove(ready)
                while out in done:
                    yield done.pop(out)  # type: ignore[misc]
                    out += 1
            self.finished = True
        finally:
            self._end()

    def _answer(self, conn: Connection) -> tuple[object, object]:
        try:
            i, ok, value = conn.recv()
        except EOFError:
            raise WorkerFailed(self._ended(conn)) from None
        if not ok:
            raise WorkerFailed(f"task {i} failed in a worker:\n{value}")
        return i, value

    def _ended(self, conn: Connection) -> str:
        """Why the worker at the other end of ``conn`` ended before answering."""
        pid = self.pids[self.conns.index(conn)]
        _, status = os.waitpid(pid, 0)
        self.pids.remove(pid)
        if os.WIFSIGNALED(status):
            return f"a worker was ended by signal {os.WTERMSIG(status)}"
        return f"a worker ended with code {os.waitstatus_to_exitcode(status)}"

    def _start(self) -> None:
        ours, theirs = Pipe()
        parent = os.getpid()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child's coverage is not collected
            code = 1
            try:
                ours.close()
                for c in self.conns:
                    c.close()
                _die_with(parent)
                _serve(self.task, theirs)
                code = 0
            finally:
                os._exit(code)
        theirs.close()
        self.pids.append(pid)
        self.conns.append(ours)

    def _end(self) -> None:
        for conn in self.conns:
            with contextlib.suppress(OSError):
                conn.send(None)
            conn.close()
        for pid in self.pids:
            try:
                # A worker still busy (the caller stopped early, or a task failed) is not
                # waited for.
                if not self.finished and os.waitpid(pid, os.WNOHANG) == (0, 0):
                    os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except ChildProcessError:  # pragma: no cover - reaped already
                pass
        self.pids.clear()
        self.conns.clear()


def _serve(task: Callable[[int], object], conn: Connection) -> None:  # pragma: no cover
    while True:
        try:
            i = conn.recv()
        except (EOFError, OSError):
            return
        if i is None:
            return
        try:
            conn.send((i, True, task(i)))
        except Exception:
            conn.send((i, False, traceback.format_exc()))


def _die_with(parent: int) -> None:  # pragma: no cover - runs in the child
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(1)


__all__ = ["JobPool", "WorkerFailed", "default_workers", "fork_map"]
