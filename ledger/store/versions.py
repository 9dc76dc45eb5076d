"""What a kept page is keyed by: versions of the ledger that move whenever a page could.

The ledger only ever grows (the triggers refuse updates and deletes of matches and
events), so the largest match id and event id move with every match stored and every
event appended, by any process. One match's page moves with its head (its event count
and last hash, written in the same transaction as its events: ``heads.py``); its header
is immutable and its status and findings change only with an append.
"""

from __future__ import annotations

from sqlalchemy import Engine, func, select

from ledger.store.heads import read_head
from ledger.store.models import EVENTS, KNOWLEDGE_REVIEWS, MATCHES

Version = tuple[int, int] | tuple[int, str, int]


def ledger_version(engine: Engine) -> tuple[int, int]:
    """The largest match id and event id: both grow with every change of the ledger."""
    with engine.connect() as conn:
        matches = conn.execute(select(func.max(MATCHES.c.id))).scalar()
        events = conn.execute(select(func.max(EVENTS.c.id))).scalar()
    return int(matches or 0), int(events or 0)


def match_version(engine: Engine, match_id: int) -> tuple[int, str, int] | None:
    """Match ``match_id``'s head as (events, last hash in hex) and how many reviews by
    knowledge the ledger keeps for it (one stored changes the page, not the head);
    None: no such match."""
    with engine.connect() as conn:
        head = read_head(conn, match_id)
        if head is None:
            return None
        reviews = conn.execute(select(func.count()).select_from(KNOWLEDGE_REVIEWS).where(
            KNOWLEDGE_REVIEWS.c.match_id == match_id)).scalar_one()
    return head.events, "" if head.hash is None else head.hash.hex(), int(reviews)
