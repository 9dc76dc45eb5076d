"""Full deals consistent with every fact one seat knew, drawn uniformly (issue 30).

A *full deal* is what the shuffle made: every hand as dealt and, on a table that draws,
the stock in drawing order. At a decision the mover knows (docs/knowledge-review.md,
each fact with the seed rule it rests on):

- its own hand as dealt and the tiles it drew, at their places in the stock;
- every public move of the deal (``Act``): who laid which tile, who drew (at which
  place of the stock: draws take the stock in order) and who passed, and what the ends
  showed then;
- a seat that drew or passed held no tile showing an open number *at that time*
  ("Watch who draws or passes", seed 002; "you cannot draw when you have a playable
  tile", seeds 000/001/002/004; passing only without a move, 003): the tiles it held
  then were those dealt to it and drawn before, less those laid before. A tile drawn
  later is not bound by it, a tile dealt is bound by every void until it is laid;
- a drawn tile that fits is laid at once (seed 002 "until you get one that does, then
  play it"): the tile laid after a seat's last draw of a turn is that draw's tile;
- the opening (first deal, and every deal of tables that lead by the highest double):
  the leader held the tile the rules made it open with, and no hand was dealt a tile
  ranked above it (seeds 000 §3, 001, 002 "Who leads", 003 "Starting the Game", 004);
- the redeal rule: no hand was *dealt* four doubles or more (Selminha, seed 002 "If
  anyone is dealt 4 or more doubles, the tiles are reshuffled"), whatever it holds now;
- how many tiles each hand was dealt, how many the stock holds, how many lie out of
  play (Block, seed 003: "not used").

Every full deal that keeps them all was as likely as any other before the deal, and the
moves do not tell them apart: the mover's belief is uniform over them. ``DealSpace``
holds the facts as *classes* of places with the tiles each may take: each other seat's
hand as dealt (a set), groups of stock places that accept the same tiles (the tiles
another seat drew and kept, the places not yet drawn), the tiles out of play (a set).
The consistent deals are counted exactly by dynamic programming over the tiles (the
doubles first, with the doubles each hand took while they are placed), and one is drawn
uniformly tile by tile with exact integer weights; the tiles of a group of stock places
are then put in a uniformly shuffled order (every order keeps every fact). Small spaces
are listed whole (``every_deal``). Pure: the caller's seeded ``Random`` is the only
source of chance.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ledger.analysis.sampling import Inconsistent
from ledger.engine.board import opening_rank
from ledger.engine.state import State
from ledger.rules.base import Rules
from ledger.tiles import ALL_TILES, SUIT_MASK, Tile, tiles_of

Kind = Literal["play", "draw", "pass"]
_DOUBLES = sum(t.bit for t in ALL_TILES if t.is_double)
ALL = (1 << 28) - 1


@dataclass(frozen=True, slots=True)
class Act:
    """One public move of a deal, as the mover saw it."""

    event: int
    seat: int
    kind: Kind
    tile: Tile | None      # the tile laid; for a draw, the tile only when the mover drew it
    ends: tuple[int, ...]  # the numbers open just before it


@dataclass(frozen=True, slots=True)
class DealtFacts:
    """Everything the rules let ``seat`` know, before event ``step``, of how its deal was
    dealt. ``hand``: its own hand as dealt (a bit mask). ``opening``: the tile the rules
    made the leader open with (None when the leader could open with any tile).
    ``max_doubles``: a hand dealt this many doubles is redealt (0: no such rule).
    ``stock``: the stock's size on a table that draws (0: none); ``out``: tiles dealt to
    nobody that nobody can draw."""

    seat: int
    step: int
    seats: int
    hand: int
    acts: tuple[Act, ...]
    opening: Tile | None
    max_doubles: int
    stock: int
    out: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat, "step": self.step,
            "hand": [str(t) for t in tiles_of(self.hand)],
            "opening": None if self.opening is None else str(self.opening),
            "max_doubles": self.max_doubles or None,
            "stock": self.stock, "out_of_play": self.out,
            "moves": [{"event": a.event, "seat": a.seat, "kind": a.kind,
                       "tile": None if a.tile is None else str(a.tile),
                       "ends": list(a.ends)} for a in self.acts],
        }


@dataclass(frozen=True, slots=True)
class FullDeal:
    """One deal as dealt: each seat's hand (in set order) and the stock in drawing order
    (empty on a table without a stock; tiles out of play are not listed)."""

    hands: tuple[tuple[Tile, ...], ...]
    stock: tuple[Tile, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"hands": [[str(t) for t in h] for h in self.hands],
                "stock": [str(t) for t in self.stock]}


@dataclass(frozen=True, slots=True)
class _Class:
    kind: Literal["hand", "places", "out"]
    seat: int                     # a hand's seat (-1 otherwise)
    places: tuple[int, ...]       # stock places, in order (kind "places")
    size: int
    allowed: int                  # the tiles it may take (bit mask)


@dataclass(frozen=True, slots=True)
class DealSpace:
    """The full deals consistent with ``facts``: ``count``, ``sample``, ``every_deal``."""

    facts: DealtFacts
    fixed_hands: tuple[int, ...]              # per seat: tiles known dealt to it
    fixed_stock: tuple[tuple[int, Tile], ...]  # (place, tile) known
    drawer: tuple[int, ...]                   # per drawn place: who drew it
    classes: tuple[_Class, ...]
    tiles: tuple[Tile, ...]                   # the tiles to place, doubles first
    allowed: tuple[tuple[int, ...], ...]      # per tile: the classes it may go to
    hand_of: tuple[int, ...]                  # per class: its index among the hands, or -1
    _memo: dict[Any, int] = field(default_factory=dict, compare=False, repr=False)

    @property
    def doubles(self) -> int:
        return sum(1 for t in self.tiles if t.is_double)

    # --- counting ----------------------------------------------------------------

    def _start(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        room = tuple(c.size for c in self.classes)
        hands = [c for c in self.classes if c.kind == "hand"]
        dbl = tuple((self.fixed_hands[c.seat] & _DOUBLES).bit_count() for c in hands)
        return room, (dbl if self.facts.max_doubles and self.doubles else ())

    def _step(self, i: int, k: int, room: tuple[int, ...], dbl: tuple[int, ...]
              ) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """The room and doubles once tile ``i`` goes to class ``k`` (None: not allowed)."""
        if not room[k]:
            return None
        if dbl:
            h = self.hand_of[k]
            if h >= 0:
                if dbl[h] + 1 >= self.facts.max_doubles:
                    return None
                dbl = dbl[:h] + (dbl[h] + 1,) + dbl[h + 1:]
            if i + 1 >= self.doubles:
                dbl = ()  # every double placed: the rule is kept from here on
        return room[:k] + (room[k] - 1,) + room[k + 1:], dbl

    def _ways(self, i: int, room: tuple[int, ...], dbl: tuple[int, ...]) -> int:
        if i == len(self.tiles):
            return 1
        key = (i, room, dbl)
        got = self._memo.get(key)
        if got is None:
            got = 0
            for k in self.allowed[i]:
                nxt = self._step(i, k, room, dbl)
                if nxt is not None:
                    got += self._ways(i + 1, *nxt)
            self._memo[key] = got
        return got

    def orders(self) -> int:
        """The drawing orders of each assignment: each group of stock places in any order."""
        return math.prod(math.factorial(c.size) for c in self.classes if c.kind == "places")

    def count(self) -> int:
        """How many full deals keep every fact (stock orders counted)."""
        return self._ways(0, *self._start()) * self.orders()

    # --- drawing -----------------------------------------------------------------

    def sample(self, rng: random.Random) -> FullDeal:
        """One full deal, every consistent one as likely."""
        room, dbl = self._start()
        total = self._ways(0, room, dbl)
        if total == 0:
            raise Inconsistent("no deal fits what is known of the hands")
        where: list[int] = []
        for i in range(len(self.tiles)):
            pick = rng.randrange(total)
            for k in self.allowed[i]:
                nxt = self._step(i, k, room, dbl)
                if nxt is None:
                    continue
                w = self._ways(i + 1, *nxt)
                if pick < w:
                    break
                pick -= w
            else:  # pragma: no cover - the weights sum to ``total``
                raise AssertionError("the counts do not add up")
            where.append(k)
            room, dbl = nxt
            total = w
        groups = self._groups(where)
        for k, c in enumerate(self.classes):
            if c.kind == "places":
                rng.shuffle(groups[k])
        return self._deal(groups)

    def samples(self, k: int, rng: random.Random) -> list[FullDeal]:
        return [self.sample(rng) for _ in range(k)]

    def every_deal(self) -> Iterator[FullDeal]:
        """Every consistent full deal once (for small spaces: see ``count``)."""
        ordered = [k for k, c in enumerate(self.classes) if c.kind == "places"]
        for where in self._assignments():
            groups = self._groups(where)
            for orders in itertools.product(*(itertools.permutations(groups[k])
                                              for k in ordered)):
                for k, order in zip(ordered, orders, strict=True):
                    groups[k] = list(order)
                yield self._deal(groups)

    def _assignments(self) -> Iterator[list[int]]:
        def walk(i: int, room: tuple[int, ...], dbl: tuple[int, ...], where: list[int]
                 ) -> Iterator[list[int]]:
            if i == len(self.tiles):
                yield list(where)
                return
            for k in self.allowed[i]:
                nxt = self._step(i, k, room, dbl)
                if nxt is None or not self._ways(i + 1, *nxt):
                    continue
                where.append(k)
                yield from walk(i + 1, *nxt, where)
                where.pop()

        yield from walk(0, *self._start(), [])

    def _groups(self, where: Sequence[int]) -> list[list[Tile]]:
        groups: list[list[Tile]] = [[] for _ in self.classes]
        for t, k in zip(self.tiles, where, strict=True):
            groups[k].append(t)
        return groups

    def _deal(self, groups: Sequence[Sequence[Tile]]) -> FullDeal:
        hands = list(self.fixed_hands)
        stock: list[Tile | None] = [None] * self.facts.stock
        for place, tile in self.fixed_stock:
            stock[place] = tile
        for c, got in zip(self.classes, groups, strict=True):
            if c.kind == "hand":
                hands[c.seat] |= sum(t.bit for t in got)
            elif c.kind == "places":
                for place, tile in zip(c.places, got, strict=True):
                    stock[place] = tile
        assert all(t is not None for t in stock)
        return FullDeal(tuple(tuple(tiles_of(h)) for h in hands),
                        tuple(t for t in stock if t is not None))

    def keeps(self, deal: FullDeal) -> bool:
        """Whether ``deal`` keeps every fact (is one of ``every_deal``): for checking a
        deal from outside, such as the one the record says was dealt."""
        if len(deal.hands) != self.facts.seats or len(deal.stock) != self.facts.stock:
            return False
        hands = [sum(t.bit for t in h) for h in deal.hands]
        me = self.facts.seat
        if hands[me] != self.fixed_hands[me] or any(
                deal.stock[place] is not tile for place, tile in self.fixed_stock):
            return False
        free = sum(t.bit for t in self.tiles)
        somewhere = 0
        for t in (*deal.stock, *(t for h in deal.hands for t in h)):
            somewhere |= t.bit
        placed = 0
        for c in self.classes:
            if c.kind == "hand":
                got = hands[c.seat]
                if self.facts.max_doubles and \
                        (got & _DOUBLES).bit_count() >= self.facts.max_doubles:
                    return False
            elif c.kind == "places":
                got = sum(deal.stock[p].bit for p in c.places)
            else:
                got = free & ~somewhere
            if got & ~c.allowed or got.bit_count() != c.size or got & placed:
                return False
            placed |= got
        return placed == free

    # --- the position it makes ------------------------------------------------------

    def state_of(self, st: State, deal: FullDeal) -> State:
        """``st`` (the position at ``facts.step``) with the hands and stock of ``deal``:
        each other hand is what it was dealt and drew, less what it laid."""
        seat = self.facts.seat
        out = st.copy()
        held = [sum(t.bit for t in h) for h in deal.hands]
        for place, who in enumerate(self.drawer):
            held[who] |= deal.stock[place].bit
        out.hands = [st.hands[seat] if s == seat else held[s] & ~st.table
                     for s in range(len(held))]
        out.hidden = [0] * len(held)
        if self.facts.stock:
            out.stock = deal.stock
            out.stock_pos = len(self.drawer)
        return out


def facts_for(rules: Rules, seat: int, step: int, hand: int | None, acts: Sequence[Act],
              opening: Tile | None, by_rank: bool) -> DealtFacts:
    """``DealtFacts`` of ``seat`` before event ``step`` from the deal's public moves so far
    (``acts``, draws with their tiles when the record names them: only the seat's own are
    kept). ``hand``: its hand as dealt (None: not in the record). ``opening``: the tile the
    rules made the leader open with, when known; ``by_rank``: the leader had to open with
    the best tile dealt (then the first tile laid is it)."""
    if hand is None:
        raise Inconsistent(f"seat {seat}'s own hand is not in the record")
    # Another seat's drawn tile stays unseen, whatever the record says; the open numbers
    # as a set (a double at both ends shows one number).
    seen = tuple(Act(a.event, a.seat, a.kind,
                     None if a.kind == "draw" and a.seat != seat else a.tile,
                     tuple(sorted(set(a.ends)))) for a in acts if a.event < step)
    if opening is None and by_rank and seen and seen[0].kind == "play":
        opening = seen[0].tile
    draws = rules.draws and rules.stock_size > 0
    return DealtFacts(seat, step, rules.seats, hand, seen, opening if by_rank else None,
                      rules.redeal_doubles or 0, rules.stock_size if draws else 0,
                      0 if draws else rules.stock_size)


def space_of(facts: DealtFacts) -> DealSpace:
    """The full deals consistent with ``facts`` (``Inconsistent`` when the facts cannot
    all be kept, or the mover's own tiles are not in the record)."""
    me, n = facts.seat, facts.seats
    laid: dict[Tile, tuple[int, int]] = {}           # tile: (seat, event)
    voids: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (event, tiles lacked)
    kept: list[tuple[int, int, int]] = []            # (event, seat, place)
    fixed_stock: dict[int, Tile] = {}
    drawer: list[int] = []
    acts = facts.acts
    for i, a in enumerate(acts):
        if a.ends and a.kind != "play":
            voids[a.seat].append((a.event, _suits(a.ends)))
        if a.kind == "play" and a.tile is not None:
            laid[a.tile] = (a.seat, a.event)
        if a.kind != "draw":
            continue
        place = len(drawer)
        drawer.append(a.seat)
        nxt = acts[i + 1] if i + 1 < len(acts) else None
        laid_next = nxt is not None and nxt.seat == a.seat and nxt.kind == "play"
        if a.seat == me:
            tile = a.tile if a.tile is not None else (nxt.tile if laid_next and nxt else None)
            if tile is None:
                raise Inconsistent(f"seat {me}'s own draw at event {a.event} is not in the "
                                   "record")
            fixed_stock[place] = tile
        elif laid_next and nxt is not None and nxt.tile is not None:
            fixed_stock[place] = nxt.tile   # a drawn tile that fits is laid at once
        else:
            kept.append((a.event, a.seat, place))
    if len(drawer) > facts.stock:
        raise Inconsistent(f"{len(drawer)} draws from a stock of {facts.stock}")
    fixed_hands = [0] * n
    fixed_hands[me] = facts.hand
    fixed = facts.hand | sum(t.bit for t in fixed_stock.values())
    if facts.hand.bit_count() != 7 or fixed.bit_count() != 7 + len(fixed_stock):
        raise Inconsistent(f"seat {me}'s own hand as dealt is not in the record")
    free = ALL & ~fixed
    laid_free = sum(t.bit for t in laid if free & t.bit)
    unseen = free & ~laid_free
    above = 0
    if facts.opening is not None:
        rank = opening_rank(facts.opening)
        above = sum(t.bit for t in ALL_TILES if opening_rank(t) > rank)
    classes: list[_Class] = []
    for t in range(n):
        if t == me:
            continue
        classes.append(_Class("hand", t, (), 7, _fits(free & ~above, t, -1, laid, voids[t])))
    by_allowed: dict[int, list[int]] = {}
    for event, t, place in kept:
        by_allowed.setdefault(_fits(free, t, event, laid, voids[t]), []).append(place)
    if facts.stock > len(drawer):
        by_allowed.setdefault(unseen, []).extend(range(len(drawer), facts.stock))
    for allowed, places in by_allowed.items():
        classes.append(_Class("places", -1, tuple(places), len(places), allowed))
    if facts.out:
        classes.append(_Class("out", -1, (), facts.out, unseen))
    if sum(c.size for c in classes) != free.bit_count():
        raise Inconsistent(f"{free.bit_count()} tiles unaccounted for cannot fill "
                           f"{sum(c.size for c in classes)} places")
    order = sorted(tiles_of(free), key=lambda t: (not t.is_double, t.index))
    where = tuple(tuple(k for k, c in enumerate(classes) if c.allowed & t.bit)
                  for t in order)
    hands = [k for k, c in enumerate(classes) if c.kind == "hand"]
    hand_of = tuple(hands.index(k) if k in hands else -1 for k in range(len(classes)))
    return DealSpace(facts, tuple(fixed_hands), tuple(sorted(fixed_stock.items())),
                     tuple(drawer), tuple(classes), tuple(order), where, hand_of)


def _suits(ends: Sequence[int]) -> int:
    mask = 0
    for e in ends:
        mask |= SUIT_MASK[e]
    return mask


def _fits(candidates: int, seat: int, since: int, laid: dict[Tile, tuple[int, int]],
          voids: Sequence[tuple[int, int]]) -> int:
    """The tiles of ``candidates`` that ``seat`` may have taken at event ``since`` (-1: as
    dealt): one laid by another seat, or by this one before it was taken, never; else each
    must show no number the seat lacked while it held it (from ``since`` until laid)."""
    out = 0
    for t in tiles_of(candidates):
        got = laid.get(t)
        until = 1 << 62
        if got is not None:
            who, event = got
            if who != seat or event < since:
                continue
            until = event
        if any(since < e < until and lacked & t.bit for e, lacked in voids):
            continue
        out |= t.bit
    return out


__all__ = ["Act", "DealSpace", "DealtFacts", "FullDeal", "facts_for", "space_of"]
