"""Importing match files: audit each match and store it, findings and derived events included.

Each match is one savepoint, several of them one transaction (``store_all``): it
is in the ledger whole or not at all, so an import killed half-way leaves whole
matches only, each reported only once committed, and a re-run completes it.
A faulty match is stored as it was and flagged (``ok`` false, its findings);
a match whose header cannot be read has nothing to store and is reported.
A match already in the ledger (same canonical content) adds nothing.

Files stream: a match is in memory only between its line and its batch's commit.
Hashes are computed in Python (``ledger.store.imports.prepare``). A prepared match
carries its event rows as one JSON document and one string of hashes, and they go in with
one statement per match: ``INSERT ... SELECT ... FROM json_each`` on SQLite,
``json_array_elements`` on PostgreSQL (no Python object per row on the writing side).

Reading, auditing and hashing (``prepare``) need no database, so
``import_file(..., jobs=N)`` runs them in N worker processes (which load no
SQLAlchemy; ``ledger.store.imports.feed`` starts and reads them) while this one only writes;
the input order is kept and memory stays flat. Many files go in batches that run on
across files (``import_files``).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Generator, Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.engine.interfaces import DBAPICursor
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlmodel import Session

from ledger.formats.reader import MatchRecord, ReadError, read_matches
from ledger.store.db import write_connection
from ledger.store.imports import feed
from ledger.store.imports.feed import FileEnd
from ledger.store.imports.prepare import (
    SQLITE_TIME,
    Item,
    Prepared,
    Unstorable,
    item_of,
    prepare,
    safe_audit,
    sqlite_values,
)
from ledger.store.log import heads
from ledger.store.log.mapper import Row
from ledger.store.models import MATCHES
from ledger.store.pages.readmodels import TOTALS, insert_model

__all__ = ["BATCH_MATCHES", "BATCH_ROWS", "BATCH_SECONDS", "Imported", "Item", "Prepared",
           "ReplaceGuard", "Unstorable", "find", "import_file", "import_records", "insert_rows",
           "item_of", "prepare", "safe_audit", "store", "store_all"]

_EVENT_COLUMNS = ("match_id", "seq", "recorded_index", "kind", "type", "payload",
                  "recorded_at", "prev_hash", "hash")
# Rows made one by one (``insert_rows``: live appends) carry their salt; an import's
# rows have none (a whole file is public: docs/security.md).
_ROW_COLUMNS = (*_EVENT_COLUMNS, "salt")
_SQLITE_INSERT = (f"INSERT INTO events ({', '.join(_ROW_COLUMNS)}) "
                  f"VALUES ({', '.join('?' * len(_ROW_COLUMNS))})")
_PG_COPY = f"COPY events ({', '.join(_ROW_COLUMNS)}) FROM STDIN"


@dataclass(frozen=True, slots=True)
class Imported:
    """What happened to one match of the input (the ``import --json`` object)."""

    match: int
    path: str
    line: int | None
    id: int | None
    new: bool
    ok: bool
    source: object = None
    events: int = 0
    error: str | None = None  # why nothing was stored
    findings: tuple[dict[str, object], ...] = ()
    seats: tuple[str, ...] = ()  # the players' names, by seat (what a report names them)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"match": self.match, "file": self.path, "line": self.line,
                               "id": self.id, "new": self.new, "ok": self.ok,
                               "source": self.source}
        if self.error is not None:
            out["error"] = self.error
        return out


def find(conn: Connection, digest: bytes) -> int | None:
    found = conn.execute(select(MATCHES.c.id).where(MATCHES.c.content_hash == digest)).first()
    return None if found is None else int(found.id)


_INSERT_NEW = {
    # One statement per dialect, parameters apart: SQLAlchemy compiles it once.
    name: dialect.insert(MATCHES).on_conflict_do_nothing(
        index_elements=[MATCHES.c.content_hash]).returning(MATCHES.c.id)
    for name, dialect in (("postgresql", postgresql), ("sqlite", sqlite))
}


def _insert_new(conn: Connection, values: dict[str, Any]) -> int | None:
    """Insert a match row unless its content is stored already (then None)."""
    got = conn.execute(_INSERT_NEW[conn.dialect.name], values).scalar()
    return None if got is None else int(got)


def _match_values(prep: Prepared) -> dict[str, Any]:
    return {**prep.header.columns(), "origin": "import", "content_hash": prep.content_hash,
            "status": "complete" if prep.complete else "incomplete", "ok": prep.ok,
            "errors": prep.errors, "warnings": len(prep.findings) - prep.errors,
            "findings": prep.findings, "imported_from": prep.where,
            "created_at": prep.recorded_at}


def store(session: Session, prep: Prepared) -> tuple[int, bool]:
    """Write one prepared match in one transaction: (ledger id, whether it is new)."""
    got = _store_one(session, prep)
    session.commit()
    return got


def _store_one(session: Session, prep: Prepared) -> tuple[int, bool]:
    """Write one prepared match in a savepoint of the open transaction (which it begins if
    none is open): (ledger id, whether it is new). On an error the savepoint is rolled
    back (the match leaves nothing) and the error raised; the transaction stays open."""
    conn = write_connection(session)
    if conn.dialect.name == "sqlite":
        match_id = _store_sqlite(conn, prep)
    else:
        with conn.begin_nested():
            match_id = _insert_new(conn, _match_values(prep))
            if match_id is not None and prep.size:
                _copy_rows(conn, match_id, prep)
                insert_model(conn, prep.model.for_match(match_id))
            if match_id is not None:
                heads.start(conn, match_id, prep.size, prep.last_hash)
    if match_id is None:  # stored before (or just now, by another import): nothing written
        existing = find(conn, prep.content_hash)
        assert existing is not None
        return existing, False
    return match_id, True


# --- SQLite: the whole match through the driver --------------------------------------
#
# SQLAlchemy's per-statement work (compiling, type processing, events) costs more than
# SQLite's own for an import's few statements per match; these are the statements
# ``_insert_new``, ``insert_rows`` and ``readmodels.insert_model`` send, with the values
# SQLAlchemy's column types would bind (JSON text from the engine's serializer, booleans
# as integers, times in the DateTime text format), so the rows come out the same.

_MATCH_COLUMNS = ("preset", "seat_count", "seats", "options", "source", "started_at",
                  "origin", "content_hash", "status", "ok", "errors", "warnings", "findings",
                  "imported_from", "created_at")
_SQLITE_MATCH = (f"INSERT INTO matches ({', '.join(_MATCH_COLUMNS)}) VALUES "
                 f"({', '.join('?' * len(_MATCH_COLUMNS))}) "
                 "ON CONFLICT (content_hash) DO NOTHING RETURNING id")
_SUMMARY_COLUMNS = ("match_id", "events", "last_seq", "head_hash", "deals", "scores",
                    "winner", "complete", "end_reason")
_SQLITE_SUMMARY = (f"INSERT INTO match_summaries ({', '.join(_SUMMARY_COLUMNS)}) "
                   f"VALUES ({', '.join('?' * len(_SUMMARY_COLUMNS))})")
_DEAL_COLUMNS = ("match_id", "deal", "seq", "result", "winner", "points", "scores", "fives",
                 "leader", "pips")
_SQLITE_DEALS = (f"INSERT INTO deal_rows ({', '.join(_DEAL_COLUMNS)}) "
                 f"VALUES ({', '.join('?' * len(_DEAL_COLUMNS))})")
# A match's event rows in one statement: SQLite cuts them out of the match's SqliteRows
# (payloads from a JSON array, index, kind and type from fixed-width bytes) and the hashes
# out of Prepared.hashes itself, so no Python object is made per row or value. The values
# are those the row-by-row insert binds: integers, text and 32-byte blobs.
_AT = "?5 * key + "
_KIND_BYTES = f"CAST(substr(?4, {_AT}11, 3) AS INTEGER)"
_SQLITE_EVENTS = (
    f"INSERT INTO events ({', '.join(_EVENT_COLUMNS)}) "
    f"SELECT ?1, key, CAST(substr(?4, {_AT}1, 10) AS INTEGER), "
    f"CAST(substr(?4, {_AT}17, {_KIND_BYTES}) AS TEXT), "
    f"CAST(substr(?4, {_AT}17 + {_KIND_BYTES}, CAST(substr(?4, {_AT}14, 3) AS INTEGER)) AS TEXT), "
    "value, ?2, substr(?3, key * 32 + 1, 32), substr(?3, key * 32 + 33, 32) "
    "FROM json_each(?6) ORDER BY key")
_SQLITE_HEAD = "INSERT INTO match_heads (match_id, events, head_hash) VALUES (?, ?, ?)"
_SQLITE_TOTALS = ("INSERT INTO player_totals (name, " + ", ".join(TOTALS) + ") VALUES (?, "
                  + ", ".join("?" * len(TOTALS)) + ") ON CONFLICT (name) DO UPDATE SET "
                  + ", ".join(f"{t} = player_totals.{t} + excluded.{t}" for t in TOTALS))


def _store_sqlite(conn: Connection, prep: Prepared) -> int | None:
    """Insert the match, its rows and read model; None (nothing written) if it is stored."""
    dbapi = conn.connection.dbapi_connection
    assert dbapi is not None
    lite = prep.sqlite or sqlite_values(prep)  # a worker's item has them made already
    cur = dbapi.cursor()
    statement = "SAVEPOINT import_match"
    try:
        cur.execute(statement)
        statement = _SQLITE_MATCH
        got = cur.execute(statement, lite.match).fetchall()
        if not got:
            cur.execute("RELEASE import_match")
            return None
        match_id = int(got[0][0])
        if prep.size:
            # No payload holds a NUL character (SQLite's JSON text would end there): they
            # are JSON, which escapes it; kinds and types are ``text_safe``.
            statement = _SQLITE_EVENTS
            rows = lite.rows
            cur.execute(statement, (match_id, lite.recorded_at, prep.hashes, rows.meta,
                                    rows.width, rows.payloads))
            statement = _SQLITE_SUMMARY
            cur.execute(statement, (match_id, *lite.summary))
            if lite.deals:
                statement = _SQLITE_DEALS
                cur.executemany(statement, [(match_id, *d) for d in lite.deals])
            if lite.totals:
                statement = _SQLITE_TOTALS
                cur.executemany(statement, lite.totals)
        statement = _SQLITE_HEAD
        cur.execute(statement, (match_id, prep.size, prep.last_hash))
        statement = "RELEASE import_match"
        cur.execute(statement)
        return match_id
    except dbapi.Error as exc:  # as SQLAlchemy would raise it (callers catch those)
        _roll_back_match(cur)
        raise DBAPIError.instance(statement, None, exc, dbapi.Error) from exc
    except BaseException:
        _roll_back_match(cur)
        raise
    finally:
        cur.close()


def _roll_back_match(cur: DBAPICursor) -> None:
    """Undo what the match's savepoint holds (the transaction goes on without it)."""
    with suppress(sqlite3.Error):  # the savepoint may be gone with a failed transaction
        cur.execute("ROLLBACK TO import_match")
        cur.execute("RELEASE import_match")


# A match's event rows in one statement, as on SQLite: the server cuts the rows out of
# Prepared.rows_json and the hashes out of Prepared.hashes (no Python object per row).
_PG_EVENTS = (
    f"INSERT INTO events ({', '.join(_EVENT_COLUMNS)}) "
    "SELECT %(match)s, t.o - 1, (t.r ->> 0)::integer, t.r ->> 1, t.r ->> 2, t.r ->> 3, "
    "%(at)s, substring(%(hashes)s::bytea from (t.o::integer - 1) * 32 + 1 for 32), "
    "substring(%(hashes)s::bytea from t.o::integer * 32 + 1 for 32) "
    "FROM json_array_elements(%(rows)s::json) WITH ORDINALITY AS t(r, o) ORDER BY t.o")


def _copy_rows(conn: Connection, match_id: int, prep: Prepared) -> None:
    """A prepared match's rows into PostgreSQL (the values ``insert_rows`` would send)."""
    import psycopg

    dbapi = conn.connection.dbapi_connection
    pg = cast(psycopg.Connection[Any], dbapi)
    try:
        with pg.cursor() as cur:
            cur.execute(_PG_EVENTS, {"match": match_id, "at": prep.recorded_at,
                                     "hashes": prep.hashes, "rows": prep.rows_json})
    except psycopg.Error as exc:
        raise DBAPIError.instance(_PG_EVENTS, None, exc, psycopg.Error) from exc


def insert_rows(conn: Connection, match_id: int, rows: Iterable[Row]) -> None:
    """Bulk-insert event rows of one match (a taken seq raises IntegrityError)."""
    try:
        _insert_rows(conn, match_id, rows)
    except conn.dialect.loaded_dbapi.IntegrityError as exc:
        # The driver's own error (the rows bypass SQLAlchemy): give callers SQLAlchemy's.
        raise IntegrityError("INSERT INTO events", None, exc) from exc


def _insert_rows(conn: Connection, match_id: int, rows: Iterable[Row]) -> None:
    dbapi = conn.connection.dbapi_connection
    assert dbapi is not None
    if conn.dialect.name == "postgresql":
        import psycopg

        pg = cast(psycopg.Connection[Any], dbapi)
        with pg.cursor() as cur, cur.copy(_PG_COPY) as copy:
            for r in rows:
                copy.write_row((match_id, *r))
        return
    lite = dbapi.cursor()
    try:
        lite.executemany(_SQLITE_INSERT, list(_sqlite_rows(match_id, rows)))
    finally:
        lite.close()


def _sqlite_rows(match_id: int, rows: Iterable[Row]) -> Iterator[tuple[object, ...]]:
    when: datetime | None = None
    text = ""
    for seq, index, kind, type_, payload, recorded_at, prev, digest, salt in rows:
        if recorded_at is not when:  # one time per transaction: format it once
            when = recorded_at
            text = when.strftime(SQLITE_TIME)
        yield (match_id, seq, index, kind, type_, payload, text, prev, digest, salt)


# --- the import loop -------------------------------------------------------------------


# Several matches per transaction, each in a savepoint of its own: a commit costs a
# write of every page the transaction touched (and now and then a checkpoint), which
# one match per commit paid over and over. A batch ends at so many matches or rows or
# after so long (the progress and the reports keep coming), and its reports are given
# out only once it is committed: a match reported stored is stored, even if the import
# is killed the next moment.
BATCH_MATCHES = 32
BATCH_ROWS = 16_384
BATCH_SECONDS = 0.5


def _report(item: Item, stored: tuple[int, bool] | None) -> Imported:
    if isinstance(item, Unstorable):
        error = str(item.problems[0]["message"]) if item.problems else "no header"
        return Imported(item.index, item.path, item.line, None, False, False, item.source,
                        error=error, findings=item.problems)
    assert stored is not None
    match_id, new = stored
    return Imported(item.index, item.path, item.line, match_id, new, item.ok, item.source,
                    item.recorded, findings=tuple(item.findings),
                    seats=tuple(item.header.seats))


def store_all(session: Session, items: Iterable[Item], bulk: bool = False
              ) -> Iterator[Imported]:
    """Store every item, in batches of matches per transaction; yield each one's report
    once its batch is committed.

    An error (storing a match, or getting the next item) rolls back only the match it
    came from: the batch before it is committed and reported, then the error raised.
    An interrupt (KeyboardInterrupt) leaves the open batch to the session's rollback.
    ``bulk``: many matches (a file's), for which a SQLite ledger's REPLACE guard on the
    events is lifted within each batch's transaction (``ReplaceGuard``).
    """
    for got in _batches(session, items, bulk):
        yield cast(Imported, got)


def _batches(session: Session, items: Iterable[Item | FileEnd], bulk: bool = False
             ) -> Generator[Imported | FileEnd, None, None]:
    """``store_all``, file ends passed on in their place (a batch goes on across files)."""
    guard = ReplaceGuard() if bulk else None
    done: list[Imported | FileEnd] = []
    matches = rows = 0
    since = 0.0
    try:
        for item in items:
            if not done:
                since = time.monotonic()
            if isinstance(item, FileEnd):
                done.append(item)
                continue
            matches += 1
            if isinstance(item, Unstorable):
                done.append(_report(item, None))
                continue
            if guard is not None:
                guard.lift(session)
            done.append(_report(item, _store_one(session, item)))
            rows += item.size
            if (matches >= BATCH_MATCHES or rows >= BATCH_ROWS
                    or time.monotonic() - since >= BATCH_SECONDS):
                _commit(session, guard)
                yield from done
                done, matches, rows = [], 0, 0
    except Exception:
        if done:
            _commit(session, guard)
            yield from done
        raise
    finally:  # an error with nothing to commit, an interrupt: the guard is back all the same
        if guard is not None:
            guard.put_back()
    if done:
        _commit(session, guard)
        yield from done


def _commit(session: Session, guard: ReplaceGuard | None) -> None:
    if guard is not None:
        guard.put_back()  # if that fails, nothing is committed
    session.commit()


class ReplaceGuard:
    """SQLite's REPLACE guard on the events (the ``events_no_replace`` trigger), dropped
    for the open transaction of a bulk import and created again, from its own text as the
    file holds it, before that transaction commits.

    A BEFORE INSERT trigger costs SQLite a sub-program per row and a temporary copy of an
    ``INSERT ... SELECT``'s rows: 40% of an import's inserts. Within the import's write
    transaction nothing but its plain INSERTs touch the events (the write lock is held
    from BEGIN IMMEDIATE), and a plain INSERT onto a taken row fails on the unique keys
    anyway; every other connection sees the file only as committed, with the guard. A
    transaction rolled back (an interrupt, a crash) takes the DROP back with it.
    """

    NAME = "events_no_replace"

    def __init__(self) -> None:
        self.sql: str | None = None
        self.dbapi: sqlite3.Connection | None = None
        self.off = False  # not SQLite, no guard, or it could not be dropped: leave it

    def lift(self, session: Session) -> None:
        """Drop the guard in the session's open (write) transaction, if it is not yet."""
        if self.sql is not None or self.off:
            return
        conn = write_connection(session)
        dbapi = conn.connection.dbapi_connection
        if conn.dialect.name != "sqlite" or not isinstance(dbapi, sqlite3.Connection):
            self.off = True
            return
        found = dbapi.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' "
                              "AND name = ?", (self.NAME,)).fetchone()
        if found is None:
            self.off = True
            return
        try:
            dbapi.execute(f"DROP TRIGGER {self.NAME}")
        except sqlite3.Error:  # a statement of the connection still reading, say: keep it
            self.off = True
            return
        self.sql, self.dbapi = str(found[0]), dbapi

    def put_back(self) -> None:
        """Create the guard again in the transaction it was dropped in (if that was rolled
        back, the guard is there already)."""
        sql, dbapi = self.sql, self.dbapi
        if sql is None or dbapi is None:
            return
        self.sql = self.dbapi = None
        if dbapi.in_transaction and dbapi.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                (self.NAME,)).fetchone() is None:
            dbapi.execute(sql)


def import_records(session: Session, records: Iterable[MatchRecord]) -> Iterator[Imported]:
    """Audit and store each record (``store_all``); yield what became of it."""
    return store_all(session, (item_of(record) for record in records))


def import_file(session: Session, path: str, jobs: int = 0,
                workers: feed.Workers | None = None) -> Iterator[Imported]:
    """Every match of one file, in order (ReadError if the file cannot be read at all).

    ``jobs`` worker processes read, audit and hash while this process writes;
    0 does everything here. ``workers``: those already started on the file
    (``feed.start``), before this process loaded the database's libraries.
    """
    if workers is not None:
        return store_all(session, feed.items(workers), bulk=True)
    if jobs <= 0:
        return store_all(session, (item_of(r) for r in read_matches(path)), bulk=True)
    return store_all(session, feed.prepared_in_workers(path, jobs), bulk=True)


def import_files(session: Session, paths: list[str], jobs: int,
                 workers: feed.Workers | None = None
                 ) -> Iterator[tuple[str, Iterator[Imported]]]:
    """Each of many files with what became of its matches, in order: ``jobs`` worker
    processes reading, auditing and hashing a whole file each while this one writes (0 or
    1: all here). Each file's matches must be taken in full before the next file's (a file
    that cannot be read raises ReadError in its place, as ``import_file`` does).

    A batch goes on across files: one small file per transaction would pay a commit per
    match (issue 15 measured 2,000 one-match files at six times one file's time).
    """
    if workers is not None:
        items = feed.file_items(workers)
    else:
        items = feed.files_in_workers(paths, jobs) if jobs > 1 else _files_here(paths)
    reports = _batches(session, items, bulk=True)
    try:
        for path in paths:
            yield path, _up_to_file_end(reports)
    finally:
        reports.close()


def _up_to_file_end(reports: Iterator[Imported | FileEnd]) -> Iterator[Imported]:
    for got in reports:
        if isinstance(got, FileEnd):
            if got.error is not None:
                raise got.error
            return
        yield got


def _files_here(paths: list[str]) -> Iterator[Item | FileEnd]:
    for path in paths:
        try:
            for record in read_matches(path):
                yield item_of(record)
        except ReadError as exc:
            yield FileEnd(path, exc)
            continue
        yield FileEnd(path)
