"""``verify``'s look at the rows the pages trust beside the events (``seals.py``).

Each analysis, knowledge review and snapshot must hold its seal and name a hash of its
own match's chain (the head it was worked out for, the event it follows); each live
match must have a recorder key row whose seal holds, and an imported one none. Every
row that fails is named, not only the first.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sqlalchemy import select
from sqlalchemy.engine import Connection

from ledger.store.log import seals
from ledger.store.models import ANALYSES, KNOWLEDGE_REVIEWS, SNAPSHOTS
from ledger.store.recording import keys


class Problem(NamedTuple):
    code: str
    message: str


def problems(conn: Connection, m: Any, hashes: list[bytes]) -> list[Problem]:
    """What is wrong with match ``m``'s sealed rows; ``hashes``: its events' hashes, by
    seq (verified already)."""
    chain = set(hashes)
    return [*_analyses(conn, m.id, hashes), *_reviews(conn, m.id, chain),
            *_snapshots(conn, m.id, hashes), *_key(conn, m)]


def _at(hashes: list[bytes], seq: int) -> bytes | None:
    return hashes[seq] if 0 <= seq < len(hashes) else None


def _analyses(conn: Connection, match_id: int, hashes: list[bytes]) -> list[Problem]:
    out = []
    for r in conn.execute(select(ANALYSES).where(ANALYSES.c.match_id == match_id)
                          .order_by(ANALYSES.c.deal)):
        head = bytes(r.head_hash)
        if not seals.holds(r.seal, seals.analysis(match_id, r.deal, r.version, r.last_seq,
                                                  head, r.body)):
            out.append(Problem("analysis-mismatch", f"the kept analysis of deal {r.deal} "
                               "does not match its seal: it was changed behind the "
                               "ledger's back"))
        elif _at(hashes, r.last_seq) != head:
            out.append(Problem("analysis-mismatch", f"the kept analysis of deal {r.deal} "
                               f"names event {r.last_seq} with a hash the match's chain "
                               "does not hold: it belongs to another match or head"))
    return out


def _reviews(conn: Connection, match_id: int, chain: set[bytes]) -> list[Problem]:
    out = []
    for r in conn.execute(select(KNOWLEDGE_REVIEWS)
                          .where(KNOWLEDGE_REVIEWS.c.match_id == match_id)
                          .order_by(KNOWLEDGE_REVIEWS.c.samples)):
        head = bytes(r.head_hash)
        if not seals.holds(r.seal, seals.review(match_id, head, r.samples, r.version,
                                                r.body)):
            out.append(Problem("review-mismatch", f"the kept knowledge review ({r.samples} "
                               "samples) does not match its seal: it was changed behind "
                               "the ledger's back"))
        elif head not in chain:
            out.append(Problem("review-mismatch", f"the kept knowledge review ({r.samples} "
                               "samples) names a head the match's chain does not hold"))
    return out


def _snapshots(conn: Connection, match_id: int, hashes: list[bytes]) -> list[Problem]:
    out = []
    for r in conn.execute(select(SNAPSHOTS).where(SNAPSHOTS.c.match_id == match_id)
                          .order_by(SNAPSHOTS.c.seq)):
        event = _at(hashes, r.seq)
        if event is None or not seals.holds(r.seal, seals.snapshot(
                match_id, r.seq, r.recorded_index, r.version, r.state, event)):
            out.append(Problem("snapshot-mismatch", f"the snapshot after event {r.seq} "
                               "does not match its seal and that event: it was changed "
                               "behind the ledger's back"))
    return out


def _key(conn: Connection, m: Any) -> list[Problem]:
    stored, holds = keys.sealed_hash(conn, m.id)
    if m.origin == "live" and stored is None:
        return [Problem("key-missing", "the live match has no recorder key row: it was "
                        "removed, and no key can record the match until the owner issues "
                        "a new one")]
    if stored is not None and m.origin != "live":
        return [Problem("key-mismatch", "an imported match has a recorder key row: it was "
                        "added behind the ledger's back")]
    if stored is not None and not holds:
        return [Problem("key-mismatch", "the recorder key row does not match its seal: it "
                        "was swapped behind the ledger's back (it grants nothing)")]
    return []


__all__ = ["Problem", "problems"]
