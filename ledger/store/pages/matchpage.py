"""One stored match as the match and replay pages read it, from the store's tables.

Everything a page shows is read off what the store keeps: the recorded events
(an unreadable one stays ``None``), the derived events next to them, the
audit's findings, and the snapshot of the fold at the start of each deal, so a
replay frame folds only the events of its own deal.

The findings come as the store keeps them, each with its phrase (template and
parameters), so a page words them in any language without auditing again.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import bindparam, case, exists, select
from sqlalchemy.engine import Connection

from ledger.corrections import UNDO, standing
from ledger.events import Event
from ledger.findings import Finding
from ledger.formats.wire import MatchHeader
from ledger.replay import ReplayMatch, Snapshot, deal_span
from ledger.rules.base import Rules
from ledger.scoresheet import ScoreSheet, build_sheet
from ledger.store.errors import MatchNotFound
from ledger.store.log.heads import Head
from ledger.store.log.mapper import Header, event_of
from ledger.store.log.snapshots import VERSION, decode
from ledger.store.models import ANALYSES, EVENTS, HEADS, MATCHES, SNAPSHOTS
from ledger.store.pages.readmodels import rules_of


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
    analysed: bool = False   # whether the ledger keeps an analysis of any of its deals

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
    m = conn.execute(_MATCH, {"match": match_id}).one_or_none()
    if m is None:
        raise MatchNotFound(match_id)
    header = Header.of_row(m)
    rules = rules_of(header)
    head = None if m.head_events is None else Head(
        int(m.head_events), None if m.head_hash is None else bytes(m.head_hash))
    source = _source(conn, match_id, len(header.seats), head)
    types = source.types
    findings = tuple(Finding.from_dict(f) for f in (m.findings or ()))
    snapshot: Snapshot | None = None
    if everything or rules is None:
        start, stop = 0, len(types)
    elif step is None:
        start = stop = 0
    else:
        # Step 0 shows the list of the first deal's events, so those are read too.
        start, stop = deal_span(types, max(step, 1))
        snapshot = _snapshot(conn, source, match_id, rules, step)
        # Without a snapshot the fold starts at the first event; with one, at its deal
        # event (so that a partial record's hands can be worked out as the audit does).
        start = 0 if snapshot is None else min(start, snapshot.index - 1)
    loaded = source.window(conn, match_id, start, stop)
    replay = (ReplayMatch.windowed(rules, header.seats, types, start, loaded, findings,
                                   source.derived) if rules is not None else None)
    return StoredMatch(
        id=m.id, header=header, rules=rules, origin=m.origin, status=m.status, ok=m.ok,
        errors=m.errors, warnings=m.warnings, findings=findings, created_at=m.created_at,
        imported_from=m.imported_from, types=types, derived=source.derived, replay=replay,
        snapshot=snapshot, analysed=bool(m.analysed))


@dataclass(slots=True)
class _Source:
    """A match's standing line as its head names it: what every page of it reads (the
    types, the derived events) and, filled as pages ask, the recorded events of a window
    parsed and the snapshots decoded (rows never change once written)."""

    seats: int
    types: tuple[str, ...]                   # of each standing recorded event
    kinds: tuple[str, ...]                   # recorded or unread
    seqs: tuple[int, ...]                    # the row of each standing recorded event
    derived: tuple[tuple[Event, ...], ...]
    deals: tuple[int, ...]                   # the deal events' indexes
    windows: dict[tuple[int, int], tuple[Event | None, ...]] = field(default_factory=dict)
    # The snapshot a step folds from (None: none), decoded once, by how many deal events
    # come before the step: snapshots are taken at deal events only, so every step of a
    # deal has the same one.
    snapshots: dict[int, Snapshot | None] = field(default_factory=dict)

    def window(self, conn: Connection, match_id: int, start: int, stop: int
               ) -> tuple[Event | None, ...]:
        """The recorded events ``[start, stop)`` parsed (their payloads read only now)."""
        if start >= stop:
            return ()
        kept = self.windows.get((start, stop))
        if kept is not None:
            return kept
        seqs = self.seqs[start:stop]
        payloads = dict(conn.execute(_PAYLOADS, {"match": match_id, "first": seqs[0],
                                                 "last": seqs[-1]}).all())
        loaded = tuple(event_of(kind, payloads[seq], self.seats)
                       for kind, seq in zip(self.kinds[start:stop], seqs, strict=True))
        if len(self.windows) < WINDOWS:
            self.windows[(start, stop)] = loaded
        return loaded


# Built once (bound at each call): SQLAlchemy builds and keys a statement per call otherwise,
# a good part of a replay step's time spent in its five small queries.
# The match with its head: one query, not two.
_MATCH = (select(MATCHES, HEADS.c.events.label("head_events"),
                 HEADS.c.head_hash.label("head_hash"),
                 exists().where(ANALYSES.c.match_id == MATCHES.c.id).label("analysed"))
          .select_from(MATCHES.outerjoin(HEADS, HEADS.c.match_id == MATCHES.c.id))
          .where(MATCHES.c.id == bindparam("match")))
_LINE = (select(EVENTS.c.seq, EVENTS.c.recorded_index, EVENTS.c.kind, EVENTS.c.type,
                case((EVENTS.c.kind == "derived", EVENTS.c.payload), else_=None))
         .where(EVENTS.c.match_id == bindparam("match"), EVENTS.c.seq < bindparam("upto"))
         .order_by(EVENTS.c.seq))
_PAYLOADS = select(EVENTS.c.seq, EVENTS.c.payload).where(
    EVENTS.c.match_id == bindparam("match"), EVENTS.c.seq >= bindparam("first"),
    EVENTS.c.seq <= bindparam("last"))
_SNAPSHOT = (select(SNAPSHOTS.c.recorded_index, SNAPSHOTS.c.state)
             .where(SNAPSHOTS.c.match_id == bindparam("match"),
                    SNAPSHOTS.c.version == bindparam("version"),
                    SNAPSHOTS.c.recorded_index < bindparam("step"))
             .order_by(SNAPSHOTS.c.recorded_index.desc()).limit(1))

# Matches whose standing line is kept in this process, and windows kept per match: a
# replay's steps ask for the same match and deal again and again (its head says whether
# what is kept still holds: a hash names the whole chain up to it).
SIZE = 512
WINDOWS = 64
_kept: OrderedDict[tuple[str, int], tuple[Head, _Source]] = OrderedDict()
_lock = threading.Lock()


def _source(conn: Connection, match_id: int, seats: int, head: Head | None) -> _Source:
    """The match's standing line (``head``: as the ledger's head names it, read with the
    match), read once per head in this process."""
    key = (str(conn.engine.url), match_id)
    if head is not None:
        with _lock:
            found = _kept.get(key)
            if found is not None and found[0] == head:
                _kept.move_to_end(key)
                return found[1]
    # The rows the head names (a later append is not its); payloads of derived rows only.
    bound = {"match": match_id, "upto": (1 << 62) if head is None else head.events}
    rows = standing(conn.execute(_LINE, bound).all(), lambda r: int(r[1]),
                    lambda r: r[3] == UNDO and r[2] == "recorded")
    recorded = [r for r in rows if r[2] != "derived"]
    derived: list[list[Event]] = [[] for _ in recorded]
    for r in rows:
        if r[2] == "derived" and 0 <= r[1] < len(derived):
            ev = event_of("derived", r[4], seats)
            if ev is not None:
                derived[r[1]].append(ev)
    types = tuple("" if r[2] == "unread" else str(r[3]) for r in recorded)
    source = _Source(seats, types, tuple(str(r[2]) for r in recorded),
                     tuple(int(r[0]) for r in recorded), tuple(tuple(d) for d in derived),
                     tuple(i for i, t in enumerate(types) if t == "deal"))
    if head is not None:
        with _lock:
            _kept[key] = (head, source)
            _kept.move_to_end(key)
            while len(_kept) > SIZE:
                _kept.popitem(last=False)
    return source


def _snapshot(conn: Connection, source: _Source, match_id: int, rules: Rules, step: int
              ) -> Snapshot | None:
    """The store's snapshot that lets the frame at ``step`` fold only its own deal.

    The store takes one just after each deal event; the one of the deal on the table
    at ``step`` (its deal event is the last one before the step) is it. Read and decoded
    once per deal of a kept match (the fold copies the state it starts from).
    """
    if step <= 0:
        return None
    deals = bisect_left(source.deals, step)
    if deals not in source.snapshots:
        row = conn.execute(_SNAPSHOT, {"match": match_id, "version": VERSION, "step": step}
                           ).one_or_none()
        source.snapshots[deals] = None if row is None else Snapshot(
            int(row.recorded_index) + 1, decode(row.state, rules))
    return source.snapshots[deals]
