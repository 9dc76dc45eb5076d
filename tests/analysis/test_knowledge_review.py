"""The review by what the player knew (ledger/analysis/knowledge_review.py).

The reference values are worked out here by a plain enumeration of the hands the mover
could not see (every way of giving the unseen tiles to the other seats that fits their
hand sizes and proven voids) and the memoised brute-force search of ``helpers``
(``exhaustive``: the engine's own moves, no pruning): neither shares code with the sampler
or the solver.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest

from ledger.analysis.knowledge_review import (
    Facts,
    KnowledgeDeal,
    decisions_of,
    iter_knowledge_reviews,
    values_over,
)
from ledger.analysis.positions import solve, with_hands
from ledger.analysis.sampling import Deal, every_deal, rng_for, sample
from ledger.analysis.solver import worth
from ledger.engine.moves import legal_moves
from ledger.formats.reader import MatchRecord, parse_match
from ledger.rules import all_tables, make_rules
from ledger.rules.base import Rules
from ledger.seatview import Viewer, sight
from ledger.sim.generator import generate_match
from ledger.tiles import ALL_TILES, SUIT_MASK
from tests.analysis.helpers import after, exhaustive, generated_match

# Four seats, no stock (the unseen tiles are all in the other three hands, so every
# consistent deal can be listed): one table per family.
FAMILIES = {
    "pairs (Domena, 4 seats)": ("domena", 4, 5),
    "each for himself (Sahrat Draw, 4 seats)": ("sahrat-draw", 4, 2),
    "Fives (Sahrat Fives, 4 seats)": ("sahrat-fives", 4, 1),
}


def _endgame(preset: str, seats: int, seed: int, most: int = 40, held: int = 11) -> Facts:
    """The match's first decision with between 3 and ``most`` consistent deals and at most
    ``held`` tiles in hands (the brute force stays quick)."""
    rules, record, _ = generated_match(preset, seats, seed)
    for f in decisions_of(rules, record.events):
        if sum(h.bit_count() for h in f.before.hands) <= held and \
                3 <= f.constraints.count() <= most:
            return f
    raise AssertionError("no enumerable decision in this match")


def _enumerated(f: Facts) -> list[tuple[int, ...]]:
    """Every way of giving the unseen tiles to the other hands, by plain enumeration."""
    c = f.constraints
    tiles = c.tiles
    out = []
    for where in itertools.product(range(len(c.seats)), repeat=len(tiles)):
        hands = [0] * len(c.seats)
        for t, k in zip(tiles, where, strict=True):
            hands[k] |= t.bit
        if [h.bit_count() for h in hands] != list(c.sizes):
            continue
        if any(hands[k] & SUIT_MASK[n] for k in range(len(hands)) for n in c.lacks[k]):
            continue
        out.append(tuple(hands))
    return out


def _exact_means(f: Facts) -> dict[str, Fraction]:
    """Each option's mean value for the mover's side over every consistent deal (brute)."""
    rules = f.before.rules
    side = rules.side_of(f.seat)
    sums: dict[str, Fraction] = {}
    deals = _enumerated(f)
    search = exhaustive()
    for others in deals:
        hands = list(f.before.hands)
        for k, s in enumerate(f.constraints.seats):
            hands[s] = others[k]
        st = with_hands(f.before, hands)
        for move in legal_moves(st):
            vec = search(after(st, move))
            sums[str(move)] = sums.get(str(move), Fraction(0)) + worth(rules, vec, side)
    return {m: v / len(deals) for m, v in sums.items()}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_values_over_every_consistent_deal_equal_the_enumeration(family: str) -> None:
    f = _endgame(*FAMILIES[family])
    deals = list(every_deal(f.constraints))
    assert len(deals) == len(_enumerated(f)) == f.constraints.count()
    legal, rows = values_over(f, deals, workers=1)
    assert all(r is not None for r in rows)
    got = {str(m): Fraction(sum(r[j] for r in rows if r is not None), len(rows))
           for j, m in enumerate(legal)}
    assert got == _exact_means(f)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_200_samples_lie_within_3_standard_errors(family: str) -> None:
    preset, seats, seed = FAMILIES[family]
    f = _endgame(preset, seats, seed)
    rules, record, key = generated_match(preset, seats, seed)
    exact = _exact_means(f)
    deal = _deal_with(rules, record, key, f, 200)
    d = deal.decision(f.event)
    assert d is not None and d.samples == 200
    for o in d.options:
        assert o.expected is not None and o.stderr is not None
        # A value every deal agrees on has no spread: then the mean is exact.
        assert abs(Fraction(o.expected) - exact[o.move]) <= 3 * Fraction(o.stderr) + \
            Fraction(1, 10_000)


def _deal_with(rules: Rules, record: MatchRecord, key: str, f: Facts, k: int
               ) -> KnowledgeDeal:
    (deal,) = iter_knowledge_reviews(rules, record.events, key, k, [f.deal], workers=1,
                                     only={f.event})
    return deal


# Matches (seeded) with decisions where the voids and sizes leave one deal possible.
PINNED = {
    "pairs (Sahrat Partner, 4 seats)": ("sahrat-partner", 4, 10),
    "each for himself (Casual Arena, 4 seats)": ("casual-arena", 4, 2),
    "Fives (Sahrat Fives, 4 seats)": ("sahrat-fives", 4, 0),
    "two seats with a stock (Domena, 2 seats)": ("domena", 2, 0),
}


@pytest.mark.parametrize("family", list(PINNED))
def test_knowledge_loss_is_hindsight_loss_when_every_hand_is_known(family: str) -> None:
    preset, seats, seed = PINNED[family]
    rules, record, key = generated_match(preset, seats, seed)
    # One deal of the hands, and the stock's order known too (at most one tile left).
    pinned = [f for f in decisions_of(rules, record.events)
              if f.constraints.count() == 1 and (not rules.draws or f.constraints.rest <= 1)
              ][:4]
    assert pinned
    wanted = sorted({f.deal for f in pinned})
    deals = {d.deal: d for d in iter_knowledge_reviews(
        rules, record.events, key, 3, wanted, workers=1, only={f.event for f in pinned})}
    checked = 0
    for f in pinned:
        k = deals[f.deal].decision(f.event)
        assert k is not None and k.knowledge_lost is not None
        assert k.knowledge_lost == _hindsight_lost(f)
        assert k.lost_stderr == 0
        checked += 1
    assert checked


def _hindsight_lost(f: Facts) -> int:
    """What the move cost with every hand as it lay (the hindsight review's ``lost``)."""
    rules = f.before.rules
    side = rules.side_of(f.seat)
    got = solve(f.before, options=True)
    values = {o.move: worth(rules, o.outcome, side) for o in got.options}
    return max(values.values()) - values[f.played]


@pytest.mark.parametrize("table", all_tables(), ids=lambda t: f"{t[0]}-{t[1]}{t[2] or ''}")
def test_the_real_hands_are_always_a_consistent_deal(table: tuple[str, int, dict[str, Any]]
                                                     ) -> None:
    # What knowledge proves (voids, hand sizes, the opening rule, the doubles rule) holds of
    # the hands as they were, at every decision of a whole match: the truth is never ruled out.
    preset, seats, options = table
    rules = make_rules(preset, seats, options)
    record = parse_match(generate_match(preset, seats, options, seed=11))
    voids = 0
    for f in decisions_of(rules, record.events):
        c = f.constraints
        # What the mover had not seen is what the seat view (ledger/seatview.py) hides.
        known = sight(Viewer.of_seat(f.seat), f.event, record.events, f.deal_event).known
        assert {str(t) for t in ALL_TILES if not c.unseen & t.bit} == set(known)
        truth = tuple(f.before.hands[s] for s in c.seats)
        assert all(h & ~c.unseen == 0 for h in truth)
        assert [h.bit_count() for h in truth] == list(c.sizes)
        for k, h in enumerate(truth):
            voids += len(c.lacks[k])
            assert not any(h & SUIT_MASK[n] for n in c.lacks[k]), (f.event, c.seats[k])
            assert not h & c.in_rest
        assert c.fits(Deal(truth, ())) and c.count() >= 1
    assert voids  # some pass or draw proved a void


def test_a_proven_void_is_never_sampled() -> None:
    rules, record, key = generated_match("domena", 4, 5)
    with_voids = [f for f in decisions_of(rules, record.events)
                  if any(f.constraints.lacks) and f.constraints.count() > 1]
    assert with_voids
    for f in with_voids[:5]:
        c = f.constraints
        rng = rng_for(key, f.event)
        for _ in range(200):
            d = sample(c, rng)
            for k, h in enumerate(d.hands):
                assert not any(h & SUIT_MASK[n] for n in c.lacks[k])


def test_the_same_review_twice_gives_the_same_numbers() -> None:
    rules, record, key = generated_match("selminha", 2, 4)
    first = list(iter_knowledge_reviews(rules, record.events, key, 10, [0], luck=True,
                                        workers=1))
    again = list(iter_knowledge_reviews(rules, record.events, key, 10, [0], luck=True))
    assert first == again
    assert first[0].decisions and first[0].luck
    other = list(iter_knowledge_reviews(rules, record.events, key + "x", 10, [0], workers=1))
    assert [d.options for d in other[0].decisions] != [d.options for d in first[0].decisions]
