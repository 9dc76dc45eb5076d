"""What the store refuses, as domain errors (the web turns them into HTTP answers).

An event that breaks a rule is the engine's own ``IllegalEvent`` (with the
finding); a value that cannot be read is ``BadInput`` with the reader's code.
"""

from __future__ import annotations


class StoreError(Exception):
    code = "store-error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class MatchNotFound(StoreError):
    code = "match-not-found"

    def __init__(self, match_id: int) -> None:
        super().__init__(f"there is no match {match_id} in the ledger")
        self.match_id = match_id


class Conflict(StoreError):
    """Someone else appended first (or the match takes no more events): re-read and retry."""

    code = "conflict"

    def __init__(self, message: str, next_seq: int | None = None) -> None:
        super().__init__(message)
        self.next_seq = next_seq


class MatchClosed(Conflict):
    code = "match-closed"


class BadInput(StoreError):
    """A header or event that cannot be read (``code`` is the reader's finding code)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class SchemaOutOfDate(StoreError):
    code = "schema-out-of-date"


# --- the database's own faults ----------------------------------------------------------
# SQLAlchemy loads only when asked: a command that never opens the ledger never loads it.

_PG_CAUSES = {"25006": "read-only", "53100": "disk-full", "42P01": "missing",
              "3F000": "missing", "3D000": "missing"}
_SQLITE_CAUSES = (("readonly", "read-only"), ("read-only", "read-only"),
                  ("disk is full", "disk-full"), ("no such table", "missing"),
                  ("unable to open", "missing"))


def database_errors() -> tuple[type[Exception], ...]:
    """Every error the database or its driver raises (as SQLAlchemy wraps them)."""
    from sqlalchemy.exc import SQLAlchemyError

    return (SQLAlchemyError,)


def database_faults() -> tuple[type[Exception], ...]:
    """The errors ``fault_cause`` may find a cause in (the web answers them with a 503)."""
    from sqlalchemy.exc import (
        InternalError,
        OperationalError,
        PendingRollbackError,
        ProgrammingError,
    )

    return (OperationalError, ProgrammingError, InternalError, PendingRollbackError)


# Said to whoever ran a command when ``is_connection_lost`` (the web words its own).
CONNECTION_LOST = ("the connection to the ledger's database was lost (the database server "
                   "ended it, or the network did); nothing was half-written: run the command "
                   "again")


def is_connection_lost(exc: BaseException) -> bool:
    """The connection to the database died under a statement (the server killed it, a
    restart, the network), or a session goes on using one that did: SQLAlchemy's "Can't
    reconnect until invalid transaction is rolled back". Nothing of its transaction was
    committed; a new connection may well work (the pool pings before lending one)."""
    from sqlalchemy.exc import DBAPIError, PendingRollbackError

    return isinstance(exc, PendingRollbackError) or (
        isinstance(exc, DBAPIError) and bool(exc.connection_invalidated))


def fault_cause(exc: BaseException) -> str | None:
    """Whether the database itself cannot be used, and why: "read-only", "disk-full",
    "missing" (file, schema or table gone), "connection-lost" (``is_connection_lost``),
    "unavailable" (not answering); None: not a fault of the database (a programming
    error of ours).

    SQLite's "attempt to write a readonly database", "database or disk is full", "no such
    table", "unable to open database file"; PostgreSQL's read-only transactions (25006),
    full disk (53100), a dropped schema or table (42P01, 3F000) or database (3D000).
    """
    from sqlalchemy.exc import DBAPIError, OperationalError

    if is_connection_lost(exc):
        return "connection-lost"
    if not isinstance(exc, DBAPIError):
        return None
    code = getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None)
    if code in _PG_CAUSES:
        return _PG_CAUSES[code]
    text = str(exc.orig).lower()
    for part, name in _SQLITE_CAUSES:
        if part in text:
            return name
    return "unavailable" if isinstance(exc, OperationalError) else None
