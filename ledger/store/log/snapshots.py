"""Snapshots: the fold's state just after each deal event, so any point folds fast.

A snapshot is a cache. ``state_at`` takes the last snapshot at or before the
wanted event and folds the rest; the result must equal folding the whole
record (the tests check it at every event). The encoding covers every slot of
``State`` and refuses a type it does not know, and a snapshot written for a
different shape of ``State`` is ignored, so an engine change cannot turn the
cache into wrong answers. Each snapshot is sealed with the hash of the event it follows
(``seals.snapshot``): one whose seal does not hold is folded past, never used, and
``verify`` names it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

import orjson
from sqlalchemy import delete, insert, select
from sqlalchemy.engine import Connection

from ledger.corrections import standing_rows
from ledger.engine.state import DealResult, State
from ledger.events import Dealt, Event
from ledger.formats.partial import rebuild_hands
from ledger.rules.base import DealRecap, Rules
from ledger.store.log import seals
from ledger.store.log.mapper import Header, event_of, unread_stops
from ledger.store.models import EVENTS, MATCHES, SNAPSHOTS
from ledger.store.pages.readmodels import rules_of
from ledger.tiles import Tile
from ledger.walk import Walk

_SLOTS = tuple(s for s in State.__slots__ if s != "rules")
VERSION = hashlib.sha256(("state/1:" + ",".join(_SLOTS)).encode()).hexdigest()[:16]
_DATACLASSES: dict[str, type[Any]] = {"DealRecap": DealRecap, "DealResult": DealResult}


def _enc(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, Tile):
        return {"~tile": str(value)}
    if isinstance(value, list):
        return [_enc(v) for v in value]
    if isinstance(value, tuple):
        return {"~tuple": [_enc(v) for v in value]}
    if is_dataclass(value) and type(value).__name__ in _DATACLASSES:
        return {"~" + type(value).__name__: {f.name: _enc(getattr(value, f.name))
                                             for f in fields(value)}}
    raise TypeError(f"a snapshot cannot hold {type(value).__name__}")


def _dec(value: Any) -> Any:
    if isinstance(value, list):
        return [_dec(v) for v in value]
    if isinstance(value, dict):
        ((tag, inner),) = value.items()
        if tag == "~tile":
            return Tile.parse(inner)
        if tag == "~tuple":
            return tuple(_dec(v) for v in inner)
        cls = _DATACLASSES[tag[1:]]
        return cls(**{k: _dec(v) for k, v in inner.items()})
    return value


def encode(state: State) -> str:
    return orjson.dumps({name: _enc(getattr(state, name)) for name in _SLOTS}).decode()


def decode(data: str, rules: Rules) -> State:
    obj = orjson.loads(data)
    state = State(rules)
    for name in _SLOTS:
        setattr(state, name, _dec(obj[name]))
    return state


# --- folding -------------------------------------------------------------------------

# A recorded row to fold: (seq, recorded index, event or None if unread, whether the
# audit stops at it). Unread rows whose type is merely unknown are skipped, others stop.
Rows = Sequence[tuple[int, int, Event | None, bool]]


@dataclass
class Folded:
    state: State
    deal_states: list[tuple[int, int, State]]  # (seq, recorded index, state after the deal)
    stopped: bool = False


def fold_rows(rules: Rules, rows: Rows, start: State | None = None, after: int = -1,
              rebuild: bool = False, upto: int | None = None) -> Folded:
    """Fold recorded rows leniently, exactly as the audit does: those after seq ``after``
    (from ``start``), up to seq ``upto``.

    ``rebuild`` fills hidden hands and unseen draws the way the audit of an
    imported record does. That works deal by deal, so with a ``start`` state
    the rows must begin at its deal's own deal event (the snapshot's row).
    """
    events: list[Event | None] = [ev for _, _, ev, _ in rows]
    if rebuild:
        events, _ = rebuild_hands(events, rules)
    first = next((k for k, row in enumerate(rows) if row[0] > after), len(rows))
    stop = next((k for k, row in enumerate(rows) if upto is not None and row[0] > upto),
                len(rows))
    walk = Walk(rules, events, start, first, stop)
    out = Folded(walk.state, [])
    for w in walk:
        seq, index, _, stops = rows[w.index]
        if w.event is None:
            if stops:
                out.stopped = True
                break
            continue
        if not w.readable:
            out.stopped = True
            break
        if isinstance(w.event, Dealt):
            out.deal_states.append((seq, index, w.state.copy()))
    return out


def _recorded(conn: Connection, match_id: int, seats: int, since: int = 0) -> list[
        tuple[int, int, Event | None, bool]]:
    """The recorded (and unread) rows from seq ``since`` on that stand (undos applied)."""
    return [(r.seq, r.recorded_index, event_of(r.kind, r.payload, seats),
             r.kind == "unread" and unread_stops(r.payload, seats))
            for r in standing_rows(list(conn.execute(
                select(EVENTS.c.seq, EVENTS.c.recorded_index, EVENTS.c.kind, EVENTS.c.type,
                       EVENTS.c.payload)
                .where(EVENTS.c.match_id == match_id, EVENTS.c.kind != "derived",
                       EVENTS.c.seq >= since).order_by(EVENTS.c.seq))))]


def _match(conn: Connection, match_id: int) -> tuple[Header, str, Rules | None]:
    m = conn.execute(select(MATCHES.c.preset, MATCHES.c.seats, MATCHES.c.options,
                            MATCHES.c.source, MATCHES.c.started_at, MATCHES.c.origin)
                     .where(MATCHES.c.id == match_id)).one()
    header = Header.of_row(m)
    return header, m.origin, rules_of(header)


def state_at(conn: Connection, match_id: int, seq: int | None = None,
             use_snapshots: bool = True) -> State | None:
    """The state after the recorded event at ``seq`` (None: after the last one).

    None when the match's table has no rules (an unknown preset).
    """
    header, origin, rules = _match(conn, match_id)
    if rules is None:
        return None
    start: State | None = None
    after = -1
    if use_snapshots:
        snap = _latest(conn, match_id, seq)
        if snap is not None:
            start, after = decode(snap.state, rules), snap.seq
    rows = _recorded(conn, match_id, len(header.seats), max(after, 0))
    return fold_rows(rules, rows, start, after, rebuild=origin == "import", upto=seq).state


def _latest(conn: Connection, match_id: int, seq: int | None) -> Any:
    """The last snapshot at or before ``seq`` whose seal holds (None: none does)."""
    q = (select(SNAPSHOTS.c.seq, SNAPSHOTS.c.recorded_index, SNAPSHOTS.c.state,
                SNAPSHOTS.c.seal, EVENTS.c.hash)
         .join(EVENTS, (EVENTS.c.match_id == SNAPSHOTS.c.match_id)
               & (EVENTS.c.seq == SNAPSHOTS.c.seq))
         .where(SNAPSHOTS.c.match_id == match_id, SNAPSHOTS.c.version == VERSION)
         .order_by(SNAPSHOTS.c.seq.desc()))
    if seq is not None:
        q = q.where(SNAPSHOTS.c.seq <= seq)
    for snap in conn.execute(q):
        if seals.holds(snap.seal, seals.snapshot(match_id, snap.seq, snap.recorded_index,
                                                 VERSION, snap.state, bytes(snap.hash))):
            return snap
    return None


def _row(match_id: int, seq: int, index: int, state: str, event_hash: bytes
         ) -> dict[str, Any]:
    return {"match_id": match_id, "seq": seq, "recorded_index": index, "version": VERSION,
            "state": state,
            "seal": seals.snapshot(match_id, seq, index, VERSION, state, event_hash)}


def _event_hashes(conn: Connection, match_id: int, seqs: Sequence[int]) -> dict[int, bytes]:
    if not seqs:
        return {}
    return {int(r.seq): bytes(r.hash) for r in conn.execute(
        select(EVENTS.c.seq, EVENTS.c.hash)
        .where(EVENTS.c.match_id == match_id, EVENTS.c.seq.in_(list(seqs))))}


def fill(conn: Connection, match_id: int) -> int:
    """Write the snapshots of a match (replacing old ones); how many."""
    header, origin, rules = _match(conn, match_id)
    conn.execute(delete(SNAPSHOTS).where(SNAPSHOTS.c.match_id == match_id))
    if rules is None:
        return 0
    rows = _recorded(conn, match_id, len(header.seats))
    folded = fold_rows(rules, rows, rebuild=origin == "import")
    hashes = _event_hashes(conn, match_id, [seq for seq, _, _ in folded.deal_states])
    snaps = [_row(match_id, seq, index, encode(st), hashes[seq])
             for seq, index, st in folded.deal_states]
    if snaps:
        conn.execute(insert(SNAPSHOTS), snaps)
    return len(snaps)


def add(conn: Connection, match_id: int, seq: int, index: int, state: State) -> None:
    """Keep the state after event ``seq`` (stored already, in this transaction)."""
    event_hash = _event_hashes(conn, match_id, [seq])[seq]
    conn.execute(insert(SNAPSHOTS), [_row(match_id, seq, index, encode(state), event_hash)])
