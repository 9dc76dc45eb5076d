"""Sahrat Domino: Draw, Fives and Partner (seed 001_e536ce776a04bae3.txt)."""

from __future__ import annotations

from collections.abc import Mapping

from ledger.rules.base import (
    DEFAULT_TARGET,
    BlockView,
    DealRecap,
    Lead,
    Preset,
    Rules,
    lowest_seats,
    single_lowest_or_tie,
    target_option,
)

FIVES_TARGET = 150


def _later_lead(recap: DealRecap, rules: Rules) -> Lead:
    # "the winner of the last round starts with any tile. If the last round was
    # blocked, the player who laid the last tile starts" (a blocked tie included).
    if recap.result == "out" and recap.winner is not None:
        return Lead(recap.winner, any_tile=True)
    return Lead(recap.last_player, any_tile=True)


def _partner_block_winner(view: BlockView) -> int | None:
    # "in Partner, two partners tied for lowest still win it": the team's lower seat.
    low = lowest_seats(view)
    if len({view.rules.side_of(s) for s in low}) > 1:
        return None
    return min(low)


def _rules(preset: str, seats: int, options: Mapping[str, object], *, fives: bool,
           teams: bool, target: int) -> Rules:
    return Rules(
        preset=preset,
        seats=seats,
        teams=teams,
        target=target_option(preset, options, target),
        draws=seats == 2,
        later_lead=_later_lead,
        block_winner=_partner_block_winner if teams else single_lowest_or_tie,
        fives=fives,
        options=dict(options),
    )


DRAW = Preset(
    id="sahrat-draw",
    title="Sahrat Domino (draw)",
    seed="001_e536ce776a04bae3.txt",
    seat_counts=(2, 4),
    build=lambda seats, options: _rules(
        "sahrat-draw", seats, options, fives=False, teams=False, target=DEFAULT_TARGET
    ),
)
FIVES = Preset(
    id="sahrat-fives",
    title="Sahrat Domino Fives",
    seed="001_e536ce776a04bae3.txt",
    seat_counts=(2, 4),
    build=lambda seats, options: _rules(
        "sahrat-fives", seats, options, fives=True, teams=False, target=FIVES_TARGET
    ),
)
PARTNER = Preset(
    id="sahrat-partner",
    title="Sahrat Partner Domino",
    seed="001_e536ce776a04bae3.txt",
    seat_counts=(4,),
    build=lambda seats, options: _rules(
        "sahrat-partner", seats, options, fives=False, teams=True, target=DEFAULT_TARGET
    ),
)
