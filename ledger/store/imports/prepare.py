"""A match made ready to store: audited, its rows, hashes and read model computed.

Needs no database (nor SQLAlchemy): an import's worker processes run it, and load
only this, the rules and the reader, while the importing process writes
(``ledger.store.imports.importer``). What it makes is plain, picklable data.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, NamedTuple

import orjson

from ledger.audit import AuditReport, audit_record
from ledger.events import Event
from ledger.findings import finding
from ledger.formats.reader import MatchRecord
from ledger.store.log.hashing import (
    content_hasher,
    event_hash_from,
    genesis,
    row_head,
    stamp,
)
from ledger.store.log.mapper import (
    Header,
    Row,
    finding_json,
    json_text,
    payload_pair,
    text_and_bytes,
    unread_type,
)
from ledger.store.pages.computed import TOTALS, ReadModel, compute

HASH = 32  # bytes of a SHA-256 digest


# The text SQLAlchemy's SQLite DateTime writes and reads back.
SQLITE_TIME = "%Y-%m-%d %H:%M:%S.%f"


class SqliteValues(NamedTuple):
    """A prepared match's statement values for SQLite, the match id left out: those its
    columns' types would bind (JSON as text, booleans as integers, times as text)."""

    match: tuple[Any, ...]
    recorded_at: str
    summary: tuple[Any, ...]
    deals: tuple[tuple[Any, ...], ...]
    totals: tuple[tuple[Any, ...], ...]
    rows: SqliteRows


class SqliteRows(NamedTuple):
    """A match's event rows as SQLite's insert reads them (``importer._SQLITE_EVENTS``).

    ``payloads``, a JSON array of the payload texts (``json_each`` gives each one as it
    is, decoded once), and ``meta``, ``width`` bytes a row: its recorded index in 10
    digits, the byte lengths of its kind and type in 3 digits each, then kind and type
    (UTF-8), padded. SQLite cuts a BLOB by byte offsets at once; reading the same
    values out of ``Prepared.rows_json`` parsed each row's array again per value (half
    the time of the insert).
    """

    payloads: str
    meta: bytes
    width: int


def sqlite_rows(rows: list[tuple[int, str, str, str]] | list[list[Any]]) -> SqliteRows:
    """``SqliteRows`` of ``(recorded_index, kind, type, payload)`` rows."""
    labels: dict[tuple[str, str], bytes] = {}
    for _, kind, type_, _ in rows:
        if (kind, type_) not in labels:
            k, t = kind.encode(), type_.encode()
            labels[kind, type_] = b"%03d%03d%b%b" % (len(k), len(t), k, t)
    longest = max((len(label) for label in labels.values()), default=6)
    padded = {key: label.ljust(longest) for key, label in labels.items()}
    meta = b"".join([b"%010d%b" % (index, padded[kind, type_])
                     for index, kind, type_, _ in rows])
    # Ten digits hold any recorded index: a line (MAX_LINE, 8 MiB) has fewer events.
    return SqliteRows(orjson.dumps([r[3] for r in rows]).decode(), meta, 10 + longest)


def sqlite_values(prep: Prepared, rows: SqliteRows | None = None) -> SqliteValues:
    header, model, s = prep.header, prep.model, prep.model.summary
    when = prep.recorded_at.strftime(SQLITE_TIME)
    return SqliteValues(
        (header.preset, len(header.seats), json_text(list(header.seats)),
         json_text(header.options), json_text(header.source), header.started_at, "import",
         prep.content_hash, "complete" if prep.complete else "incomplete", int(prep.ok),
         prep.errors, len(prep.findings) - prep.errors, json_text(prep.findings), prep.where,
         when),
        when,
        (s["events"], s["last_seq"], s["head_hash"], s["deals"], json_text(s["scores"]),
         s["winner"], int(s["complete"]), s["end_reason"]),
        tuple((d["deal"], d["seq"], d["result"], d["winner"], d["points"],
               json_text(d["scores"]), json_text(d["fives"]), d["leader"], json_text(d["pips"]))
              for d in model.deals),
        # readmodels.add_totals: names in order, only contributions that add something.
        tuple((name, *(c[t] for t in TOTALS)) for name, c in sorted(model.totals.items())
              if any(c[t] for t in TOTALS)),
        rows or sqlite_rows(orjson.loads(prep.rows_json)))


@dataclass(frozen=True, slots=True)
class Prepared:
    """A match ready to store: everything computed, nothing written (plain, picklable data)."""

    header: Header
    content_hash: bytes
    recorded_at: datetime
    # The event rows, seq 0, 1, ... in order, in two values rather than a Python object
    # per row and column (an import makes millions of rows): ``rows_json`` is a JSON
    # array of ``[recorded_index, kind, type, payload]``, one per row, and ``hashes``
    # the chain, the genesis hash then each row's (row k's prev_hash is digest k, its
    # hash digest k + 1). SQLite takes them as they are (``_SQLITE_EVENTS``).
    rows_json: str
    hashes: bytes
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
    # The values SQLite is sent for the match (``importer._store_sqlite``), made in a
    # worker rather than by the one writing process (None: the writer makes them).
    # Derived from the fields above: a copy with other values must leave them out
    # (``replace(prep, ..., sqlite=None)``).
    sqlite: SqliteValues | None = None

    @property
    def where(self) -> str:
        return self.path if self.line is None else f"{self.path}:{self.line}"

    @property
    def size(self) -> int:
        """The number of event rows."""
        return len(self.hashes) // HASH - 1

    @property
    def last_hash(self) -> bytes | None:
        """The last row's hash (None: the match has no events)."""
        return self.hashes[-HASH:] if self.size else None

    @property
    def rows(self) -> list[Row]:
        """The event rows as ``Row`` values (built on demand: the import needs none)."""
        at, h = self.recorded_at, self.hashes
        return [Row(seq, index, kind, type_, payload, at, h[seq * HASH:(seq + 1) * HASH],
                    h[(seq + 1) * HASH:(seq + 2) * HASH])
                for seq, (index, kind, type_, payload) in enumerate(orjson.loads(self.rows_json))]


def safe_audit(record: MatchRecord) -> AuditReport:
    """The audit of a record; a crash of the auditor becomes a finding and the match is kept."""
    try:
        return audit_record(record)
    except Exception as exc:  # one match must not stop the import of the others
        return AuditReport(match=record.index, source=record.source, path=record.path,
                           line=record.line, findings=list(record.problems) + [finding(
                               None, "error", "internal-error",
                               "the auditor failed on this match ({error}); this is a bug in "
                               "domino-ledger, please report it",
                               error=f"{type(exc).__name__}: {exc}")])


def prepare(record: MatchRecord, report: AuditReport | None = None,
            now: datetime | None = None, for_sqlite: bool = False) -> Prepared | None:
    """Audit a record and compute its rows and read model; None if its header is unreadable.

    The rows are ``mapper.chain_rows``'s for the record's events, each followed by what
    the rules derived from it, computed in one pass over bytes (the import's hot loop).
    ``for_sqlite``: with the values SQLite is sent (``Prepared.sqlite``).
    """
    got = _prepared(record, report, now)
    if got is None:
        return None
    prep, rows = got
    return replace(prep, sqlite=sqlite_values(prep, sqlite_rows(rows))) if for_sqlite else prep


def _prepared(record: MatchRecord, report: AuditReport | None, now: datetime | None
              ) -> tuple[Prepared, list[tuple[int, str, str, str]]] | None:
    if record.header is None or record.raw is None:
        return None
    if report is None:
        report = safe_audit(record)
    header = Header.of(record.header)
    header_json = header.canonical()
    raw_events = record.raw["events"]
    events = record.events
    derived_all = report.derived
    when = now or datetime.now(UTC).replace(tzinfo=None)
    at = stamp(when)  # as hashed
    recorded_heads: dict[str, bytes] = {}  # row_head by event type, for this time
    derived_heads: dict[str, bytes] = {}
    blobs: list[bytes] = []  # the recorded payloads, for the content hash
    keep = blobs.append
    rows: list[tuple[int, str, str, str]] = []
    add = rows.append
    prev = genesis(header_json)
    chain = [prev]
    link = chain.append
    derived: list[tuple[int, Event]] = []
    seq = 0
    after = len(derived_all)
    for i, (raw, ev) in enumerate(zip(raw_events, events, strict=True)):
        if ev is None:
            kind, type_ = "unread", unread_type(raw)
            payload, blob = text_and_bytes(raw)
            head = row_head(kind, type_, at)
        else:
            kind, type_ = "recorded", ev.TYPE
            payload, blob = payload_pair(ev)
            head = recorded_heads.get(type_) or recorded_heads.setdefault(
                type_, row_head(kind, type_, at))
        keep(blob)
        prev = event_hash_from(prev, seq, i, head, blob)
        add((i, kind, type_, payload))
        link(prev)
        seq += 1
        if i < after:
            for d in derived_all[i]:
                type_ = d.TYPE
                head = derived_heads.get(type_) or derived_heads.setdefault(
                    type_, row_head("derived", type_, at))
                payload, blob = payload_pair(d)
                prev = event_hash_from(prev, seq, i, head, blob)
                add((i, "derived", type_, payload))
                link(prev)
                derived.append((seq, d))
                seq += 1
    content = content_hasher(header_json)
    if blobs:
        content.update(b"\n" + b"\n".join(blobs))
    ok = report.ok
    model = compute(0, header, ok, len(raw_events), seq - 1, prev, derived)
    findings = [finding_json(f) for f in report.findings]
    return Prepared(header, content.digest(), when, orjson.dumps(rows).decode(),
                    b"".join(chain), model, ok, report.complete, len(report.errors), findings,
                    len(raw_events), record.index, record.path, record.line,
                    record.source), rows


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


def item_of(record: MatchRecord, for_sqlite: bool = False) -> Item:
    """What to store of a record; ``for_sqlite``: with its SQLite values (an import's
    worker, which spares the one writing process that work)."""
    prep = prepare(record, for_sqlite=for_sqlite)
    return Unstorable.of(record) if prep is None else prep
