"""Reading domino-match/1 files: ``.json``, ``.jsonl`` and ``.jsonl.gz``, streamed.

The lenient reader (``read_matches``) yields every match with the problems it
found and goes on to the next line; the strict one (``read_matches_strict``)
raises at the first problem. Memory holds one line at a time, and no line may
exceed ``MAX_LINE`` bytes: a longer one is skipped in chunks, never held whole.

A compressed file is read only up to ``MAX_DECOMPRESSED`` bytes, and stops with a
finding once it has given more than ``MAX_RATIO`` times its compressed size (past the
first ``RATIO_FLOOR`` bytes): a decompression bomb (a few hundred KB of gzip holding
gigabytes of newlines or of tiny lines) ends in a second with a finding, where it
would keep the reader busy for minutes. Runs of blank lines are skipped a buffer at a
time. The caps are arguments of ``read_matches``, so every caller (the web's upload
too) reads with the same ones.
"""

from __future__ import annotations

import gzip
import os
import stat
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from ledger.events import Event
from ledger.findings import Finding, finding
from ledger.formats import duplicates
from ledger.formats.wire import MatchHeader, ParseError, parse_events, parse_header
from ledger.i18n.phrases import Phrase, english

MAX_LINE = 8 * 1024 * 1024
MAX_DECOMPRESSED = 2 * 1024 * 1024 * 1024  # bytes a compressed file may give
# Match JSON compresses 10 to 15 times, a match repeated line after line about 150 times;
# gzip cannot do better than about 1,030 (what newlines or "{}" lines give).
MAX_RATIO = 250
RATIO_FLOOR = 64 * 1024  # decompressed bytes before the ratio counts (small files pass)
_CHUNK = 1 << 20
_BUFFER = 1 << 20  # read buffer: a match line (~10 KiB and up) is found in it, not pieced
_BOM = b"\xef\xbb\xbf"
_MIB = 1024 * 1024


class ReadError(OSError):
    """The input cannot be read at all (missing, unreadable, not gzip); ``template`` and
    ``params`` word it in any language."""

    def __init__(self, template: str, /, **params: object) -> None:
        super().__init__(english(template, params))
        self.template = template
        self.params = params

    def __reduce__(self) -> tuple[Any, ...]:  # pickled whole (ledger.file_workers sends it on)
        return (_read_error, (self.template, self.params))


def _read_error(template: str, params: dict[str, object]) -> ReadError:
    return ReadError(template, **params)


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
        rec.problems.append(finding(None, "error", exc.code, exc.template, **exc.params))
        return rec
    assert isinstance(obj, dict)
    seats = len(rec.header.seats)
    rec.events, errors = parse_events(obj["events"], seats)
    for i, error in errors:
        rec.problems.append(finding(i, "error", error.code, "event {event}: {reason}", event=i,
                                    reason=error.phrase()))
        if error.code != "unknown-event-type" and rec.stop is None:
            rec.stop = i
    return rec


def _problem(index: int, path: str, line: int | None, code: str, template: str,
             /, **params: object) -> MatchRecord:
    rec = MatchRecord(index=index, path=path, line=line)
    rec.problems.append(finding(None, "error", code, template, **params))
    return rec


def _decode(data: bytes, index: int, path: str, line: int | None) -> MatchRecord:
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        trouble = _json_trouble(data, exc)
        if line is not None:
            return _problem(index, path, line, "bad-json", "line {line} is not valid JSON: "
                            "{reason}", line=line, reason=trouble)
        return _problem(index, path, line, "bad-json", "the file is not valid JSON: {reason}",
                        reason=trouble)
    return _parsed(obj, data, index, path, line)


def _parsed(obj: object, data: bytes, index: int, path: str, line: int | None) -> MatchRecord:
    """``parse_match``, and a finding for each key ``data`` writes twice in an object."""
    rec = parse_match(obj, index, path, line)
    if duplicates.may_have(data, obj):
        rec.problems.extend(_duplicate_keys(data, line))
    return rec


def _duplicate_keys(data: bytes, line: int | None) -> list[Finding]:
    """Each key written twice in one object, with its line (a JSON Lines record's own)."""
    out = []
    for dup in duplicates.find(data.decode("utf-8")):
        path = dup.path
        event = path[1] if len(path) >= 2 and path[0] == "events" and \
            isinstance(path[1], int) else None
        place: object = Phrase("the match object") if not path else \
            Phrase("event {event}", event=event) if event is not None and len(path) == 2 \
            else duplicates.where(path)
        out.append(finding(event, "error", "duplicate-key", "{where} holds the key {key} "
                           "twice, at line {line}: which of its values is meant cannot be "
                           "told", where=place, key=orjson.dumps(dup.key[:80]).decode(),
                           line=line if line is not None else dup.line))
    return out


def _json_trouble(data: bytes, exc: orjson.JSONDecodeError) -> Phrase:
    """Why a line is not JSON, in words: orjson's own are cryptic for bad bytes."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as bad:
        return Phrase("it is not UTF-8 text (byte {byte} is {value})", byte=bad.start + 1,
                      value=f"0x{data[bad.start]:02x}")
    if not data.strip():
        return Phrase("it is empty")
    place = Phrase("column {column}", column=exc.colno) if exc.lineno == 1 else \
        Phrase("line {line}, column {column}", line=exc.lineno, column=exc.colno)
    # orjson's own words (exc.msg) stay English: they name the JSON trouble exactly.
    if exc.msg == "unexpected content after document" and exc.lineno > 1:
        return Phrase("{error} at {place} (a .json file holds one match; put many one per line "
                      "in a .jsonl file)", error=exc.msg, place=place)
    return Phrase("{error} at {place}", error=exc.msg, place=place)


def _open(path: Path) -> tuple[IO[bytes], bool]:
    """The byte stream of a file (gunzipped if it is gzip), and whether it is empty."""
    try:
        raw = path.open("rb", buffering=_BUFFER)
    except OSError as exc:
        raise ReadError("{path}: cannot open: {error}", path=str(path),
                        error=str(exc.strerror or exc)) from None
    try:
        info = os.fstat(raw.fileno())
        empty = stat.S_ISREG(info.st_mode) and info.st_size == 0  # a pipe shows size 0 too
        return _unzipped(raw, str(path), empty), empty
    except ReadError:
        raw.close()
        raise
    except OSError as exc:
        raw.close()
        raise ReadError("{path}: cannot read: {error}", path=str(path),
                        error=str(exc.strerror or exc)) from None


def _unzipped(raw: IO[bytes], name: str, empty: bool) -> IO[bytes]:
    """``raw`` gunzipped if it is gzip (by its first two bytes, whatever its name)."""
    if hasattr(raw, "peek"):
        magic = raw.peek(2)[:2]
    elif raw.seekable():
        at = raw.tell()
        magic = raw.read(2)
        raw.seek(at)
    else:
        magic = b""
    if magic == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if name.lower().endswith(".gz") and not empty:
        raise ReadError("{path}: not a gzip file, though its name ends in .gz", path=name)
    return raw


@dataclass(frozen=True, slots=True)
class Caps:
    """How much a compressed file may give (``read_matches``'s arguments, as a value)."""

    max_bytes: int = MAX_DECOMPRESSED
    max_ratio: float = MAX_RATIO
    floor: int = RATIO_FLOOR


def read_matches(path: str | Path, max_line: int = MAX_LINE, caps: Caps = Caps(),
                 part: tuple[int, int] = (0, 1)) -> Iterator[MatchRecord]:
    """Every match of a file with its problems; ReadError only if nothing can be read.

    ``part=(k, n)``: only the matches whose position (``index``) is k modulo n; the
    lines of the others are skipped undecoded (``ledger.file_workers`` shares a file out so).
    """
    path = Path(path)
    if path.is_dir():
        raise ReadError("{path}: is a folder, not a match file", path=str(path))
    stream, empty = _open(path)
    with stream:
        yield from _read(stream, str(path), empty, max_line, caps, part, None)


def read_stream(stream: IO[bytes], name: str, max_line: int = MAX_LINE, caps: Caps = Caps(),
                document: bool | None = None) -> Iterator[MatchRecord]:
    """Every match of an open byte stream, as ``read_matches`` reads a file named ``name``
    (records and findings say ``name``); gzip is found by its first bytes. ``document``:
    one match object (a ``.json`` file), or one per line (None: as the name says).
    ReadError only if nothing can be read; the caller closes ``stream``."""
    inner = _unzipped(stream, name, False)
    yield from _read(inner, name, False, max_line, caps, (0, 1), document)


def _read(stream: IO[bytes], name: str, empty: bool, max_line: int, caps: Caps,
          part: tuple[int, int], document: bool | None) -> Iterator[MatchRecord]:
    if document is None:
        document = name.lower().endswith((".json", ".json.gz"))
    if part[0] != 0 and (empty or document):
        return  # one match at most, at position 0
    if empty:
        yield _problem(0, name, None, "empty-file", "the file is empty: it holds no match")
    elif document:
        yield from _read_document(stream, name, max_line)
    else:
        gauge = _Gauge(stream, caps) if isinstance(stream, gzip.GzipFile) else None
        yield from _read_lines(stream, name, max_line, gauge, part)


def _read_document(stream: IO[bytes], name: str, max_line: int) -> Iterator[MatchRecord]:
    try:
        data = stream.read(max_line + 1)
    except EOFError:
        yield _problem(0, name, None, "truncated-file",
                       "the file is cut off: its compressed data ends early")
        return
    except (OSError, zlib.error) as exc:
        yield _problem(0, name, None, "corrupt-file", "the file is damaged: {error}",
                       error=str(exc))
        return
    if len(data) > max_line:
        yield _problem(0, name, None, "line-too-long",
                       "the file is larger than {limit} MiB; a match file of that size is not "
                       "read", limit=f"{max_line / _MIB:g}")
        return
    data = data.removeprefix(_BOM)
    if not data.strip():
        yield _problem(0, name, None, "empty-file", "the file holds no match: it is blank")
        return
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        yield _decode(data, 0, name, None)
        return
    if isinstance(obj, list):
        yield _problem(0, name, None, "bad-format",
                       "the file holds a JSON list; a .json file holds one match object "
                       "(put many matches one per line in a .jsonl file)")
        return
    yield _parsed(obj, data, 0, name, None)


class _Gauge:
    """What a gzip stream has given against what it has read (a decompression bomb)."""

    def __init__(self, stream: gzip.GzipFile, caps: Caps) -> None:
        self.tell: Callable[[], int] | None = getattr(stream.fileobj, "tell", None)
        self.caps = caps
        self.given = 0
        self.check_at = min(caps.floor, caps.max_bytes)

    def over(self, size: int) -> Phrase | None:
        """Count ``size`` more bytes given; why reading must stop, if it must."""
        self.given += size
        if self.given < self.check_at:
            return None
        caps = self.caps
        self.check_at = self.given + min(1 << 16, caps.max_bytes)  # look again 64 KiB on
        if self.given > caps.max_bytes:
            return Phrase("it decompresses to more than {limit} MiB",
                          limit=f"{caps.max_bytes / _MIB:g}")
        read = self.tell() if self.tell is not None else 0
        if self.given > caps.max_ratio * max(read, 1):
            return Phrase("it decompresses to more than {ratio} times its compressed size "
                          "(a decompression bomb)", ratio=f"{caps.max_ratio:g}")
        return None


def _skip_blank(stream: IO[bytes]) -> tuple[int, int]:
    """Read past whole blank lines a buffer at a time: (lines, bytes) skipped.

    A file of blank lines is read at the speed of its decompression, not a line at a
    time; what follows the last line ending of a run is left for ``readline``.
    """
    peek = getattr(stream, "peek", None)
    lines = size = 0
    while peek is not None:
        buf = peek(_CHUNK)[:_CHUNK]
        blank = len(buf) - len(buf.lstrip(b" \t\r\n"))
        end = buf.rfind(b"\n", 0, blank) + 1
        if end == 0:
            break
        stream.read(end)
        lines += buf.count(b"\n", 0, end)
        size += end
        if end < len(buf) or size >= _CHUNK:  # the caller's gauge looks at each MiB
            break
    return lines, size


def _read_lines(stream: IO[bytes], name: str, max_line: int, gauge: _Gauge | None = None,
                part: tuple[int, int] = (0, 1)) -> Iterator[MatchRecord]:
    index = 0
    line_no = 0
    mine, every = part
    while True:
        try:
            data = stream.readline(max_line + 1)
            too_long = len(data) > max_line and not data.endswith(b"\n")
            size = len(data) + _skip_line(stream) if too_long else len(data)
        except EOFError:
            if index % every != mine:
                return
            yield _problem(index, name, line_no + 1, "truncated-file",
                           "the file is cut off {after}: its compressed data ends early, so "
                           "line {line} and any after it are lost", after=_after(line_no),
                           line=line_no + 1)
            return
        except (OSError, zlib.error) as exc:
            if index % every != mine:
                return
            yield _problem(index, name, line_no + 1, "corrupt-file",
                           "the file is damaged {after} ({error}), so line {line} and any "
                           "after it cannot be read", after=_after(line_no), error=str(exc),
                           line=line_no + 1)
            return
        if not data:
            break
        line_no += 1
        if not data.strip():
            try:
                lines, skipped = _skip_blank(stream)
            except (OSError, EOFError, zlib.error):
                lines = skipped = 0  # readline meets it again and says where
            line_no += lines
            size += skipped
        why = None if gauge is None else gauge.over(size)
        if why is not None:
            yield _problem(index, name, line_no, "file-too-large",
                           "the file stops being read at line {line}: {why}; any lines after "
                           "it are not read", line=line_no, why=why)
            return
        if line_no == 1:
            data = data.removeprefix(_BOM)
        if index % every != mine:
            if too_long or not data.isspace():
                index += 1  # another worker's match: not decoded here
            continue
        if too_long:
            yield _problem(index, name, line_no, "line-too-long",
                           "line {line} is {size} MiB, more than the {limit} MiB a match may "
                           "take; it was skipped", line=line_no, size=f"{size / _MIB:.1f}",
                           limit=f"{max_line / _MIB:g}")
            index += 1
            continue
        if not data.strip():
            continue
        # Without its line ending, so that a JSON error's column is the line's own.
        yield _decode(data.rstrip(b"\r\n"), index, name, line_no)
        index += 1
    if index == 0 and mine == 0:
        yield _problem(0, name, None, "empty-file",
                       "the file holds no match: it has only blank lines")


def _after(line_no: int) -> Phrase:
    return Phrase("after line {line}", line=line_no) if line_no else \
        Phrase("within its first line")


def _skip_line(stream: IO[bytes]) -> int:
    """Read past the rest of an over-long line, a chunk at a time; the bytes skipped."""
    skipped = 0
    while True:
        chunk = stream.readline(_CHUNK)
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
