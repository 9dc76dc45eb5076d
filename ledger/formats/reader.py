"""Reading domino-match/1 files: ``.json``, ``.jsonl`` and ``.jsonl.gz``, streamed.

The lenient reader (``read_matches``) yields every match with the problems it
found and goes on to the next line; the strict one (``read_matches_strict``)
raises at the first problem. Memory holds one line at a time, and no line may
exceed ``MAX_LINE`` bytes.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from ledger.events import Event
from ledger.findings import Finding
from ledger.formats.wire import MatchHeader, ParseError, parse_event, parse_header

MAX_LINE = 8 * 1024 * 1024
_CHUNK = 1 << 20


class ReadError(OSError):
    """The input cannot be read at all (missing, unreadable, not gzip)."""


class StrictReadError(ValueError):
    """Strict reading stopped at the first problem; ``where`` names file, line and event."""

    def __init__(self, where: str, finding: Finding) -> None:
        super().__init__(f"{where}: {finding.message} [{finding.code}]")
        self.where = where
        self.finding = finding


@dataclass
class MatchRecord:
    """One match as read from a file: parsed as far as it goes, with what could not be."""

    index: int
    path: str
    line: int | None
    raw: dict[str, Any] | None = None
    header: MatchHeader | None = None
    events: list[Event | None] = field(default_factory=list)
    problems: list[Finding] = field(default_factory=list)
    stop: int | None = None  # first event that cannot be read (the fold ends there)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line is not None else self.path

    @property
    def source(self) -> object:
        return self.raw.get("source") if isinstance(self.raw, dict) else None


def parse_match(obj: object, index: int = 0, path: str = "<match>",
                line: int | None = None) -> MatchRecord:
    """A match object (already decoded JSON) as a record with its parse problems."""
    rec = MatchRecord(index=index, path=path, line=line,
                      raw=obj if isinstance(obj, dict) else None)
    try:
        rec.header = parse_header(obj)
    except ParseError as exc:
        rec.problems.append(Finding(None, "error", exc.code, exc.message))
        return rec
    assert isinstance(obj, dict)
    seats = len(rec.header.seats)
    for i, raw_event in enumerate(obj["events"]):
        try:
            rec.events.append(parse_event(raw_event, seats))
        except ParseError as exc:
            rec.events.append(None)
            rec.problems.append(Finding(i, "error", exc.code, f"event {i}: {exc.message}"))
            if exc.code != "unknown-event-type" and rec.stop is None:
                rec.stop = i
    return rec


def _decode(data: bytes, index: int, path: str, line: int | None) -> MatchRecord:
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        rec = MatchRecord(index=index, path=path, line=line)
        where = f"line {line}" if line is not None else "the file"
        rec.problems.append(Finding(None, "error", "bad-json",
                                    f"{where} is not valid JSON: {exc.msg} "
                                    f"(column {exc.colno})"))
        return rec
    return parse_match(obj, index, path, line)


def _open(path: Path) -> IO[bytes]:
    try:
        raw = path.open("rb")
    except OSError as exc:
        raise ReadError(f"{path}: cannot open: {exc.strerror or exc}") from None
    magic = raw.peek(2)[:2] if isinstance(raw, io.BufferedReader) else b""
    if magic == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if path.suffix == ".gz":
        raw.close()
        raise ReadError(f"{path}: not a gzip file")
    return raw


def read_matches(path: str | Path, max_line: int = MAX_LINE) -> Iterator[MatchRecord]:
    """Every match of a file with its problems; ReadError only if nothing can be read."""
    path = Path(path)
    name = str(path)
    if path.is_dir():
        raise ReadError(f"{path}: is a folder, not a match file")
    stream = _open(path)
    with stream:
        if path.suffix == ".json":
            yield from _read_document(stream, name, max_line)
        else:
            yield from _read_lines(stream, name, max_line)


def _read_document(stream: IO[bytes], name: str, max_line: int) -> Iterator[MatchRecord]:
    try:
        data = stream.read(max_line + 1)
    except (EOFError, OSError, zlib.error) as exc:
        raise ReadError(f"{name}: cannot be read: {exc}") from None
    if len(data) > max_line:
        rec = MatchRecord(index=0, path=name, line=None)
        rec.problems.append(Finding(None, "error", "line-too-long",
                                    f"the file is larger than {max_line // (1024 * 1024)} MiB; "
                                    "a match file of that size is not read"))
        yield rec
        return
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        yield _decode(data, 0, name, None)
        return
    if isinstance(obj, list):  # a JSON array of matches
        for i, item in enumerate(obj):
            yield parse_match(item, i, name, None)
    else:
        yield parse_match(obj, 0, name, None)


def _read_lines(stream: IO[bytes], name: str, max_line: int) -> Iterator[MatchRecord]:
    index = 0
    line_no = 0
    while True:
        try:
            data = stream.readline(max_line + 1)
        except (EOFError, OSError, zlib.error) as exc:
            rec = MatchRecord(index=index, path=name, line=line_no + 1)
            rec.problems.append(Finding(None, "error", "truncated-file",
                                        f"the file is cut off at line {line_no + 1} ({exc}); "
                                        "the matches before it were read"))
            yield rec
            return
        if not data:
            return
        line_no += 1
        if len(data) > max_line and not data.endswith(b"\n"):
            size = len(data) + _skip_line(stream)
            rec = MatchRecord(index=index, path=name, line=line_no)
            rec.problems.append(Finding(None, "error", "line-too-long",
                                        f"line {line_no} is {size / 1048576:.1f} MiB, more than "
                                        f"the {max_line // 1048576} MiB a match may take; "
                                        "skipped"))
            index += 1
            yield rec
            continue
        if not data.strip():
            continue
        yield _decode(data, index, name, line_no)
        index += 1


def _skip_line(stream: IO[bytes]) -> int:
    skipped = 0
    while True:
        try:
            chunk = stream.readline(_CHUNK)
        except (EOFError, OSError, zlib.error):
            return skipped
        skipped += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return skipped


def read_matches_strict(path: str | Path, max_line: int = MAX_LINE) -> Iterator[MatchRecord]:
    """Like ``read_matches``, but raise StrictReadError at the first problem."""
    for rec in read_matches(path, max_line):
        if rec.problems:
            finding = rec.problems[0]
            where = rec.where + ("" if finding.event is None else f", event {finding.event}")
            raise StrictReadError(where, finding)
        yield rec
