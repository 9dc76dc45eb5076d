"""The match as the replay reads it: its events, perhaps only a window of whole deals
(``ReplayMatch``), the deals' spans, and the state a frame's fold may start from
(``Snapshot``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ledger.engine.state import State
from ledger.events import (
    Event,
)
from ledger.findings import Finding
from ledger.formats.partial import rebuild_hands
from ledger.rules.base import Rules


@dataclass(frozen=True, slots=True)
class ReplayMatch:
    """A recorded match: its table, its players and its events (``None``: unreadable).

    A match may come with only some of its events loaded (``window``: the events
    ``[start, stop)``, whole deals; ``None`` outside it): enough for the frames of
    those deals when the fold can start at a snapshot. ``types`` then still names
    every event, so steps and deals are counted right.
    """

    rules: Rules
    seats: tuple[str, ...]
    events: tuple[Event | None, ...]
    findings: tuple[Finding, ...] = ()
    # Per recorded event, what the rules derived from it (as the audit keeps them);
    # empty when unknown: the labels then leave the derived part out.
    derived: tuple[tuple[Event, ...], ...] = ()
    types: tuple[str, ...] = ()    # each event's wire type ("" unreadable); default: read off
    window: tuple[int, int] | None = None   # the events loaded; None: all of them

    def __post_init__(self) -> None:
        if not self.types:
            object.__setattr__(self, "types", tuple(
                ev.TYPE if ev is not None else "" for ev in self.events))

    @staticmethod
    def of(rules: Rules, seats: Sequence[str], events: Sequence[Event | None],
           findings: Sequence[Finding] = (),
           derived: Sequence[Sequence[Event]] = ()) -> ReplayMatch:
        # Partial records: show every hand the importer can work out, as the audit does.
        rebuilt, _ = rebuild_hands(list(events))
        return ReplayMatch(rules, tuple(seats), tuple(rebuilt), tuple(findings),
                           tuple(tuple(d) for d in derived))

    @staticmethod
    def windowed(rules: Rules, seats: Sequence[str], types: Sequence[str], start: int,
                 loaded: Sequence[Event | None], findings: Sequence[Finding] = (),
                 derived: Sequence[Sequence[Event]] = ()) -> ReplayMatch:
        """Only the events ``loaded`` from index ``start`` on: whole deals, hands rebuilt."""
        rebuilt, _ = rebuild_hands(list(loaded))
        stop = start + len(rebuilt)
        events: list[Event | None] = [None] * len(types)
        events[start:stop] = rebuilt
        return ReplayMatch(rules, tuple(seats), tuple(events), tuple(findings),
                           tuple(tuple(d) for d in derived), tuple(types), (start, stop))

    @property
    def last_step(self) -> int:
        return len(self.types)

    def deal_starts(self) -> list[int]:
        """The step at which each deal (a redeal included) has just been dealt."""
        return [i + 1 for i, t in enumerate(self.types) if t == "deal"]

    def deal_span(self, step: int) -> tuple[int, int]:
        return deal_span(self.types, step)


def deal_span(types: Sequence[str], step: int) -> tuple[int, int]:
    """Event indexes ``[start, stop)`` of the deal on the table at ``step``.

    ``types`` are the events' wire types. ``start`` is the deal's deal event (0
    before the first deal), ``stop`` the next deal event or the end of the record.
    """
    start = 0
    for i in range(min(step, len(types)) - 1, -1, -1):
        if types[i] == "deal":
            start = i
            break
    stop = len(types)
    for i in range(max(step, start + 1), len(types)):
        if types[i] == "deal":
            stop = i
            break
    return start, stop


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The state just before recorded event ``index``.

    The store keeps one per deal, taken just after the deal event; one taken before
    the deal event does as well.
    """

    index: int
    state: State
