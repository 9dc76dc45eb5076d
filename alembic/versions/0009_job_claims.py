"""Job claims: the analyses a server process works out itself, kept in the ledger.

An embedded SQLite ledger's server (and one told ``DOMINO_LEDGER_ANALYSIS=local``) works
in its own processes, one server process per core. Each claims the job it starts here
(``ledger.store.jobs.job_claims``): any process answers the same state and progress, and a
second ask joins the running job instead of working it out again. A claim whose process
stopped beating (it died) is taken over by the next ask. Not a fact: no trigger guards
it, a finished job's row goes with its answer, and going below this revision drops it.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "job_claims",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("done", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("error", sa.Text),
        sa.Column("owner", sa.Text, nullable=False),
        sa.Column("beat", sa.DateTime, nullable=False),
    )
    op.create_index("job_claims_match", "job_claims", ["kind", "match_id"])


def downgrade() -> None:
    op.drop_index("job_claims_match", table_name="job_claims")
    op.drop_table("job_claims")
