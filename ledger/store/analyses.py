"""The analyses cache: a deal's analysis (JSON) kept per match, deal, head and version.

An analysis holds for the match's events as they were when it was worked out: a
row answers only while the match's last stored event is still the one it names
(``Head``) and its ``version`` is the one asked for. A live match recorded
further, or an analysis whose answers changed, leaves the row stale; the next
``put`` for that deal replaces it. A cache, as the snapshots are: nothing else
reads it, no trigger guards it, ``rebuild`` empties it (``clear``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import delete, select, text
from sqlalchemy.engine import Connection

from ledger.store.errors import MatchNotFound
from ledger.store.models import ANALYSES, EVENTS, MATCHES


@dataclass(frozen=True, slots=True)
class Head:
    """A match's last stored event: what changes whenever its events do."""

    last_seq: int
    hash: bytes


def head(conn: Connection, match_id: int) -> Head | None:
    """The match's last stored event (None: it has none yet); ``MatchNotFound`` if there
    is no such match."""
    row = conn.execute(select(EVENTS.c.seq, EVENTS.c.hash)
                       .where(EVENTS.c.match_id == match_id)
                       .order_by(EVENTS.c.seq.desc()).limit(1)).one_or_none()
    if row is not None:
        return Head(int(row.seq), bytes(row.hash))
    if conn.execute(select(MATCHES.c.id).where(MATCHES.c.id == match_id)).first() is None:
        raise MatchNotFound(match_id)
    return None


def get(conn: Connection, match_id: int, deal: int, at: Head, version: str
        ) -> dict[str, Any] | None:
    """The stored analysis of ``deal`` (0-based) if it holds for ``at`` and ``version``."""
    row = conn.execute(select(ANALYSES.c.body).where(
        ANALYSES.c.match_id == match_id, ANALYSES.c.deal == deal,
        ANALYSES.c.version == version, ANALYSES.c.last_seq == at.last_seq,
        ANALYSES.c.head_hash == at.hash)).one_or_none()
    if row is None:
        return None
    body = orjson.loads(row.body)
    return body if isinstance(body, dict) else None


# A row worked out for later events than this one (a slower worker finishing last) stays.
_PUT = text(
    "INSERT INTO analyses (match_id, deal, version, last_seq, head_hash, body) "
    "VALUES (:match_id, :deal, :version, :last_seq, :head_hash, :body) "
    "ON CONFLICT (match_id, deal) DO UPDATE SET version = excluded.version, "
    "last_seq = excluded.last_seq, head_hash = excluded.head_hash, body = excluded.body "
    "WHERE analyses.version <> excluded.version OR analyses.last_seq <= excluded.last_seq")


def put(conn: Connection, match_id: int, deal: int, at: Head, version: str,
        body: Mapping[str, Any]) -> None:
    """Keep the analysis of ``deal`` worked out for ``at`` (replacing a stale one)."""
    conn.execute(_PUT, {"match_id": match_id, "deal": deal, "version": version,
                        "last_seq": at.last_seq, "head_hash": at.hash,
                        "body": orjson.dumps(body).decode()})


def clear(conn: Connection, match_id: int | None = None) -> int:
    """Forget every kept analysis (or one match's); how many there were."""
    stmt = delete(ANALYSES)
    if match_id is not None:
        stmt = stmt.where(ANALYSES.c.match_id == match_id)
    return int(conn.execute(stmt).rowcount or 0)
