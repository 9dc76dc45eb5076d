"""Seals: what binds a row the pages trust, but which is no event, to its match.

The analyses, the knowledge reviews, the snapshots and the recorder keys are kept beside
the events, not in their chain, so a row changed behind the ledger's back (a loss made
25, a key swapped for one somebody knows) would stay unseen. Each such row carries a
seal: SHA-256 over a label naming its table, its match, its content and the match's
hash it holds for (the head it was worked out for, the event a snapshot follows, the
header a key opens). ``verify`` computes every seal again and checks that the hash it
names is the match's; the pages use a row only if its seal holds (else the answer is
worked out again, a snapshot is folded past, a key refused). docs/security.md says what
a seal does not stop.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from ledger.store.log.hashing import stamp


def _seal(label: str, *parts: object) -> bytes:
    h = hashlib.sha256(f"domino-ledger/1 {label}\n".encode())
    for part in parts:
        data = (bytes(part) if isinstance(part, (bytes, bytearray, memoryview))
                else str(part).encode())
        h.update(b"%d:" % len(data))  # lengths first: no two contents run together alike
        h.update(data)
    return h.digest()


def analysis(match_id: int, deal: int, version: str, last_seq: int, head_hash: bytes,
             body: str) -> bytes:
    return _seal("analysis", match_id, deal, version, last_seq, head_hash, body)


def review(match_id: int, head_hash: bytes, samples: int, version: str, body: str) -> bytes:
    return _seal("knowledge review", match_id, head_hash, samples, version, body)


def snapshot(match_id: int, seq: int, recorded_index: int, version: str, state: str,
             event_hash: bytes) -> bytes:
    """A snapshot's, with the hash of the event it follows."""
    return _seal("snapshot", match_id, seq, recorded_index, version, state, event_hash)


def key(match_id: int, key_hash: bytes, generation: int, issued_at: datetime,
        genesis: bytes) -> bytes:
    """A recorder key's, with the hash of its match's header (``hashing.genesis``)."""
    return _seal("recorder key", match_id, key_hash, generation, stamp(issued_at), genesis)


def holds(seal: bytes | memoryview | None, want: bytes) -> bool:
    return seal is not None and bytes(seal) == want


__all__ = ["analysis", "holds", "key", "review", "snapshot"]
