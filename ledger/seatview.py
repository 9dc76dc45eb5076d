"""Who sees what: one viewer's knowledge of a match after a step (pure: no I/O).

A viewer is a seat (its own hand, its own draws, the table, what was shown), the
spectator (the table only: tiles played, hands shown, counts) or everyone (every
hand open, as after the match). ``sight`` says which tiles a viewer has seen in
the deal on the table after ``step`` recorded events; ``as_seen`` is an event as
that viewer saw it (another seat's drawn tile left out), or ``None`` for an event
after the step, which nobody had seen yet. The replay's frames, its event list,
its JSON and the Analysis panel are cut to a viewer through these, so a seat's
page never names a tile the seat did not see.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ledger.events import Drew, Event
from ledger.findings import Finding
from ledger.walk import seen_by

TABLE = "table"   # how the spectator's view is written in a query (?seat=table)


class BadViewer(ValueError):
    def __init__(self, text: str) -> None:
        super().__init__(f"{text!r} is not a view: a seat number (0, 1, ...), "
                         f"{TABLE!r} for the table only, or nothing for all hands open")
        self.text = text


@dataclass(frozen=True, slots=True)
class Viewer:
    """A seat's view (``seat``), the spectator's (no seat, not ``everyone``) or all hands."""

    seat: int | None = None
    everyone: bool = True

    @staticmethod
    def of_seat(seat: int) -> Viewer:
        return Viewer(seat, False)

    @staticmethod
    def parse(text: str | None) -> Viewer:
        if text is None or text == "":
            return EVERYONE
        if text == TABLE:
            return SPECTATOR
        if text.isascii() and text.isdigit() and len(text) <= 3:
            return Viewer.of_seat(int(text))
        raise BadViewer(text)

    def __str__(self) -> str:
        if self.seat is not None:
            return str(self.seat)
        return "" if self.everyone else TABLE

    @property
    def spectator(self) -> bool:
        return self.seat is None and not self.everyone

    def sees_hand(self, seat: int) -> bool:
        return self.everyone or self.seat == seat


EVERYONE = Viewer(None, True)
SPECTATOR = Viewer(None, False)

ALL_TILES = frozenset(f"{a}-{b}" for a in range(7) for b in range(a + 1))
_TILE = re.compile(r"(?<![\d.])([0-6])-([0-6])(?![\d.])")


def tiles_named(text: str) -> set[str]:
    """Every tile a text names ("6-3", "3-6" alike), written high number first."""
    return {f"{a}-{b}" if a >= b else f"{b}-{a}" for a, b in set(_TILE.findall(text))}


@dataclass(frozen=True, slots=True)
class Sight:
    """The tiles ``viewer`` has seen in the deal on the table after ``step`` events."""

    viewer: Viewer
    step: int
    known: frozenset[str]

    def knows(self, tile: str) -> bool:
        return tile in self.known

    def sees_event(self, index: int) -> bool:
        """Whether the event at ``index`` had happened by this step."""
        return index < self.step

    def allows(self, text: str) -> bool:
        """Whether ``text`` names only tiles this viewer has seen."""
        return tiles_named(text) <= self.known

    def findings(self, found: Sequence[Finding]) -> tuple[Finding, ...]:
        # An audit finding may name a tile of a hidden hand: such a one stays out of the view.
        return tuple(f for f in found if self.allows(f.message))


def sight(viewer: Viewer, step: int, events: Sequence[Event | None],
          deal_start: int, table_start: int | None = None) -> Sight:
    """What ``viewer`` had seen after ``step`` events of the deal dealt at ``deal_start``.

    ``events`` are the match's recorded events (hands rebuilt as the replay has them;
    only those from ``deal_start`` up to the step are read). ``table_start``: where the
    deal still on the table was dealt, when the record could not be folded past some
    event and the table stays as it was (the viewer then knows that deal's tiles too).
    """
    if viewer.everyone:
        return Sight(viewer, step, ALL_TILES)
    seen = _seen(viewer, events, deal_start, step)
    if table_start is not None and table_start != deal_start:
        seen |= _seen(viewer, events, table_start, min(step, deal_start))
    return Sight(viewer, step, frozenset(seen))


def _seen(viewer: Viewer, events: Sequence[Event | None], start: int, stop: int) -> set[str]:
    # The walk's own account of a seat's sight (ledger/walk.py), so the two never differ.
    return {str(t) for t in seen_by(viewer.seat, events, start, stop)}


def as_seen(ev: Event | None, index: int, sight: Sight) -> Event | None:
    """``ev`` (the event at ``index``) as the viewer saw it; None: not happened yet."""
    if ev is None or not sight.sees_event(index):
        return None
    if isinstance(ev, Drew) and ev.tile is not None and not sight.viewer.sees_hand(ev.seat):
        return Drew(ev.seat)
    return ev


__all__ = ["ALL_TILES", "EVERYONE", "SPECTATOR", "TABLE", "BadViewer", "Sight", "Viewer",
           "as_seen", "sight", "tiles_named"]
