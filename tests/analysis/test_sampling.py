"""Consistent deals (ledger/analysis/sampling.py): counted exactly, drawn uniformly.

The reference is a plain enumeration written here: every way of giving each unseen tile
to a place (each other hand, or the rest), kept when the sizes and the proven voids fit.
It shares nothing with the module's dynamic programme.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest

from ledger.analysis.sampling import (
    Constraints,
    Deal,
    Inconsistent,
    constraints,
    every_deal,
    rng_for,
    sample,
    seed_of,
)
from ledger.tiles import SUIT_MASK, Tile, mask_of


def _mask(*names: str) -> int:
    return mask_of(Tile.parse(n) for n in names)


def _reference(c: Constraints) -> set[tuple[tuple[int, ...], frozenset[Tile]]]:
    tiles = c.tiles
    places = len(c.seats) + 1
    out = set()
    for where in itertools.product(range(places), repeat=len(tiles)):
        hands = [0] * len(c.seats)
        rest = []
        for t, p in zip(tiles, where, strict=True):
            if p == len(c.seats):
                rest.append(t)
            else:
                hands[p] |= t.bit
        if [h.bit_count() for h in hands] != list(c.sizes):
            continue
        if any(hands[k] & SUIT_MASK[n] for k in range(len(hands)) for n in c.lacks[k]):
            continue
        if any(h & c.in_rest for h in hands):
            continue
        if c.pinned and any(c.pinned[k] & ~hands[k] for k in range(len(hands))):
            continue
        doubles = [sum(1 for t in tiles if h & t.bit and t.is_double) for h in hands]
        if c.max_doubles and max(doubles) >= c.max_doubles:
            continue
        out.add((tuple(hands), frozenset(rest)))
    return out


def _key(d: Deal) -> tuple[tuple[int, ...], frozenset[Tile]]:
    return d.hands, frozenset(d.rest)


def _chi2_limit(df: int) -> float:
    """The chi-square value exceeded with probability 0.001 (Wilson-Hilferty)."""
    z = 3.090232
    return float(df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3)


CASES = {
    # Two other hands and a stock; seat 1 lacks 6 and 3 (it passed on 6|3).
    "two hands and a stock, one void": constraints(
        _mask("6-6", "6-3", "3-1", "5-2", "4-0", "2-2", "1-0"), (1, 2), (2, 2), [(6, 3), ()]),
    # Three other hands (four seats, no stock), two of them with voids.
    "three hands, no stock": constraints(
        _mask("6-5", "5-5", "4-1", "3-3", "2-0", "1-1"), (0, 2, 3), (2, 2, 2),
        [(5,), (), (1, 3)]),
    # The opening rule (6-6 and 5-5 outrank the tile that opened: only the stock holds
    # them), a tile known in seat 2's hand, and a doubles rule (no hand of 2 doubles).
    "opening, pinned and doubles rules": constraints(
        _mask("6-6", "5-5", "3-3", "2-2", "4-1", "6-0", "5-1"), (1, 2), (2, 2), [(), (0,)],
        pinned=[0, _mask("4-1")], in_rest=_mask("6-6", "5-5"), max_doubles=2),
    # One other hand and a stock (two seats): the opponent lacks 4.
    "one hand and a stock": constraints(
        _mask("4-4", "4-2", "6-1", "3-0", "5-5", "2-1"), (1,), (3,), [(4,)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_count_and_every_deal_equal_the_enumeration(name: str) -> None:
    c = CASES[name]
    ref = _reference(c)
    # ``count`` is before the doubles rule, which ``every_deal`` and ``sample`` apply.
    assert (c.count() == len(ref) if not c.max_doubles else c.count() > len(ref)) and ref
    listed = [_key(d) for d in every_deal(c)]
    assert len(listed) == len(set(listed)) and set(listed) == ref


@pytest.mark.parametrize("name", list(CASES))
def test_draws_are_uniform_over_the_consistent_deals(name: str) -> None:
    c = CASES[name]
    ref = _reference(c)
    rng = random.Random(14)
    n = 300 * len(ref)
    got = Counter(_key(sample(c, rng)) for _ in range(n))
    assert set(got) == ref  # every consistent deal is drawn, no other
    expected = n / len(ref)
    chi2 = sum((got[k] - expected) ** 2 / expected for k in ref)
    assert chi2 < _chi2_limit(len(ref) - 1)


def test_the_stock_order_is_a_uniform_shuffle() -> None:
    # No hand to fill: all three unseen tiles are the stock; its 6 orders come equally.
    c = constraints(_mask("6-6", "5-5", "4-4"), (1,), (0,), [()])
    rng = random.Random(3)
    n = 6000
    got = Counter(sample(c, rng).rest for _ in range(n))
    assert len(got) == 6
    chi2 = sum((v - n / 6) ** 2 / (n / 6) for v in got.values())
    assert chi2 < _chi2_limit(5)


def test_a_proven_void_is_never_dealt() -> None:
    c = CASES["three hands, no stock"]
    rng = random.Random(1)
    for _ in range(500):
        d = sample(c, rng)
        assert not d.hands[0] & SUIT_MASK[5]
        assert not d.hands[2] & (SUIT_MASK[1] | SUIT_MASK[3])


def test_the_same_seed_draws_the_same_deals() -> None:
    c = CASES["two hands and a stock, one void"]
    a = [sample(c, rng_for("abc", 7)) for _ in range(3)]
    b = [sample(c, rng_for("abc", 7)) for _ in range(3)]
    assert a == b
    assert seed_of("abc", 7) != seed_of("abc", 8) != seed_of("abd", 7)


def test_facts_that_no_deal_fits_are_an_error() -> None:
    with pytest.raises(Inconsistent):
        constraints(_mask("6-6", "6-5"), (1,), (3,), [()])
    # Both unseen tiles show a 6 and the only hand lacks 6 with nowhere else to put them.
    c = constraints(_mask("6-6", "6-5"), (1,), (2,), [(6,)])
    assert c.count() == 0
    with pytest.raises(Inconsistent):
        sample(c, random.Random(0))
