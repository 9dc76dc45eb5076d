"""Match heads (how many events a match has and the last one's hash) and REPLACE guards.

A head is written with the events it counts, in the same transaction, and the
database lets it only move forward to an event that is there: a row removed from a
match's tail (with the events' triggers dropped for the while) leaves the head
naming an event that is gone, which ``verify`` reports. Existing matches get the
head of the events they hold now.

SQLite's ``INSERT OR REPLACE`` / ``REPLACE INTO`` deletes the row in its way
without firing a DELETE trigger (recursive triggers are off, per connection): a
BEFORE INSERT trigger refuses an insert onto an existing event, match or head,
which holds for any program that opens the file.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

# A head is consistent with the events when it counts none and there are none, or when
# the event it names last is there with its hash and none follows it.
_CONSISTENT = """(
  (NEW.events = 0 AND NEW.head_hash IS NULL
   AND NOT EXISTS (SELECT 1 FROM events WHERE match_id = NEW.match_id))
  OR (NEW.events > 0
   AND EXISTS (SELECT 1 FROM events WHERE match_id = NEW.match_id
               AND seq = NEW.events - 1 AND hash = NEW.head_hash)
   AND NOT EXISTS (SELECT 1 FROM events WHERE match_id = NEW.match_id
                   AND seq = NEW.events)))"""

SQLITE_TRIGGERS = {
    "events_no_replace": """CREATE TRIGGER events_no_replace BEFORE INSERT ON events
       WHEN EXISTS (SELECT 1 FROM events WHERE match_id = NEW.match_id AND seq = NEW.seq)
         OR EXISTS (SELECT 1 FROM events WHERE id = NEW.id)
       BEGIN SELECT RAISE(ABORT, 'events are append-only: the row exists, REPLACE refused');
       END""",
    # The same content again is the importer's "stored already" (ON CONFLICT DO
    # NOTHING): nothing is written, and a REPLACE cannot take the old row's place.
    "matches_no_replace": """CREATE TRIGGER matches_no_replace BEFORE INSERT ON matches
       BEGIN
         SELECT RAISE(ABORT, 'a match header is fixed: the row exists, REPLACE refused')
         WHERE EXISTS (SELECT 1 FROM matches WHERE id = NEW.id);
         SELECT RAISE(IGNORE) WHERE NEW.content_hash IS NOT NULL
           AND EXISTS (SELECT 1 FROM matches WHERE content_hash = NEW.content_hash);
       END""",
    "match_heads_insert": f"""CREATE TRIGGER match_heads_insert BEFORE INSERT ON match_heads
       WHEN EXISTS (SELECT 1 FROM match_heads WHERE match_id = NEW.match_id)
         OR NOT {_CONSISTENT}
       BEGIN SELECT RAISE(ABORT, 'a match head names its match''s last event: INSERT refused');
       END""",
    "match_heads_update": f"""CREATE TRIGGER match_heads_update BEFORE UPDATE ON match_heads
       WHEN NEW.match_id IS NOT OLD.match_id OR NEW.events <= OLD.events
         OR NOT {_CONSISTENT}
       BEGIN SELECT RAISE(ABORT, 'a match head only moves forward, to its last event: UPDATE refused');
       END""",
    "match_heads_no_delete": """CREATE TRIGGER match_heads_no_delete BEFORE DELETE ON match_heads
       BEGIN SELECT RAISE(ABORT, 'match heads are kept for good: DELETE refused'); END""",
}

PG_TRIGGERS = {
    "match_heads_forward": (f"""CREATE FUNCTION ledger_head_forward() RETURNS trigger
       LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP = 'UPDATE' AND (NEW.match_id <> OLD.match_id OR NEW.events <= OLD.events)
         THEN
           RAISE EXCEPTION 'a match head only moves forward: UPDATE refused';
         END IF;
         IF NOT {_CONSISTENT} THEN
           RAISE EXCEPTION 'a match head names its match''s last event: % refused', TG_OP;
         END IF;
         RETURN NEW;
       END $$""",
                            """CREATE TRIGGER match_heads_forward BEFORE INSERT OR UPDATE
       ON match_heads FOR EACH ROW EXECUTE FUNCTION ledger_head_forward()"""),
    "match_heads_no_delete": ("""CREATE TRIGGER match_heads_no_delete BEFORE DELETE ON match_heads
       FOR EACH ROW EXECUTE FUNCTION ledger_refuse('match heads are kept for good')""",),
    "match_heads_no_truncate": ("""CREATE TRIGGER match_heads_no_truncate BEFORE TRUNCATE
       ON match_heads FOR EACH STATEMENT
       EXECUTE FUNCTION ledger_refuse('match heads are kept for good')""",),
}

# Every stored match's head as its events stand now (before the guards: one statement).
_FILL = """INSERT INTO match_heads (match_id, events, head_hash)
  SELECT m.id, COALESCE(last.seq + 1, 0), last.hash FROM matches m
  LEFT JOIN events last ON last.match_id = m.id
   AND last.seq = (SELECT max(seq) FROM events WHERE match_id = m.id)"""


def upgrade() -> None:
    op.create_table(
        "match_heads",
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("events", sa.Integer, nullable=False),
        sa.Column("head_hash", sa.LargeBinary(32), nullable=True),
    )
    op.execute(_FILL)
    if op.get_context().dialect.name == "postgresql":
        for statements in PG_TRIGGERS.values():
            for statement in statements:
                op.execute(statement)
    else:
        for statement in SQLITE_TRIGGERS.values():
            op.execute(statement)


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        for name in PG_TRIGGERS:
            op.execute(f"DROP TRIGGER {name} ON match_heads")
        op.execute("DROP FUNCTION ledger_head_forward()")
    else:
        for name in SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER {name}")
    op.drop_table("match_heads")
