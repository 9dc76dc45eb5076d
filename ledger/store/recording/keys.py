"""Recorder keys: the secret that lets one live match take appends and undos.

A key is 32 random bytes (URL-safe text), shown once to whoever starts the match
and kept only as its SHA-256 (a key has all the entropy it needs, so a slow hash
would add nothing). ``check`` compares digests in constant time. ``issue`` makes
the match's key, or replaces it (a rotation): the old key is refused from then on.
Each key row is sealed with its match's header (``seals.key``): a row swapped or copied
from another match behind the ledger's back grants nothing, and ``verify`` names it (and
a live match whose key row is gone).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import UTC, datetime

from sqlalchemy import bindparam, delete, insert, select
from sqlalchemy.engine import Connection

from ledger.store.log import seals
from ledger.store.log.hashing import genesis
from ledger.store.log.mapper import Header
from ledger.store.models import MATCHES, RECORDER_KEYS


def new_key() -> str:
    return secrets.token_urlsafe(32)


def digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()


def issue(conn: Connection, match_id: int) -> str:
    """A fresh key for ``match_id`` (in the caller's transaction); any earlier one is void."""
    key = new_key()
    generation = conn.execute(select(RECORDER_KEYS.c.generation)
                              .where(RECORDER_KEYS.c.match_id == match_id)).scalar()
    conn.execute(delete(RECORDER_KEYS).where(RECORDER_KEYS.c.match_id == match_id))
    hashed, count = digest(key), (generation or 0) + 1
    when = datetime.now(UTC).replace(tzinfo=None)
    conn.execute(insert(RECORDER_KEYS).values(
        match_id=match_id, key_hash=hashed, generation=count, issued_at=when,
        seal=seals.key(match_id, hashed, count, when, match_genesis(conn, match_id))))
    return key


_SEALED = (select(RECORDER_KEYS.c.key_hash, RECORDER_KEYS.c.generation,
                  RECORDER_KEYS.c.issued_at, RECORDER_KEYS.c.seal, MATCHES.c.preset,
                  MATCHES.c.seats, MATCHES.c.options, MATCHES.c.source, MATCHES.c.started_at)
           .join(MATCHES, MATCHES.c.id == RECORDER_KEYS.c.match_id)
           .where(RECORDER_KEYS.c.match_id == bindparam("match")))


def match_genesis(conn: Connection, match_id: int) -> bytes:
    m = conn.execute(select(MATCHES).where(MATCHES.c.id == match_id)).one()
    return genesis(Header.of_row(m).canonical())


def sealed_hash(conn: Connection, match_id: int) -> tuple[bytes | None, bool]:
    """The match's key digest as stored (None: no row) and whether its seal holds."""
    row = conn.execute(_SEALED, {"match": match_id}).one_or_none()
    if row is None:
        return None, False
    want = seals.key(match_id, bytes(row.key_hash), row.generation, row.issued_at,
                     genesis(Header.of_row(row).canonical()))
    return bytes(row.key_hash), seals.holds(row.seal, want)


def check(conn: Connection, match_id: int, key: str | None) -> bool:
    """Whether ``key`` is the match's current recorder key."""
    if not key:
        return False
    stored, holds = sealed_hash(conn, match_id)
    if stored is None or not holds:  # a row swapped behind the ledger's back grants nothing
        return False
    return hmac.compare_digest(stored, digest(key))


def generation(conn: Connection, match_id: int) -> int:
    """How many keys the match has had (0: none)."""
    got = conn.execute(select(RECORDER_KEYS.c.generation)
                       .where(RECORDER_KEYS.c.match_id == match_id)).scalar()
    return int(got or 0)


__all__ = ["check", "digest", "generation", "issue", "match_genesis", "new_key", "sealed_hash"]
