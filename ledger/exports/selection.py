"""What an export takes, as values: the criteria, a selected match, the error.

Shared by the seam that picks files or the store (``ledger.exports.select``) and the
store's side of it (``ledger.exports.stored``), which import this and not each other.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ledger.audit import AuditReport, audit_record
from ledger.events import Event
from ledger.formats.canonical import match_hash
from ledger.formats.reader import MatchRecord
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
        if self.preset is not None and header.preset != self.preset:
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
