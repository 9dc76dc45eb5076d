"""The facts: matches and their hash-chained, append-only events.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
HEADER = ("origin", "preset", "seat_count", "seats", "options", "source", "started_at",
          "content_hash", "created_at")

SQLITE_TRIGGERS = [
    """CREATE TRIGGER events_no_update BEFORE UPDATE ON events
       BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE refused'); END""",
    """CREATE TRIGGER events_no_delete BEFORE DELETE ON events
       BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE refused'); END""",
    """CREATE TRIGGER matches_no_delete BEFORE DELETE ON matches
       BEGIN SELECT RAISE(ABORT, 'matches are kept for good: DELETE refused'); END""",
    "CREATE TRIGGER matches_header_fixed BEFORE UPDATE ON matches WHEN "
    + " OR ".join(f"OLD.{c} IS NOT NEW.{c}" for c in HEADER)
    + " BEGIN SELECT RAISE(ABORT, 'a match header is fixed: UPDATE refused'); END",
]

# json has no equality operator in PostgreSQL: compare the text.
_PG_CHANGED = " OR ".join(
    f"OLD.{c}::text IS DISTINCT FROM NEW.{c}::text" if c in ("seats", "options", "source")
    else f"OLD.{c} IS DISTINCT FROM NEW.{c}" for c in HEADER)

PG_TRIGGERS = [
    """CREATE FUNCTION ledger_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         RAISE EXCEPTION '%: % refused', TG_ARGV[0], TG_OP;
       END $$""",
    """CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
       FOR EACH ROW EXECUTE FUNCTION ledger_refuse('events are append-only')""",
    """CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
       FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse('events are append-only')""",
    """CREATE TRIGGER matches_no_delete BEFORE DELETE ON matches
       FOR EACH ROW EXECUTE FUNCTION ledger_refuse('matches are kept for good')""",
    """CREATE TRIGGER matches_no_truncate BEFORE TRUNCATE ON matches
       FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse('matches are kept for good')""",
    f"""CREATE TRIGGER matches_header_fixed BEFORE UPDATE ON matches
       FOR EACH ROW WHEN ({_PG_CHANGED})
       EXECUTE FUNCTION ledger_refuse('a match header is fixed')""",
]


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("origin", sa.String, nullable=False),
        sa.Column("preset", sa.String, nullable=False),
        sa.Column("seat_count", sa.Integer, nullable=False),
        sa.Column("seats", sa.JSON, nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("source", sa.JSON, nullable=True),
        sa.Column("started_at", sa.String, nullable=True),
        sa.Column("content_hash", sa.LargeBinary(32), nullable=True, unique=True),
        sa.Column("status", sa.String, nullable=False),
        sa.Column("ok", sa.Boolean, nullable=False),
        sa.Column("errors", sa.Integer, nullable=False),
        sa.Column("warnings", sa.Integer, nullable=False),
        sa.Column("findings", sa.JSON, nullable=False),
        sa.Column("imported_from", sa.String, nullable=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
    )
    for column in ("origin", "preset", "status", "ok"):
        op.create_index(f"ix_matches_{column}", "matches", [column])
    op.create_table(
        "events",
        sa.Column("id", BIG_ID, primary_key=True),
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("recorded_index", sa.Integer, nullable=False),
        sa.Column("kind", sa.String, nullable=False),
        sa.Column("type", sa.String, nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("recorded_at", sa.DateTime, nullable=False),
        sa.Column("prev_hash", sa.LargeBinary(32), nullable=False),
        sa.Column("hash", sa.LargeBinary(32), nullable=False),
        sa.UniqueConstraint("match_id", "seq", name="uq_events_match_seq"),
    )
    for statement in PG_TRIGGERS if op.get_context().dialect.name == "postgresql" \
            else SQLITE_TRIGGERS:
        op.execute(statement)


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        op.execute("DROP TRIGGER matches_header_fixed ON matches")
        op.execute("DROP TRIGGER matches_no_truncate ON matches")
        op.execute("DROP TRIGGER matches_no_delete ON matches")
        op.execute("DROP TRIGGER events_no_truncate ON events")
        op.execute("DROP TRIGGER events_append_only ON events")
        op.execute("DROP FUNCTION ledger_refuse()")
    else:
        for name in ("matches_header_fixed", "matches_no_delete", "events_no_delete",
                     "events_no_update"):
            op.execute(f"DROP TRIGGER {name}")
    op.drop_table("events")
    for column in ("origin", "preset", "status", "ok"):
        op.drop_index(f"ix_matches_{column}", "matches")
    op.drop_table("matches")
