"""Findings stored with their phrase (template and parameters), not their English only.

Every stored match whose findings lack their phrase gets it from its own events
(``ledger/store/log/rephrase.py``: audited again, once, here; a finding the rules no
longer give keeps its form). Only ``matches.findings`` changes: the append-only and
fixed-header triggers (0001, 0004) guard the events and the header, not the findings,
which the ledger writes again as a live match goes on. Going down strips the phrases
(the form of 0005).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

BATCH = 200  # matches read at a time: memory stays flat on a large ledger

# The columns as this revision knows them (not the models, which follow the newest).
MATCHES = sa.table("matches", sa.column("id", sa.Integer), sa.column("origin", sa.String),
                   sa.column("preset", sa.String), sa.column("seats", sa.JSON),
                   sa.column("options", sa.JSON), sa.column("source", sa.JSON),
                   sa.column("started_at", sa.String), sa.column("findings", sa.JSON))
EVENTS = sa.table("events", sa.column("match_id", sa.Integer), sa.column("seq", sa.Integer),
                  sa.column("recorded_index", sa.Integer), sa.column("kind", sa.String),
                  sa.column("type", sa.String), sa.column("payload", sa.Text))


def _matches(conn: sa.Connection) -> Iterator[Any]:
    ids = list(conn.execute(sa.select(MATCHES.c.id).order_by(MATCHES.c.id)).scalars())
    for start in range(0, len(ids), BATCH):
        yield from conn.execute(sa.select(MATCHES).where(
            MATCHES.c.id.in_(ids[start:start + BATCH])).order_by(MATCHES.c.id))


def _rewrite(change: Callable[[Any, sa.Connection], Sequence[Any] | None]) -> None:
    conn = op.get_bind()
    for m in _matches(conn):
        findings = change(m, conn)
        if findings is not None:
            conn.execute(sa.update(MATCHES).where(MATCHES.c.id == m.id)
                         .values(findings=list(findings)))


def _with_phrases(m: Any, conn: sa.Connection) -> list[dict[str, Any]] | None:
    from ledger.store.log.mapper import Header
    from ledger.store.log.rephrase import fresh_findings, needs_phrase, phrased

    stored = list(m.findings or ())
    if not needs_phrase(stored):
        return None
    rows = list(conn.execute(
        sa.select(EVENTS.c.recorded_index, EVENTS.c.kind, EVENTS.c.type, EVENTS.c.payload)
        .where(EVENTS.c.match_id == m.id).order_by(EVENTS.c.seq)))
    try:
        fresh = fresh_findings(m.origin, Header.of_row(m), rows)
    except Exception:  # a match that cannot be folded keeps its findings as they were
        return None
    got = phrased(stored, fresh)
    return got if got != stored else None


def _without_phrases(m: Any, _conn: sa.Connection) -> list[dict[str, Any]] | None:
    from ledger.store.log.rephrase import unphrased

    stored = list(m.findings or ())
    got = unphrased(stored)
    return got if got != stored else None


def upgrade() -> None:
    _rewrite(_with_phrases)


def downgrade() -> None:
    _rewrite(_without_phrases)
