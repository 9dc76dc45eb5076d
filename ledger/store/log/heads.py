"""A match's head: how many event rows it has and the last one's hash.

Every write of events writes the head in the same transaction (the importer with the
match, ``live`` with each append), and the database's triggers let a head only move
forward to an event that is stored (migration 0004). ``verify`` compares the events
with it: fewer rows than the head counts is a tail removed behind the app's back.
"""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.engine import Connection

from ledger.store.models import HEADS


class Head(NamedTuple):
    events: int
    hash: bytes | None


def start(conn: Connection, match_id: int, events: int = 0, last: bytes | None = None) -> None:
    """The head of a match just written (no events yet, or an import's all)."""
    conn.execute(insert(HEADS), [{"match_id": match_id, "events": events, "head_hash": last}])


# Built once: every live append moves its match's head.
_ADVANCE = (update(HEADS).where(HEADS.c.match_id == bindparam("match"))
            .values(events=bindparam("events"), head_hash=bindparam("last")))


def advance(conn: Connection, match_id: int, events: int, last: bytes) -> None:
    """Move a live match's head to its new last event (a match without one gets it)."""
    done = conn.execute(_ADVANCE, {"match": match_id, "events": events, "last": last})
    if done.rowcount == 0:
        start(conn, match_id, events, last)


def read_head(conn: Connection, match_id: int) -> Head | None:
    row = conn.execute(select(HEADS.c.events, HEADS.c.head_hash)
                       .where(HEADS.c.match_id == match_id)).one_or_none()
    if row is None:
        return None
    return Head(int(row.events), None if row.head_hash is None else bytes(row.head_hash))
