"""An import worker: ``python -m ledger.store.imports.worker PATH JOBS K`` (or ``--files JOBS K``).

Reads the file, decodes and prepares every JOBS-th match from the K-th on (audit,
canonical rows, hashes, read model, SQLite's statement values) and pickles them to
stdout for the importing process, which alone writes to the database. Every worker
counts the file's matches the same way, so together they cover each match once.

A worker goes on while the pipe is full, up to ``BACKLOG`` bytes kept here: the
importing process starts its workers before it loads the database's libraries and
opens the ledger, and they get that far ahead meanwhile (memory stays bounded).
"""

from __future__ import annotations

import gc
import os
import pickle
import select
import sys
from collections import deque

from ledger.formats.reader import ReadError, read_matches
from ledger.store.imports.prepare import item_of

BACKLOG = 32 << 20


class Out:
    """Messages to the importing process: written as far as the pipe takes them, the
    rest kept in order until it has room; a send waits only past ``limit`` bytes kept.
    A reader that is gone raises BrokenPipeError at the next send."""

    def __init__(self, fd: int, limit: int = BACKLOG) -> None:
        self.fd = fd
        self.limit = limit
        self.kept: deque[memoryview] = deque()
        self.size = 0
        try:
            os.set_blocking(fd, False)
        except OSError:  # not a pipe or socket: every write waits
            self.limit = 0

    def send(self, kind: str, value: object) -> None:
        data = memoryview(pickle.dumps((kind, value), protocol=pickle.HIGHEST_PROTOCOL))
        self.kept.append(data)
        self.size += len(data)
        self._drain(self.limit)

    def close(self) -> None:
        self._drain(0)

    def _drain(self, keep: int) -> None:
        """Write what the pipe takes; wait for it while more than ``keep`` bytes are kept."""
        while self.kept:
            head = self.kept[0]
            try:
                n = os.write(self.fd, head)
            except BlockingIOError:
                if self.size <= keep:
                    return
                select.select([], [self.fd], [])
                continue
            self.size -= n
            if n == len(head):
                self.kept.popleft()
            else:
                self.kept[0] = head[n:]


def main(argv: list[str]) -> int:
    if argv[0] == "--files":
        return whole_files(int(argv[1]), int(argv[2]), sys.stdin.read().splitlines())
    path, jobs, k = argv[0], int(argv[1]), int(argv[2])
    # As the importing command does: the collector need not re-scan the modules' objects.
    gc.freeze()
    out = Out(sys.stdout.fileno())
    try:
        try:
            for record in read_matches(path, part=(k, jobs)):  # the others' lines undecoded
                out.send("item", item_of(record, for_sqlite=True))
        except ReadError as exc:
            out.send("read-error", str(exc))
            out.close()
            return 0
        out.send("end", None)
        out.close()
    except BrokenPipeError:
        return 0  # the importer stopped reading (killed, or interrupted): nothing to do
    return 0


def whole_files(jobs: int, k: int, paths: list[str]) -> int:
    """``--files JOBS K`` (the paths on stdin): every JOBS-th file from the K-th on, whole,
    each followed by ``file-end`` or by the error that stopped its reading."""
    gc.freeze()
    out = Out(sys.stdout.fileno())
    try:
        for path in paths[k::jobs]:
            try:
                for record in read_matches(path):
                    out.send("item", item_of(record, for_sqlite=True))
                out.send("file-end", None)
            except ReadError as exc:
                out.send("read-error", (exc.template, exc.params))
        out.close()
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
