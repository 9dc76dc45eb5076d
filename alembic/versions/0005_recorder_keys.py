"""Recorder keys: each live match's write key, kept only as its SHA-256.

Not a fact (rotation replaces the hash), so no trigger guards it; going below this
revision drops it, and the live matches then take appends only where writes are open.

Revision ID: 0005
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "recorder_keys",
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("key_hash", sa.LargeBinary(32), nullable=False),
        sa.Column("generation", sa.Integer, nullable=False),
        sa.Column("issued_at", sa.DateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("recorder_keys")
