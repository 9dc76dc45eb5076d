"""Seals: analyses, knowledge reviews, snapshots and recorder keys bound to their match.

Each of these rows gets ``seal``, SHA-256 over its content and the match's hash it holds
for (``ledger.store.log.seals``), which ``verify`` computes again and the pages check before
they use a row. The caches' rows of before have no seal: they are dropped here (each is
worked out again when asked for, as after ``rebuild``). The recorder keys are sealed
here, each with its match's header: a live match keeps its key.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

SEALED = ("analyses", "knowledge_reviews", "snapshots", "recorder_keys")
CACHES = ("analyses", "knowledge_reviews", "snapshots")


def upgrade() -> None:
    for name in SEALED:
        op.add_column(name, sa.Column("seal", sa.LargeBinary(32), nullable=True))
    conn = op.get_bind()
    for name in CACHES:
        conn.execute(sa.text(f"DELETE FROM {name}"))
    _seal_keys(conn)


def _seal_keys(conn: sa.Connection) -> None:
    # The ledger's own code: the seal is the one the running app computes.
    from ledger.store.log import seals
    from ledger.store.log.hashing import genesis
    from ledger.store.models import MATCHES, RECORDER_KEYS

    rows = conn.execute(
        sa.select(RECORDER_KEYS.c.match_id, RECORDER_KEYS.c.key_hash,
                  RECORDER_KEYS.c.generation, RECORDER_KEYS.c.issued_at, MATCHES.c.preset,
                  MATCHES.c.seats, MATCHES.c.options, MATCHES.c.source, MATCHES.c.started_at)
        .join(MATCHES, MATCHES.c.id == RECORDER_KEYS.c.match_id)).all()
    from ledger.store.log.mapper import Header

    for r in rows:
        seal = seals.key(r.match_id, bytes(r.key_hash), r.generation, r.issued_at,
                         genesis(Header.of_row(r).canonical()))
        conn.execute(sa.text("UPDATE recorder_keys SET seal = :seal WHERE match_id = :m"),
                     {"seal": seal, "m": r.match_id})


def downgrade() -> None:
    for name in SEALED:
        op.drop_column(name, "seal")
