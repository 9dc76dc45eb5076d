"""The analyses cache: a deal's analysis (JSON) kept per match, deal, head and version.

An analysis holds for the match's events as they were when it was worked out: a
row answers only while the match's last stored event is still the one it names
(``Head``) and its ``version`` is the one asked for. A live match recorded
further, or an analysis whose answers changed, leaves the row stale; the next
``put`` for that deal replaces it. A cache, as the snapshots are: nothing else
reads it, no trigger guards it, ``rebuild`` empties it (``clear``). Each row is
sealed with its head (``seals.analysis``): one whose seal does not hold is not served
(``get`` misses, so it is worked out again) and ``verify`` names it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import bindparam, delete, select, text
from sqlalchemy.engine import Connection

from ledger.store.errors import MatchNotFound
from ledger.store.log import seals
from ledger.store.models import ANALYSES, EVENTS, MATCHES


@dataclass(frozen=True, slots=True)
class Head:
    """A match's last stored event: what changes whenever its events do."""

    last_seq: int
    hash: bytes


# Built once: every page that shows or asks for an analysis or a review reads the head
# (SQLAlchemy builds and keys a statement per call otherwise).
_HEAD = (select(EVENTS.c.seq, EVENTS.c.hash).where(EVENTS.c.match_id == bindparam("match"))
         .order_by(EVENTS.c.seq.desc()).limit(1))
_MATCH = select(MATCHES.c.id).where(MATCHES.c.id == bindparam("match"))


def head(conn: Connection, match_id: int) -> Head | None:
    """The match's last stored event (None: it has none yet); ``MatchNotFound`` if there
    is no such match."""
    row = conn.execute(_HEAD, {"match": match_id}).one_or_none()
    if row is not None:
        return Head(int(row.seq), bytes(row.hash))
    if conn.execute(_MATCH, {"match": match_id}).first() is None:
        raise MatchNotFound(match_id)
    return None


def get(conn: Connection, match_id: int, deal: int, at: Head, version: str
        ) -> dict[str, Any] | None:
    """The stored analysis of ``deal`` (0-based) if it holds for ``at`` and ``version``."""
    row = conn.execute(select(ANALYSES.c.body, ANALYSES.c.seal).where(
        ANALYSES.c.match_id == match_id, ANALYSES.c.deal == deal,
        ANALYSES.c.version == version, ANALYSES.c.last_seq == at.last_seq,
        ANALYSES.c.head_hash == at.hash)).one_or_none()
    if row is None or not seals.holds(row.seal, seals.analysis(
            match_id, deal, version, at.last_seq, at.hash, row.body)):
        return None
    body = orjson.loads(row.body)
    return body if isinstance(body, dict) else None


# A row worked out for later events than this one (a slower worker finishing last) stays.
_PUT = text(
    "INSERT INTO analyses (match_id, deal, version, last_seq, head_hash, body, seal) "
    "VALUES (:match_id, :deal, :version, :last_seq, :head_hash, :body, :seal) "
    "ON CONFLICT (match_id, deal) DO UPDATE SET version = excluded.version, "
    "last_seq = excluded.last_seq, head_hash = excluded.head_hash, body = excluded.body, "
    "seal = excluded.seal "
    "WHERE analyses.version <> excluded.version OR analyses.last_seq <= excluded.last_seq")


def put(conn: Connection, match_id: int, deal: int, at: Head, version: str,
        body: Mapping[str, Any]) -> None:
    """Keep the analysis of ``deal`` worked out for ``at`` (replacing a stale one)."""
    text_ = orjson.dumps(body).decode()
    conn.execute(_PUT, {"match_id": match_id, "deal": deal, "version": version,
                        "last_seq": at.last_seq, "head_hash": at.hash, "body": text_,
                        "seal": seals.analysis(match_id, deal, version, at.last_seq,
                                               at.hash, text_)})


def clear(conn: Connection, match_id: int | None = None) -> int:
    """Forget every kept analysis (or one match's); how many there were."""
    stmt = delete(ANALYSES)
    if match_id is not None:
        stmt = stmt.where(ANALYSES.c.match_id == match_id)
    return int(conn.execute(stmt).rowcount or 0)


def unanalysed(conn: Connection, version: str, since: datetime | None = None,
               preset: str | None = None) -> list[tuple[int, int, Head]]:
    """Every scored deal (``deal_rows``) with no analysis for its match's head and
    ``version``: (match, deal, head), in match and deal order.

    ``since``: only matches started then or later (``started_at``; one without it is left
    out, as ``export --since`` does); ``preset``: only matches of that table.
    """
    from ledger.store.models import DEAL_ROWS, HEADS

    stmt = (select(DEAL_ROWS.c.match_id, DEAL_ROWS.c.deal, HEADS.c.events, HEADS.c.head_hash,
                   MATCHES.c.started_at)
            .join(HEADS, HEADS.c.match_id == DEAL_ROWS.c.match_id)
            .join(MATCHES, MATCHES.c.id == DEAL_ROWS.c.match_id)
            .outerjoin(ANALYSES, (ANALYSES.c.match_id == DEAL_ROWS.c.match_id)
                       & (ANALYSES.c.deal == DEAL_ROWS.c.deal)
                       & (ANALYSES.c.version == version)
                       & (ANALYSES.c.head_hash == HEADS.c.head_hash)
                       & (ANALYSES.c.last_seq == HEADS.c.events - 1))
            .where(ANALYSES.c.match_id.is_(None), HEADS.c.events > 0)
            .order_by(DEAL_ROWS.c.match_id, DEAL_ROWS.c.deal))
    if preset is not None:
        stmt = stmt.where(MATCHES.c.preset == preset)
    out = []
    for row in conn.execute(stmt):
        if since is not None:
            started = _when(row.started_at)
            if started is None or started < since:
                continue
        out.append((int(row.match_id), int(row.deal),
                    Head(int(row.events) - 1, bytes(row.head_hash))))
    return out


def _when(text: str | None) -> datetime | None:
    """A match's ``started_at`` as a time (without a zone: UTC); None if it is not one."""
    try:
        when = datetime.fromisoformat(text) if text else None
    except ValueError:
        return None
    return when if when is None or when.tzinfo is not None else when.replace(tzinfo=UTC)
