"""The analysis worker: a process of its own that works out one deal at a time, and
``Worker``, the server's handle on one (started when first needed, killed at will).

``Worker.ready`` starts it with multiprocessing's "spawn" context (a fresh
interpreter: nothing of the server's threads or database connections comes
along); ledger.jobs.service hands it ``(Task, seconds)`` over the pipe. It answers on the same pipe:

- ``("progress", done, total)`` after each position of the deal;
- ``("done", body, stopped)``: the body (None: no such deal); ``stopped`` when the
  time ran out and positions were left out;
- ``("failed", message)`` when the analysis raised.

It never touches the database. The clock of the time limit lives here, in the
``stop`` it gives the review (the ledger itself keeps no clock).

It dies with the server: a deal may take minutes in C (which never lets a Python thread
look around), and a server killed with ``kill -9`` closes nothing. On Linux the kernel
sends it SIGKILL when the server's thread that started it ends (``prctl``
PR_SET_PDEATHSIG); elsewhere a thread watches for the server's end between positions.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from ledger.jobs.deal_analysis import Task, build
from ledger.jobs.knowledge_report import KNOWLEDGE, build_report

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with(parent: int) -> None:
    """End this process as soon as ``parent`` (the server) has ended."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no libc to ask: the watcher below still runs
            pass
    if os.getppid() != parent:  # it ended before the kernel was told to say so
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def serve(conn: Connection, parent: int | None = None) -> None:
    """Answer tasks until the pipe closes or says stop (None); end with ``parent``."""
    if parent is not None:
        die_with(parent)
    while True:
        try:
            got = conn.recv()
        except (EOFError, OSError):
            return
        if got is None:
            return
        task, seconds = got
        run(conn, task, seconds)


def run(conn: Connection, task: Task, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    stopped = False

    def stop() -> bool:
        nonlocal stopped
        stopped = stopped or time.monotonic() >= deadline
        return stopped

    def progress(done: int, total: int) -> None:
        conn.send(("progress", done, total))

    try:
        body = build_report(task, progress) if task.kind == KNOWLEDGE else build(
            task, progress, stop)
    except Exception as exc:  # the server answers the request with it; this process goes on
        conn.send(("failed", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("done", body, stopped))


class Worker:
    """One worker process and the server's end of its pipe (started when first needed)."""

    def __init__(self) -> None:
        self.proc: BaseProcess | None = None
        self.pipe: Connection | None = None

    def ready(self) -> Connection:
        if self.proc is None or self.pipe is None or not self.proc.is_alive():
            self.stop()
            ctx = multiprocessing.get_context("spawn")
            ours, theirs = ctx.Pipe()
            proc = ctx.Process(target=serve, args=(theirs, os.getpid()), daemon=True,
                               name="domino-ledger analysis")
            proc.start()
            theirs.close()
            self.proc, self.pipe = proc, ours
        return self.pipe

    def stop(self) -> int | None:
        """End the process (it holds nothing worth keeping); its exit code."""
        proc, pipe = self.proc, self.pipe
        self.proc = self.pipe = None
        if pipe is not None:
            pipe.close()
        if proc is None:
            return None
        if proc.is_alive():
            proc.kill()
        proc.join(10)
        code = proc.exitcode
        proc.close()
        return code
