"""Event types: what happened at the table, and what the engine derived from it.

Recorded events are those of the match format (``TYPE`` is their wire name).
Derived events are never read from a file; the engine emits them while folding
so that the ledger keeps the rules' verdicts next to the facts they rest on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal, TypeAlias

from ledger.tiles import Tile

End = Literal["left", "right", "up", "down"]
ENDS: tuple[End, ...] = ("left", "right", "up", "down")
Result = Literal["out", "block", "tie"]
Hand: TypeAlias = "tuple[Tile, ...] | None"


@dataclass(frozen=True, slots=True)
class Event:
    TYPE: ClassVar[str] = ""
    DERIVED: ClassVar[bool] = False
    at: str | None = field(default=None, kw_only=True)


# --- recorded --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    TYPE: ClassVar[str] = "deal"
    hands: tuple[tuple[Tile, ...] | None, ...]
    stock: tuple[Tile, ...] | None = None


@dataclass(frozen=True, slots=True)
class Played(Event):
    TYPE: ClassVar[str] = "play"
    seat: int
    tile: Tile
    end: End | None = None
    reversed: bool = False  # an opening tile written low number first ("3-6")


@dataclass(frozen=True, slots=True)
class Drew(Event):
    TYPE: ClassVar[str] = "draw"
    seat: int
    tile: Tile | None = None


@dataclass(frozen=True, slots=True)
class Passed(Event):
    TYPE: ClassVar[str] = "pass"
    seat: int


@dataclass(frozen=True, slots=True)
class BlockClaimed(Event):
    TYPE: ClassVar[str] = "block"


@dataclass(frozen=True, slots=True)
class HandsRevealed(Event):
    TYPE: ClassVar[str] = "reveal"
    hands: tuple[tuple[Tile, ...] | None, ...]


@dataclass(frozen=True, slots=True)
class DealEndClaimed(Event):
    TYPE: ClassVar[str] = "deal_end"
    result: Result
    winner: int | None
    points: int | None = None


@dataclass(frozen=True, slots=True)
class BotSeated(Event):
    TYPE: ClassVar[str] = "bot"
    seat: int


@dataclass(frozen=True, slots=True)
class Resigned(Event):
    TYPE: ClassVar[str] = "resign"
    seat: int


@dataclass(frozen=True, slots=True)
class Abandoned(Event):
    TYPE: ClassVar[str] = "abandon"
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class DrawAgreed(Event):
    TYPE: ClassVar[str] = "agree_draw"


@dataclass(frozen=True, slots=True)
class MatchEndClaimed(Event):
    TYPE: ClassVar[str] = "match_end"
    winner: int | None
    scores: tuple[int, ...] | None = None


# --- derived by the engine -------------------------------------------------


@dataclass(frozen=True, slots=True)
class BlockDetected(Event):
    TYPE: ClassVar[str] = "block_detected"
    DERIVED: ClassVar[bool] = True
    deal: int


@dataclass(frozen=True, slots=True)
class FivesScored(Event):
    """Sahrat Fives: the open ends added up to a multiple of 5 after a play."""

    TYPE: ClassVar[str] = "fives_scored"
    DERIVED: ClassVar[bool] = True
    deal: int
    seat: int
    points: int


@dataclass(frozen=True, slots=True)
class DealScored(Event):
    TYPE: ClassVar[str] = "deal_scored"
    DERIVED: ClassVar[bool] = True
    deal: int
    result: Result
    winner: int | None
    points: int
    scores: tuple[int, ...]
    leader: int | None = None
    pips: tuple[int | None, ...] = ()


@dataclass(frozen=True, slots=True)
class MatchEnded(Event):
    TYPE: ClassVar[str] = "match_ended"
    DERIVED: ClassVar[bool] = True
    winner: int | None
    scores: tuple[int, ...]
    reason: str


RecordedEvent: TypeAlias = (
    Dealt | Played | Drew | Passed | BlockClaimed | HandsRevealed | DealEndClaimed
    | BotSeated | Resigned | Abandoned | DrawAgreed | MatchEndClaimed
)
DerivedEvent: TypeAlias = BlockDetected | FivesScored | DealScored | MatchEnded

RECORDED_TYPES: dict[str, type[Event]] = {
    cls.TYPE: cls
    for cls in (Dealt, Played, Drew, Passed, BlockClaimed, HandsRevealed, DealEndClaimed,
                BotSeated, Resigned, Abandoned, DrawAgreed, MatchEndClaimed)
}
DERIVED_TYPES: dict[str, type[Event]] = {
    cls.TYPE: cls for cls in (BlockDetected, FivesScored, DealScored, MatchEnded)
}


# --- hot-path construction -------------------------------------------------
#
# A frozen dataclass's ``__init__`` sets every field through ``object.__setattr__``.
# The reader builds a Dealt and a HandsRevealed for every deal it reads and the engine a
# DealScored for every deal it scores; these build the same objects (same type, fields
# and equality) by setting the slots directly, at about half the cost. Every field is
# given, in declaration order (``at`` last; a derived DealScored has none).

_new = object.__new__
_SET_AT = vars(Event)["at"].__set__
_SET_DEALT = (vars(Dealt)["hands"].__set__, vars(Dealt)["stock"].__set__)
_SET_REVEALED = vars(HandsRevealed)["hands"].__set__
_SET_SCORED = tuple(vars(DealScored)[name].__set__ for name in DealScored.__slots__)


def new_dealt(hands: tuple[tuple[Tile, ...] | None, ...], stock: tuple[Tile, ...] | None,
              at: str | None) -> Dealt:
    """``Dealt(hands=hands, stock=stock, at=at)``, built faster."""
    ev: Dealt = _new(Dealt)
    set_hands, set_stock = _SET_DEALT
    set_hands(ev, hands)
    set_stock(ev, stock)
    _SET_AT(ev, at)
    return ev


def new_revealed(hands: tuple[tuple[Tile, ...] | None, ...], at: str | None) -> HandsRevealed:
    """``HandsRevealed(hands=hands, at=at)``, built faster."""
    ev: HandsRevealed = _new(HandsRevealed)
    _SET_REVEALED(ev, hands)
    _SET_AT(ev, at)
    return ev


def new_deal_scored(deal: int, result: Result, winner: int | None, points: int,
                    scores: tuple[int, ...], leader: int | None,
                    pips: tuple[int | None, ...]) -> DealScored:
    """``DealScored(deal=..., ..., pips=pips)`` (``at`` None), built faster."""
    ev: DealScored = _new(DealScored)
    s_deal, s_result, s_winner, s_points, s_scores, s_leader, s_pips = _SET_SCORED
    s_deal(ev, deal)
    s_result(ev, result)
    s_winner(ev, winner)
    s_points(ev, points)
    s_scores(ev, scores)
    s_leader(ev, leader)
    s_pips(ev, pips)
    _SET_AT(ev, None)
    return ev
