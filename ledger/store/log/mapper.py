"""Domain values <-> table rows. The engine knows nothing of rows; this is the only crossing.

An event row holds the canonical wire object of its event (``event_to_dict``,
keys sorted) as text: the exact bytes that were hashed. A recorded event the
reader could not parse is stored verbatim as kind ``unread`` so that a faulty
record is kept as it was, never repaired.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

import orjson

from ledger.events import BlockClaimed, DealEndClaimed, Drew, Event, Passed, Played
from ledger.findings import Finding
from ledger.formats.wire import (
    FORMAT,
    MatchHeader,
    ParseError,
    event_from_dict,
    event_to_dict,
    parse_event,
)
from ledger.store.log.hashing import SALT, canonical, event_hash, header_object, stamp


class Row(NamedTuple):
    """An event row without its match id (the database gives that).

    A named tuple, not a dataclass: an import makes millions of them.
    """

    seq: int
    recorded_index: int
    kind: str
    type: str
    payload: str
    recorded_at: datetime
    prev_hash: bytes
    hash: bytes
    salt: bytes | None = None  # a live row's (hashing.event_hash); None: an import's


@dataclass(frozen=True, slots=True)
class Header:
    """A match's header as the ledger keeps it."""

    preset: str
    seats: tuple[str, ...]
    options: dict[str, Any]
    source: dict[str, Any] | None = None
    started_at: str | None = None

    @classmethod
    def of(cls, header: MatchHeader) -> Header:
        return cls(header.preset, tuple(header.seats), dict(header.options),
                   None if header.source is None else dict(header.source), header.started_at)

    @classmethod
    def of_row(cls, row: Any) -> Header:
        return cls(row.preset, tuple(row.seats), dict(row.options or {}),
                   None if row.source is None else dict(row.source), row.started_at)

    def canonical(self) -> str:
        return canonical(header_object(self.preset, self.options, self.seats, self.source,
                                       self.started_at))

    def columns(self) -> dict[str, Any]:
        return {"preset": self.preset, "seat_count": len(self.seats), "seats": list(self.seats),
                "options": self.options, "source": self.source, "started_at": self.started_at}


def json_text(value: object) -> str:
    """JSON as the engine writes JSON columns (the importer binds the same text itself)."""
    return orjson.dumps(value).decode()


def payload_of(event: Event) -> str:
    return canonical(event_to_dict(event))


# Plays, draws, passes and claims repeat from match to match (a seat, a tile, an end) and
# events are immutable values: an import computes each distinct payload once. Keyed by
# the event itself (its type and every field), so an event that differs in anything has
# its own entry; events with a time ("at") are unique and not kept. The reader hands out
# one object per distinct move, so most lookups are by the object's identity first (no
# hashing of its fields); an entry keeps its event alive, so an id is never reused while
# it is a key.
_PAYLOADS: dict[Event, tuple[str, bytes]] = {}
_BY_ID: dict[int, tuple[Event, tuple[str, bytes]]] = {}
_PAYLOADS_MAX = 8192
REPEATING: frozenset[type[Event]] = frozenset({Played, Drew, Passed, BlockClaimed,
                                               DealEndClaimed})


def payload_pair(event: Event) -> tuple[str, bytes]:
    """``payload_of(event)`` and its UTF-8 bytes (what is hashed)."""
    seen = _BY_ID.get(id(event))
    if seen is not None and seen[0] is event:
        return seen[1]
    if type(event) in REPEATING and event.at is None:
        got = _PAYLOADS.get(event)
        if got is None:
            if len(_PAYLOADS) >= _PAYLOADS_MAX:
                _PAYLOADS.clear()
            got = _PAYLOADS[event] = text_and_bytes(event_to_dict(event))
        if len(_BY_ID) >= _PAYLOADS_MAX:
            _BY_ID.clear()
        _BY_ID[id(event)] = (event, got)
        return got
    return text_and_bytes(event_to_dict(event))


def text_and_bytes(value: object) -> tuple[str, bytes]:
    """``canonical(value)`` and its UTF-8 bytes.

    Encoded again from the text, not orjson's own bytes: those take 4 KiB however short
    the JSON (the buffer it wrote into), and an import holds many payloads at once.
    """
    text = canonical(value)
    return text, text.encode()


def finding_json(finding: Finding) -> dict[str, Any]:
    """A finding as a match row keeps it (and as ``verify`` compares it): the audit's
    report (``to_dict``) and, when it has one, its phrase under "wording" (template and
    parameters), so that any language words it again without auditing the match."""
    out: dict[str, Any] = dict(finding.to_dict())
    wording = finding.wording()
    if wording is not None:
        out["wording"] = wording
    return out


def reported(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored finding as the audit's report gives it (``to_dict``: no phrase)."""
    return {k: v for k, v in stored.items() if k != "wording"}


def unread_type(raw: object) -> str:
    """The label of an unread event's row (its payload keeps the event as it was)."""
    kind = raw.get("type") if isinstance(raw, dict) else None
    return text_safe(kind[:40]) if isinstance(kind, str) else "?"


def text_safe(text: str) -> str:
    """``text`` for a plain text column: PostgreSQL's text cannot hold a NUL character,
    so a file's NUL is kept as U+FFFD there, alike on every backend. (JSON columns and
    payloads keep it: JSON writes it as an escape.)"""
    return text.replace("\x00", "\ufffd")


def event_of(kind: str, payload: str, seats: int) -> Event | None:
    """The domain event of a row; None for an unread one."""
    if kind == "unread":
        return None
    obj = orjson.loads(payload)
    return event_from_dict(obj, seats)


def chain_rows(prev: bytes, start_seq: int, recorded_at: datetime,
               items: Iterable[tuple[int, str, str, str]], salted: bool = False) -> list[Row]:
    """Rows for ``(recorded_index, kind, type, payload)`` items, chained from ``prev``;
    ``salted``: each with a random salt of its own in its hash (a live match's rows,
    read while hidden tiles are in play: docs/security.md)."""
    at = stamp(recorded_at)
    rows: list[Row] = []
    seq = start_seq
    for index, kind, type_, payload in items:
        salt = secrets.token_bytes(SALT) if salted else None
        digest = event_hash(prev, seq, index, kind, type_, at, payload, salt)
        rows.append(Row(seq, index, kind, type_, payload, recorded_at, prev, digest, salt))
        prev = digest
        seq += 1
    return rows


def match_object(header: Header, payloads: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """The domino-match/1 object of a stored match from its (kind, payload) recorded rows."""
    obj: dict[str, Any] = {"format": FORMAT, "table": {"rules": header.preset,
                                                       "options": header.options},
                           "seats": list(header.seats)}
    if header.source is not None:
        obj["source"] = header.source
    if header.started_at is not None:
        obj["started_at"] = header.started_at
    obj["events"] = [orjson.loads(p) for kind, p in payloads if kind != "derived"]
    return obj


def unread_stops(payload: str, seats: int) -> bool:
    """Whether the audit stops folding at this unread event (all but an unknown type do)."""
    try:
        parse_event(orjson.loads(payload), seats)
    except ParseError as exc:
        return exc.code != "unknown-event-type"
    return False
