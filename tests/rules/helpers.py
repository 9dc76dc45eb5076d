"""Build hand-crafted deals and fold them through the rules engine.

A deal is written as one string of tiles per seat ("66 61 43"); moves as a short
script, one token per recorded event:

    "0:66 1:63l 1:draw 1:draw=43 0:pass"

``seat:tile`` plays a tile (the opening tile has no end; ``l r u d`` name
left, right, up, down), ``seat:draw`` draws the next stock tile (``=tile``
names it), ``seat:pass`` passes. Everything else is built from the event
classes, re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ledger.audit import AuditReport, audit_events
from ledger.engine import IllegalEvent, State, apply, new_state, step
from ledger.events import (
    Abandoned,
    BlockClaimed,
    BlockDetected,
    BotSeated,
    DealEndClaimed,
    DealScored,
    Dealt,
    DrawAgreed,
    Drew,
    End,
    Event,
    FivesScored,
    HandsRevealed,
    MatchEndClaimed,
    MatchEnded,
    Passed,
    Played,
    Resigned,
)
from ledger.rules import make_rules
from ledger.rules.base import Rules
from ledger.tiles import ALL_TILES, Tile

__all__ = [
    "Abandoned", "BlockClaimed", "BlockDetected", "BotSeated", "DealEndClaimed", "DealScored",
    "Dealt", "DrawAgreed", "Drew", "Event", "FivesScored", "HandsRevealed", "IllegalEvent",
    "MatchEndClaimed", "MatchEnded", "Passed", "Played", "Resigned", "Run", "Scenario", "State",
    "STD", "STD_PLAIN", "apply", "deal", "lead_after", "moves", "new_state", "pips", "play",
    "rotate", "run", "std_deal", "std_plain", "step", "table", "tiles",
]

_ENDS: dict[str, End] = {"l": "left", "r": "right", "u": "up", "d": "down"}


def table(preset: str, seats: int, **options: object) -> Rules:
    return make_rules(preset, seats, options)


def tiles(text: str) -> tuple[Tile, ...]:
    return tuple(Tile.parse(word) for word in text.split())


def pips(text: str) -> int:
    """The pips of the tiles written in ``text`` (a test's own count, not the engine's)."""
    return sum(int(word[0]) + int(word[-1]) for word in text.split())


def deal(*hands: str | None, stock: str | None = None, rest: bool = True) -> Dealt:
    """A deal of the hands given; ``stock`` lists the first tiles to be drawn, in order.

    With ``rest`` the stock is completed with every undealt tile (highest first), so
    the deal lists all 28 tiles; without it the record gives no stock at all.
    """
    dealt = [None if h is None else tiles(h) for h in hands]
    head = tiles(stock) if stock else ()
    if not rest:
        return Dealt(hands=tuple(dealt), stock=head or None)
    used = {t for h in dealt if h for t in h} | set(head)
    tail = tuple(t for t in reversed(ALL_TILES) if t not in used)
    return Dealt(hands=tuple(dealt), stock=head + tail)


def play(seat: int, tile: str, end: str | None = None) -> Played:
    return Played(seat=seat, tile=Tile.parse(tile), end=_ENDS[end] if end else None)


def moves(script: str) -> list[Event]:
    out: list[Event] = []
    for token in script.split():
        seat_text, _, what = token.partition(":")
        seat = int(seat_text)
        if what == "pass":
            out.append(Passed(seat=seat))
        elif what.startswith("draw"):
            named = what.partition("=")[2]
            out.append(Drew(seat=seat, tile=Tile.parse(named) if named else None))
        else:
            out.append(play(seat, what[:2], what[2:] or None))
    return out


def rotate(script: str, by: int, seats: int = 4) -> str:
    """The same moves with every seat number turned ``by`` places around the table."""
    words = []
    for token in script.split():
        seat, sep, what = token.partition(":")
        words.append(f"{(int(seat) + by) % seats}{sep}{what}")
    return " ".join(words)


# One plain deal per seat count, seat 0 holding 6-6 and no hand holding four doubles
# (so Selminha need not redeal). The last tile of each hand is a plain tile that no
# first-deal rule would open with: a later deal's leader may open with it ("any tile").
STD = {
    2: ("66 60 61 62 30 31 32", "63 64 65 00 11 22 40"),
    3: ("66 62 61 30 31 32 33", "63 64 65 00 11 22 40", "60 50 51 52 53 54 55"),
    4: ("66 60 61 30 31 32 10", "63 65 00 11 22 40 41", "62 50 51 52 53 54 55",
        "64 42 43 44 20 21 33"),
}
# a plain low tile of each STD hand
STD_PLAIN = {
    2: ("30", "40"),
    3: ("30", "40", "50"),
    4: ("30", "40", "50", "20"),
}


def std_deal(seats: int, by: int = 0) -> Dealt:
    """The STD deal turned ``by`` seats: 6-6 goes to seat ``by``."""
    return Scenario(STD[seats], "").deal(by)


def std_plain(seats: int, seat: int, by: int = 0) -> str:
    """The plain tile ``seat`` holds in ``std_deal(seats, by)``."""
    return STD_PLAIN[seats][(seat - by) % seats]


def lead_after(rules: Rules, events: Sequence[Event]) -> tuple[int | None, Tile | None]:
    """Who is to open the deal the events end with, and the tile they must open with."""
    state = new_state(rules)
    for i, ev in enumerate(events):
        state = step(state, ev, i).state
    return state.to_move, state.must_open


@dataclass(frozen=True)
class Scenario:
    """A hand-crafted deal: the hands (seat 0 first), the stock order and the moves.

    ``by`` turns every seat around the table, so the same deal can be led by any seat.
    """

    hands: tuple[str, ...]
    script: str
    stock: str | None = None

    def deal(self, by: int = 0) -> Dealt:
        n = len(self.hands)
        turned: list[str] = [""] * n
        for s, hand in enumerate(self.hands):
            turned[(s + by) % n] = hand
        return deal(*turned, stock=self.stock)

    def moves(self, by: int = 0) -> list[Event]:
        return moves(rotate(self.script, by, len(self.hands)))

    def events(self, by: int = 0) -> list[Event]:
        return [self.deal(by), *self.moves(by)]


class Run:
    """An audited record: the report plus small views the tests read."""

    def __init__(self, rules: Rules, events: Sequence[Event]) -> None:
        self.rules = rules
        self.events = list(events)
        self.report: AuditReport = audit_events(rules, self.events)

    @property
    def state(self) -> State:
        assert self.report.state is not None
        return self.report.state

    def codes(self, severity: str | None = None) -> list[str]:
        return [f.code for f in self.report.findings
                if severity is None or f.severity == severity]

    @property
    def errors(self) -> list[str]:
        return self.codes("error")

    def at(self, code: str) -> list[int | None]:
        """The event indexes of every finding with this code."""
        return [f.event for f in self.report.findings if f.code == code]

    def derived(self, kind: type[Event]) -> list[tuple[int, Event]]:
        return [(i, ev) for i, evs in enumerate(self.report.derived) for ev in evs
                if isinstance(ev, kind)]

    @property
    def deals(self) -> list[tuple[str, int | None, int]]:
        out = []
        for d in self.report.deals:
            winner, points = d["winner"], d["points"]
            assert winner is None or isinstance(winner, int)
            assert isinstance(points, int)
            out.append((str(d["result"]), winner, points))
        return out

    @property
    def fives(self) -> list[tuple[int, int, int]]:
        """(event index, seat, points) of every Fives score."""
        return [(i, ev.seat, ev.points) for i, ev in self.derived(FivesScored)
                if isinstance(ev, FivesScored)]

    @property
    def ended(self) -> list[tuple[int, MatchEnded]]:
        return [(i, ev) for i, ev in self.derived(MatchEnded) if isinstance(ev, MatchEnded)]

    def clean(self) -> bool:
        return not self.errors


def run(rules: Rules, *parts: Event | Iterable[Event]) -> Run:
    events: list[Event] = []
    for part in parts:
        if isinstance(part, Event):
            events.append(part)
        else:
            events.extend(part)
    return Run(rules, events)
