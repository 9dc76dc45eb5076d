"""Knowledge reviews kept in the ledger: a match's review by what each player knew
(``ledger.analysis.knowledge_review``, as JSON), per match, head and sample count.

A row answers only for the head it was worked out for (the hash of the match's last
stored event, ``analyses.Head``), the number of deals sampled per decision and the
review's ``version``; a match recorded further simply misses and is reviewed again.
A cache, as ``analyses`` is: nothing else reads it, ``clear`` empties it. Each row is
sealed with its head (``seals.review``): one whose seal does not hold is never served
(it misses, and the review is worked out again) and ``verify`` names it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from sqlalchemy import bindparam, delete, func, select, text
from sqlalchemy.engine import Connection

from ledger.store.jobs.analyses import Head, head
from ledger.store.log import seals
from ledger.store.models import EVENTS, KNOWLEDGE_REVIEWS, MATCHES


def get(conn: Connection, match_id: int, at: Head, samples: int, version: str
        ) -> dict[str, Any] | None:
    """The kept review for ``at`` with ``samples`` deals per decision, if any."""
    row = conn.execute(select(KNOWLEDGE_REVIEWS.c.body, KNOWLEDGE_REVIEWS.c.seal).where(
        KNOWLEDGE_REVIEWS.c.match_id == match_id, KNOWLEDGE_REVIEWS.c.head_hash == at.hash,
        KNOWLEDGE_REVIEWS.c.samples == samples,
        KNOWLEDGE_REVIEWS.c.version == version)).one_or_none()
    if row is None or not _holds(match_id, at.hash, samples, version, row):
        return None
    body = orjson.loads(row.body)
    return body if isinstance(body, dict) else None


def _holds(match_id: int, head_hash: bytes, samples: int, version: str, row: Any) -> bool:
    return seals.holds(row.seal, seals.review(match_id, head_hash, samples, version,
                                              row.body))


_PUT = text(
    "INSERT INTO knowledge_reviews (match_id, head_hash, samples, version, body, seal) "
    "VALUES (:match_id, :head_hash, :samples, :version, :body, :seal) "
    "ON CONFLICT (match_id, head_hash, samples) DO UPDATE SET version = excluded.version, "
    "body = excluded.body, seal = excluded.seal")


def put(conn: Connection, match_id: int, at: Head, samples: int, version: str,
        body: Mapping[str, Any]) -> None:
    """Keep the review worked out for ``at`` (replacing one of another version)."""
    text_ = orjson.dumps(body).decode()
    conn.execute(_PUT, {"match_id": match_id, "head_hash": at.hash, "samples": samples,
                        "version": version, "body": text_,
                        "seal": seals.review(match_id, at.hash, samples, version, text_)})


# Built once: a match's page asks it at every visit.
_CURRENT = (select(KNOWLEDGE_REVIEWS.c.body, KNOWLEDGE_REVIEWS.c.samples,
                   KNOWLEDGE_REVIEWS.c.seal).where(
    KNOWLEDGE_REVIEWS.c.match_id == bindparam("match"),
    KNOWLEDGE_REVIEWS.c.head_hash == bindparam("hash"),
    KNOWLEDGE_REVIEWS.c.version == bindparam("version"))
    .order_by(KNOWLEDGE_REVIEWS.c.samples.desc()))


def current(conn: Connection, match_id: int, version: str) -> dict[str, Any] | None:
    """The kept review for the match's head as stored now (the most samples if several)."""
    at = head(conn, match_id)
    if at is None:
        return None
    for row in conn.execute(_CURRENT, {"match": match_id, "hash": at.hash,
                                       "version": version}):
        if _holds(match_id, at.hash, row.samples, version, row):
            body = orjson.loads(row.body)
            return body if isinstance(body, dict) else None
    return None


def all_current(conn: Connection, version: str) -> dict[int, tuple[str, bool, dict[str, Any]]]:
    """Per match: its table (preset), whether its audit is ok, and its kept review for its
    head as stored now (the most samples if several); matches recorded further since their
    review are left out."""
    last = (select(EVENTS.c.match_id, func.max(EVENTS.c.seq).label("seq"))
            .group_by(EVENTS.c.match_id).subquery())
    heads = (select(EVENTS.c.match_id, EVENTS.c.hash)
             .join(last, (EVENTS.c.match_id == last.c.match_id) & (EVENTS.c.seq == last.c.seq))
             .subquery())
    rows = conn.execute(
        select(KNOWLEDGE_REVIEWS.c.match_id, MATCHES.c.preset, MATCHES.c.ok,
               KNOWLEDGE_REVIEWS.c.body, KNOWLEDGE_REVIEWS.c.head_hash,
               KNOWLEDGE_REVIEWS.c.samples, KNOWLEDGE_REVIEWS.c.seal)
        .join(heads, (heads.c.match_id == KNOWLEDGE_REVIEWS.c.match_id)
              & (heads.c.hash == KNOWLEDGE_REVIEWS.c.head_hash))
        .join(MATCHES, MATCHES.c.id == KNOWLEDGE_REVIEWS.c.match_id)
        .where(KNOWLEDGE_REVIEWS.c.version == version)
        .order_by(KNOWLEDGE_REVIEWS.c.match_id, KNOWLEDGE_REVIEWS.c.samples))
    out: dict[int, tuple[str, bool, dict[str, Any]]] = {}
    for row in rows:  # ordered by samples: the most samples is kept last
        if not _holds(int(row.match_id), bytes(row.head_hash), row.samples, version, row):
            continue
        body = orjson.loads(row.body)
        if isinstance(body, dict):
            out[int(row.match_id)] = (str(row.preset), bool(row.ok), body)
    return out


def clear(conn: Connection, match_id: int | None = None) -> int:
    """Forget every kept review (or one match's); how many there were."""
    stmt = delete(KNOWLEDGE_REVIEWS)
    if match_id is not None:
        stmt = stmt.where(KNOWLEDGE_REVIEWS.c.match_id == match_id)
    return int(conn.execute(stmt).rowcount or 0)


__all__ = ["all_current", "clear", "current", "get", "put"]
