"""Read models (score sheet rows, match summaries, player totals) and the snapshot cache.

They hold nothing that the events do not: after this revision, or after going
back below it and up again, ``domino-ledger rebuild`` fills them.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "deal_rows",
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("deal", sa.Integer, primary_key=True),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("result", sa.String, nullable=False),
        sa.Column("winner", sa.Integer, nullable=True),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("scores", sa.JSON, nullable=False),
        sa.Column("fives", sa.JSON, nullable=False),
        sa.Column("leader", sa.Integer, nullable=True),
        sa.Column("pips", sa.JSON, nullable=False),
    )
    op.create_table(
        "match_summaries",
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("events", sa.Integer, nullable=False),
        sa.Column("last_seq", sa.Integer, nullable=False),
        sa.Column("head_hash", sa.LargeBinary(32), nullable=False),
        sa.Column("deals", sa.Integer, nullable=False),
        sa.Column("scores", sa.JSON, nullable=True),
        sa.Column("winner", sa.Integer, nullable=True),
        sa.Column("complete", sa.Boolean, nullable=False),
        sa.Column("end_reason", sa.String, nullable=True),
    )
    op.create_table(
        "player_totals",
        sa.Column("name", sa.String, primary_key=True),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("complete", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("deals", sa.Integer, nullable=False),
        sa.Column("deal_wins", sa.Integer, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("faulty", sa.Integer, nullable=False),
    )
    op.create_table(
        "snapshots",
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("recorded_index", sa.Integer, nullable=False),
        sa.Column("version", sa.String, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
    )


def downgrade() -> None:
    for name in ("snapshots", "player_totals", "match_summaries", "deal_rows"):
        op.drop_table(name)
