"""Partial records: rebuild hidden hands from plays, draws and reveals.

"initial hand = tiles played + tiles left at the reveal - tiles drawn"
(match-format.md, *Partial records*). A hand is filled in only when that sum
is certain; otherwise it stays hidden and the fold tracks its unseen tiles.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ledger.events import Dealt, Drew, Event, HandsRevealed, Played
from ledger.rules.base import HAND_SIZE
from ledger.tiles import Tile, mask_of, tiles_of


@dataclass(frozen=True, slots=True)
class HiddenHand:
    event: int
    seat: int
    known: tuple[Tile, ...]
    unknown: int


def rebuild_hands(events: Sequence[Event | None]) -> tuple[list[Event | None], list[HiddenHand]]:
    """Events with every hidden hand that can be worked out filled in, and those that can't."""
    out = list(events)
    hidden: list[HiddenHand] = []
    starts = [i for i, ev in enumerate(events) if isinstance(ev, Dealt)]
    for k, start in enumerate(starts):
        deal = events[start]
        assert isinstance(deal, Dealt)
        if all(h is not None for h in deal.hands):
            continue
        end = starts[k + 1] if k + 1 < len(starts) else len(events)
        hands, unknown = _rebuild_deal(deal, events[start + 1:end])
        if hands != deal.hands:
            out[start] = replace(deal, hands=hands)
        for seat, (known, missing) in unknown.items():
            hidden.append(HiddenHand(start, seat, known, missing))
    return out, hidden


Hands = tuple[tuple[Tile, ...] | None, ...]


def _rebuild_deal(deal: Dealt, segment: Sequence[Event | None]
                  ) -> tuple[Hands, dict[int, tuple[tuple[Tile, ...], int]]]:
    seats = len(deal.hands)
    played = [0] * seats
    drawn = [0] * seats
    blind_draws = [0] * seats
    revealed: list[int | None] = [None] * seats
    stock = list(deal.stock) if deal.stock is not None else None
    pos = 0
    for ev in segment:
        if isinstance(ev, Played) and 0 <= ev.seat < seats:
            played[ev.seat] |= ev.tile.bit
        elif isinstance(ev, Drew) and 0 <= ev.seat < seats:
            tile = ev.tile
            if tile is None and stock is not None and pos < len(stock):
                tile = stock[pos]
            pos += 1
            if tile is None:
                blind_draws[ev.seat] += 1
            else:
                drawn[ev.seat] |= tile.bit
        elif isinstance(ev, HandsRevealed):
            for s, hand in enumerate(ev.hands[:seats]):
                if hand is not None:
                    revealed[s] = mask_of(hand)
    hands = list(deal.hands)
    unknown: dict[int, tuple[tuple[Tile, ...], int]] = {}
    for s, hand in enumerate(deal.hands):
        if hand is not None:
            continue
        held = played[s] | (revealed[s] or 0)
        initial = held & ~drawn[s]
        # Without a reveal the hand is certain only once every tile of it was played.
        certain = blind_draws[s] == 0 and initial.bit_count() == HAND_SIZE and (
            revealed[s] is not None or played[s].bit_count() - drawn[s].bit_count() == HAND_SIZE)
        if certain:
            hands[s] = tuple(tiles_of(initial))
        else:
            sure = initial if blind_draws[s] == 0 else 0
            unknown[s] = (tuple(tiles_of(sure)), HAND_SIZE - sure.bit_count())
    return tuple(hands), unknown
