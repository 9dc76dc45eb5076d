"""Importing match files: audit each match and store it, findings and derived events included.

Each match is one transaction: it is in the ledger whole or not at all, so an
import killed half-way leaves whole matches only and a re-run completes it.
A faulty match is stored as it was and flagged (``ok`` false, its findings);
a match whose header cannot be read has nothing to store and is reported.
A match already in the ledger (same canonical content) adds nothing.

Files stream: a match is in memory only between its line and its commit.
Event rows go in with one bulk statement per match (``executemany`` on
SQLite, ``COPY`` on PostgreSQL); hashes are computed here, in Python.

Reading, auditing and hashing (``prepare``) need no database, so
``import_file(..., jobs=N)`` runs them in N worker processes while this one
only writes; the input order is kept and memory stays flat.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from ledger.audit import AuditReport, audit_record
from ledger.events import Event
from ledger.findings import Finding
from ledger.formats.reader import MatchRecord, ReadError, read_matches
from ledger.store.db import write_connection
from ledger.store.hashing import canonical, content_hash, genesis
from ledger.store.mapper import (
    Header,
    Row,
    chain_rows,
    finding_json,
    payload_of,
    unread_type,
)
from ledger.store.models import MATCHES
from ledger.store.readmodels import ReadModel, compute, insert_model

_EVENT_COLUMNS = ("match_id", "seq", "recorded_index", "kind", "type", "payload",
                  "recorded_at", "prev_hash", "hash")
_SQLITE_INSERT = (f"INSERT INTO events ({', '.join(_EVENT_COLUMNS)}) "
                  f"VALUES ({', '.join('?' * len(_EVENT_COLUMNS))})")
_PG_COPY = f"COPY events ({', '.join(_EVENT_COLUMNS)}) FROM STDIN"


@dataclass(frozen=True, slots=True)
class Prepared:
    """A match ready to store: everything computed, nothing written (plain, picklable data)."""

    header: Header
    content_hash: bytes
    rows: list[Row]
    model: ReadModel  # for match id 0: ``for_match`` gives the real one
    ok: bool
    complete: bool
    errors: int
    findings: list[dict[str, Any]]
    recorded: int
    index: int
    path: str
    line: int | None
    source: object

    @property
    def where(self) -> str:
        return self.path if self.line is None else f"{self.path}:{self.line}"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Rows cross to the writing process as plain tuples: a named tuple costs three
        # times as much to unpickle. The writer reads them by position only.
        fields = [getattr(self, f) for f in self.__dataclass_fields__]
        fields[2] = [tuple(r) for r in self.rows]
        return (Prepared, tuple(fields))


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

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"match": self.match, "file": self.path, "line": self.line,
                               "id": self.id, "new": self.new, "ok": self.ok,
                               "source": self.source}
        if self.error is not None:
            out["error"] = self.error
        return out


def safe_audit(record: MatchRecord) -> AuditReport:
    """The audit of a record; a crash of the auditor becomes a finding and the match is kept."""
    try:
        return audit_record(record)
    except Exception as exc:  # one match must not stop the import of the others
        return AuditReport(match=record.index, source=record.source, path=record.path,
                           line=record.line, findings=list(record.problems) + [Finding(
                               None, "error", "internal-error",
                               f"the auditor failed on this match ({type(exc).__name__}: "
                               f"{exc}); this is a bug in domino-ledger, please report it")])


def prepare(record: MatchRecord, report: AuditReport | None = None,
            now: datetime | None = None) -> Prepared | None:
    """Audit a record and compute its rows and read model; None if its header is unreadable."""
    if record.header is None or record.raw is None:
        return None
    if report is None:
        report = safe_audit(record)
    header = Header.of(record.header)
    header_json = header.canonical()
    raw_events = record.raw["events"]
    items: list[tuple[int, str, str, str]] = []
    payloads: list[str] = []
    derived: list[Event] = []
    derived_all = report.derived
    for i, raw in enumerate(raw_events):
        ev = record.events[i]
        if ev is None:
            payload = canonical(raw)
            items.append((i, "unread", unread_type(raw), payload))
        else:
            payload = payload_of(ev)
            items.append((i, "recorded", ev.TYPE, payload))
        payloads.append(payload)
        if i < len(derived_all):
            for d in derived_all[i]:
                items.append((i, "derived", d.TYPE, payload_of(d)))
                derived.append(d)
    when = now or datetime.now(UTC).replace(tzinfo=None)
    rows = chain_rows(genesis(header_json), 0, when, items)
    seqs = [row.seq for row in rows if row.kind == "derived"]
    ok = report.ok
    last_seq, head = (rows[-1].seq, rows[-1].hash) if rows else (-1, genesis(header_json))
    model = compute(0, header, ok, len(raw_events), last_seq, head,
                    zip(seqs, derived, strict=True))
    findings = [finding_json(f) for f in report.findings]
    return Prepared(header, content_hash(header_json, payloads), rows, model, ok,
                    report.complete, len(report.errors), findings, len(raw_events),
                    record.index, record.path, record.line, record.source)


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


def store(session: Session, prep: Prepared) -> tuple[int, bool]:
    """Write one prepared match in one transaction: (ledger id, whether it is new)."""
    conn = write_connection(session)
    now = prep.rows[0][5] if prep.rows else datetime.now(UTC).replace(tzinfo=None)
    values = {**prep.header.columns(), "origin": "import", "content_hash": prep.content_hash,
              "status": "complete" if prep.complete else "incomplete", "ok": prep.ok,
              "errors": prep.errors, "warnings": len(prep.findings) - prep.errors,
              "findings": prep.findings, "imported_from": prep.where, "created_at": now}
    match_id = _insert_new(conn, values)
    if match_id is None:  # stored before (or just now, by another import)
        existing = find(conn, prep.content_hash)
        session.rollback()
        assert existing is not None
        return existing, False
    if prep.rows:
        insert_rows(conn, match_id, prep.rows)
        insert_model(conn, prep.model.for_match(match_id))
    session.commit()
    return match_id, True


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
            for r in rows:  # by position: rows may be plain tuples (see Prepared)
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
    for seq, index, kind, type_, payload, recorded_at, prev, digest in rows:
        if recorded_at is not when:  # one time per transaction: format it once
            when = recorded_at
            # The text format SQLAlchemy's SQLite DateTime reads back.
            text = when.strftime("%Y-%m-%d %H:%M:%S.%f")
        yield (match_id, seq, index, kind, type_, payload, text, prev, digest)


# --- the import loop -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Unstorable:
    """A record with nothing to store (its header cannot be read)."""

    index: int
    path: str
    line: int | None
    source: object
    problems: tuple[dict[str, object], ...]

    @classmethod
    def of(cls, record: MatchRecord) -> Unstorable:
        return cls(record.index, record.path, record.line, record.source,
                   tuple(finding_json(f) for f in record.problems))


Item = Prepared | Unstorable


def item_of(record: MatchRecord) -> Item:
    prep = prepare(record)
    return Unstorable.of(record) if prep is None else prep


def _stored(session: Session, item: Item) -> Imported:
    if isinstance(item, Unstorable):
        error = str(item.problems[0]["message"]) if item.problems else "no header"
        return Imported(item.index, item.path, item.line, None, False, False, item.source,
                        error=error, findings=item.problems)
    match_id, new = store(session, item)
    return Imported(item.index, item.path, item.line, match_id, new, item.ok, item.source,
                    item.recorded, findings=tuple(item.findings))


def import_records(session: Session, records: Iterable[MatchRecord]) -> Iterator[Imported]:
    """Audit and store each record in its own transaction; yield what became of it."""
    for record in records:
        yield _stored(session, item_of(record))


def import_file(session: Session, path: str, jobs: int = 0) -> Iterator[Imported]:
    """Every match of one file, in order (ReadError if the file cannot be read at all).

    ``jobs`` worker processes read, audit and hash while this process writes;
    0 does everything here.
    """
    if jobs <= 0:
        yield from import_records(session, read_matches(path))
        return
    for item in _prepared_in_workers(path, jobs):
        yield _stored(session, item)


# --- worker processes ----------------------------------------------------------------


def _prepared_in_workers(path: str, jobs: int) -> Iterator[Item]:
    """What ``jobs`` worker processes prepare, in input order.

    Workers are plain ``python -m ledger.store.worker`` processes that pickle
    their items down a pipe. A full pipe stops a worker (so memory stays
    flat), and a pipe whose reader died ends it (a killed import leaves no
    process behind).
    """
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])  # ledger's own checkout comes first
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    procs: list[tuple[subprocess.Popen[bytes], Any]] = []
    with ExitStack() as stack:
        for k in range(jobs):
            err = stack.enter_context(tempfile.TemporaryFile())
            proc = subprocess.Popen([sys.executable, "-m", "ledger.store.worker", path,
                                     str(jobs), str(k)], stdout=subprocess.PIPE, stderr=err,
                                    env=env)
            stack.callback(_reap, proc)
            procs.append((proc, err))
        done = 0
        n = 0
        while done < jobs:
            proc, err = procs[n % jobs]
            assert proc.stdout is not None
            try:
                kind, value = pickle.load(proc.stdout)
            except (EOFError, pickle.UnpicklingError):
                proc.wait()
                err.seek(0)
                last = err.read().decode(errors="replace").strip().splitlines()[-1:]
                raise RuntimeError(f"an import worker ended unexpectedly on {path} (exit code "
                                   f"{proc.returncode}): {' '.join(last) or 'no message'}"
                                   ) from None
            if kind == "end":
                done += 1  # matches go round the workers: the first to end ends them all
            elif kind == "read-error":
                raise ReadError(str(value))
            else:
                yield cast(Item, value)
            n += 1


def _reap(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()
