"""What the import page says about an upload: counts of every match, details of the first.

An upload may hold any number of matches (100,000 lines of ``{}`` fit in 329 bytes of
gzip), so the page never grows with it: every match is counted, but only the first
``SHOWN`` are shown, each with at most ``FINDINGS`` of its findings. The records are
read, audited and stored one by one (``ledger.store.write.import_bytes``); nothing of a
match is kept once it is counted, unless it is one of those shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import IO

from ledger.findings import Finding
from ledger.i18n import Language
from ledger.store.handles import Session
from ledger.store.write import Imported, import_bytes

SHOWN = 50      # matches shown with their findings
FINDINGS = 20   # findings shown per match
# A part of the file no match could be read from is said as what it is, not as a match.
UNREAD = ("bad-json", "line-too-long", "file-too-large")


def is_unread(got: Imported) -> bool:
    """Nothing of a match could be read there: not JSON, or past the reader's caps."""
    return got.id is None and got.error is not None and (
        not got.findings or (len(got.findings) == 1 and got.findings[0]["code"] in UNREAD))


@dataclass(frozen=True, slots=True)
class Reported:
    """One match of an import report: what became of it, and its findings to word."""

    result: Imported
    findings: tuple[Finding, ...]   # the first FINDINGS of them
    more: int                       # findings not shown
    error: str | None               # why it was not stored, in the reader's language
    unread: bool = False            # no match could be read there (``is_unread``)


@dataclass
class ImportReport:
    """The counts of an upload's matches and the first ``SHOWN`` of them in detail."""

    read: int = 0
    unread: int = 0
    stored: int = 0
    new: int = 0
    faulty: int = 0
    shown: list[Reported] = field(default_factory=list)

    @property
    def hidden(self) -> int:
        return self.read + self.unread - len(self.shown)

    def count(self, got: Imported) -> None:
        if is_unread(got):
            self.unread += 1
            return
        self.read += 1
        self.stored += got.id is not None
        self.new += got.new
        self.faulty += not got.ok


def _reported(got: Imported, lang: Language) -> Reported:
    stored = tuple(Finding.from_dict(f) for f in got.findings)  # each with its phrase
    error = got.error
    if error is not None and stored and error == stored[0].message:
        error = lang.finding(stored[0], seats=got.seats)
    return Reported(got, stored[:FINDINGS], max(0, len(stored) - FINDINGS), error,
                    is_unread(got))


def import_report(session: Session, data: IO[bytes], name: str,
                  lang: Language) -> ImportReport:
    """Import every match of the upload ``name`` (each in its own transaction) and report
    on them (``import_bytes``'s errors pass through)."""
    report = ImportReport()
    for _record, got in import_bytes(session, data, name):
        report.count(got)
        if len(report.shown) < SHOWN:
            report.shown.append(_reported(got, lang))
    return report
