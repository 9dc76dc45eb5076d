"""What each seat knew at each step of a match.

Per step (the table after the first ``step`` recorded events, as in the replay)
and per seat:

- ``seen``: the tiles the seat has seen in the current deal: its own hand as
  dealt, the tiles it drew, every tile laid on the table, and hands shown at
  the end.
- ``unseen``: for each number 0 to 6, how many of the seven tiles showing it the
  seat has not seen (a double counts once).
- ``lacks``: for each other seat, the numbers it is known to hold none of. A seat
  that passed, or drew, while the ends showed 3 and 5 holds no 3 and no 5 ("Watch
  who draws or passes", seed 002). Tiles it later draws unseen may bring a number
  back, so after a turn in which it kept drawn tiles only the numbers then at the
  ends stay certain; while it is still drawing, nothing is certain from its
  draws. On top of that, a number whose seven tiles the seat has all seen (in its
  hand or on the table) is lacked by everyone else.

Per seat too, ``dealt``: every fact the rules give the seat about how the deal was dealt
(``full_deals.DealtFacts``: its own hand as dealt and draws, every public move with the
ends it met, the opening, the redeal rule), from which ``full_deals.space_of`` gives
the full deals consistent with them: every void kept at its time, whatever was drawn
since (docs/knowledge-review.md). None before a deal or when the seat's own hand is
not in the record.

Per step too: ``used_up``, the numbers whose seven tiles all lie on the table,
with the event that laid the last one ("when all seven tiles of one number are
down, nobody can play it", seed 000 §4).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ledger.analysis.full_deals import Act, DealtFacts, Kind, facts_for
from ledger.analysis.sampling import Inconsistent
from ledger.engine.state import CLOSED, State
from ledger.events import Dealt, Drew, Event, HandsRevealed, Passed, Played
from ledger.formats.partial import rebuild_hands
from ledger.rules.base import Rules
from ledger.tiles import SUIT_MASK, Tile, mask_of, tiles_of
from ledger.walk import Walk, Walked

NUMBERS = range(7)


@dataclass(frozen=True, slots=True)
class SeatKnowledge:
    seat: int
    seen: tuple[Tile, ...]
    unseen: tuple[int, ...]                       # per number 0..6
    lacks: tuple[tuple[int, tuple[int, ...]], ...]  # (other seat, numbers it has none of)
    dealt: DealtFacts | None = None               # what it knew of the deal as dealt

    def lacks_of(self, seat: int) -> tuple[int, ...]:
        return next((nums for s, nums in self.lacks if s == seat), ())

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "seen": [str(t) for t in self.seen],
            "unseen": list(self.unseen),
            "lacks": {str(s): list(nums) for s, nums in self.lacks},
        }


@dataclass(frozen=True, slots=True)
class Knowledge:
    step: int                                   # after this many recorded events
    deal: int | None                            # 0-based; None before the first deal
    table: tuple[Tile, ...]
    ends: tuple[int, ...]                       # the open numbers
    used_up: tuple[tuple[int, int], ...]        # (number, event that laid its last tile)
    seats: tuple[SeatKnowledge, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "deal": self.deal,
            "table": [str(t) for t in self.table],
            "ends": list(self.ends),
            "used_up": [{"number": n, "event": e} for n, e in self.used_up],
            "seats": [s.to_dict() for s in self.seats],
        }


class _Tracker:
    """What passes and draws have shown so far in the current deal."""

    def __init__(self, rules: Rules) -> None:
        seats = rules.seats
        self.rules = rules
        self.seats = seats
        self.dealt: list[int | None] = [None] * seats   # each hand as dealt (None: hidden)
        self.acts: list[Act] = []
        self.opening: Tile | None = None
        self.by_rank = False
        self.started = False
        self.seen = [0] * seats
        self.table = 0
        self.lacks: list[set[int]] = [set() for _ in range(seats)]
        self.drawing: list[int] = [0] * seats      # draws in the seat's current turn
        self.turn_lacks: list[set[int]] = [set() for _ in range(seats)]
        self.used_up: dict[int, int] = {}

    def deal(self, st: State) -> None:
        self.dealt = [None if st.hidden[s] else st.hands[s] for s in range(self.seats)]
        self.acts = []
        self.opening = st.must_open
        # With a hand hidden the leader is not known yet, but the rule still holds.
        self.by_rank = st.must_open is not None or st.to_move is None
        self.started = True
        for s in range(self.seats):
            self.seen[s] = st.hands[s]
            self.lacks[s] = set()
            self.drawing[s] = 0
            self.turn_lacks[s] = set()
        self.table = 0
        self.used_up = {}

    def before(self, st: State, ev: Event, index: int = -1) -> None:
        """Note what an event shows, with ``st`` the state just before it."""
        ends = {n for n in st.ends if n != CLOSED}
        if isinstance(ev, (Played, Drew, Passed)) and st.phase == "playing" and \
                (st.table or isinstance(ev, Played)):
            kind: Kind = "play" if isinstance(ev, Played) else \
                "draw" if isinstance(ev, Drew) else "pass"
            tile = None if isinstance(ev, Passed) else ev.tile
            self.acts.append(Act(index, ev.seat, kind, tile, tuple(sorted(ends))))
        if isinstance(ev, Drew) and st.phase == "playing":
            s = ev.seat
            if not self.drawing[s]:
                self.turn_lacks[s] = self.lacks[s] | ends
            self.drawing[s] += 1
            if ev.tile is not None:
                self.seen[s] |= ev.tile.bit
        elif isinstance(ev, Passed) and st.phase == "playing" and st.table:
            s = ev.seat
            kept = self.drawing[s]
            if kept:
                # Drew and still could not play: every drawn tile was kept.
                self.lacks[s] = set(ends)
            else:
                self.lacks[s] |= ends
            self.drawing[s] = 0
        elif isinstance(ev, Played) and st.phase == "playing":
            s = ev.seat
            if self.drawing[s]:
                kept = self.drawing[s] - 1  # the tile played is the last one drawn
                self.lacks[s] = set(self.turn_lacks[s]) if kept == 0 else set(ends)
                self.drawing[s] = 0

    def after(self, st: State, ev: Event, index: int) -> None:
        if isinstance(ev, Played):
            self.table = st.table
            for s in range(self.seats):
                self.seen[s] |= ev.tile.bit
            for n in NUMBERS:
                if n not in self.used_up and self.table & SUIT_MASK[n] == SUIT_MASK[n]:
                    self.used_up[n] = index
        elif isinstance(ev, HandsRevealed):
            shown = mask_of(t for hand in ev.hands if hand is not None for t in hand)
            for s in range(self.seats):
                self.seen[s] |= shown

    def snapshot(self, step: int, st: State) -> Knowledge:
        seats = []
        for s in range(self.seats):
            seen = self.seen[s] | self.table
            unseen = tuple(7 - (seen & SUIT_MASK[n]).bit_count() for n in NUMBERS)
            accounted = {n for n in NUMBERS if unseen[n] == 0}
            lacks = []
            for other in range(self.seats):
                if other == s:
                    continue
                shown = set() if self.drawing[other] else self.lacks[other]
                lacks.append((other, tuple(sorted(shown | accounted))))
            seats.append(SeatKnowledge(s, tuple(tiles_of(seen)), unseen, tuple(lacks),
                                       _dealt_facts_of(self, s, step)))
        return Knowledge(
            step=step,
            deal=st.deal if st.deal >= 0 else None,
            table=tuple(tiles_of(self.table)),
            ends=tuple(n for n in st.ends if n != CLOSED),
            used_up=tuple(sorted(self.used_up.items())),
            seats=tuple(seats),
        )


def _dealt_facts_of(track: _Tracker, seat: int, step: int) -> DealtFacts | None:
    if not track.started:
        return None
    try:
        return facts_for(track.rules, seat, step, track.dealt[seat], track.acts,
                         track.opening, track.by_rank)
    except Inconsistent:
        return None


def iter_knowledge(rules: Rules, events: Sequence[Event | None]) -> Iterator[Knowledge]:
    """The knowledge at step 0 (nothing happened), 1, ... up to the last readable step."""
    rebuilt, _ = rebuild_hands(list(events))
    track = _Tracker(rules)
    walk = Walk(rules, rebuilt, visitors=(_Visit(track),), stop_at_none=True)
    yield track.snapshot(0, walk.state)
    for w in walk:
        if not w.readable:
            return
        yield track.snapshot(w.step, w.state)


class _Visit:
    """The tracker as a visitor of the walk: it reads the table before a pass or a draw."""

    def __init__(self, track: _Tracker) -> None:
        self.track = track

    def before(self, st: State, ev: Event, index: int) -> None:
        self.track.before(st, ev, index)

    def after(self, walked: Walked) -> None:
        ev = walked.event
        assert ev is not None
        if isinstance(ev, Dealt):
            self.track.deal(walked.state)
        self.track.after(walked.state, ev, walked.index)


def knowledge_at(rules: Rules, events: Sequence[Event | None], step: int) -> Knowledge:
    """The knowledge after the first ``step`` events (ValueError past the readable end)."""
    if step < 0:
        raise ValueError(f"step {step} is before the start of the match")
    for k in iter_knowledge(rules, events):
        if k.step == step:
            return k
    raise ValueError(f"step {step} is past the last event that can be read")


def seat_facts(walked: Walked, seat: int) -> SeatKnowledge:
    """What ``seat`` knew after the event ``walked``: the walk's ``infer`` hook
    (``Walk(..., infer=seat_facts)``; ledger/walk.py asks it only when a reader does)."""
    return knowledge_at(walked.state.rules, walked.events[:walked.step], walked.step).seats[seat]


__all__ = ["Knowledge", "SeatKnowledge", "iter_knowledge", "knowledge_at", "seat_facts"]
