"""Deals scored as they were played, under another table's scoring (what-if, issue 16).

When the other table refuses a recorded move (a different leader, a draw where it
passes...), the deals from there on cannot be replayed under its rules. They can still be
scored: each deal ended as it did (who went out, or the block with the hands left), and
the other table says what that is worth: whose pips count (the other side's, or every
other seat's), the rounding to five (Fives), who wins a block, and when the match is over
(its target, or one deal). Fives points scored during a deal (the count of the open ends)
depend on how the board was laid under that table's rules, so a rescored deal has none.

Pure: the hands left at each deal's end come from folding the record under its own rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ledger.engine.scoring import round_to_five
from ledger.events import DealScored, Dealt, Event
from ledger.rules.base import BlockView, Rules
from ledger.scoresheet import DealRow
from ledger.tiles import Tile, tiles_of
from ledger.walk import Walk


@dataclass(frozen=True, slots=True)
class DealEnd:
    """How a recorded deal ended, as its own table folded it."""

    deal: int                                   # 1-based
    result: str                                 # out, block or tie
    last_player: int | None                     # who went out (None: a block or a tie)
    leader: int | None
    hands: tuple[tuple[Tile, ...], ...] | None  # the tiles left (None: some stay hidden)


def deal_ends(rules: Rules, events: Sequence[Event | None]) -> list[DealEnd]:
    """Every deal the record plays to its end, folded under ``rules`` (its own table)."""
    walk = Walk(rules, events, stop_at_none=True)
    st = walk.state
    ends: list[DealEnd] = []
    while True:
        before = [tuple(tiles_of(h)) for h in st.hands]
        hidden_before = any(st.hidden)
        w = walk.take()
        if w is None or not w.readable:
            break
        ev = w.event
        for d in w.derived:
            if not isinstance(d, DealScored):
                continue
            # A deal is scored at its last move, or when the next deal's event comes
            # (after a reveal may have shown the hands): then the hands are the old ones.
            if isinstance(ev, Dealt):
                hands = None if hidden_before else tuple(before)
            else:
                hands = None if any(st.hidden) else tuple(tuple(tiles_of(h)) for h in st.hands)
            # The seat that went out is the one an "out" deal's winner names.
            ends.append(DealEnd(d.deal + 1, d.result, d.winner if d.result == "out" else None,
                                d.leader, hands))
    return ends


@dataclass(frozen=True, slots=True)
class Rescored:
    rows: tuple[DealRow, ...]     # the deals scored, with the running totals
    scores: tuple[int, ...]
    winner: int | None            # the side that won the match (None: not over)
    unscored: tuple[int, ...]     # deals whose hands stay hidden: not scored
    after_end: tuple[int, ...]    # deals played after the match was over there


def rescore(other: Rules, ends: Sequence[DealEnd], players: Sequence[str],
            scores: Sequence[int]) -> Rescored:
    """``ends`` scored under ``other``, from the running ``scores`` (per side) on."""
    totals = list(scores) + [0] * (other.sides - len(scores))
    rows: list[DealRow] = []
    unscored: list[int] = []
    after: list[int] = []
    winner: int | None = None
    for end in ends:
        if winner is not None:
            after.append(end.deal)
            continue
        scored = _score(other, end)
        if scored is None:
            unscored.append(end.deal)
            continue
        result, seat, points = scored
        if seat is not None:
            totals[other.side_of(seat)] += points
        rows.append(DealRow(
            deal=end.deal, leader=end.leader,
            leader_name=None if end.leader is None else players[end.leader],
            result=result, winner=seat,  # type: ignore[arg-type]
            winner_name=None if seat is None else players[seat], points=points,
            fives=(0,) * other.sides, totals=tuple(totals)))
        winner = _match_over(other, totals, seat)
    return Rescored(tuple(rows), tuple(totals), winner, tuple(unscored), tuple(after))


def _score(other: Rules, end: DealEnd) -> tuple[str, int | None, int] | None:
    """(result, winning seat, points) under ``other``; None if the hands are not known."""
    if end.hands is None:
        return None
    pips = [sum(t.pips for t in hand) for hand in end.hands]
    if end.result == "out" and end.last_player is not None:
        seat: int | None = end.last_player
        result = "out"
    else:
        seat = other.block_winner(BlockView(end.hands, end.leader or 0, other))
        result = "block" if seat is not None else "tie"
    if seat is None:
        return result, None, 0
    points = sum(pips[s] for s in other.losers_of(seat))
    return result, seat, round_to_five(points) if other.fives else points


def _match_over(other: Rules, totals: Sequence[int], seat: int | None) -> int | None:
    """The side that has won under ``other`` after these totals, if the match is over."""
    if other.target == 0:
        return None if seat is None else other.side_of(seat)
    top = max(totals)
    if top >= other.target and list(totals).count(top) == 1:
        return list(totals).index(top)
    return None
