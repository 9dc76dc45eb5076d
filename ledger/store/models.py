"""The ledger's tables.

``matches`` and ``events`` are the facts: a match's header and its event
stream (recorded events as the table saw them, derived events as the rules
computed them), hash-chained and append-only. ``deal_rows``,
``match_summaries`` and ``player_totals`` are read models: ``rebuild`` can
drop them and compute them again from the events. ``snapshots`` is a cache of
the fold's state at the start of each deal; ``analyses`` one of the web's
deal analyses (best play, mistakes), which take seconds to compute.

Times are naive UTC. Hashes are raw SHA-256 digests (32 bytes).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    Table,
    Text,
    UniqueConstraint,
)
from sqlmodel import Field, SQLModel

# SQLite only aliases the rowid for a column declared exactly INTEGER.
BigId = BigInteger().with_variant(Integer(), "sqlite")

ORIGINS = ("import", "live")
STATUSES = ("recording", "complete", "incomplete")
KINDS = ("recorded", "derived", "unread")  # unread: kept verbatim, the reader could not parse it


class Match(SQLModel, table=True):
    __tablename__ = "matches"

    id: int | None = Field(default=None, primary_key=True)
    origin: str = Field(index=True)
    preset: str = Field(index=True)
    seat_count: int
    seats: list[str] = Field(sa_column=Column(JSON, nullable=False))
    options: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    source: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    started_at: str | None = None
    # SHA-256 of the canonical match (header + recorded events); NULL while recorded live.
    content_hash: bytes | None = Field(
        default=None, sa_column=Column(LargeBinary(32), nullable=True, unique=True))
    status: str = Field(index=True)
    ok: bool = Field(index=True)
    errors: int = 0
    warnings: int = 0
    findings: list[dict[str, Any]] = Field(sa_column=Column(JSON, nullable=False))
    imported_from: str | None = None
    created_at: datetime = Field(sa_column=Column(DateTime, nullable=False))


class EventRow(SQLModel, table=True):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("match_id", "seq", name="uq_events_match_seq"),)

    id: int | None = Field(default=None, sa_column=Column(BigId, primary_key=True))
    match_id: int = Field(sa_column=Column(Integer, ForeignKey("matches.id"), nullable=False))
    seq: int
    # The recorded event's position in the match file; a derived row carries the
    # position of the recorded event it follows from.
    recorded_index: int
    kind: str
    type: str
    payload: str = Field(sa_column=Column(Text, nullable=False))
    recorded_at: datetime = Field(sa_column=Column(DateTime, nullable=False))
    prev_hash: bytes = Field(sa_column=Column(LargeBinary(32), nullable=False))
    hash: bytes = Field(sa_column=Column(LargeBinary(32), nullable=False))
    # Hashed before the payload (hashing.event_hash): a live row's random salt, published
    # with its payload only, so that a hidden tile's hash cannot be tried (migration 0010).
    salt: bytes | None = Field(default=None, sa_column=Column(LargeBinary(16), nullable=True))


class MatchHead(SQLModel, table=True):
    """How many event rows a match has and the last one's hash (none: NULL).

    Written with the events it counts, in their transaction; the database lets it only
    move forward to an event that is there (migration 0004), so ``verify`` can tell a
    match whose tail was removed from one that was never longer.
    """

    __tablename__ = "match_heads"

    match_id: int = Field(sa_column=Column(Integer, ForeignKey("matches.id"), primary_key=True))
    events: int
    head_hash: bytes | None = Field(default=None,
                                    sa_column=Column(LargeBinary(32), nullable=True))


class DealRow(SQLModel, table=True):
    """One line of the score sheet: a deal as the rules scored it."""

    __tablename__ = "deal_rows"

    match_id: int = Field(sa_column=Column(Integer, ForeignKey("matches.id"), primary_key=True))
    deal: int = Field(primary_key=True)
    seq: int
    result: str
    winner: int | None = None
    points: int
    scores: list[int] = Field(sa_column=Column(JSON, nullable=False))
    fives: list[int] = Field(sa_column=Column(JSON, nullable=False))
    leader: int | None = None
    pips: list[int | None] = Field(sa_column=Column(JSON, nullable=False))


class MatchSummary(SQLModel, table=True):
    __tablename__ = "match_summaries"

    match_id: int = Field(sa_column=Column(Integer, ForeignKey("matches.id"), primary_key=True))
    events: int
    last_seq: int
    head_hash: bytes = Field(sa_column=Column(LargeBinary(32), nullable=False))
    deals: int
    scores: list[int] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    winner: int | None = None
    complete: bool
    end_reason: str | None = None


class PlayerTotals(SQLModel, table=True):
    __tablename__ = "player_totals"

    name: str = Field(primary_key=True)
    matches: int = 0
    complete: int = 0
    wins: int = 0
    deals: int = 0
    deal_wins: int = 0
    points: int = 0
    faulty: int = 0


class SnapshotRow(SQLModel, table=True):
    """The fold's state just after a deal event (a cache: safe to drop); the replay reads
    one as a ``ledger.replay.Snapshot``."""

    __tablename__ = "snapshots"

    match_id: int = Field(sa_column=Column(Integer, ForeignKey("matches.id"), primary_key=True))
    seq: int = Field(primary_key=True)
    recorded_index: int
    version: str
    state: str = Field(sa_column=Column(Text, nullable=False))
    # ledger/store/log/seals.py: binds the row to its match (migration 0011).
    seal: bytes | None = Field(default=None, sa_column=Column(LargeBinary(32), nullable=True))


class Analysis(SQLModel, table=True):
    """A deal's analysis as the web serves it (a cache: safe to drop).

    Good only for the match's events as they were: ``head_hash`` and ``last_seq`` are
    those of its last event then, ``version`` the analysis's (``ledger.store.jobs.analyses``).
    """

    __tablename__ = "analyses"

    match_id: int = Field(sa_column=Column(Integer, ForeignKey("matches.id"), primary_key=True))
    deal: int = Field(primary_key=True)  # 0-based, as the audit counts deals
    version: str
    last_seq: int
    head_hash: bytes = Field(sa_column=Column(LargeBinary(32), nullable=False))
    body: str = Field(sa_column=Column(Text, nullable=False))
    # ledger/store/log/seals.py: binds the row to its match (migration 0011).
    seal: bytes | None = Field(default=None, sa_column=Column(LargeBinary(32), nullable=True))


class RecorderKey(SQLModel, table=True):
    """A live match's recorder key, kept only as its SHA-256 (``ledger.store.recording.keys``).

    Not a fact: rotating a key replaces its hash, and ``generation`` counts the keys the
    match has had.
    """

    __tablename__ = "recorder_keys"

    match_id: int = Field(sa_column=Column(Integer, ForeignKey("matches.id"), primary_key=True))
    key_hash: bytes = Field(sa_column=Column(LargeBinary(32), nullable=False))
    generation: int
    issued_at: datetime = Field(sa_column=Column(DateTime, nullable=False))
    # ledger/store/log/seals.py: binds the row to its match (migration 0011).
    seal: bytes | None = Field(default=None, sa_column=Column(LargeBinary(32), nullable=True))


class KnowledgeReview(SQLModel, table=True):
    """A match's review by what each player knew (a cache: safe to drop), for the match's
    events up to ``head_hash`` and ``samples`` deals per decision
    (``ledger.store.jobs.knowledge_reviews``)."""

    __tablename__ = "knowledge_reviews"

    match_id: int = Field(sa_column=Column(Integer, ForeignKey("matches.id"), primary_key=True))
    head_hash: bytes = Field(sa_column=Column(LargeBinary(32), primary_key=True))
    samples: int = Field(primary_key=True)
    version: str
    body: str = Field(sa_column=Column(Text, nullable=False))
    # ledger/store/log/seals.py: binds the row to its match (migration 0011).
    seal: bytes | None = Field(default=None, sa_column=Column(LargeBinary(32), nullable=True))


class JobClaim(SQLModel, table=True):
    """A job a server process works out itself, claimed by it (``ledger.store.jobs.job_claims``):
    its state and progress for every process, and its owner's last heartbeat (not a fact:
    the row goes when the job's answer is kept)."""

    __tablename__ = "job_claims"
    __table_args__ = (Index("job_claims_match", "kind", "match_id"),)

    key: str = Field(sa_column=Column(Text, primary_key=True))
    kind: str = Field(sa_column=Column(Text, nullable=False))
    match_id: int = Field(sa_column=Column(Integer, ForeignKey("matches.id"), nullable=False))
    state: str = Field(sa_column=Column(Text, nullable=False))
    done: int
    total: int
    error: str | None = Field(default=None, sa_column=Column(Text))
    owner: str = Field(sa_column=Column(Text, nullable=False))
    beat: datetime = Field(sa_column=Column(DateTime, nullable=False))


def table(name: str) -> Table:
    return SQLModel.metadata.tables[name]


MATCHES = table("matches")
EVENTS = table("events")
HEADS = table("match_heads")
DEAL_ROWS = table("deal_rows")
SUMMARIES = table("match_summaries")
PLAYER_TOTALS = table("player_totals")
SNAPSHOTS = table("snapshots")
ANALYSES = table("analyses")
RECORDER_KEYS = table("recorder_keys")
KNOWLEDGE_REVIEWS = table("knowledge_reviews")
JOB_CLAIMS = table("job_claims")
READ_MODELS = (DEAL_ROWS, SUMMARIES, PLAYER_TOTALS)
