"""Partial records: rebuild hidden hands from plays, draws and reveals.

"initial hand = tiles played + tiles left at the reveal - tiles drawn"
(match-format.md, *Partial records*). A hand is filled in only when it is
certain; otherwise it stays hidden, the fold tracks its unseen tiles, and the
audit says which tiles stay unknown and among which they are.

What makes a hidden tile known, all from the rules (rules-decisions.md):

- a draw the recorder did not see (``tile: null``) takes the next tile of a
  listed stock, or is the tile the same seat plays next: "you play a tile at
  once (it can only be the drawn one)";
- a seat that draws or passes holds no tile that fits the open ends ("You draw
  only when you cannot play"), so a tile that fitted then was not in its hand
  unless it had already laid it (the seed 002 tip: "a player who drew or passed
  when a number was showing ... doesn't have that number"); this needs the
  table's rules (where the ends are), so it is used only when they are given;
- every tile is in a hand or the stock: with the stock listed (or none at all),
  a last hidden hand is what the others leave;
- when only as many candidates are left as tiles unknown, they are the hand.

The deductions assume the hidden seats played by the rules: a partial record
cannot show otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from ledger.engine.board import fitting_ends, open_board, place
from ledger.engine.state import END_NAMES, State
from ledger.events import Dealt, Drew, Event, HandsRevealed, Passed, Played
from ledger.i18n.phrases import Phrase
from ledger.rules.base import HAND_SIZE, SET_SIZE, Rules
from ledger.tiles import FULL_SET, Tile, mask_of, tiles_of


@dataclass(frozen=True, slots=True)
class HiddenHand:
    """A starting hand the record does not show and the importer cannot work out."""

    event: int  # index of the deal
    seat: int
    known: tuple[Tile, ...]  # tiles surely in the starting hand
    unknown: int  # how many of its tiles stay unknown
    candidates: tuple[Tile, ...] = ()  # the tiles the unknown ones are among

    def describe(self) -> str:
        return str(self.sentence())

    def sentence(self) -> Phrase:
        """What the audit says of the hand, as a template and its parameters."""
        known = tuple(str(t) for t in self.known)
        pool = tuple(str(t) for t in self.candidates)
        params = {"seat": self.seat, "unknown": self.unknown, "size": HAND_SIZE}
        if known and pool:
            return Phrase("{seat}'s starting hand stays partly unknown: {unknown} of {size} "
                          "tiles unseen (known: {known}); the unseen ones are among {pool}",
                          known=known, pool=pool, **params)
        if known:
            return Phrase("{seat}'s starting hand stays partly unknown: {unknown} of {size} "
                          "tiles unseen (known: {known})", known=known, **params)
        if pool:
            return Phrase("{seat}'s starting hand stays partly unknown: {unknown} of {size} "
                          "tiles unseen; the unseen ones are among {pool}", pool=pool, **params)
        return Phrase("{seat}'s starting hand stays partly unknown: {unknown} of {size} "
                      "tiles unseen", **params)


_TURNS = (Played, Drew, Passed)


def rebuild_hands(events: Sequence[Event | None], rules: Rules | None = None
                  ) -> tuple[list[Event | None], list[HiddenHand]]:
    """Events with every hidden hand (and unseen draw) that can be worked out filled in,
    and the hands that can't. ``rules`` enables the deductions from draws and passes."""
    out = list(events)
    hidden: list[HiddenHand] = []
    starts = [i for i, ev in enumerate(events) if isinstance(ev, Dealt)]
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(events)
        deal = events[start]
        assert isinstance(deal, Dealt)
        if deal.stock is not None and all(h is not None for h in deal.hands):
            continue  # the common case: nothing hidden, skip the scans below
        segment = events[start + 1:end]
        if not any(isinstance(ev, Played) for ev in segment):
            continue  # redealt (or not begun): its hands matter to nothing
        blind = any(isinstance(ev, Drew) and ev.tile is None for ev in segment)
        if all(h is not None for h in deal.hands) and not (blind and deal.stock is None):
            continue
        hidden.extend(_rebuild_deal(out, start, end, rules))
    return out, hidden


def _rebuild_deal(out: list[Event | None], start: int, end: int,
                  rules: Rules | None) -> list[HiddenHand]:
    """Fill in the hidden hands of the deal at ``out[start]`` that its events settle
    (and its unseen draws the seat plays next); the hands that stay hidden."""
    deal = out[start]
    assert isinstance(deal, Dealt)
    open_seats = [s for s in range(len(deal.hands)) if deal.hands[s] is None]
    sure, maybe = _candidates(_scan(out, start, end, deal, rules), open_seats)
    certain = _settle(open_seats, sure, maybe)
    hands = list(deal.hands)
    unknown: list[HiddenHand] = []
    for s in open_seats:
        if s in certain and certain[s].bit_count() == HAND_SIZE:
            hands[s] = tuple(tiles_of(certain[s]))
            continue
        count = max(0, HAND_SIZE - sure[s].bit_count())
        unknown.append(HiddenHand(start, s, tuple(tiles_of(sure[s])), count,
                                  tuple(tiles_of(maybe[s]))))
    if tuple(hands) != deal.hands:
        out[start] = replace(deal, hands=tuple(hands))
    return unknown


class _Traces(NamedTuple):
    """What a deal and its events show of each seat's tiles, as bitmasks per seat.

    ``early``: played before the seat's first draw nobody saw (surely dealt); ``blind``:
    draws of a tile nobody saw; ``moves``: plays minus draws (HAND_SIZE of them: the hand
    is empty); ``excluded``: tiles the seat cannot have been dealt (it drew or passed
    while they fitted).
    """

    seats: int
    stock_listed: bool
    shown: int  # tiles the deal event places: given hands and the listed stock
    seen: int  # every tile the deal or its events place
    played: list[int]
    early: list[int]
    drawn: list[int]
    blind: list[int]
    moves: list[int]
    excluded: list[int]
    revealed: list[int | None]


def _scan(out: list[Event | None], start: int, end: int, deal: Dealt,
          rules: Rules | None) -> _Traces:
    """What the deal's events ``out[start + 1:end]`` show; an unseen draw is the next
    tile of a listed stock, or the tile the seat plays next (then written into ``out``).
    One loop over local names: it runs for every event of a partial deal."""
    seats, stock, pos = len(deal.hands), deal.stock, 0
    shown = 0
    for hand in deal.hands:
        if hand is not None:
            shown |= mask_of(hand)
    if stock is not None:
        shown |= mask_of(stock)
    board = _Board(rules) if rules is not None and rules.seats == seats else None
    played, early, drawn = [0] * seats, [0] * seats, [0] * seats
    blind, moves, excluded = [0] * seats, [0] * seats, [0] * seats
    revealed: list[int | None] = [None] * seats
    seen = shown
    for i in range(start + 1, end):
        ev = out[i]
        if isinstance(ev, Played) and 0 <= ev.seat < seats:
            bit = ev.tile.bit
            played[ev.seat] |= bit
            moves[ev.seat] += 1
            if not blind[ev.seat]:
                early[ev.seat] |= bit
            seen |= bit
            if board is not None:
                board.lay(ev)
        elif (isinstance(ev, (Drew, Passed)) and 0 <= ev.seat < seats
              and board is not None and HAND_SIZE not in moves):
            # (a pass after someone went out proves nothing)
            excluded[ev.seat] |= board.fits() & ~played[ev.seat]
        if isinstance(ev, Drew) and 0 <= ev.seat < seats:
            moves[ev.seat] -= 1
            tile = ev.tile
            if tile is None and stock is not None:
                tile = stock[pos] if pos < len(stock) else None
            elif tile is None:
                tile = _played_next(out, i, end, ev.seat, shown)
                if tile is not None:
                    out[i] = replace(ev, tile=tile)
            pos += 1
            if tile is None:
                blind[ev.seat] += 1
            else:
                drawn[ev.seat] |= tile.bit
                seen |= tile.bit
        elif isinstance(ev, HandsRevealed):
            for s, hand in enumerate(ev.hands[:seats]):
                if hand is not None:
                    revealed[s] = mask = mask_of(hand)
                    seen |= mask
    return _Traces(seats, stock is not None, shown, seen, played, early, drawn, blind,
                   moves, excluded, revealed)


def _candidates(t: _Traces, open_seats: list[int]) -> tuple[dict[int, int], dict[int, int]]:
    """Per hidden seat, the tiles surely in its starting hand and those that may be."""
    sure: dict[int, int] = {}
    maybe: dict[int, int] = {}
    for s in open_seats:
        revealed = t.revealed[s]
        held = (t.played[s] | (revealed or 0)) & ~t.drawn[s]
        sure[s] = t.early[s] & ~t.drawn[s] if t.blind[s] else held
        # Every tile it ever held is known once it showed its last tiles or had none.
        complete = revealed is not None or t.moves[s] == HAND_SIZE
        maybe[s] = (held & ~sure[s]) | (0 if complete else FULL_SET & ~t.seen)
    # Every tile is in a hand or the stock: with the stock listed (or none dealt), the
    # tiles nobody shows are in the hidden hands.
    if t.stock_listed or t.seats * HAND_SIZE == SET_SIZE:
        for s in open_seats:
            maybe[s] &= ~t.shown
    for s in open_seats:
        excluded = t.excluded[s]
        if sure[s] & excluded:
            excluded = 0  # the record contradicts the rules; deduce nothing from it
        maybe[s] &= ~excluded
    return sure, maybe


def _settle(open_seats: list[int], sure: dict[int, int], maybe: dict[int, int]
            ) -> dict[int, int]:
    """The hidden hands that are certain: surely held tiles plus, when only as many
    candidates are left as tiles unknown, those candidates. ``maybe`` is narrowed."""
    certain: dict[int, int] = {}
    changed = True
    while changed:  # a hand found may settle another: its tiles are nobody else's
        changed = False
        for s in open_seats:
            if s in certain:
                continue
            for other in open_seats:
                if other != s:
                    maybe[s] &= ~(certain.get(other) or sure[other])
            need = HAND_SIZE - sure[s].bit_count()
            if need == 0 or (need > 0 and maybe[s].bit_count() == need):
                certain[s] = sure[s] | (maybe[s] if need else 0)
                changed = True
    return certain


class _Board:
    """The open ends through a deal, to know what fitted when a seat drew or passed."""

    def __init__(self, rules: Rules) -> None:
        self.st = State(rules)
        self.broken = False  # a play that does not fit: know nothing from here on

    def lay(self, ev: Played) -> None:
        st = self.st
        if self.broken:
            return
        if st.table & ev.tile.bit:
            self.broken = True
        elif not st.table:
            open_board(st, ev.tile, ev.tile.low if ev.reversed else ev.tile.high)
        else:
            fits = fitting_ends(st, ev.tile)
            where = fits[0] if fits and ev.end is None else (
                END_NAMES.index(ev.end) if ev.end is not None else -1)
            if where not in fits:
                self.broken = True
                return
            place(st, ev.tile, where)

    def fits(self) -> int:
        return 0 if self.broken or not self.st.table else self.st.fit_mask()


def _played_next(events: Sequence[Event | None], i: int, end: int, seat: int,
                 shown: int) -> Tile | None:
    """The tile of an unseen draw, if the seat's next move plays it (the rules say it must)."""
    for j in range(i + 1, end):
        ev = events[j]
        if isinstance(ev, _TURNS):
            if isinstance(ev, Played) and ev.seat == seat and not shown & ev.tile.bit:
                return ev.tile
            return None
    return None
