"""What every table shares, and the shape of a table's variant.

A preset is data (``Rules``) plus two small hooks: who leads a later deal, and
who wins a blocked deal. Everything else the engine does the same way for all
tables, as ``rules-decisions.md`` ("Common to every preset") asks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ledger.i18n.phrases import english
from ledger.tiles import Tile

DEFAULT_TARGET = 100
HAND_SIZE = 7
SET_SIZE = 28


class RulesError(ValueError):
    """A table cannot be set up as asked (unknown preset, option, seat count).

    ``template`` and ``params`` word the message in any language (ledger.i18n)."""

    def __init__(self, code: str, template: str, /, **params: object) -> None:
        message = english(template, params)
        super().__init__(message)
        self.code = code
        self.message = message
        self.template = template
        self.params = params


@dataclass(frozen=True, slots=True)
class Lead:
    """Who opens a deal. ``seat`` None: the holder of the highest double (or heaviest tile)."""

    seat: int | None = None
    any_tile: bool = False


@dataclass(frozen=True, slots=True)
class DealRecap:
    """What a later deal's lead can depend on: how the deal before it went."""

    leader: int
    last_player: int | None
    result: str
    winner: int | None


@dataclass(frozen=True, slots=True)
class BlockView:
    """The hands left when a deal blocks, as the block hooks see them."""

    hands: tuple[tuple[Tile, ...], ...]
    leader: int
    rules: Rules

    def pips(self, seat: int) -> int:
        return sum(t.pips for t in self.hands[seat])


LaterLead = Callable[[DealRecap, "Rules"], Lead]
BlockWinner = Callable[[BlockView], "int | None"]


@dataclass(frozen=True, slots=True)
class Rules:
    """A table as the engine plays it: one preset, one seat count, its options resolved."""

    preset: str
    seats: int
    teams: bool
    target: int
    draws: bool
    later_lead: LaterLead
    block_winner: BlockWinner
    fives: bool = False
    redeal_doubles: int | None = None
    count_partner: bool = False
    options: Mapping[str, object] = field(default_factory=dict)

    @property
    def sides(self) -> int:
        return 2 if self.teams else self.seats

    @property
    def stock_size(self) -> int:
        return SET_SIZE - HAND_SIZE * self.seats

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.teams else seat

    def side_seats(self, side: int) -> tuple[int, ...]:
        return tuple(s for s in range(self.seats) if self.side_of(s) == side)

    def losers_of(self, winner: int) -> tuple[int, ...]:
        """Seats whose pips the winner scores."""
        if self.count_partner:
            return tuple(s for s in range(self.seats) if s != winner)
        side = self.side_of(winner)
        return tuple(s for s in range(self.seats) if self.side_of(s) != side)

    def side_seat(self, side: int) -> int:
        """The seat that stands for a side in reports: a team's lower seat number."""
        return side

    def next_seat(self, seat: int) -> int:
        return (seat + 1) % self.seats


@dataclass(frozen=True, slots=True)
class Preset:
    """A table of the seeds: which seat counts it allows and how to build its rules."""

    id: str
    title: str
    seed: str
    seat_counts: tuple[int, ...]
    build: Callable[[int, Mapping[str, object]], Rules]
    options: tuple[str, ...] = ("target",)

    def rules(self, seats: int, options: Mapping[str, object] | None = None) -> Rules:
        options = dict(options or {})
        for name in options:
            if name not in self.options:
                raise RulesError(
                    "unknown-option",
                    "table {preset} has no option {option} (it accepts: {accepted})",
                    preset=repr(self.id), option=repr(name), accepted=self.options,
                )
        if seats not in self.seat_counts:
            raise RulesError(
                "bad-seat-count", "table {preset} is played by {counts} seats, not {seats}",
                preset=repr(self.id), counts=self.seat_counts, seats=seats,
            )
        return self.build(seats, options)


def target_option(
    preset: str, options: Mapping[str, object], default: int, allowed: Sequence[int] | None = None
) -> int:
    value = options.get("target", default)
    if type(value) is not int or value < 0:
        raise RulesError(
            "bad-option",
            "option target must be a whole number of points, 0 or more, not {value}",
            value=repr(value),
        )
    if allowed is not None and value not in allowed:
        raise RulesError(
            "bad-option", "table {preset} plays to a target of {choices}, not {value}",
            preset=repr(preset), choices=tuple(allowed), value=value,
        )
    return value


# --- shared hooks ------------------------------------------------------------


def lead_by_highest_double(recap: DealRecap, rules: Rules) -> Lead:
    """Tables whose seed gives no other rule for later deals: the first-deal rule again."""
    return Lead()


def lowest_seats(view: BlockView) -> list[int]:
    low = min(view.pips(s) for s in range(view.rules.seats))
    return [s for s in range(view.rules.seats) if view.pips(s) == low]


def single_lowest_or_tie(view: BlockView) -> int | None:
    """Fewest pips wins; any two seats tied for lowest: nobody scores."""
    low = lowest_seats(view)
    return low[0] if len(low) == 1 else None
