"""Jobs a server process works out itself, claimed in the ledger (``job_claims``, 0009).

An embedded SQLite ledger's server runs one process per core, each with its own
analysis workers (ledger.jobs.service); without a shared record, a process would know only
the jobs it started: another would answer "none" while one runs, and a second ask would
do the work twice. So a process claims a job here before it starts it (``claim``: one
row per job key, ``JobKey.name``), keeps the claim alive with a heartbeat carrying its
progress (``beat``), and ends it in the transaction that keeps the answer
(``finished``) or marks it failed (``failed``). Every process reads the same row
(``standing``, ``of_match``).

A claim whose owner has not beaten for ``LEASE`` seconds belongs to a process that died
(or hangs): it is read as no claim, and the next ask takes it over (``claim`` replaces
it only if it is still the one that was seen stale). A failure stands ``RETRY_AFTER``
seconds, then a new ask tries again. PostgreSQL's job queue (``jobqueue``) does the same
for its workers with pgqueuer's own lease; this table serves the in-process backend on
any ledger.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import and_, bindparam, delete, insert, select, update
from sqlalchemy.engine import Connection

from ledger.store.jobs.jobqueue import JobKey
from ledger.store.models import JOB_CLAIMS

LEASE = 30.0          # seconds without a heartbeat before a claim is taken for dead
BEAT = 5.0            # seconds between an owner's heartbeats (well inside the lease)
RETRY_AFTER = 3600.0  # seconds a failure stands before a new ask tries again
RUNNING = ("queued", "running")


@dataclass(frozen=True, slots=True)
class Claim:
    """A job's claim as every process reads it."""

    state: str            # queued, running, failed
    done: int
    total: int
    error: str | None
    owner: str
    beat: datetime        # the owner's last heartbeat (UTC)

    def alive(self, now: datetime, lease: float = LEASE) -> bool:
        """Whether it still holds: a running job's owner beats, a failure still stands."""
        age = (now - self.beat).total_seconds()
        return age < (lease if self.state in RUNNING else RETRY_AFTER)


def now() -> datetime:
    """The time claims are written with: UTC, without its zone (SQLite keeps none)."""
    return datetime.now(UTC).replace(tzinfo=None)


def _claim(row: object) -> Claim:
    return Claim(row.state, row.done, row.total, row.error, row.owner,  # type: ignore[attr-defined]
                 row.beat)  # type: ignore[attr-defined]


_COLUMNS = (JOB_CLAIMS.c.state, JOB_CLAIMS.c.done, JOB_CLAIMS.c.total, JOB_CLAIMS.c.error,
            JOB_CLAIMS.c.owner, JOB_CLAIMS.c.beat)


def standing(conn: Connection, key: JobKey, lease: float = LEASE) -> Claim | None:
    """The job's claim while it holds (None: none, or its owner died long ago enough)."""
    row = conn.execute(select(*_COLUMNS).where(JOB_CLAIMS.c.key == key.name)).first()
    if row is None:
        return None
    got = _claim(row)
    return got if got.alive(now(), lease) else None


# Built once: a match's page asks it at every visit (SQLAlchemy builds and keys a
# statement per call otherwise).
_OF_MATCH = select(JOB_CLAIMS.c.key, *_COLUMNS).where(
    JOB_CLAIMS.c.kind == bindparam("kind"), JOB_CLAIMS.c.match_id == bindparam("match"))


def of_match(conn: Connection, kind: str, match_id: int, lease: float = LEASE
             ) -> dict[JobKey, Claim]:
    """Every claim of ``kind`` for the match that holds (a page that knows the match's
    head but not the rest of a key: a knowledge review's samples)."""
    rows = conn.execute(_OF_MATCH, {"kind": kind, "match": match_id})
    at = now()
    out = {}
    for row in rows:
        got = _claim(row)
        if got.alive(at, lease):
            out[JobKey.of_name(row.key)] = got
    return out


def claim(conn: Connection, key: JobKey, owner: str, lease: float = LEASE) -> Claim | None:
    """Claim the job for ``owner`` (call in a write transaction, then commit): None when
    it is claimed now, else the claim that holds (another process's: join it). A claim
    that no longer holds (a dead owner, a failure old enough) is replaced."""
    at = now()
    row = conn.execute(select(*_COLUMNS).where(JOB_CLAIMS.c.key == key.name)).first()
    values = {"state": "queued", "done": 0, "total": 0, "error": None, "owner": owner,
              "beat": at}
    if row is None:
        conn.execute(insert(JOB_CLAIMS).values(key=key.name, kind=key.kind,
                                               match_id=key.match_id, **values))
        return None
    seen = _claim(row)
    if seen.alive(at, lease):
        return seen
    # Replaced only if it is still the claim seen stale: of two processes that saw it so,
    # one takes it.
    took = conn.execute(update(JOB_CLAIMS).where(
        JOB_CLAIMS.c.key == key.name, JOB_CLAIMS.c.owner == seen.owner,
        JOB_CLAIMS.c.beat == seen.beat).values(**values)).rowcount
    return None if took else standing(conn, key, lease)


def beat(conn: Connection, owner: str, progress: Mapping[str, tuple[str, int, int]]) -> None:
    """The owner's heartbeat: each of its jobs named (``JobKey.name``) with its state and
    progress (state, done, total); a claim taken over by another meanwhile is left be."""
    at = now()
    for name, (state, done, total) in progress.items():
        conn.execute(update(JOB_CLAIMS).where(
            JOB_CLAIMS.c.key == name, JOB_CLAIMS.c.owner == owner,
            JOB_CLAIMS.c.state.in_(RUNNING)).values(state=state, done=done, total=total,
                                                    beat=at))


def finished(conn: Connection, key: JobKey) -> None:
    """The job's answer is kept: its claim goes (call in the answer's transaction)."""
    conn.execute(delete(JOB_CLAIMS).where(JOB_CLAIMS.c.key == key.name))


def failed(conn: Connection, key: JobKey, owner: str, error: str) -> None:
    """The job failed: said to every ask for ``RETRY_AFTER`` seconds."""
    conn.execute(update(JOB_CLAIMS).where(JOB_CLAIMS.c.key == key.name,
                                          JOB_CLAIMS.c.owner == owner)
                 .values(state="failed", error=error, beat=now()))


def release(conn: Connection, owner: str, names: Sequence[str] | None = None) -> int:
    """The owner's claims still queued or running (or those named) given up: a process
    that stops, or a job it dropped; how many."""
    where = [JOB_CLAIMS.c.owner == owner, JOB_CLAIMS.c.state.in_(RUNNING)]
    if names is not None:
        where.append(JOB_CLAIMS.c.key.in_(list(names)))
    return int(conn.execute(delete(JOB_CLAIMS).where(and_(*where))).rowcount or 0)



__all__ = ["BEAT", "LEASE", "RETRY_AFTER", "Claim", "beat", "claim", "failed",
           "finished", "now", "of_match", "release", "standing"]
