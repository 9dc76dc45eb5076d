"""Stored matches read from outside the store (``analyse``, the exports): one way to open
the ledger, read in one session and say what went wrong.

Importing this module loads nothing of the database: SQLAlchemy and the store's modules
are imported only when a ledger is opened, so that commands which read files alone start
without them (tests/test_cli_startup.py). Whatever fails (no database driver, a ledger
that cannot be opened, a match that is not there) reaches the caller as one error of the
caller's own kind, worded as the store words it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from ledger.formats.reader import MatchRecord


class Reading:
    """An open read of the ledger: its connection, and a stored match as a record."""

    def __init__(self, conn: Connection,
                 record_of: Callable[[Connection, int], MatchRecord]) -> None:
        self.conn = conn
        self._record_of = record_of

    def record(self, match_id: int) -> MatchRecord:
        """Match ``match_id`` as its file would read (``queries.record_of``)."""
        return self._record_of(self.conn, match_id)


@contextmanager
def reading(url: str | None, error: Callable[[str], Exception],
            instead: str) -> Iterator[Reading]:
    """The ledger at ``url`` open for reading; any failure, opening it or inside the
    ``with`` block, is raised as ``error(message)``; ``instead`` ends the message when the
    store cannot be used at all (what to give instead of a stored match)."""
    try:
        from sqlalchemy.exc import SQLAlchemyError

        from ledger.store import db
        from ledger.store.errors import StoreError
        from ledger.store.pages.queries import record_of
    except ImportError as exc:  # a build without the store or its database driver
        raise error(f"the match store cannot be used here ({exc}); {instead}") from None
    try:
        engine = db.open_db(url)
    except (StoreError, SQLAlchemyError) as exc:
        raise error(str(getattr(exc, "message", exc))) from None
    try:
        with db.read_session(engine) as session:
            yield Reading(session.connection(), record_of)
    except (StoreError, SQLAlchemyError) as exc:
        raise error(str(getattr(exc, "message", exc))) from None
    finally:
        engine.dispose()
