"""Casual Arena (seed 004_4a02ef295e7c1bfa.txt)."""

from __future__ import annotations

from collections.abc import Mapping

from ledger.rules.base import (
    DEFAULT_TARGET,
    BlockView,
    Preset,
    Rules,
    RulesError,
    lead_by_highest_double,
    lowest_seats,
    target_option,
)

TARGETS = (0, 50, 100)


def _block_winner(view: BlockView) -> int:
    # "In case of a draw, wins the hand or the one that is closer to the hand":
    # of the tied seats, the first in play order from the seat that led.
    low = set(lowest_seats(view))
    seats = view.rules.seats
    return next(s for k in range(seats) if (s := (view.leader + k) % seats) in low)


def _build(seats: int, options: Mapping[str, object]) -> Rules:
    teams = options.get("teams", False)
    if type(teams) is not bool:
        raise RulesError("bad-option", "option teams must be true or false, not {value}",
                         value=repr(teams))
    if teams and seats != 4:
        raise RulesError("bad-option", "couples (teams) need 4 seats, not {seats}", seats=seats)
    return Rules(
        preset="casual-arena",
        seats=seats,
        teams=teams,
        target=target_option("casual-arena", options, DEFAULT_TARGET, TARGETS),
        draws=seats < 4,
        later_lead=lead_by_highest_double,
        block_winner=_block_winner,
        count_partner=True,
        options=dict(options),
    )


PRESET = Preset(
    id="casual-arena",
    title="Casual Arena",
    seed="004_4a02ef295e7c1bfa.txt",
    seat_counts=(2, 3, 4),
    build=_build,
    options=("target", "teams"),
)
