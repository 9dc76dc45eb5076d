"""The Arab Block game (seed 003_d57eb88baa050f56.txt)."""

from __future__ import annotations

from collections.abc import Mapping

from ledger.rules.base import (
    DEFAULT_TARGET,
    Preset,
    Rules,
    lead_by_highest_double,
    single_lowest_or_tie,
    target_option,
)


def _build(seats: int, options: Mapping[str, object]) -> Rules:
    return Rules(
        preset="arab-block",
        seats=seats,
        teams=False,
        target=target_option("arab-block", options, DEFAULT_TARGET),
        draws=False,  # "The remaining 14 tiles form the boneyard and are not used"
        later_lead=lead_by_highest_double,
        block_winner=single_lowest_or_tie,
        options=dict(options),
    )


PRESET = Preset(
    id="arab-block",
    title="Block dominoes",
    seed="003_d57eb88baa050f56.txt",
    seat_counts=(2,),
    build=_build,
)
