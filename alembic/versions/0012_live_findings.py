"""A live match's findings are the audit of its line (issue 29: live equals import).

Before, a live match kept the warnings of each append's step only; now each append
stores what ``audit`` gives for the match's export: the standing line walked again, so
a reveal judges the passes and draws made before it. Every live match gets them here,
once (``ledger/store/log/verify.py::live_fold``, what ``verify`` compares them with), with
``ok``, ``errors`` and ``warnings`` (and the players' totals of faulty matches with
``ok``); one that cannot be folded keeps what it had. The events are not touched (the
findings are not guarded by the triggers of 0001 and 0004).
Going down puts back each step's warnings, the form of before.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

BATCH = 200  # matches read at a time: memory stays flat on a large ledger

# The columns as this revision knows them (not the models, which follow the newest).
MATCHES = sa.table("matches", sa.column("id", sa.Integer), sa.column("origin", sa.String),
                   sa.column("preset", sa.String), sa.column("seats", sa.JSON),
                   sa.column("options", sa.JSON), sa.column("source", sa.JSON),
                   sa.column("started_at", sa.String), sa.column("findings", sa.JSON),
                   sa.column("ok", sa.Boolean), sa.column("errors", sa.Integer),
                   sa.column("warnings", sa.Integer))
TOTALS = sa.table("player_totals", sa.column("name", sa.String),
                  sa.column("faulty", sa.Integer))
EVENTS = sa.table("events", sa.column("match_id", sa.Integer), sa.column("seq", sa.Integer),
                  sa.column("recorded_index", sa.Integer), sa.column("kind", sa.String),
                  sa.column("type", sa.String), sa.column("payload", sa.Text))

Fold = Callable[[Any, Sequence[Any]], list[dict[str, Any]]]


def _live(conn: sa.Connection) -> Iterator[Any]:
    ids = list(conn.execute(sa.select(MATCHES.c.id).where(MATCHES.c.origin == "live")
                            .order_by(MATCHES.c.id)).scalars())
    for start in range(0, len(ids), BATCH):
        yield from conn.execute(sa.select(MATCHES).where(
            MATCHES.c.id.in_(ids[start:start + BATCH])).order_by(MATCHES.c.id))


def _rewrite(fold: Fold) -> None:
    import orjson

    from ledger.store.log.mapper import Header

    conn = op.get_bind()
    for m in _live(conn):
        rows = list(conn.execute(
            sa.select(EVENTS.c.recorded_index, EVENTS.c.kind, EVENTS.c.type,
                      EVENTS.c.payload)
            .where(EVENTS.c.match_id == m.id).order_by(EVENTS.c.seq)))
        try:
            findings = orjson.loads(orjson.dumps(fold(Header.of_row(m), rows)))
        except Exception:  # a match that cannot be folded keeps its findings as they were
            continue
        errors = sum(1 for f in findings if f.get("severity") == "error")
        if findings != list(m.findings or ()) or m.errors != errors:
            conn.execute(sa.update(MATCHES).where(MATCHES.c.id == m.id).values(
                findings=findings, ok=errors == 0, errors=errors,
                warnings=len(findings) - errors))
            if bool(m.ok) != (errors == 0):
                _count_faulty(conn, m.seats, 1 if errors else -1)


def _count_faulty(conn: sa.Connection, seats: Sequence[str], by: int) -> None:
    """The players' totals count each faulty match once per player (``computed.py``)."""
    from ledger.store.log.mapper import text_safe

    for name in sorted({text_safe(n) for n in seats}):
        conn.execute(sa.update(TOTALS).where(TOTALS.c.name == name)
                     .values(faulty=TOTALS.c.faulty + by))


def _audited(header: Any, rows: Sequence[Any]) -> list[dict[str, Any]]:
    from ledger.store.log.verify import live_fold

    return live_fold(header, list(rows))[1]


def _steps_warnings(header: Any, rows: Sequence[Any]) -> list[dict[str, Any]]:
    """Each recorded event's step warnings, undone ones too: what 0009's appends kept."""
    import orjson

    from ledger.corrections import UNDO
    from ledger.engine import State
    from ledger.rules import make_rules
    from ledger.store.log.mapper import event_of, finding_json
    from ledger.walk import step

    state = State(make_rules(header.preset, len(header.seats), header.options))
    before: list[State] = []
    out: list[dict[str, Any]] = []
    for r in rows:
        if r.kind == "derived":
            continue
        if r.type == UNDO and r.kind == "recorded":
            if before:
                state = before.pop()
            continue
        ev = event_of(r.kind, r.payload, len(header.seats))
        if ev is None:
            continue
        before.append(state)
        result = step(state, ev, r.recorded_index)
        out += [finding_json(f) for f in result.findings]
        state = result.state
    return list(orjson.loads(orjson.dumps(out)))


def upgrade() -> None:
    _rewrite(_audited)


def downgrade() -> None:
    _rewrite(_steps_warnings)
