"""Knowledge reviews kept in the ledger: a match's review by what each player knew
(``ledger.analysis.knowledge_review``, as JSON), per match, head and sample count.

A row answers only for the head it was worked out for (the hash of the match's last
stored event, ``analyses.Head``), the number of deals sampled per decision and the
review's ``version``; a match recorded further simply misses and is reviewed again.
A cache, as ``analyses`` is: nothing else reads it, ``clear`` empties it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from sqlalchemy import delete, select, text
from sqlalchemy.engine import Connection

from ledger.store.analyses import Head
from ledger.store.models import KNOWLEDGE_REVIEWS


def get(conn: Connection, match_id: int, at: Head, samples: int, version: str
        ) -> dict[str, Any] | None:
    """The kept review for ``at`` with ``samples`` deals per decision, if any."""
    row = conn.execute(select(KNOWLEDGE_REVIEWS.c.body).where(
        KNOWLEDGE_REVIEWS.c.match_id == match_id, KNOWLEDGE_REVIEWS.c.head_hash == at.hash,
        KNOWLEDGE_REVIEWS.c.samples == samples,
        KNOWLEDGE_REVIEWS.c.version == version)).one_or_none()
    if row is None:
        return None
    body = orjson.loads(row.body)
    return body if isinstance(body, dict) else None


_PUT = text(
    "INSERT INTO knowledge_reviews (match_id, head_hash, samples, version, body) "
    "VALUES (:match_id, :head_hash, :samples, :version, :body) "
    "ON CONFLICT (match_id, head_hash, samples) DO UPDATE SET version = excluded.version, "
    "body = excluded.body")


def put(conn: Connection, match_id: int, at: Head, samples: int, version: str,
        body: Mapping[str, Any]) -> None:
    """Keep the review worked out for ``at`` (replacing one of another version)."""
    conn.execute(_PUT, {"match_id": match_id, "head_hash": at.hash, "samples": samples,
                        "version": version, "body": orjson.dumps(body).decode()})


def clear(conn: Connection, match_id: int | None = None) -> int:
    """Forget every kept review (or one match's); how many there were."""
    stmt = delete(KNOWLEDGE_REVIEWS)
    if match_id is not None:
        stmt = stmt.where(KNOWLEDGE_REVIEWS.c.match_id == match_id)
    return int(conn.execute(stmt).rowcount or 0)


__all__ = ["clear", "get", "put"]
