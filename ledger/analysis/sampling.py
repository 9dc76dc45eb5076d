"""Deals of the unseen tiles consistent with what one seat knew, drawn uniformly.

At a decision the mover knows its own hand, the table, how many tiles every other
hand and the stock hold, and which numbers a seat is proven to lack (it passed, or
drew, with that number open: ``ledger.analysis.knowledge``). Every way of sharing
the unseen tiles among the other hands and the stock that respects those facts is
equally likely to the mover; ``Constraints`` holds the facts and ``sample`` draws
such ways uniformly.

Method (docs/knowledge-review.md): exact counting by dynamic programming. The
unseen tiles are taken in a fixed order; ``ways(i, room)`` is the number of ways
to place tiles ``i..`` into the places (each other hand, then the stock) with
``room`` tiles still to fill in each, a tile going only where it is allowed (a hand
never gets a number it is proven to lack; the stock takes anything). A deal is
drawn tile by tile: tile ``i`` goes to place ``p`` with probability
``ways(i + 1, room - p) / ways(i, room)``, with an exact integer draw, so each
consistent deal has probability exactly ``1 / ways(0, sizes)``. On tables that draw,
the stock's order is then a uniform shuffle of its tiles (every order is as likely;
nothing the mover saw tells them apart). Pure: the caller's seeded ``Random`` is the
only source of chance; no I/O, no clock.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ledger.tiles import ALL_TILES, SUIT_MASK, Tile


class Inconsistent(ValueError):
    """No deal of the unseen tiles fits what the seat knew (the record contradicts it)."""


@dataclass(frozen=True, slots=True)
class Constraints:
    """What the mover knew of the tiles it has not seen.

    ``unseen``: bit mask of those tiles. ``seats``: the other seats, in order, and
    ``sizes``: how many tiles each holds. ``lacks``: per other seat, the numbers it is
    proven to hold none of. ``rest``: how many unseen tiles lie elsewhere (the stock,
    or tiles out of play); it takes any tile. ``pinned``: per other seat, tiles known
    to be in its hand (the opening tile its holder must lead); ``in_rest``: tiles known
    to lie in the rest (those that outrank the opening tile, which nobody was dealt).
    ``max_doubles``: a hand with this many doubles would have been dealt again (0: no
    such rule); deals breaking it are drawn again (rejection keeps the draw uniform).
    """

    unseen: int
    seats: tuple[int, ...]
    sizes: tuple[int, ...]
    lacks: tuple[tuple[int, ...], ...]
    rest: int
    pinned: tuple[int, ...] = ()
    in_rest: int = 0
    max_doubles: int = 0
    _ways: dict[tuple[int, tuple[int, ...]], int] = field(
        default_factory=dict, compare=False, repr=False)
    _memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        total = sum(self.sizes) + self.rest
        if total != self.unseen.bit_count() or min((*self.sizes, self.rest), default=0) < 0:
            raise Inconsistent(f"{self.unseen.bit_count()} unseen tiles cannot fill hands of "
                               f"{list(self.sizes)} tiles and {self.rest} elsewhere")

    @property
    def tiles(self) -> tuple[Tile, ...]:
        got = self._memo.get("tiles")
        if got is None:
            got = self._memo["tiles"] = tuple(t for t in ALL_TILES if self.unseen & t.bit)
        return got

    def forbidden(self, k: int) -> int:
        """The tiles the ``k``-th other seat cannot hold (a bit mask)."""
        mask = 0
        for n in self.lacks[k]:
            mask |= SUIT_MASK[n]
        return mask

    def allowed(self) -> tuple[tuple[int, ...], ...]:
        """Per unseen tile (in ``tiles`` order), the places it may go: seats by position
        in ``seats``, then ``len(seats)`` for the rest."""
        got = self._memo.get("allowed")
        if got is None:
            got = self._memo["allowed"] = self._allowed()
        return got

    def _allowed(self) -> tuple[tuple[int, ...], ...]:
        forbid = [self.forbidden(k) for k in range(len(self.seats))]
        pinned = self.pinned or (0,) * len(self.seats)
        rest = len(self.seats)
        out: list[tuple[int, ...]] = []
        for t in self.tiles:
            holder = next((k for k, m in enumerate(pinned) if m & t.bit), None)
            if holder is not None:
                out.append((holder,))
            elif self.in_rest & t.bit:
                out.append((rest,))
            else:
                out.append(tuple(k for k in range(rest) if not forbid[k] & t.bit) + (rest,))
        return tuple(out)

    def fits(self, d: Deal) -> bool:
        """Whether ``d`` keeps the doubles rule (the rest of ``self`` holds by construction)."""
        return not self.max_doubles or all(
            (h & _DOUBLES).bit_count() < self.max_doubles for h in d.hands)

    def count(self) -> int:
        """How many deals of the unseen tiles fit (the stock's order not counted), before
        the doubles rule (``max_doubles``)."""
        return self._count(0, (*self.sizes, self.rest), self.allowed())

    def _count(self, i: int, room: tuple[int, ...], allowed: tuple[tuple[int, ...], ...]
               ) -> int:
        if i == len(allowed):
            return 1
        key = (i, room)
        got = self._ways.get(key)
        if got is None:
            got = 0
            for p in allowed[i]:
                if room[p]:
                    got += self._count(i + 1, _less(room, p), allowed)
            self._ways[key] = got
        return got


def _less(room: tuple[int, ...], p: int) -> tuple[int, ...]:
    return room[:p] + (room[p] - 1,) + room[p + 1:]


@dataclass(frozen=True, slots=True)
class Deal:
    """One consistent deal: the other seats' hands (bit masks, in ``Constraints.seats``
    order) and the rest (in a uniformly shuffled order: the stock's drawing order)."""

    hands: tuple[int, ...]
    rest: tuple[Tile, ...]


_DOUBLES = sum(t.bit for t in ALL_TILES if t.is_double)
# Redrawing a deal that breaks the doubles rule: such deals are rare (a hand of five
# doubles or more), so a few tries always do; past this many, the facts are suspect.
_TRIES = 1000


def sample(c: Constraints, rng: random.Random) -> Deal:
    """One deal drawn uniformly among those consistent with ``c``."""
    for _ in range(_TRIES):
        d = _draw(c, rng)
        if c.fits(d):
            return d
    raise Inconsistent("no deal of the unseen tiles keeps the doubles rule")


def _draw(c: Constraints, rng: random.Random) -> Deal:
    allowed = c.allowed()
    tiles = c.tiles
    room = (*c.sizes, c.rest)
    total = c._count(0, room, allowed)
    if total == 0:
        raise Inconsistent("no deal of the unseen tiles fits what is known of the hands")
    hands = [0] * len(c.sizes)
    rest: list[Tile] = []
    for i, t in enumerate(tiles):
        pick = rng.randrange(total)
        for p in allowed[i]:
            if not room[p]:
                continue
            w = c._count(i + 1, _less(room, p), allowed)
            if pick < w:
                break
            pick -= w
        else:  # pragma: no cover - the weights sum to ``total``
            raise AssertionError("the counts do not add up")
        if p == len(hands):
            rest.append(t)
        else:
            hands[p] |= t.bit
        room = _less(room, p)
        total = w
    rng.shuffle(rest)
    return Deal(tuple(hands), tuple(rest))


def samples(c: Constraints, k: int, rng: random.Random) -> list[Deal]:
    return [sample(c, rng) for _ in range(k)]


def every_deal(c: Constraints) -> Iterator[Deal]:
    """Every consistent deal once (the rest in ``tiles`` order): for small cases, where the
    expected values can be taken over all of them."""
    allowed = c.allowed()
    tiles = c.tiles

    def walk(i: int, room: tuple[int, ...], hands: tuple[int, ...],
             rest: tuple[Tile, ...]) -> Iterator[Deal]:
        if i == len(tiles):
            if c.fits(Deal(hands, rest)):
                yield Deal(hands, rest)
            return
        for p in allowed[i]:
            if not room[p]:
                continue
            if p == len(hands):
                yield from walk(i + 1, _less(room, p), hands, (*rest, tiles[i]))
            else:
                more = hands[:p] + (hands[p] | tiles[i].bit,) + hands[p + 1:]
                yield from walk(i + 1, _less(room, p), more, rest)

    yield from walk(0, (*c.sizes, c.rest), (0,) * len(c.sizes), ())


def seed_of(key: str, event: int, part: str = "") -> int:
    """The seed of the review of the decision at ``event`` of the match whose hash is
    ``key`` (``part``: which use, e.g. one seat's luck): the same review draws the same
    deals."""
    digest = hashlib.sha256(f"{key}:{event}:{part}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def rng_for(key: str, event: int, part: str = "") -> random.Random:
    return random.Random(seed_of(key, event, part))


def constraints(unseen: int, seats: Sequence[int], sizes: Sequence[int],
                lacks: Sequence[Sequence[int]], *, pinned: Sequence[int] = (),
                in_rest: int = 0, max_doubles: int = 0) -> Constraints:
    """``Constraints`` with the rest's size worked out (every unseen tile not in a hand)."""
    rest = unseen.bit_count() - sum(sizes)
    return Constraints(unseen, tuple(seats), tuple(sizes),
                       tuple(tuple(sorted(set(n))) for n in lacks), rest,
                       tuple(pinned), in_rest & unseen, max_doubles)


__all__ = ["Constraints", "Deal", "Inconsistent", "constraints", "every_deal", "rng_for",
           "sample", "samples", "seed_of"]
