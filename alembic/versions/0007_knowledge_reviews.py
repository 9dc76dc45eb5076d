"""Knowledge reviews: a match's review by what each player knew, kept by its head.

A cache like ``analyses``: worked out again when asked for if missing, no trigger
guards it, ``rebuild`` empties it, and going below this revision drops it. A row holds
for the match's events up to the head it names and for the samples it was drawn with.

Revision ID: 0007
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "knowledge_reviews",
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("head_hash", sa.LargeBinary(32), primary_key=True),
        sa.Column("samples", sa.Integer, primary_key=True),
        sa.Column("version", sa.String, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("knowledge_reviews")
