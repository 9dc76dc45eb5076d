"""A stored match as a page reads it (``ledger.store.read.load_match``), its findings
worded for the page's language when it is not English (``web.wording``)."""

from __future__ import annotations

from ledger.store.handles import Connection
from ledger.store.read import ReplayUnavailable, StoredMatch
from ledger.store.read import load_match as read_match
from web.wording import stored_findings

__all__ = ["ReplayUnavailable", "StoredMatch", "load_match"]


def load_match(conn: Connection, match_id: int, step: int | None = None,
               everything: bool = False, worded: bool = False) -> StoredMatch:
    """``ledger.store.read.load_match``; ``worded``: the findings with their templates."""
    return read_match(conn, match_id, step, everything,
                      reword=stored_findings if worded else None)
