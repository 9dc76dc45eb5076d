"""Importing match files: audit each match and store it, findings and derived events included.

Each match is one transaction: it is in the ledger whole or not at all, so an
import killed half-way leaves whole matches only and a re-run completes it.
A faulty match is stored as it was and flagged (``ok`` false, its findings);
a match whose header cannot be read has nothing to store and is reported.
A match already in the ledger (same canonical content) adds nothing.

Files stream: one match is in memory at a time. Event rows go in with one
bulk statement per match (``executemany`` on SQLite, ``COPY`` on
PostgreSQL); hashes are computed here, in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import insert, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from ledger.audit import AuditReport, audit_record
from ledger.events import Event
from ledger.findings import Finding
from ledger.formats.reader import MatchRecord, read_matches
from ledger.store.db import write_connection
from ledger.store.hashing import canonical, content_hash, genesis
from ledger.store.mapper import Header, Row, chain_rows, payload_of, unread_type
from ledger.store.models import MATCHES
from ledger.store.readmodels import compute, insert_model

_EVENT_COLUMNS = ("match_id", "seq", "recorded_index", "kind", "type", "payload",
                  "recorded_at", "prev_hash", "hash")
_SQLITE_INSERT = (f"INSERT INTO events ({', '.join(_EVENT_COLUMNS)}) "
                  f"VALUES ({', '.join('?' * len(_EVENT_COLUMNS))})")
_PG_COPY = f"COPY events ({', '.join(_EVENT_COLUMNS)}) FROM STDIN"


@dataclass(frozen=True, slots=True)
class Prepared:
    """A match ready to store: everything computed, nothing written."""

    header: Header
    content_hash: bytes
    rows: list[Row]
    report: AuditReport
    derived: list[tuple[int, Event]]
    recorded: int
    imported_from: str


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


def prepare(record: MatchRecord, report: AuditReport | None = None,
            now: datetime | None = None) -> Prepared | None:
    """Audit a record and compute its rows; None when its header cannot be read."""
    if record.header is None or record.raw is None:
        return None
    if report is None:
        report = safe_audit(record)
    header = Header.of(record.header)
    header_json = header.canonical()
    raw_events = record.raw["events"]
    items: list[tuple[int, str, str, str]] = []
    payloads: list[str] = []
    derived_in_order: list[Event] = []
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
                derived_in_order.append(d)
    when = now or datetime.now(UTC).replace(tzinfo=None)
    rows = chain_rows(genesis(header_json), 0, when, items)
    derived_seqs = [row.seq for row in rows if row.kind == "derived"]
    return Prepared(header, content_hash(header_json, payloads), rows, report,
                    list(zip(derived_seqs, derived_in_order, strict=True)), len(raw_events),
                    record.where)


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


def find(conn: Connection, digest: bytes) -> int | None:
    found = conn.execute(select(MATCHES.c.id).where(MATCHES.c.content_hash == digest)).first()
    return None if found is None else int(found.id)


def store(session: Session, prep: Prepared) -> tuple[int, bool]:
    """Write one prepared match in one transaction: (ledger id, whether it is new)."""
    conn = write_connection(session)
    existing = find(conn, prep.content_hash)
    if existing is not None:
        session.rollback()
        return existing, False
    report = prep.report
    findings = [f.to_dict() for f in report.findings]
    errors = len(report.errors)
    values = {**prep.header.columns(), "origin": "import", "content_hash": prep.content_hash,
              "status": "complete" if report.complete else "incomplete", "ok": report.ok,
              "errors": errors, "warnings": len(findings) - errors, "findings": findings,
              "imported_from": prep.imported_from, "created_at": prep.rows[0].recorded_at
              if prep.rows else datetime.now(UTC).replace(tzinfo=None)}
    try:
        match_id = int(conn.execute(insert(MATCHES).returning(MATCHES.c.id), [values])
                       .scalar_one())
    except IntegrityError:
        # Another import stored the same match since we looked: it is not new.
        session.rollback()
        existing = find(session.connection(), prep.content_hash)
        session.rollback()
        if existing is None:
            raise
        return existing, False
    if prep.rows:
        insert_rows(conn, match_id, prep.rows)
        last = prep.rows[-1]
        model = compute(match_id, prep.header, report.ok, prep.recorded, last.seq, last.hash,
                        prep.derived)
        insert_model(conn, model)
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
            for r in rows:
                copy.write_row((match_id, r.seq, r.recorded_index, r.kind, r.type, r.payload,
                                r.recorded_at, r.prev_hash, r.hash))
        return
    lite = dbapi.cursor()
    try:
        lite.executemany(_SQLITE_INSERT, list(_sqlite_rows(match_id, rows)))
    finally:
        lite.close()


def _sqlite_rows(match_id: int, rows: Iterable[Row]) -> Iterator[tuple[object, ...]]:
    when: datetime | None = None
    text = ""
    for r in rows:
        if r.recorded_at is not when:  # one time per transaction: format it once
            when = r.recorded_at
            # The text format SQLAlchemy's SQLite DateTime reads back.
            text = when.strftime("%Y-%m-%d %H:%M:%S.%f")
        yield (match_id, r.seq, r.recorded_index, r.kind, r.type, r.payload, text,
               r.prev_hash, r.hash)


def import_records(session: Session, records: Iterable[MatchRecord]) -> Iterator[Imported]:
    """Audit and store each record in its own transaction; yield what became of it."""
    for record in records:
        prep = prepare(record)
        if prep is None:
            problem = record.problems[0].message if record.problems else "no header"
            yield Imported(record.index, record.path, record.line, None, False, False,
                           record.source, error=problem,
                           findings=tuple(f.to_dict() for f in record.problems))
            continue
        match_id, new = store(session, prep)
        yield Imported(record.index, record.path, record.line, match_id, new, prep.report.ok,
                       record.source, prep.recorded,
                       findings=tuple(f.to_dict() for f in prep.report.findings))


def import_file(session: Session, path: str,
                on_record: Callable[[MatchRecord], None] | None = None) -> Iterator[Imported]:
    """Every match of one file (ReadError if the file cannot be read at all)."""
    records: Iterable[MatchRecord] = read_matches(path)
    if on_record is not None:
        records = _tap(records, on_record)
    yield from import_records(session, records)


def _tap(records: Iterable[MatchRecord], fn: Callable[[MatchRecord], None]
         ) -> Iterator[MatchRecord]:
    for r in records:
        fn(r)
        yield r

