"""The job queue of the analysis workers (PostgreSQL only): pgqueuer's tables, and
``job_progress``, how far each job is and why one failed.

The queue's own objects are those the installed pgqueuer declares (its ``pgq install``
DDL, rendered by the library itself so that they are exactly what its queries expect);
``job_progress`` is ours (ledger.store.jobs.jobqueue). Neither is a fact: no trigger guards
them, and going below this revision drops them with any jobs still queued (the work is
asked for again). An embedded SQLite ledger has no queue: its server analyses in
process (ledger.jobs.service), so on SQLite this revision does nothing.

Revision ID: 0008
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def _postgres() -> bool:
    return bool(op.get_context().dialect.name == "postgresql")


def upgrade() -> None:
    if not _postgres():
        return
    from pgqueuer.adapters.persistence.schema_ddl import render_install
    from pgqueuer.domain.settings import DBSettings

    # One string of many statements (its functions hold semicolons): sent as it is.
    op.get_bind().exec_driver_sql(render_install(DBSettings(), create_schema=False))
    op.create_table(
        "job_progress",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("part", sa.Integer, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("done", sa.Integer, nullable=False, server_default="0"),
        sa.Column("total", sa.Integer, nullable=False, server_default="0"),
        sa.Column("client", sa.Text, nullable=False, server_default=""),
        sa.Column("error", sa.Text),
        sa.Column("body", sa.Text),
        sa.Column("worker", sa.Text),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
    )
    op.create_index("job_progress_client_state", "job_progress", ["client", "state"])


def downgrade() -> None:
    if not _postgres():
        return
    from pgqueuer.adapters.persistence.schema_ddl import render_uninstall
    from pgqueuer.domain.settings import DBSettings

    op.drop_table("job_progress")
    op.get_bind().exec_driver_sql(render_uninstall(DBSettings()))
