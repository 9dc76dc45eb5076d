"""Writing matches back out as domino-match/1: ``.json``, ``.jsonl`` and ``.jsonl.gz``.

A match is written in its canonical form (``ledger.formats.canonical``), so
export then import gives the same events and the same ledger hash. Files are
written whole or not at all: into a temporary file beside the target, renamed
over it at the end.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import IO, Protocol, TypeVar

import orjson

from ledger.events import Event
from ledger.formats.canonical import canonical_match
from ledger.formats.reader import MatchRecord
from ledger.formats.wire import MatchHeader

MatchOut = tuple[MatchHeader, Sequence[Event]]
CONTAINERS = (".json", ".jsonl", ".jsonl.gz")
T = TypeVar("T")


class Sink(Protocol):
    def write(self, data: bytes, /) -> int: ...


class WriteError(ValueError):
    """A match cannot be written as asked (wrong container, unreadable events, I/O)."""


def container_of(path: str | Path) -> str:
    """``.json``, ``.jsonl`` or ``.jsonl.gz`` from a file name, or WriteError."""
    name = str(path).lower()
    for suffix in (".jsonl.gz", ".jsonl", ".json"):
        if name.endswith(suffix):
            return suffix
    raise WriteError(f"{path}: a match file is named *.json (one match), *.jsonl or "
                     "*.jsonl.gz (many)")


def recorded_events(record: MatchRecord) -> list[Event]:
    """A record's events as read, or WriteError if one could not be read.

    These are the events as written (hidden hands stay hidden), not the audit's
    rebuilt ones, so that writing them keeps the record as it was.
    """
    out: list[Event] = []
    for i, ev in enumerate(record.events):
        if ev is None:
            raise WriteError(f"{record.where}, event {i}: the event could not be read, so the "
                             "match cannot be written back as it was")
        out.append(ev)
    if record.header is None:
        raise WriteError(f"{record.where}: the match has no readable header")
    return out


def match_json(header: MatchHeader, events: Sequence[Event], indent: bool = False) -> bytes:
    """One match object as UTF-8 JSON (no trailing newline)."""
    option = orjson.OPT_INDENT_2 if indent else 0
    return orjson.dumps(canonical_match(header, events), option=option)


def write_stream(stream: Sink, matches: Iterable[MatchOut], container: str) -> int:
    """Write matches to an open binary stream; the number written."""
    if container == ".json":
        items = iter(matches)
        first = next(items, None)
        if first is None:
            raise WriteError("no match to write")
        if next(items, None) is not None:
            raise WriteError("a .json file holds one match; write several to .jsonl or "
                             ".jsonl.gz")
        stream.write(match_json(*first, indent=True) + b"\n")
        return 1
    count = 0
    for header, events in matches:
        stream.write(match_json(header, events) + b"\n")
        count += 1
    return count


def write_atomic(path: str | Path, fill: Callable[[IO[bytes]], T]) -> T:
    """Write a file whole or not at all: ``fill`` writes into a temporary file beside
    ``path``, which is renamed over it only when ``fill`` returns."""
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise WriteError(f"{path}: cannot write there: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as raw:
            result = fill(raw)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it private; a new file should not be
        os.replace(tmp, path)
    except OSError as exc:
        _remove(tmp)
        raise WriteError(f"{path}: cannot write: {exc.strerror or exc}") from None
    except BaseException:
        _remove(tmp)
        raise
    return result


def write_matches(path: str | Path, matches: Iterable[MatchOut]) -> int:
    """Write matches to ``path`` (container from its name), whole or not at all."""
    container = container_of(path)

    def fill(raw: IO[bytes]) -> int:
        if container == ".jsonl.gz":
            # mtime 0: the same matches give the same bytes
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
                return write_stream(gz, matches, container)
        return write_stream(raw, matches, container)

    return write_atomic(path, fill)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _remove(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)
