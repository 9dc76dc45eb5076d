"""One stored match as the match and replay pages read it, from the store's tables.

Everything a page shows is read off what the store keeps: the recorded events
(an unreadable one stays ``None``), the derived events next to them, the
audit's findings, and the snapshot of the fold at the start of each deal, so a
replay frame folds only the events of its own deal.

The findings come as the store keeps them, each with its phrase (template and
parameters), so a page words them in any language without auditing again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.engine import Connection

from ledger.corrections import standing_rows
from ledger.events import Event
from ledger.findings import Finding
from ledger.formats.wire import MatchHeader
from ledger.replay import ReplayMatch, Snapshot, deal_span
from ledger.rules.base import Rules
from ledger.scoresheet import ScoreSheet, build_sheet
from ledger.store.errors import MatchNotFound
from ledger.store.mapper import Header, event_of
from ledger.store.models import EVENTS, MATCHES, SNAPSHOTS
from ledger.store.readmodels import rules_of
from ledger.store.snapshots import VERSION, decode


class ReplayUnavailable(ValueError):
    """The match's table has no rules the ledger knows, so it cannot be replayed."""

    def __init__(self, match_id: int, preset: str) -> None:
        super().__init__(f"match {match_id} is played at a table the ledger does not know "
                         f"({preset!r}), so it cannot be replayed")
        self.match_id = match_id
        self.preset = preset


@dataclass(frozen=True, slots=True)
class StoredMatch:
    id: int
    header: Header
    rules: Rules | None
    origin: str
    status: str
    ok: bool
    errors: int
    warnings: int
    findings: tuple[Finding, ...]
    created_at: datetime
    imported_from: str | None
    types: tuple[str, ...]       # each recorded event's type ("" for an unreadable one)
    derived: tuple[tuple[Event, ...], ...]
    replay: ReplayMatch | None   # None when the table has no rules (an unknown preset)
    snapshot: Snapshot | None = None   # where the fold of the loaded deal starts

    @property
    def wire_header(self) -> MatchHeader:
        h = self.header
        return MatchHeader(h.preset, dict(h.options), tuple(h.seats), h.source, h.started_at)

    @property
    def title(self) -> str:
        """The players as the match pits them: "Ali vs Omar", "Ali & Layla vs Omar & Rania"."""
        seats = self.header.seats
        if self.rules is not None and self.rules.teams:
            return " vs ".join(" & ".join(seats[s] for s in self.rules.side_seats(i))
                               for i in range(self.rules.sides))
        return " vs ".join(seats)

    def sheet(self) -> ScoreSheet:
        derived = [d for evs in self.derived for d in evs]
        return build_sheet(self.wire_header, derived, self.findings, rules=self.rules,
                           match_id=str(self.id))


def load_match(conn: Connection, match_id: int, step: int | None = None,
               everything: bool = False) -> StoredMatch:
    """A stored match with the recorded events a page needs parsed, and no more.

    ``step``: the events of the deal on the table at that step (from the snapshot
    the fold starts at, or from the first event when there is none); ``everything``:
    all of them; neither: none (the match page reads only what the rules derived).
    The findings come with their phrases, to be worded in any language.
    """
    m = conn.execute(select(MATCHES).where(MATCHES.c.id == match_id)).one_or_none()
    if m is None:
        raise MatchNotFound(match_id)
    header = Header.of_row(m)
    seats = len(header.seats)
    rules = rules_of(header)
    # The corrected line: undos and the events they took back stay in the history only.
    rows = standing_rows(list(conn.execute(
        select(EVENTS.c.recorded_index, EVENTS.c.kind, EVENTS.c.type, EVENTS.c.payload)
        .where(EVENTS.c.match_id == match_id).order_by(EVENTS.c.seq))))
    recorded = [r for r in rows if r.kind != "derived"]
    types = tuple("" if r.kind == "unread" else str(r.type) for r in recorded)
    derived: list[list[Event]] = [[] for _ in recorded]
    for r in rows:
        if r.kind == "derived" and 0 <= r.recorded_index < len(derived):
            ev = event_of(r.kind, r.payload, seats)
            if ev is not None:
                derived[r.recorded_index].append(ev)
    findings = tuple(Finding.from_dict(f) for f in (m.findings or ()))
    snapshot: Snapshot | None = None
    if everything or rules is None:
        start, stop = 0, len(recorded)
    elif step is None:
        start = stop = 0
    else:
        # Step 0 shows the list of the first deal's events, so those are read too.
        start, stop = deal_span(types, max(step, 1))
        snapshot = _snapshot(conn, match_id, rules, step)
        # Without a snapshot the fold starts at the first event; with one, at its deal
        # event (so that a partial record's hands can be worked out as the audit does).
        start = 0 if snapshot is None else min(start, snapshot.index - 1)
    loaded = [event_of(r.kind, r.payload, seats) for r in recorded[start:stop]]
    replay = (ReplayMatch.windowed(rules, header.seats, types, start, loaded, findings,
                                   derived) if rules is not None else None)
    return StoredMatch(
        id=m.id, header=header, rules=rules, origin=m.origin, status=m.status, ok=m.ok,
        errors=m.errors, warnings=m.warnings, findings=findings, created_at=m.created_at,
        imported_from=m.imported_from, types=types,
        derived=tuple(tuple(d) for d in derived), replay=replay, snapshot=snapshot)


def _snapshot(conn: Connection, match_id: int, rules: Rules, step: int) -> Snapshot | None:
    """The store's snapshot that lets the frame at ``step`` fold only its own deal.

    The store takes one just after each deal event; the one of the deal on the table
    at ``step`` (its deal event is the last one before the step) is it.
    """
    if step <= 0:
        return None
    row = conn.execute(
        select(SNAPSHOTS.c.recorded_index, SNAPSHOTS.c.state)
        .where(SNAPSHOTS.c.match_id == match_id, SNAPSHOTS.c.version == VERSION,
               SNAPSHOTS.c.recorded_index < step)
        .order_by(SNAPSHOTS.c.recorded_index.desc()).limit(1)).one_or_none()
    if row is None:
        return None
    return Snapshot(row.recorded_index + 1, decode(row.state, rules))
