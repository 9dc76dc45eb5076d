"""The canonical form of a match and its ledger hash.

Two records that say the same thing hash the same, however they were written:
tiles in canonical text ("6-3", high number first), empty options and absent
optional fields left out, keys sorted, no whitespace. What the record means is
kept: the order of hands, stock and events, and the written orientation of a
deal's opening tile ("3-6" opens with 3 on the left end; on any later tile the
orientation means nothing and is dropped). A match written back out by
``ledger.formats.writer`` and read again has the same hash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import orjson

from ledger.events import Dealt, Event, Played
from ledger.formats.wire import FORMAT, MatchHeader, event_to_dict


def canonical_match(header: MatchHeader, events: Sequence[Event]) -> dict[str, Any]:
    """The domino-match/1 object of a match: header and recorded events, nothing derived."""
    obj: dict[str, Any] = {"format": FORMAT}
    if header.source is not None:
        obj["source"] = header.source
    table: dict[str, Any] = {"rules": header.preset}
    if header.options:
        table["options"] = header.options
    obj["table"] = table
    obj["seats"] = list(header.seats)
    if header.started_at is not None:
        obj["started_at"] = header.started_at
    out = []
    opening = False
    for ev in events:
        if ev.DERIVED:
            raise ValueError(f"{ev.TYPE} is derived by the engine; a match file holds only "
                             "recorded events")
        if isinstance(ev, Dealt):
            opening = True
        elif isinstance(ev, Played):
            if ev.reversed and not opening:
                ev = replace(ev, reversed=False)
            opening = False
        out.append(event_to_dict(ev))
    obj["events"] = out
    return obj


def canonical_json(header: MatchHeader, events: Sequence[Event]) -> bytes:
    """The bytes the ledger hash is taken over: sorted keys, no spaces, UTF-8."""
    return orjson.dumps(canonical_match(header, events), option=orjson.OPT_SORT_KEYS)


def match_digest(header: MatchHeader, events: Sequence[Event]) -> bytes:
    """The SHA-256 of a match's canonical JSON, 32 raw bytes (what a database column keeps)."""
    return hashlib.sha256(canonical_json(header, events)).digest()


def match_hash(header: MatchHeader, events: Sequence[Event]) -> str:
    """The ledger hash as people see it: ``match_digest`` in 64 hex digits."""
    return match_digest(header, events).hex()
