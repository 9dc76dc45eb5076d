"""PlayElephant Domena (seed 000_3053cf30db062627.txt)."""

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


def _later_lead(recap: DealRecap, rules: Rules) -> Lead:
    # §3 "Later deals": the winner leads with any tile; after a tie the next seat
    # after the previous leader. The block winner seat is already the pair's
    # lowest hand (see _block_winner), so "winner" covers both cases.
    if recap.winner is None:
        return Lead(rules.next_seat(recap.leader), any_tile=True)
    return Lead(recap.winner, any_tile=True)


def _block_winner(view: BlockView) -> int | None:
    rules = view.rules
    if not rules.teams:
        return single_lowest_or_tie(view)  # §6: fewer pips wins, equal: nobody scores
    low = lowest_seats(view)
    sides = {rules.side_of(s) for s in low}
    if len(sides) == 1:
        side = sides.pop()
    else:
        totals = [sum(view.pips(s) for s in rules.side_seats(t)) for t in (0, 1)]
        if totals[0] == totals[1]:
            return None
        side = 0 if totals[0] < totals[1] else 1
    # The seat that leads next: the lowest hand of the winning pair; partners equal:
    # the one reached first counting from the seat after the leader, the leader last.
    order = [(view.leader + k) % rules.seats for k in range(1, rules.seats + 1)]
    members = [s for s in order if rules.side_of(s) == side]
    return min(members, key=lambda s: (view.pips(s), order.index(s)))


def _build(seats: int, options: Mapping[str, object]) -> Rules:
    return Rules(
        preset="domena",
        seats=seats,
        teams=seats == 4,
        target=target_option("domena", options, DEFAULT_TARGET),
        draws=seats == 2,
        later_lead=_later_lead,
        block_winner=_block_winner,
        options=dict(options),
    )


PRESET = Preset(
    id="domena",
    title="PlayElephant Domena",
    seed="000_3053cf30db062627.txt",
    seat_counts=(2, 4),
    build=_build,
)
