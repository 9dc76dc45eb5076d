"""The analyses cache: a deal's analysis as the web serves it, kept across restarts.

A cache like ``snapshots``: no trigger guards it (only the facts are append-only),
``rebuild`` empties it, and going below this revision simply drops it.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("deal", sa.Integer, primary_key=True),
        sa.Column("version", sa.String, nullable=False),
        sa.Column("last_seq", sa.Integer, nullable=False),
        sa.Column("head_hash", sa.LargeBinary(32), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("analyses")
