"""Recorder keys: the secret that lets one live match take appends and undos.

A key is 32 random bytes (URL-safe text), shown once to whoever starts the match
and kept only as its SHA-256 (a key has all the entropy it needs, so a slow hash
would add nothing). ``check`` compares digests in constant time. ``issue`` makes
the match's key, or replaces it (a rotation): the old key is refused from then on.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import UTC, datetime

from sqlalchemy import delete, insert, select
from sqlalchemy.engine import Connection

from ledger.store.models import RECORDER_KEYS


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
    conn.execute(insert(RECORDER_KEYS).values(
        match_id=match_id, key_hash=digest(key), generation=(generation or 0) + 1,
        issued_at=datetime.now(UTC).replace(tzinfo=None)))
    return key


def check(conn: Connection, match_id: int, key: str | None) -> bool:
    """Whether ``key`` is the match's current recorder key."""
    if not key:
        return False
    stored = conn.execute(select(RECORDER_KEYS.c.key_hash)
                          .where(RECORDER_KEYS.c.match_id == match_id)).scalar()
    if stored is None:
        return False
    return hmac.compare_digest(bytes(stored), digest(key))


def generation(conn: Connection, match_id: int) -> int:
    """How many keys the match has had (0: none)."""
    got = conn.execute(select(RECORDER_KEYS.c.generation)
                       .where(RECORDER_KEYS.c.match_id == match_id)).scalar()
    return int(got or 0)


__all__ = ["check", "digest", "generation", "issue", "new_key"]
