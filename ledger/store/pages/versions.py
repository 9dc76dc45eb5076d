"""What a kept page is keyed by: versions of the ledger that move whenever a page could.

The ledger only ever grows (the triggers refuse updates and deletes of matches and
events), so the largest match id and event id move with every match stored and every
event appended, by any process. One match's page moves with its head (its event count
and last hash, written in the same transaction as its events: ``heads.py``); its header
is immutable and its status and findings change only with an append.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

from sqlalchemy import Engine, bindparam, func, select
from sqlalchemy.dialects import sqlite

from ledger.store.models import EVENTS, HEADS, KNOWLEDGE_REVIEWS, MATCHES

Version = tuple[int, int] | tuple[int, str, int]

_LEDGER = select(select(func.max(MATCHES.c.id)).scalar_subquery(),
                 select(func.max(EVENTS.c.id)).scalar_subquery())
_MATCH = select(HEADS.c.events, HEADS.c.head_hash,
                select(func.count()).select_from(KNOWLEDGE_REVIEWS)
                .where(KNOWLEDGE_REVIEWS.c.match_id == bindparam("match")).scalar_subquery()
                ).where(HEADS.c.match_id == bindparam("match"))


def _ledger(row: Any) -> tuple[int, int]:
    return int(row[0] or 0), int(row[1] or 0)


def _match(row: Any) -> tuple[int, str, int] | None:
    if row is None:
        return None
    return int(row[0]), "" if row[1] is None else bytes(row[1]).hex(), int(row[2])


class QuickVersions:
    """The same versions read from a SQLite file through a connection of this object's own,
    on the caller's thread (a server's event loop).

    A page kept or not is decided before anything else of the request: through the pool
    and a hand-over to a thread that cost a page about as much as its own queries, so a
    page that was not kept paid for the look-up twice over. Here it is two index look-ups
    on a connection that only ever reads (in WAL mode a reader never waits for a writer).
    A fault answers None, as for a match that is not there: the app, reading the ledger
    its own way, then meets the fault and answers it.
    """

    def __init__(self, path: str) -> None:
        self._path = path
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()  # one loop at a time (a test's apps may have several)
        named = sqlite.dialect(paramstyle="named")
        self._ledger_sql = str(_LEDGER.compile(dialect=named))
        self._match_sql = str(_MATCH.compile(dialect=named))

    @classmethod
    def of(cls, engine: Engine) -> QuickVersions | None:
        """For an engine on a SQLite file; None for any other (PostgreSQL, in memory)."""
        database = engine.url.database
        if engine.dialect.name != "sqlite" or not database or database == ":memory:" \
                or database.startswith("file:"):
            return None
        return cls(database)

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            db = sqlite3.connect(self._path, timeout=0.2, isolation_level=None,
                                 check_same_thread=False)
            db.execute("PRAGMA query_only=1")
            self._db = db
        return self._db

    def ledger(self) -> tuple[int, int] | None:
        row = self._read(self._ledger_sql, {})
        return None if row is None else _ledger(row)

    def match(self, match_id: int) -> tuple[int, str, int] | None:
        return _match(self._read(self._match_sql, {"match": match_id}))

    def _read(self, sql: str, params: dict[str, int]) -> Any:
        with self._lock:
            try:
                return self._conn().execute(sql, params).fetchone()
            except sqlite3.Error:
                self._close()  # a file replaced or gone: open it again next time
                return None

    def close(self) -> None:
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


class EngineVersions:
    """The versions through the engine's pool (PostgreSQL, an in-memory SQLite): in a
    thread, since waiting for a pooled connection must never hold up an event loop."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def ledger(self) -> tuple[int, int]:
        """The largest match id and event id: both grow with every change of the ledger."""
        with self.engine.connect() as conn:
            return _ledger(conn.execute(_LEDGER).one())

    def match(self, match_id: int) -> tuple[int, str, int] | None:
        """Match ``match_id``'s head as (events, last hash in hex) and how many reviews by
        knowledge the ledger keeps for it (one stored changes the page, not the head);
        None: no such match."""
        with self.engine.connect() as conn:
            return _match(conn.execute(_MATCH, {"match": match_id}).one_or_none())
