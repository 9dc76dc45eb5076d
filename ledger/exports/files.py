"""An export's bytes, one code for every reader: the ``export`` command and the web's
downloads both write a score sheet (any format of ``ledger.exports.formats``) or the
match file itself through here, so the same match gives the same bytes from either
(issue 29; tests/web/test_web_exports_same.py). The one difference is stated in the file:
a PDF's generation time (``/CreationDate``, to the second) and the file ``/ID`` fpdf
hashes with it."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ledger.exports.formats import SHEET_FORMATS

if TYPE_CHECKING:
    from ledger.exports.selection import Selected
    from ledger.formats.wire import MatchHeader
    from ledger.i18n import Language
    from ledger.scoresheet import AuditStatus
    from ledger.store.handles import Connection

MATCH = "match"  # the matches themselves (domino-match/1), not their score sheets


def sheet_bytes(fmt: str, selected: Sequence[Selected], lang: Language) -> bytes:
    """The score sheets of ``selected`` in format ``fmt`` (a key of ``SHEET_FORMATS``)."""
    return SHEET_FORMATS[fmt].write([s.sheet() for s in selected], lang)


def hand_record_file(selected: Sequence[Selected], lang: Language,
                     before: int | None = None) -> bytes:
    """The hand records of ``selected`` (``ledger.exports.hand_record``): a page per deal
    (``before``: only the deals whose events all come before that index)."""
    from ledger.exports.hand_record import hand_record_bytes

    return hand_record_bytes(selected, lang, before)


def write_match_file(stream: Any, selected: Sequence[Selected], container: str,
                     skip: Callable[[str], None]) -> int:
    """The matches of ``selected`` written to ``stream`` as a domino-match/1 ``container``
    (".json", ".jsonl"; a caller gzips for ".jsonl.gz"); a match with an event that could
    not be read is skipped (``skip`` says why): it cannot be written back as it was."""
    from ledger.formats.writer import write_stream

    def writable() -> Iterator[tuple[MatchHeader, list[Any]]]:
        for s in selected:
            if not s.readable:
                bad = next(i for i, ev in enumerate(s.events) if ev is None)
                skip(f"{s.match_id}, event {bad}: skipped: the event could not be read, "
                     "so the match cannot be written back as it was")
                continue
            yield s.header, s.recorded()

    return write_stream(stream, writable(), container)


def match_file_bytes(selected: Selected) -> bytes | None:
    """One match as its .json file (None: an event of it could not be read)."""
    out = io.BytesIO()
    written = write_match_file(out, [selected], ".json", lambda _: None)
    return out.getvalue() if written else None


def stored_export(conn: Connection, match_id: int, review: bool = True,
                  audit: AuditStatus | None = None) -> Selected | None:
    """Stored match ``match_id`` ready to export, as the ``export`` command reads it; with
    ``review``, the report by what each player knew kept for its events (the PDF's page);
    ``audit``: the audit to print instead of the record's own (a reader who may not see the
    hands in play gets the one the match page shows). None: no readable header."""
    from dataclasses import replace

    from ledger.exports.stored import stored_selected

    selected = stored_selected(conn, match_id, review=review)
    if selected is not None and audit is not None:
        selected._sheet = replace(selected.sheet(), audit=audit)
    return selected


__all__ = ["MATCH", "hand_record_file", "match_file_bytes", "sheet_bytes", "stored_export",
           "write_match_file"]
