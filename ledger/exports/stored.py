"""Stored matches for an export, read through the store's public queries.

A stored match is rebuilt as the domino-match/1 object its recorded rows say
(unread rows verbatim, as the import kept them) and read like a file, so that a
match exported from the ledger and the same match exported from its file give
the same sheet and the same ledger hash.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from ledger.exports.selection import Criteria, Selected, SelectionError, from_record

PAGE = 500


def _match_ids(conn: Any, criteria: Criteria) -> list[int]:
    from ledger.store.pages.queries import list_matches

    ids: list[int] = []
    offset = 0
    while True:
        page = list_matches(conn, preset=criteria.preset, limit=PAGE, offset=offset)
        ids += [item["id"] for item in page.items]
        offset += len(page.items)
        if not page.items or offset >= page.total:
            return sorted(ids)


def _parse_id(ref: str) -> int:
    try:
        return int(ref)
    except ValueError:
        raise SelectionError(f"{ref!r} is neither a match file nor a stored match id "
                             "(a number)") from None


def _with_review(conn: Any, match_id: int, selected: Selected) -> Selected:
    """The match with the report by what each player knew the ledger keeps for its events
    as stored (the PDF prints it on a page of its own)."""
    from ledger.analysis.cli_knowledge import REPORT_VERSION
    from ledger.store.jobs.knowledge_reviews import current

    kept = current(conn, match_id, REPORT_VERSION)
    if kept is not None:
        selected._sheet = replace(selected.sheet(), knowledge=kept)
    return selected


def stored_selected(conn: Any, match_id: int, review: bool = True) -> Selected | None:
    """Stored match ``match_id`` as an export reads it (None: no readable header); with
    ``review``, the knowledge report kept for its events."""
    from ledger.store.pages.queries import record_of

    selected = from_record(record_of(conn, match_id), str(match_id))
    if selected is None or not review:
        return selected
    return _with_review(conn, match_id, selected)


def stored_matches(url: str | None, refs: Sequence[str],
                   criteria: Criteria) -> Iterator[Selected]:
    """Stored matches by id (``refs``), or every stored match that meets ``criteria``."""
    from ledger.store.pages.reading import reading

    ids = [_parse_id(r) for r in refs]
    with reading(url, SelectionError, "give match files to export") as ledger:
        for match_id in ids or _match_ids(ledger.conn, criteria):
            record = ledger.record(match_id)
            if record.header is None or not criteria.accepts(record.header):
                continue
            selected = from_record(record, str(match_id))
            if selected is not None:
                yield _with_review(ledger.conn, match_id, selected)
