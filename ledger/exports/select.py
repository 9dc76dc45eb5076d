"""Which matches an export takes: match files named on the command line, or the store.

``select`` is the one seam. A MATCH that is a file is read here; anything else
is a stored match id, and ``--player``/``--preset``/``--since`` without files
select from the store (``ledger.exports.stored``). The criteria mean the same
for files and for the store.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ledger.audit import AuditReport, audit_record
from ledger.events import Event
from ledger.formats.canonical import match_hash
from ledger.formats.reader import MatchRecord, ReadError, read_matches
from ledger.formats.wire import MatchHeader
from ledger.scoresheet import ScoreSheet, sheet_from_report


class SelectionError(ValueError):
    """The selection cannot be made (a bad date, a missing file, no store)."""


def _fold(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


def parse_since(text: str) -> datetime:
    """``--since``: a date (2026-11-01) or an ISO 8601 time; without a zone it is UTC."""
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise SelectionError(f"--since {text!r} is not a date: write it as 2026-11-01 "
                             "or 2026-11-01T20:15:00Z") from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Criteria:
    player: str | None = None
    preset: str | None = None
    since: datetime | None = None

    @property
    def any(self) -> bool:
        return self.player is not None or self.preset is not None or self.since is not None

    def accepts(self, header: MatchHeader) -> bool:
        if self.preset is not None and header.rules != self.preset:
            return False
        if self.player is not None:
            wanted = _fold(self.player)
            if not any(_fold(name) == wanted for name in header.seats):
                return False
        if self.since is not None:
            started = _started(header.started_at)
            if started is None or started < self.since:
                return False
        return True


def _started(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


@dataclass
class Selected:
    """One match to export: its header, recorded events (as read), audit and hash."""

    match_id: str
    header: MatchHeader
    events: list[Event | None]
    report: AuditReport
    ledger_hash: str | None
    _sheet: ScoreSheet | None = field(default=None, repr=False)

    @property
    def readable(self) -> bool:
        return all(ev is not None for ev in self.events)

    def recorded(self) -> list[Event]:
        return [ev for ev in self.events if ev is not None]

    def sheet(self) -> ScoreSheet:
        if self._sheet is None:
            self._sheet = sheet_from_report(self.report, self.header,
                                            ledger_hash=self.ledger_hash,
                                            match_id=self.match_id)
        return self._sheet


Skip = Callable[[str], None]


def from_record(record: MatchRecord, match_id: str | None = None) -> Selected | None:
    """A match as read (from a file or the store), ready to export; None without a header."""
    if record.header is None:
        return None
    events = list(record.events)
    complete = [ev for ev in events if ev is not None]
    digest = match_hash(record.header, complete) if len(complete) == len(events) else None
    return Selected(match_id or record.where, record.header, events, audit_record(record),
                    digest)


def from_files(paths: Iterable[str], criteria: Criteria, skip: Skip) -> Iterator[Selected]:
    for path in paths:
        try:
            records = read_matches(path)
            for record in records:
                if record.header is None:
                    reason = record.problems[0].message if record.problems else "unreadable"
                    skip(f"{record.where}: skipped: {reason}")
                    continue
                if not criteria.accepts(record.header):
                    continue
                selected = from_record(record, _match_id(record))
                if selected is not None:
                    yield selected
        except ReadError as exc:
            raise SelectionError(str(exc)) from None


def _match_id(record: MatchRecord) -> str:
    """``file.jsonl:3`` for a line of a JSON Lines file, the file name for a .json."""
    return record.where if record.line is not None else record.path


def from_store(ids: Sequence[str], criteria: Criteria, db: str | None) -> Iterator[Selected]:
    """Stored matches by id and/or criteria (``ledger.exports.stored``)."""
    from ledger.exports.stored import stored_matches

    yield from stored_matches(db, ids, criteria)


def select(refs: Sequence[str], criteria: Criteria, skip: Skip,
           db: str | None = None) -> Iterator[Selected]:
    """Every match the command line names: files first as given, then stored matches
    (from the ledger at ``db``, a database URL; None: the store's default)."""
    files = [r for r in refs if Path(r).exists()]
    ids = [r for r in refs if not Path(r).exists()]
    missing = [r for r in ids if _looks_like_path(r)]
    if missing:
        raise SelectionError(f"{missing[0]}: no such file")
    if not refs and not criteria.any:
        raise SelectionError("name the matches to export: match files, stored match ids, "
                             "or --player, --preset, --since")
    yield from from_files(files, criteria, skip)
    if ids or not files:
        yield from from_store(ids, criteria, db)


def _looks_like_path(ref: str) -> bool:
    return "/" in ref or ref.endswith((".json", ".jsonl", ".gz"))
