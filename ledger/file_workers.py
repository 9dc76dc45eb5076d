"""A file's matches shared out to forked worker processes, the results in input order.

Worker ``k`` of ``jobs`` handles the matches whose position in the file is ``k``
modulo ``jobs`` (``read_matches(path, part=(k, jobs))`` decodes only those), so
the parent takes one result from each worker in turn and has the input order
back without sorting. Results go down a pipe, pickled; a full pipe stops its
worker, so memory stays flat however large the file. Workers are forks of the
running command: they start in milliseconds with every module already loaded.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import suppress
from typing import IO, Any, TypeVar

T = TypeVar("T")

_END = "end"
_ITEM = "item"
_RAISE = "raise"


def default_jobs(path: str, small: int = 1 << 20) -> int:
    """Every core for a file larger than ``small`` bytes, else 1 (no worker at all)."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return 1
    if size <= small or not hasattr(os, "fork"):
        return 1
    return _cores()


def many_files_jobs(paths: list[str], asked: int | None, small: int = 1 << 20,
                    enough: int = 4 << 20) -> int:
    """Workers for a command over many files, each worker taking whole files: ``asked``
    (or every core once the files add up to ``enough`` bytes) when there are several
    files and none larger than ``small`` (a large file is split by match instead); else 1.
    """
    if len(paths) < 2 or not hasattr(os, "fork") or asked is not None and asked <= 1:
        return 1
    sizes = []
    for path in paths:
        try:
            sizes.append(os.stat(path).st_size)
        except OSError:
            sizes.append(0)  # its reader says what is wrong, in its place
    if max(sizes) > small:
        return 1
    if asked is not None:
        return min(asked, len(paths))
    if sum(sizes) < enough:
        return 1
    return min(_cores(), len(paths))


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def in_order(work: Callable[[int, int], Iterator[T]], jobs: int) -> Iterator[T]:
    """What ``work(k, jobs)`` yields in ``jobs`` forked workers, item ``n`` from worker
    ``n % jobs``; an exception a worker raises is raised here, in its place."""
    sys.stdout.flush()  # a fork copies unflushed output: it would come out twice
    sys.stderr.flush()
    workers: list[tuple[int, IO[bytes]]] = []
    try:
        for k in range(jobs):
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker
                os.close(read_end)
                for _, other in workers:
                    other.close()
                _work(work, k, jobs, write_end)  # never returns
            os.close(write_end)
            workers.append((pid, os.fdopen(read_end, "rb", buffering=1 << 16)))
        yield from _merge([stream for _, stream in workers])
    finally:
        for pid, stream in workers:
            stream.close()
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)  # it may be blocked on a pipe nobody reads
            os.waitpid(pid, 0)


def _merge(streams: list[IO[bytes]]) -> Iterator[Any]:
    import pickle  # here: a command that shares nothing out need not load it

    n = 0
    while True:
        kind, value = pickle.load(streams[n % len(streams)])
        if kind == _END:
            return  # no item n: every later worker has ended too
        if kind == _RAISE:
            raise value
        yield value
        n += 1


def _work(work: Callable[[int, int], Iterator[Any]], k: int, jobs: int, fd: int) -> None:
    import pickle

    code = 0
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        with os.fdopen(fd, "wb", buffering=1 << 16) as out:
            pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
            try:
                for item in work(k, jobs):
                    pickler.dump((_ITEM, item))
                    pickler.clear_memo()
                pickler.dump((_END, None))
            except Exception as exc:  # the parent raises it in its place in the order
                try:
                    pickler.dump((_RAISE, exc))
                except Exception:
                    pickler.dump((_RAISE, RuntimeError(f"{type(exc).__name__}: {exc}")))
    except BrokenPipeError:
        pass  # the parent stopped reading (strict stop, or interrupted)
    except BaseException:
        code = 1
    os._exit(code)
