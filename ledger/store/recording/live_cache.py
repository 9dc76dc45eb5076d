"""What an append to a live match needs from the one before it, kept per process.

Each append folds its event into the state after the match's last one and computes the
match's read model again; read from the tables, that is a snapshot decoded and its deal
folded again, and every derived event of the match parsed again (most of an append's
time, more the longer the match). The append before it, in this process, had both in
hand: they are kept here under the head they hold for (the last event's seq and hash).

A hash names the whole chain up to it (ledger/store/log/hashing.py), so an entry is right
for any ledger whose match ends in that head: an append by another process, an undo, a
batch rolled back, all leave a different head in the tables, and the entry is not used.
Bounded: the least recently used match is dropped first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from ledger.engine import State
from ledger.events import Event
from ledger.findings import Finding
from ledger.store.pages.readmodels import ReadModel

SIZE = 256


@dataclass(frozen=True, slots=True)
class Kept:
    seq: int                               # the head: the last event's seq and hash
    hash: bytes
    state: State                           # after the last recorded event (never changed:
                                           # the engine's step folds into a copy)
    recorded: int                          # rows that are not derived (the summary's count)
    derived: tuple[tuple[int, Event], ...]  # the standing derived events, (seq, event)
    model: ReadModel                       # as the tables hold it now
    line: tuple[Event, ...] = ()           # the recorded events standing (what is audited)
    walked: tuple[Finding, ...] | None = None  # their findings (live_audit.py), if kept


class LiveCache:
    def __init__(self, size: int = SIZE) -> None:
        self.size = size
        self._kept: OrderedDict[tuple[str, int], Kept] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0

    def get(self, ledger: str, match_id: int, seq: int, digest: bytes) -> Kept | None:
        """What was kept for the match of ``ledger`` (its URL) if its head is still
        (``seq``, ``digest``)."""
        with self._lock:
            kept = self._kept.get((ledger, match_id))
            if kept is None or kept.seq != seq or kept.hash != bytes(digest):
                return None
            self._kept.move_to_end((ledger, match_id))
            self.hits += 1
            return kept

    def put(self, ledger: str, match_id: int, kept: Kept) -> None:
        with self._lock:
            self._kept[(ledger, match_id)] = kept
            self._kept.move_to_end((ledger, match_id))
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)


LIVE = LiveCache()
