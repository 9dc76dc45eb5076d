"""Live recording: start a match, then append events one at a time.

Each append is one transaction. The caller says which sequence number the
event takes (the match's ``next_seq`` as it last saw it); if someone else
appended first the store answers ``Conflict`` and nothing is written, and the
caller re-reads and retries. The unique (match, seq) constraint makes this
hold under any number of writers, on SQLite and PostgreSQL alike.

An event is folded strictly: the first error finding refuses it with the
rule's sentence (``IllegalEvent``) and nothing is stored. The rules' derived
events are stored right after it, in the same chain.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from ledger.corrections import (
    UNDO,
    CorrectionError,
    Undo,
    check_undo,
    is_undo,
    parse_undo,
    standing_rows,
)
from ledger.events import Dealt, Event
from ledger.findings import Finding, IllegalEvent
from ledger.formats.wire import FORMAT, ParseError, parse_event, parse_header
from ledger.rules import RulesError, make_rules
from ledger.store.db import write_connection
from ledger.store.errors import BadInput, Conflict, MatchClosed, MatchNotFound
from ledger.store.imports.importer import insert_rows
from ledger.store.log import heads, snapshots
from ledger.store.log.hashing import genesis
from ledger.store.log.mapper import Header, chain_rows, event_of, finding_json, payload_of
from ledger.store.models import EVENTS, MATCHES, SNAPSHOTS
from ledger.store.pages.readmodels import compute, load, replace_model, standing_derived, stored
from ledger.store.recording import keys
from ledger.store.recording.live_audit import Audited, audited
from ledger.store.recording.live_cache import LIVE, Kept
from ledger.store.recording.writer import in_whole_batch
from ledger.walk import step


@dataclass(frozen=True, slots=True)
class Appended:
    match_id: int
    seq: int
    index: int  # the event's position among the match's recorded events
    next_seq: int
    event: dict[str, Any]
    derived: tuple[dict[str, Any], ...]
    findings: tuple[Finding, ...]  # warnings (errors refuse the event)
    status: str


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass(frozen=True, slots=True)
class Started:
    match_id: int
    key: str   # the recorder key: shown once, the store keeps only its hash


def start_match(session: Session, header: Mapping[str, Any]) -> int:
    """Open a live match from a domino-match/1 header (no events); its ledger id."""
    return start_keyed(session, header).match_id


def start_keyed(session: Session, header: Mapping[str, Any], commit: bool = True) -> Started:
    """Open a live match and issue its recorder key, in one transaction (``commit=False``:
    in the caller's, which commits it: ledger/store/recording/writer.py)."""
    obj = {"format": FORMAT, **dict(header), "events": []}
    try:
        parsed = parse_header(obj)
        make_rules(parsed.preset, len(parsed.seats), parsed.options)
    except (ParseError, RulesError) as exc:
        raise BadInput(exc.code, exc.message) from None
    if header.get("events"):
        raise BadInput("bad-format", "a live match starts without events: append them one "
                       "at a time")
    values = {**Header.of(parsed).columns(), "origin": "live", "content_hash": None,
              "status": "recording", "ok": True, "errors": 0, "warnings": 0,
              "findings": [], "created_at": _now()}
    conn = write_connection(session)
    match_id = int(conn.execute(insert(MATCHES).returning(MATCHES.c.id), [values])
                   .scalar_one())
    heads.start(conn, match_id)
    key = keys.issue(conn, match_id)
    if commit:
        session.commit()
    return Started(match_id, key)


def rotate_key(session: Session, match_id: int) -> str:
    """A new recorder key for a live match: the one before it is refused from now on."""
    conn = write_connection(session)
    m = conn.execute(select(MATCHES.c.origin).where(MATCHES.c.id == match_id)).one_or_none()
    if m is None:
        raise MatchNotFound(match_id)
    if m.origin != "live":
        raise MatchClosed(f"match {match_id} was imported from a file; only live matches "
                          "have a recorder key")
    key = keys.issue(conn, match_id)
    session.commit()
    return key


def next_seq(session: Session, match_id: int) -> int:
    conn = session.connection()
    if conn.execute(select(MATCHES.c.id).where(MATCHES.c.id == match_id)).first() is None:
        raise MatchNotFound(match_id)
    last = conn.execute(select(EVENTS.c.seq).where(EVENTS.c.match_id == match_id)
                        .order_by(EVENTS.c.seq.desc()).limit(1)).scalar()
    return 0 if last is None else int(last) + 1


def append(session: Session, match_id: int, event: Mapping[str, Any] | Event,
           expected_seq: int | None = None, commit: bool = True) -> Appended:
    """Append one recorded event in one transaction (see the module's docstring).

    ``commit=False``: in a savepoint of the caller's transaction, which commits it with
    the other appends of its batch (ledger/store/recording/writer.py); a refused append rolls back
    its own savepoint only.
    """
    if not commit and in_whole_batch(session):  # an error redoes the batch a savepoint each
        return _append(session, match_id, event, expected_seq, commit=False)
    if not commit:
        try:
            with session.begin_nested():
                return _append(session, match_id, event, expected_seq, commit=False)
        except IntegrityError:
            seq = next_seq(session, match_id)
            raise Conflict(f"another event was appended to match {match_id} first; the "
                           f"next sequence number is now {seq}", seq) from None
    try:
        return _append(session, match_id, event, expected_seq)
    except IntegrityError:
        session.rollback()
        seq = next_seq(session, match_id)
        session.rollback()
        raise Conflict(f"another event was appended to match {match_id} first; the next "
                       f"sequence number is now {seq}", seq) from None
    except BaseException:
        session.rollback()
        raise


# Built once, bound at each append: SQLAlchemy otherwise builds and keys the statement
# again each time, a good part of an append's time in the writer's thread (issue 19).
_MATCH_LOCKED = select(MATCHES).where(MATCHES.c.id == bindparam("match")).with_for_update()
_LAST_EVENT = (select(EVENTS.c.seq, EVENTS.c.recorded_index, EVENTS.c.type, EVENTS.c.hash)
               .where(EVENTS.c.match_id == bindparam("match"))
               .order_by(EVENTS.c.seq.desc()).limit(1))


def _append(session: Session, match_id: int, event: Mapping[str, Any] | Event,
            expected_seq: int | None, commit: bool = True) -> Appended:
    conn = write_connection(session)
    # Appends to one match take turns: on PostgreSQL the match row's lock, on SQLite
    # BEGIN IMMEDIATE. Each then reads what the one before it committed, so a stale
    # seq is a Conflict here and never a wrong fold; the unique (match, seq)
    # constraint stays the last word.
    m = conn.execute(_MATCH_LOCKED, {"match": match_id}).one_or_none()
    if m is None:
        raise MatchNotFound(match_id)
    if m.origin != "live":
        raise MatchClosed(f"match {match_id} was imported from a file; only live matches "
                          "take new events")
    last = conn.execute(_LAST_EVENT, {"match": match_id}).one_or_none()
    header = Header.of_row(m)
    seq = 0 if last is None else last.seq + 1
    # Events are numbered along the corrected line: after the undo of event k, the
    # next event is event k again (ledger/corrections.py).
    index = 0 if last is None else last.recorded_index + (last.type != UNDO)
    if expected_seq is not None and expected_seq != seq:
        raise Conflict(f"match {match_id} is at sequence number {seq}, not {expected_seq}: "
                       "someone appended first; re-read it and retry", seq)
    ev = _event(event, len(header.seats), index)
    if isinstance(ev, Undo):
        return _undo(session, m, header, ev, seq, index, last, commit)
    ledger = conn.engine.url.render_as_string(hide_password=True)
    kept = None if last is None else LIVE.get(ledger, match_id, last.seq, last.hash)
    state = kept.state if kept is not None else snapshots.state_at(conn, match_id)
    assert state is not None
    result = step(state, ev, index)
    errors = [f for f in result.findings if f.severity == "error"]
    if errors:
        raise IllegalEvent(errors[0])
    warnings = [f for f in result.findings if f.severity == "warning"]
    items = [(index, "recorded", ev.TYPE, payload_of(ev))]
    items += [(index, "derived", d.TYPE, payload_of(d)) for d in result.derived]
    prev = genesis(header.canonical()) if last is None else last.hash
    rows = chain_rows(prev, seq, _now(), items, salted=True)
    # The events first: of two writers racing for this seq, the loser stops here.
    insert_rows(conn, match_id, rows)
    heads.advance(conn, match_id, rows[-1].seq + 1, rows[-1].hash)
    if isinstance(ev, Dealt):
        snapshots.add(conn, match_id, seq, index, result.state)
    status = "complete" if result.state.phase == "ended" else "recording"
    # (the rows above are in: read from the tables, the line holds this event already)
    line = kept.line + (ev,) if kept is not None else _line(conn, match_id, len(header.seats))
    audit = audited(state.rules, line, result.state, None if kept is None else kept.walked,
                    result.findings)
    ok = _store_findings(conn, m, audit, status)
    if kept is None:
        old, new = stored(conn, match_id, header, m.ok), load(conn, match_id)
        assert new is not None
        recorded = int(new.summary["events"])
        derived = tuple(standing_derived(conn, match_id, len(header.seats)))
    else:  # what the tables would give, from the append before and this one's rows
        old, recorded = kept.model, kept.recorded + 1
        derived = kept.derived + tuple((r.seq, d) for r, d in zip(rows[1:], result.derived,
                                                                    strict=True))
        # (``ok`` as the audit gives it now: the players' totals count a faulty match)
        new = compute(match_id, header, ok, recorded, rows[-1].seq, rows[-1].hash, derived)
    replace_model(conn, old, new)
    LIVE.put(ledger, match_id, Kept(rows[-1].seq, rows[-1].hash, result.state, recorded,
                                    derived, new, line, audit.walked))
    if commit:
        session.commit()
    return Appended(match_id, seq, index, rows[-1].seq + 1, _wire(rows[0].payload),
                    tuple(_wire(r.payload) for r in rows[1:]), tuple(warnings), status)


def _undo(session: Session, m: Any, header: Header, ev: Undo, seq: int, index: int,
          last: Any, commit: bool = True) -> Appended:
    """Store an undo: it takes back the last event standing (ledger/corrections.py)."""
    try:
        check_undo(ev.event, index)
    except CorrectionError as exc:
        raise BadInput(exc.code, exc.message) from None
    conn = write_connection(session)
    rows = chain_rows(last.hash, seq, _now(), [(ev.event, "recorded", UNDO, payload_of(ev))],
                      salted=True)
    insert_rows(conn, m.id, rows)
    heads.advance(conn, m.id, seq + 1, rows[-1].hash)
    # A snapshot of an undone deal no longer lies on the corrected line.
    conn.execute(delete(SNAPSHOTS).where(SNAPSHOTS.c.match_id == m.id,
                                         SNAPSHOTS.c.recorded_index >= ev.event))
    state = snapshots.state_at(conn, m.id)
    assert state is not None
    status = "complete" if state.phase == "ended" else "recording"
    _store_findings(conn, m, audited(state.rules, _line(conn, m.id, len(header.seats)), state),
                    status)
    old = stored(conn, m.id, header, m.ok)
    new = load(conn, m.id)
    assert new is not None
    replace_model(conn, old, new)
    if commit:
        session.commit()
    return Appended(m.id, seq, ev.event, seq + 1, _wire(rows[0].payload), (), (), status)


def _line(conn: Any, match_id: int, seats: int) -> tuple[Event, ...]:
    """The match's recorded events standing (the corrected line its export holds)."""
    rows = standing_rows(list(conn.execute(
        select(EVENTS.c.recorded_index, EVENTS.c.kind, EVENTS.c.type, EVENTS.c.payload)
        .where(EVENTS.c.match_id == match_id, EVENTS.c.kind != "derived")
        .order_by(EVENTS.c.seq))))
    return tuple(ev for r in rows if (ev := event_of(r.kind, r.payload, seats)) is not None)


def _store_findings(conn: Any, m: Any, audit: Audited, status: str) -> bool:
    """Store the match's findings as ``audit`` gives them for its export (live equals
    import); whether it is ok now."""
    findings = orjson.loads(orjson.dumps([finding_json(f) for f in audit.findings]))
    errors = sum(1 for f in audit.findings if f.severity == "error")
    # (changed at most appends while the match is open: "match-unfinished" names the last
    # event, as the audit of the export does)
    if findings != list(m.findings) or status != m.status:
        conn.execute(_SET_FINDINGS, {"match": m.id, "status": status, "ok": errors == 0,
                                     "errors": errors, "warnings": len(findings) - errors,
                                     "findings": findings})
    return errors == 0


_SET_FINDINGS = update(MATCHES).where(MATCHES.c.id == bindparam("match")).values(
    status=bindparam("status"), ok=bindparam("ok"), errors=bindparam("errors"),
    warnings=bindparam("warnings"), findings=bindparam("findings"))


def _event(event: Mapping[str, Any] | Event, seats: int, index: int) -> Event:
    if isinstance(event, Event):
        if event.DERIVED:
            raise BadInput("bad-event", f"{event.TYPE} is derived by the rules, not recorded")
        return event
    if is_undo(event):
        try:
            return parse_undo(event, index)
        except CorrectionError as exc:
            raise BadInput(exc.code, exc.message) from None
    try:
        return parse_event(dict(event), seats)
    except ParseError as exc:
        raise BadInput(exc.code, f"event {index}: {exc.message}") from None


def _wire(payload: str) -> dict[str, Any]:
    value: dict[str, Any] = orjson.loads(payload)
    return value

