"""The walk: a match's events, one at a time, through the rules engine (issue 29).

Every reader of a match consumes this one traversal instead of stepping the engine
itself: the audit, the replay's frames, live appends and the recorder's menu, the
snapshots, ``verify``, the review, the knowledge, rescoring, the generator and the
solver's positions. It is the only module outside ``ledger/engine`` that calls the
engine's fold, so a rule is judged in one place and every page says the same.

``Walk`` yields, event by event, a ``Walked``: the state after the event, what the
rules found and derived, and per seat what that seat knows (``knows``: its hand,
the tiles it has seen in the deal; computed only when asked). The state is the
walk's own and changes at the next event: a reader that keeps one copies it.
``Visitor``\\s see each event before and after it is folded (the knowledge tracker's
shape: it reads the table before a pass or a draw).

Three faster faces for the same rules: ``fold_record`` (a whole record in one loop,
the audit's and the import's), ``step`` (one event on a copy, live appends) and
``step_into`` (one event into a state the caller owns: the generator and the solver's
scratch positions).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ledger.engine import Step
from ledger.engine import step as _engine_step
from ledger.engine.fold import advance, advance_all, finish
from ledger.engine.state import State
from ledger.events import Dealt, Drew, Event, HandsRevealed, Played
from ledger.findings import Finding, Unreadable
from ledger.rules.base import Rules
from ledger.tiles import Tile, tiles_of


@dataclass(frozen=True, slots=True)
class SeatKnows:
    """What one seat knows after an event: its hand and the tiles it has seen this deal.

    ``facts`` is the hook for what it can infer: ``None`` until an inference is given to
    the walk. ``ledger.analysis.knowledge.seat_facts`` gives a ``SeatKnowledge``: the
    numbers another seat lacks now, and ``dealt``, every fact the rules give about the
    deal as dealt (own hand and draws, every public move with the ends it met, the
    opening, the redeal rule), from which ``ledger.analysis.full_deals`` draws the full
    deals consistent with them (issue 30).
    """

    seat: int
    hand: tuple[Tile, ...]
    unseen: int                    # tiles of its hand the record does not name
    seen: frozenset[Tile]
    facts: object | None = None


class Visitor(Protocol):
    def before(self, state: State, event: Event, index: int) -> None: ...

    def after(self, walked: Walked) -> None: ...


@dataclass(slots=True)
class Walked:
    """One step of the walk: the event at ``index`` folded (``state`` is after it)."""

    index: int
    event: Event | None
    state: State
    derived: tuple[Event, ...]
    findings: tuple[Finding, ...]
    readable: bool
    deal_start: int                # the index of the deal event on the table (-1: none)
    events: Sequence[Event | None]
    infer: Callable[[Walked, int], object] | None = None
    _known: dict[int, SeatKnows] = field(default_factory=dict)

    @property
    def step(self) -> int:
        """The replay's step after this event (events folded so far)."""
        return self.index + 1

    def knows(self, seat: int) -> SeatKnows:
        """What ``seat`` knows here: ask while the walk stands at this event (its state
        moves on with the next one); kept once asked."""
        got = self._known.get(seat)
        if got is None:
            st = self.state
            got = SeatKnows(seat, tuple(tiles_of(st.hands[seat])), st.hidden[seat],
                            frozenset(seen_by(seat, self.events, self.deal_start, self.step)),
                            None if self.infer is None else self.infer(self, seat))
            self._known[seat] = got
        return got


def seen_by(seat: int | None, events: Sequence[Event | None], start: int,
            stop: int) -> set[Tile]:
    """The tiles ``seat`` (None: the spectator) saw among ``events[start:stop]``, the deal
    dealt at ``start``: its own hand as dealt, its draws, every tile laid, hands shown."""
    seen: set[Tile] = set()
    if start < 0:
        return seen
    for i in range(start, min(stop, len(events))):
        ev = events[i]
        if isinstance(ev, Dealt) and seat is not None and i == start:
            hand = ev.hands[seat] if seat < len(ev.hands) else None
            seen.update(hand or ())
        elif isinstance(ev, Played):
            seen.add(ev.tile)
        elif isinstance(ev, Drew) and ev.tile is not None:
            if seat == ev.seat:  # another seat's draw stays unseen
                seen.add(ev.tile)
        elif isinstance(ev, HandsRevealed):
            seen.update(t for hand in ev.hands for t in hand or ())
    return seen


class Walk:
    """The walk over ``events`` (``None``: an event the reader could not parse).

    ``start`` is a state to walk on from (a snapshot: copied, never changed) at the
    event ``first``; ``stop`` ends the walk before that event. The walk ends at an
    unreadable event (its ``Walked`` has ``readable`` false) or, with ``stop_at_none``,
    at the first ``None``; ``stopped_at`` then says where.
    """

    def __init__(self, rules: Rules, events: Sequence[Event | None],
                 start: State | None = None, first: int = 0, stop: int | None = None,
                 visitors: Iterable[Visitor] = (), stop_at_none: bool = False,
                 infer: Callable[[Walked, int], object] | None = None) -> None:
        self.rules = rules
        self.events = events
        self.state = start.copy() if start is not None else State(rules)
        self.first = first
        self.stop = len(events) if stop is None else min(stop, len(events))
        self.visitors = tuple(visitors)
        self.stop_at_none = stop_at_none
        self.infer = infer
        self.stopped_at: int | None = None
        self.position = first  # the next event to fold
        # (from a snapshot: the deal on the table then, for what each seat has seen)
        self.deal_start = next((i for i in range(min(first, len(events)) - 1, -1, -1)
                                if type(events[i]) is Dealt), -1)

    def __iter__(self) -> Iterator[Walked]:
        while (w := self.take()) is not None:
            yield w

    def take(self) -> Walked | None:
        """Fold the next event and say what it did; None once the walk is over. (For a
        reader that looks at ``state`` before each event, as the review does.)"""
        i = self.position
        if i >= self.stop or self.stopped_at is not None:
            return None
        self.position = i + 1
        st, ev = self.state, self.events[i]
        if ev is None:
            if self.stop_at_none:
                self.stopped_at = i
                return None
            return self._walked(i, ev, (), (), True)
        for v in self.visitors:
            v.before(st, ev, i)
        out: list[Event] = []
        found: list[Finding] = []
        try:
            advance(st, ev, i, out, found)
        except Unreadable as exc:
            found.append(exc.finding)
            self.stopped_at = i
            return self._walked(i, ev, tuple(out), tuple(found), False)
        if type(ev) is Dealt:
            self.deal_start = i
        walked = self._walked(i, ev, tuple(out), tuple(found), True)
        for v in self.visitors:
            v.after(walked)
        return walked

    def _walked(self, i: int, ev: Event | None, derived: tuple[Event, ...],
                found: tuple[Finding, ...], readable: bool) -> Walked:
        return Walked(i, ev, self.state, derived, found, readable, self.deal_start,
                      self.events, self.infer)

    def finish(self) -> tuple[tuple[Event, ...], tuple[Finding, ...]]:
        """The record ends here: a deal still waiting scored, an open match noted."""
        out: list[Event] = []
        found: list[Finding] = []
        last = self.stop - 1 if self.stopped_at is None else self.stopped_at
        finish(self.state, out, found, last if last >= 0 else None)
        return tuple(out), tuple(found)


def states(rules: Rules, events: Sequence[Event | None],
           start: State | None = None, first: int = 0) -> Iterator[State]:
    """The state before the first event, then after each (copies: each may be kept),
    up to the last readable one."""
    walk = Walk(rules, events, start, first, stop_at_none=True)
    yield walk.state.copy()
    for w in walk:
        if not w.readable:
            return
        yield w.state.copy()


def step(state: State, event: Event, index: int | None = None) -> Step:
    """One event folded into a copy of ``state``, every finding kept (a live append)."""
    return _engine_step(state, event, index)


def step_into(state: State, event: Event, index: int | None = None,
              out: list[Event] | None = None, findings: list[Finding] | None = None) -> None:
    """One event folded into ``state`` itself (``Unreadable`` if the rest cannot be read):
    for a caller that owns a scratch state (the generator, the solver's children)."""
    advance(state, event, index, [] if out is None else out,
            [] if findings is None else findings)


def fold_record(st: State, events: Iterable[Event | None], findings: list[Finding],
                derived: list[tuple[Event, ...]], stop: int | None = None,
                whole: bool = False) -> bool | None:
    """The walk of a whole record in one loop, for speed (the audit's and the import's):
    the same rules as ``Walk``, without a ``Walked`` per event. See ``advance_all``."""
    return advance_all(st, events, findings, derived, stop, whole)


def finish_record(st: State, out: list[Event], findings: list[Finding],
                  index: int | None) -> None:
    """``Walk.finish`` for ``fold_record``'s state."""
    finish(st, out, findings, index)


__all__ = ["SeatKnows", "Visitor", "Walk", "Walked", "finish_record", "fold_record",
           "seen_by", "states", "step", "step_into"]
