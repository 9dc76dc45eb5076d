"""``verify``: re-hash every chain and re-fold every match; name the first broken event.

Re-hashing finds a row changed, removed, inserted or reordered behind the
app's back (and a changed match header, which the chain starts from).
Re-folding finds derived events or findings that the rules do not give for
the recorded events any more: a derived row edited together with its hash
chain, or an engine that changed its mind since the match was stored.
The match's head (its event count and last hash, ``heads.py``) finds a tail
removed, and the read models computed again from the events find a summary or
score sheet row edited; the players' totals are summed again from every match
(when all are verified). A match that cannot be checked at all (a payload that
is not JSON, a database error reading it) is reported as that match's problem; the
others are checked still (on PostgreSQL each match in a savepoint of its own: an
error aborts only that).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import inspect, null, select
from sqlalchemy.engine import Connection

from ledger.audit import audit_events
from ledger.corrections import UNDO, Undo
from ledger.engine import State, new_state
from ledger.events import Event
from ledger.formats.reader import parse_match
from ledger.rules import make_rules
from ledger.store.imports.importer import prepare, safe_audit
from ledger.store.log import sealed
from ledger.store.log.hashing import content_hash, event_hash, genesis, stamp
from ledger.store.log.heads import Head, read_head
from ledger.store.log.mapper import Header, event_of, finding_json, match_object, payload_of
from ledger.store.models import ANALYSES, EVENTS, HEADS, MATCHES, PLAYER_TOTALS, SUMMARIES
from ledger.store.pages import readmodels
from ledger.walk import step


@dataclass(frozen=True, slots=True)
class Broken:
    code: str
    message: str
    seq: int | None = None
    index: int | None = None
    type: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "seq": self.seq,
                "event": self.index, "type": self.type}


@dataclass(frozen=True, slots=True)
class Verified:
    match_id: int
    rows: int
    broken: Broken | None = None

    @property
    def ok(self) -> bool:
        return self.broken is None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.match_id, "ok": self.ok, "rows": self.rows,
                "broken": None if self.broken is None else self.broken.to_dict()}

    def describe(self) -> str:
        if self.broken is None:
            return f"match {self.match_id}: ok ({self.rows} events)"
        b = self.broken
        if self.match_id == 0:  # the players' totals, summed over every match
            return f"player totals: BROKEN: {b.message} [{b.code}]"
        where = "" if b.seq is None else (f" at event {b.seq}" + (
            f" (recorded event {b.index}, {b.type})" if b.index is not None else ""))
        return f"match {self.match_id}: BROKEN{where}: {b.message} [{b.code}]"


def verify(conn: Connection, match_id: int | None = None) -> Iterator[Verified]:
    """Verify one match, or every match in id order (then, when every match holds, the
    players' totals too: a last ``Verified`` with ``match_id`` 0, only when broken)."""
    q = select(MATCHES.c.id).order_by(MATCHES.c.id)
    if match_id is not None:
        q = q.where(MATCHES.c.id == match_id)
    have = set(inspect(conn).get_table_names())  # a schema of before 0004 has no heads
    models = SUMMARIES.name in have
    salts = _salted(conn)
    sealed = _sealed(conn)
    # None: a match is broken, which it says itself; the sums over it would say it again.
    totals: dict[str, Counter[str]] | None = {}
    for mid in [r.id for r in conn.execute(q)]:
        checked, model = _apart(conn, mid, HEADS.name in have, models, (salts, sealed))
        if model is _UNREAD or not checked.ok:
            totals = None
        elif totals is not None and model is not None:
            for name, c in model.totals.items():
                totals.setdefault(name, Counter()).update(c)
        yield checked
    if match_id is None and models and totals is not None and PLAYER_TOTALS.name in have:
        broken = _totals(conn, totals)
        if broken is not None:
            yield Verified(0, 0, broken)


_UNREAD = readmodels.ReadModel(0, {})  # a match whose read model cannot be computed


def _apart(conn: Connection, match_id: int, heads: bool, read_models: bool,
           schema: tuple[bool, bool]) -> tuple[Verified, readmodels.ReadModel | None]:
    """One match verified on its own, and its read model from its events (for the
    players' totals). On PostgreSQL an error aborts the transaction it happens in, so
    each match has a savepoint, rolled back after it (nothing is written)."""
    savepoint = conn.begin_nested() if conn.dialect.name == "postgresql" else None
    try:
        checked = verify_match(conn, match_id, heads=heads, read_models=read_models,
                               salts=schema[0], seals=schema[1])
        if not read_models:
            return checked, None
        try:
            return checked, readmodels.load(conn, match_id)
        except Exception:  # said by verify_match, as that match's problem
            return checked, _UNREAD
    finally:
        if savepoint is not None:
            savepoint.rollback()


def _totals(conn: Connection, want: dict[str, Counter[str]]) -> Broken | None:
    """player_totals against the sums of every match's contribution from its events."""
    have = {r.name: r for r in conn.execute(select(PLAYER_TOTALS))}
    for name in sorted(set(have) | set(want)):
        row, c = have.get(name), want.get(name, Counter())
        for key in readmodels.TOTALS:
            stored = 0 if row is None else int(getattr(row, key))
            if stored != c[key]:
                return Broken("totals-mismatch", f"player_totals.{key} of {name!r} holds "
                              f"{stored}, the matches' events give {c[key]}")
    return None


def _salted(conn: Connection) -> bool:
    """Whether the events hold salts (a schema of before 0010 has none)."""
    return "salt" in {c["name"] for c in inspect(conn).get_columns(EVENTS.name)}


def _sealed(conn: Connection) -> bool:
    """Whether the rows beside the events are sealed (a schema of before 0011 has none)."""
    look = inspect(conn)
    return (ANALYSES.name in look.get_table_names()
            and "seal" in {c["name"] for c in look.get_columns(ANALYSES.name)})


def verify_match(conn: Connection, match_id: int, heads: bool = True,
                 read_models: bool = True, salts: bool | None = None,
                 seals: bool | None = None) -> Verified:
    rows: list[Any] = []
    salt = EVENTS.c.salt if (_salted(conn) if salts is None else salts) else null()
    try:
        m = conn.execute(select(MATCHES).where(MATCHES.c.id == match_id)).one()
        rows = list(conn.execute(
            select(EVENTS.c.seq, EVENTS.c.recorded_index, EVENTS.c.kind, EVENTS.c.type,
                   EVENTS.c.payload, EVENTS.c.recorded_at, EVENTS.c.prev_hash, EVENTS.c.hash,
                   salt.label("salt"))
            .where(EVENTS.c.match_id == match_id).order_by(EVENTS.c.seq, EVENTS.c.id)))
        header = Header.of_row(m)
        head = read_head(conn, match_id) if heads else None
        broken = (_rehash(header, rows) or (heads and _head_count(head, rows))
                  or _payloads(rows) or _refold(m, header, rows) or _head_hash(head, rows)
                  or (read_models and _read_models(conn, m, header))
                  or ((_sealed(conn) if seals is None else seals) and _seals(conn, m, rows))
                  or None)
    except Exception as exc:  # one match that cannot be checked must not stop the others
        broken = Broken("unreadable", "the match cannot be checked: "
                        f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
    return Verified(match_id, len(rows), broken)


def _rehash(header: Header, rows: list[Any]) -> Broken | None:
    prev = genesis(header.canonical())
    for expected, r in enumerate(rows):
        where = {"seq": r.seq, "index": r.recorded_index, "type": r.type}
        if r.seq < expected:
            return Broken("duplicate-event", f"event {r.seq} is stored twice: a second row "
                          "with its sequence number was added", **where)
        if r.seq != expected:
            jump = (f"the first event stored is {r.seq}" if expected == 0 else
                    f"the sequence jumps from {expected - 1} to {r.seq}")
            return Broken("missing-event", f"event {expected} is missing: {jump}", **where)
        if bytes(r.prev_hash) != prev:
            why = ("it does not follow from the match's header: the header was changed"
                   if expected == 0 else
                   "it does not follow the event before it: a row was removed, inserted "
                   "or rewritten before it")
            return Broken("chain-broken", why, **where)
        digest = event_hash(prev, r.seq, r.recorded_index, r.kind, r.type,
                            stamp(r.recorded_at), r.payload,
                            None if r.salt is None else bytes(r.salt))
        if digest != bytes(r.hash):
            return Broken("hash-mismatch", "its content does not match its hash: it was "
                          "changed after it was written", **where)
        prev = digest
    return None


def _seals(conn: Connection, m: Any, rows: list[Any]) -> Broken | None:
    """The analyses, reviews, snapshots and key of a match whose chain holds: every row
    whose seal fails is named (``sealed.py``), under the first one's code."""
    found = sealed.problems(conn, m, [bytes(r.hash) for r in rows])
    if not found:
        return None
    return Broken(found[0].code, "; ".join(f"{p.message} ({p.code})" if i else p.message
                                           for i, p in enumerate(found)))


def _head_count(head: Head | None, rows: list[Any]) -> Broken | None:
    """The events against the head written with them: a tail removed, or rows added."""
    if head is None:
        return Broken("head-missing", "the match has no head (its event count and last "
                      "hash, written with its events): it was removed")
    if len(rows) < head.events:
        return Broken("truncated", f"the match's head counts {head.events} events but only "
                      f"{len(rows)} are stored: events {len(rows)} to {head.events - 1} were "
                      "removed", seq=len(rows))
    if len(rows) > head.events:
        r = rows[head.events]
        return Broken("beyond-head", f"the match's head counts {head.events} events but "
                      f"{len(rows)} are stored: the events from {head.events} on were added "
                      "behind the ledger's back", r.seq, r.recorded_index, r.type)
    return None


def _head_hash(head: Head | None, rows: list[Any]) -> Broken | None:
    # After the refold: a chain rewritten from some event on is named there, by the rules.
    last = bytes(rows[-1].hash) if rows else None
    if head is not None and last != head.hash:
        return Broken("head-mismatch", "the last event's hash is not the one the match's "
                      "head holds: the tail was rewritten", seq=len(rows) - 1 if rows else None)
    return None


def _payloads(rows: list[Any]) -> Broken | None:
    """Every payload is JSON (an edited one that was hashed again may not be)."""
    for r in rows:
        try:
            orjson.loads(r.payload)
        except orjson.JSONDecodeError as exc:
            return Broken("bad-payload", f"its payload is not JSON ({exc}): it was changed "
                          "after it was written", r.seq, r.recorded_index, r.type)
    return None


def _read_models(conn: Connection, m: Any, header: Header) -> Broken | None:
    """The summary and score sheet rows as stored against those the events give."""
    want = readmodels.load(conn, m.id)
    have = readmodels.stored(conn, m.id, header, m.ok)
    if want is None or have is None:
        if want is have:
            return None
        return Broken("read-model-mismatch", "match_summaries has no row for the match"
                      if have is None else "match_summaries has a row for a match without "
                      "events")
    for key, value in want.summary.items():
        stored = have.summary.get(key)
        if _plain(stored) != _plain(value):
            return Broken("read-model-mismatch", f"match_summaries.{key} holds {stored!r}, "
                          f"the events give {value!r}")
    deals = {d["deal"]: d for d in have.deals}
    for d in want.deals:
        row = deals.pop(d["deal"], None)
        if row is None:
            return Broken("read-model-mismatch", f"deal_rows lacks deal {d['deal']}",
                          seq=d["seq"])
        for key, value in d.items():
            if _plain(row.get(key)) != _plain(value):
                return Broken("read-model-mismatch", f"deal_rows.{key} of deal {d['deal']} "
                              f"holds {row.get(key)!r}, the events give {value!r}",
                              seq=d["seq"])
    if deals:
        return Broken("read-model-mismatch", f"deal_rows holds deal {min(deals)}, which "
                      "the events do not score")
    return None


def _plain(value: object) -> object:
    """A value as compared: a blob as bytes whatever the driver hands back."""
    return bytes(value) if isinstance(value, (bytes, memoryview, bytearray)) else value


def _refold(m: Any, header: Header, rows: list[Any]) -> Broken | None:
    stored = [(r.seq, r.recorded_index, r.kind, r.type, r.payload) for r in rows]
    if m.origin == "live":
        expected, findings = live_fold(header, rows)
    else:
        obj = match_object(header, [(r.kind, r.payload) for r in rows])
        record = parse_match(obj)
        if m.content_hash is not None:
            recorded = [r.payload for r in rows if r.kind != "derived"]
            if content_hash(header.canonical(), recorded) != bytes(m.content_hash):
                return Broken("content-mismatch", "the match's content hash does not match "
                              "its header and recorded events")
        report = safe_audit(record)
        prep = prepare(record, report)
        assert prep is not None
        expected = [(r.seq, r.recorded_index, r.kind, r.type, r.payload) for r in prep.rows]
        findings = [finding_json(f) for f in report.findings]
    for have, want in zip(stored, expected, strict=False):
        if have != want:
            seq, index, kind, type_, _ = have
            return Broken("fold-mismatch", f"the rules give {want[2]} {want[3]} "
                          f"{want[4]} here, the ledger holds {kind} {type_} {have[4]}",
                          seq, index, type_)
    if len(stored) != len(expected):
        short = min(len(stored), len(expected))
        if len(stored) > len(expected):
            seq, index, kind, type_, _ = stored[short]
            return Broken("fold-mismatch", f"the rules derive nothing more, the ledger holds "
                          f"{kind} {type_}", seq, index, type_)
        seq, index, kind, type_, _ = expected[short]
        return Broken("fold-mismatch", f"the rules derive {type_} here, the ledger lacks it",
                      seq, index, type_)
    if list(m.findings) != findings:
        return Broken("findings-mismatch", "the audit's findings differ from those stored "
                      "with the match")
    return None


def live_fold(header: Header, rows: list[Any]) -> tuple[list[tuple[int, int, str, str, str]],
                                                        list[dict[str, object]]]:
    """A live match's rows and findings as the rules give them for its recorded rows."""
    rules = make_rules(header.preset, len(header.seats), header.options)
    state = new_state(rules)
    out: list[tuple[int, int, str, str, str]] = []
    seq = 0
    before: list[State] = []  # the state before each event standing (what an undo restores)
    line: list[Event] = []    # the events standing: what the match's export holds
    for r in rows:
        if r.kind == "derived":
            continue
        if r.type == UNDO and r.kind == "recorded":
            # An undo takes back the last event standing: ledger/corrections.py.
            undo = Undo(event=len(before) - 1, at=orjson.loads(r.payload).get("at"))
            out.append((seq, undo.event, "recorded", UNDO, payload_of(undo)))
            seq += 1
            if before:
                state = before.pop()
                line.pop()
            continue
        before.append(state)
        ev = event_of(r.kind, r.payload, len(header.seats))
        assert ev is not None
        line.append(ev)
        result = step(state, ev, r.recorded_index)
        out.append((seq, r.recorded_index, "recorded", ev.TYPE, payload_of(ev)))
        seq += 1
        for d in result.derived:
            out.append((seq, r.recorded_index, "derived", d.TYPE, payload_of(d)))
            seq += 1
        state = result.state
    # Live equals import: the findings are the audit's of the line, as live.py stores them.
    return out, [finding_json(f) for f in audit_events(rules, line).findings]
