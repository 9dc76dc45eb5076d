"""Selminha (seed 002_10d567ad275b8de6.txt)."""

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
    target_option,
)

TARGETS = (50, 100)
REDEAL_DOUBLES = 4


def _later_lead(recap: DealRecap, rules: Rules) -> Lead:
    # "the lead passes to the player on the right of whoever led the previous round"
    return Lead(rules.next_seat(recap.leader), any_tile=True)


def _block_winner(view: BlockView) -> int | None:
    rules = view.rules
    if rules.teams:
        # "At a table of four, each team's total is compared"; equal: no one scores.
        totals = [sum(view.pips(s) for s in rules.side_seats(t)) for t in (0, 1)]
        if totals[0] == totals[1]:
            return None
        return 0 if totals[0] < totals[1] else 1
    low = lowest_seats(view)
    if len(low) == 1:
        return low[0]
    # "the one holding the lowest tile wins; if those tie too, the next-lowest tiles
    # are compared. If everything is equal, no one scores."
    keyed = {s: sorted(t.pips for t in view.hands[s]) for s in low}
    best = min(keyed.values())
    winners = [s for s in low if keyed[s] == best]
    return winners[0] if len(winners) == 1 else None


def _build(seats: int, options: Mapping[str, object]) -> Rules:
    return Rules(
        preset="selminha",
        seats=seats,
        teams=seats == 4,
        target=target_option("selminha", options, DEFAULT_TARGET, TARGETS),
        draws=seats < 4,
        later_lead=_later_lead,
        block_winner=_block_winner,
        redeal_doubles=REDEAL_DOUBLES,
        options=dict(options),
    )


PRESET = Preset(
    id="selminha",
    title="Selminha",
    seed="002_10d567ad275b8de6.txt",
    seat_counts=(2, 3, 4),
    build=_build,
)
