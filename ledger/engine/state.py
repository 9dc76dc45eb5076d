"""The state of a match between two events.

Hands are bitmasks over the 28 tiles (bit ``tile.index``) plus a count of
tiles the record does not show (partial records). The class is mutable only
inside the fold: ``apply`` works on a copy, so callers see a pure function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ledger.rules.base import DealRecap, Rules
from ledger.tiles import SUIT_MASK, Tile, tiles_of

Phase = Literal["waiting", "playing", "over", "ended"]
LEFT, RIGHT, UP, DOWN = 0, 1, 2, 3
END_NAMES = ("left", "right", "up", "down")
CLOSED = -1
# The tiles that fit an end, by the number it shows; FITS[CLOSED] is the last entry: a
# closed end fits nothing. ``fit_mask`` ORs the four ends' (the fold inlines it).
FITS = (*SUIT_MASK, 0)


@dataclass(frozen=True, slots=True)
class DealResult:
    result: str
    winner: int | None
    points: int


class State:
    __slots__ = (
        "rules", "phase", "deal", "hands", "hidden", "stock", "stock_pos", "stock_left",
        "table", "ends", "doubles", "spinner", "arms", "to_move", "must_open", "leader",
        "last_player", "passes", "drawn", "over", "block_next", "scores", "in_deal",
        "recap", "pending", "last_result", "redeal_due", "fresh", "bots", "winner",
        "end_reason", "plays", "closed",
    )

    rules: Rules
    phase: Phase
    deal: int
    hands: list[int]
    hidden: list[int]
    stock: tuple[Tile, ...] | None
    stock_pos: int
    stock_left: int
    table: int
    ends: list[int]
    doubles: list[bool]
    spinner: int
    arms: int
    to_move: int | None
    must_open: Tile | None
    leader: int | None
    last_player: int | None
    passes: int
    drawn: Tile | None
    over: str | None
    block_next: int | None
    scores: list[int]
    in_deal: list[int]
    recap: DealRecap | None
    pending: bool
    last_result: DealResult | None
    redeal_due: bool
    fresh: bool
    bots: int
    winner: int | None
    end_reason: str | None
    plays: int
    closed: bool  # a match_end event was folded: nothing may follow it

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.phase = "waiting"
        self.deal = -1
        self.hands = [0] * rules.seats
        self.hidden = [0] * rules.seats
        self.stock = None
        self.stock_pos = 0
        self.stock_left = 0
        self.table = 0
        self.ends = [CLOSED] * 4
        self.doubles = [False] * 4
        self.spinner = CLOSED
        self.arms = 0
        self.to_move = None
        self.must_open = None
        self.leader = None
        self.last_player = None
        self.passes = 0
        self.drawn = None
        self.over = None
        self.block_next = None
        self.scores = [0] * rules.sides
        self.in_deal = [0] * rules.sides
        self.recap = None
        self.pending = False
        self.last_result = None
        self.redeal_due = False
        self.fresh = False
        self.bots = 0
        self.winner = None
        self.end_reason = None
        self.plays = 0
        self.closed = False

    def copy(self) -> State:
        new = object.__new__(State)
        for name in State.__slots__:
            setattr(new, name, getattr(self, name))
        new.hands = self.hands[:]
        new.hidden = self.hidden[:]
        new.ends = self.ends[:]
        new.doubles = self.doubles[:]
        new.scores = self.scores[:]
        new.in_deal = self.in_deal[:]
        return new

    # --- views ---------------------------------------------------------------

    @property
    def match_over(self) -> bool:
        return self.phase == "ended"

    def hand(self, seat: int) -> list[Tile]:
        return tiles_of(self.hands[seat])

    def open_ends(self) -> list[tuple[str, int]]:
        return [(END_NAMES[i], n) for i, n in enumerate(self.ends) if n != CLOSED]

    def fit_mask(self) -> int:
        ends = self.ends
        return FITS[ends[0]] | FITS[ends[1]] | FITS[ends[2]] | FITS[ends[3]]

    def stock_tiles(self) -> list[Tile] | None:
        """The tiles still in the stock, in drawing order, when the record gave it."""
        if self.stock is None:
            return None
        return list(self.stock[self.stock_pos:])

    def known_elsewhere(self) -> int:
        """Tiles whose place is known: on the table, in a shown hand, in a listed stock."""
        mask = self.table
        for h in self.hands:
            mask |= h
        if self.stock is not None:
            for t in self.stock[self.stock_pos:]:
                mask |= t.bit
        return mask

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in State.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"State(deal={self.deal}, phase={self.phase}, to_move={self.to_move}, "
                f"ends={self.open_ends()}, scores={self.scores})")
