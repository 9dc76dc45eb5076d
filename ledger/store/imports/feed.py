"""An import's worker processes, seen from the importing one: started, read in order, reaped.

Workers (``python -m ledger.store.imports.worker``) read, audit and hash; the importing process
only writes (``ledger.store.imports.importer``). This module loads no SQLAlchemy, so that the
import command starts its workers first: they read and prepare the first matches while
the command loads the database's libraries and opens (or creates) the ledger.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ledger.formats.reader import ReadError
from ledger.store.imports.prepare import Item

__all__ = ["FileEnd", "Workers", "file_items", "files_in_workers", "items",
           "prepared_in_workers", "start", "start_files"]

_Proc = tuple[subprocess.Popen[bytes], Any]


@dataclass(frozen=True, slots=True)
class FileEnd:
    """The end of one file's matches in a stream of many files' (``error``: why its
    reading stopped there, raised in its place)."""

    path: str
    error: ReadError | None = None


@dataclass(frozen=True, slots=True)
class Workers:
    """Running workers: on one file split by match, or on many files a whole file each."""

    paths: list[str]
    procs: list[_Proc]


def start(stack: ExitStack, path: str, jobs: int) -> Workers:
    """``jobs`` workers on one file, match ``n`` by worker ``n % jobs`` (the stack reaps them)."""
    return Workers([path], [_started(stack, [path, str(jobs), str(k)]) for k in range(jobs)])


def start_files(stack: ExitStack, paths: list[str], jobs: int) -> Workers:
    """``jobs`` workers on many files, file ``n`` by worker ``n % jobs``."""
    return Workers(paths, [_started(stack, ["--files", str(jobs), str(k)], "\n".join(paths))
                           for k in range(jobs)])


def prepared_in_workers(path: str, jobs: int) -> Iterator[Item]:
    """What ``jobs`` worker processes prepare, in input order (started here)."""
    with ExitStack() as stack:
        yield from items(start(stack, path, jobs))


def files_in_workers(paths: list[str], jobs: int) -> Iterator[Item | FileEnd]:
    with ExitStack() as stack:
        yield from file_items(start_files(stack, paths, jobs))


def items(workers: Workers) -> Iterator[Item]:
    """What workers on one file prepare, in input order.

    Workers pickle their items down a pipe. A full pipe (and a worker's backlog,
    bounded) stops a worker, so memory stays flat, and a pipe whose reader died
    ends it (a killed import leaves no process behind).
    """
    procs, path = workers.procs, workers.paths[0]
    jobs = len(procs)
    done = 0
    n = 0
    while done < jobs:
        kind, value = _load(procs[n % jobs], path)
        if kind == "end":
            done += 1  # matches go round the workers: the first to end ends them all
        elif kind == "read-error":
            raise ReadError(str(value))
        else:
            yield cast(Item, value)
        n += 1


def file_items(workers: Workers) -> Iterator[Item | FileEnd]:
    """What workers on many files prepare, file after file, each followed by its end."""
    procs = workers.procs
    for i, path in enumerate(workers.paths):
        yield from _file_items(procs[i % len(procs)], path)


def _file_items(proc: _Proc, path: str) -> Iterator[Item | FileEnd]:
    while True:
        kind, value = _load(proc, path)
        if kind == "file-end":
            yield FileEnd(path)
            return
        if kind == "read-error":
            template, params = value
            yield FileEnd(path, ReadError(template, **params))
            return
        yield cast(Item, value)


def _started(stack: ExitStack, argv: list[str], stdin: str = "") -> _Proc:
    """A worker process (``python -m ledger.store.imports.worker ARGV``) and its error file."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[3])  # ledger's own checkout comes first
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    err = stack.enter_context(tempfile.TemporaryFile())  # noqa: SIM115 (the caller's stack closes it)
    proc = subprocess.Popen([sys.executable, "-m", "ledger.store.imports.worker", *argv],
                            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=err, env=env)
    stack.callback(_reap, proc)
    if stdin:
        assert proc.stdin is not None
        proc.stdin.write(stdin.encode())  # read whole before the worker writes a thing
        proc.stdin.close()
    assert proc.stdout is not None
    _widen(proc.stdout.fileno())
    return proc, err


def _load(worker: _Proc, path: str) -> tuple[str, Any]:
    """The next (kind, value) a worker sent; a worker that died is named with its last
    words."""
    proc, err = worker
    assert proc.stdout is not None
    try:
        kind, value = pickle.load(proc.stdout)
    except (EOFError, pickle.UnpicklingError):
        proc.wait()
        err.seek(0)
        last = err.read().decode(errors="replace").strip().splitlines()[-1:]
        raise RuntimeError(f"an import worker ended unexpectedly on {path} (exit code "
                           f"{proc.returncode}): {' '.join(last) or 'no message'}"
                           ) from None
    return str(kind), value


# How much a worker may get ahead of the writer in the pipe: tens of matches, so that it
# keeps going while the writer waits on the disk (a commit that checkpoints the WAL). The
# kernel's default pipe (64 KiB) holds two or three; unprivileged processes may ask for up
# to /proc/sys/fs/pipe-max-size (1 MiB by default). Kernel memory, and bounded: memory
# stays flat. (A worker keeps a bounded backlog of its own beyond it: ledger.store.imports.worker.)
_PIPE_SIZE = 1 << 20


def _widen(fd: int) -> None:
    """Ask for a bigger pipe buffer (Linux); elsewhere, or if refused, keep the default."""
    try:
        import fcntl
    except ImportError:
        return
    setpipe = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setpipe is not None:
        with suppress(OSError):
            fcntl.fcntl(fd, setpipe, _PIPE_SIZE)


def _reap(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()
