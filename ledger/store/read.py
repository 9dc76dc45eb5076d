"""Every read the app makes of the ledger, in one place: ``web/`` asks here and renders.

The queries live in the modules named for what they read; this module is the one
door to them (``web/`` imports no table and writes no SQL, tests/test_architecture.py):

- the matches list, every filter and order (``matchlist``; the API's list and a
  match's rows, events, score sheet and counts: ``queries``);
- a match as its page and its replay read it (``matchpage``: the replay's source);
- the players' plays and the analyses that hold for them (``plays``), the whole-match
  chart's points lost among them;
- the knowledge reviews kept for matches' current heads (``knowledge_reviews``);
- whether the ledger or a match has changed (``QuickVersions``, ``EngineVersions``: what
  kept answers are keyed by).
"""

from __future__ import annotations

from ledger.store.jobs.knowledge_reviews import all_current as knowledge_reports
from ledger.store.jobs.knowledge_reviews import current as knowledge_report
from ledger.store.pages.matchlist import (
    AUDITS,
    COUNT_CAP,
    RESULTS,
    SORTS,
    BadFilter,
    Filters,
    ListPage,
    Row,
    found_names,
    list_page,
    player_names,
)
from ledger.store.pages.matchpage import ReplayUnavailable, StoredMatch, load_match
from ledger.store.pages.plays import current_reviews, fingerprint, points_lost, stored_plays
from ledger.store.pages.queries import (
    MAX_PAGE,
    Page,
    counts,
    events_of,
    get_match,
    list_matches,
    list_matches_json,
    player_totals,
    record_of,
    score_sheet,
)
from ledger.store.pages.versions import (
    EngineVersions,
    QuickVersions,
    Version,
)
from ledger.store.recording.keys import check as key_holds
from ledger.store.recording.keys import digest as key_digest

__all__ = [
    "AUDITS", "COUNT_CAP", "MAX_PAGE", "RESULTS", "SORTS", "BadFilter", "EngineVersions",
    "Filters", "ListPage", "Page", "QuickVersions", "ReplayUnavailable", "Row", "StoredMatch",
    "Version", "counts", "current_reviews",
    "events_of", "fingerprint", "key_digest", "key_holds", "found_names", "get_match",
    "knowledge_report",
    "knowledge_reports", "list_matches", "list_matches_json",
    "list_page", "load_match",
    "player_names", "player_totals", "points_lost", "record_of",
    "score_sheet", "stored_plays",
]
