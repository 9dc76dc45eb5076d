"""A stored match as a page reads it (``ledger.store.read.load_match``). Its findings
carry their phrases, so a page words them in any language without auditing again."""

from __future__ import annotations

from ledger.store.read import ReplayUnavailable, StoredMatch, load_match

__all__ = ["ReplayUnavailable", "StoredMatch", "load_match"]
