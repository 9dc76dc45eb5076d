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

from ledger.analysis.full_deals import DealSpace, FullDeal
from ledger.analysis.knowledge import iter_knowledge
from ledger.analysis.knowledge_review import (
    Facts,
    KnowledgeDeal,
    decisions_of,
    iter_knowledge_reviews,
    values_over,
)
from ledger.analysis.positions import solve, with_hands
from ledger.analysis.sampling import rng_for
from ledger.analysis.solver import worth
from ledger.engine.moves import legal_moves
from ledger.events import Played
from ledger.formats.reader import MatchRecord, parse_match
from ledger.rules import all_tables, make_rules
from ledger.rules.base import Rules
from ledger.seatview import Viewer, sight
from ledger.sim.generator import generate_match
from ledger.tiles import ALL_TILES, SUIT_MASK, mask_of, tiles_of
from tests.analysis.helpers import after, exhaustive, generated_match
from tests.analysis.test_full_deals import replay_errors, true_deal

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
            _RECORDS[id(f)] = record
            return f
    raise AssertionError("no enumerable decision in this match")


def _enumerated(f: Facts) -> list[tuple[int, ...]]:
    """Every way of giving the tiles the mover had not seen to the other hands (a table
    without a stock: each was dealt what it holds and what it laid) that the rules
    engine accepts, replayed through the walk: plain enumeration, no sampler code."""
    rules = f.before.rules
    record = _RECORDS[id(f)]
    events = [e for e in record.events if e is not None]
    known = sight(Viewer.of_seat(f.seat), f.event, record.events, f.deal_event).known
    tiles = [t for t in ALL_TILES if str(t) not in known]
    others = [s for s in range(rules.seats) if s != f.seat]
    sizes = [f.before.hands[s].bit_count() for s in others]
    laid = {s: 0 for s in others}
    for ev in events[f.deal_event + 1:f.event]:
        if isinstance(ev, Played) and ev.seat in laid:
            laid[ev.seat] |= ev.tile.bit
    out = []
    for where in itertools.product(range(len(others)), repeat=len(tiles)):
        hands = [0] * len(others)
        for t, k in zip(tiles, where, strict=True):
            hands[k] |= t.bit
        if [h.bit_count() for h in hands] != sizes:
            continue
        dealt = [0] * rules.seats
        dealt[f.seat] = f.before.hands[f.seat] | mask_of(
            t for t in ALL_TILES if str(t) in known and f.before.table & t.bit
            and not any(laid[s] & t.bit for s in others))
        for k, s in enumerate(others):
            dealt[s] = hands[k] | laid[s]
        deal = FullDeal(tuple(tuple(tiles_of(h)) for h in dealt), ())
        if replay_errors(rules, events, f, deal) == []:
            out.append(tuple(hands))
    return out


_RECORDS: dict[int, MatchRecord] = {}


def _exact_means(f: Facts) -> dict[str, Fraction]:
    """Each option's mean value for the mover's side over every consistent deal (brute)."""
    rules = f.before.rules
    side = rules.side_of(f.seat)
    sums: dict[str, Fraction] = {}
    deals = _enumerated(f)
    search = exhaustive()
    for others in deals:
        hands = list(f.before.hands)
        for k, s in enumerate(s for s in range(rules.seats) if s != f.seat):
            hands[s] = others[k]
        st = with_hands(f.before, hands)
        for move in legal_moves(st):
            vec = search(after(st, move))
            sums[str(move)] = sums.get(str(move), Fraction(0)) + worth(rules, vec, side)
    return {m: v / len(deals) for m, v in sums.items()}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_values_over_every_consistent_deal_equal_the_enumeration(family: str) -> None:
    f = _endgame(*FAMILIES[family])
    space = f.constraints
    assert isinstance(space, DealSpace)
    deals = list(space.every_deal())
    others = [s for s in range(f.before.rules.seats) if s != f.seat]
    held = sorted(tuple(space.state_of(f.before, d).hands[s] for s in others) for d in deals)
    assert held == sorted(_enumerated(f)) and len(deals) == space.count()
    legal, rows = values_over(f, deals, workers=1)
    assert all(r is not None for r in rows)
    got = {str(m): Fraction(sum(r[j] for r in rows if r is not None), len(rows))
           for j, m in enumerate(legal)}
    assert got == _exact_means(f)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_exact_when_few_deals_else_within_3_standard_errors(family: str) -> None:
    preset, seats, seed = FAMILIES[family]
    f = _endgame(preset, seats, seed)
    rules, record, key = generated_match(preset, seats, seed)
    exact = _exact_means(f)
    for k in (200, 2):
        deal = _deal_with(rules, record, key, f, k)
        d = deal.decision(f.event)
        assert d is not None
        count = f.constraints.count()
        if count <= k:  # every consistent deal solved: the means are the exact ones
            assert d.exact and d.count == d.samples == count
            for o in d.options:
                assert o.expected is not None
                assert abs(Fraction(o.expected) - exact[o.move]) <= Fraction(1, 10_000)
            continue
        assert not d.exact and d.count is None and d.samples == k
        for o in d.options:
            assert o.expected is not None and o.stderr is not None
            if k >= 30:  # a value every deal agrees on has no spread: then the mean is exact
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
    # One position: the hands and the stock's order still to draw known (the deals that
    # fit may differ only in the past: which tile a seat was dealt or drew and laid).
    pinned = [f for f in decisions_of(rules, record.events) if _one_position(f)][:4]
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


def _one_position(f: Facts) -> bool:
    space = f.constraints
    assert isinstance(space, DealSpace)
    if space.count() > 50:
        return False
    states = [space.state_of(f.before, d) for d in space.every_deal()]
    return len({(tuple(st.hands), (st.stock or ())[st.stock_pos:]) for st in states}) == 1


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
    # What knowledge proves (voids at their time, hand sizes, the opening rule, the doubles
    # rule on the hands as dealt) holds of the deal as it was, at every decision of a whole
    # match: the truth is never ruled out.
    preset, seats, options = table
    rules = make_rules(preset, seats, options)
    record = parse_match(generate_match(preset, seats, options, seed=11))
    events = [e for e in record.events if e is not None]
    voids = 0
    for f in decisions_of(rules, record.events):
        space = f.constraints
        assert isinstance(space, DealSpace)
        # What the mover had seen is what the seat view (ledger/seatview.py) shows.
        known = sight(Viewer.of_seat(f.seat), f.event, record.events, f.deal_event).known
        mine = space.fixed_hands[f.seat] | f.before.table | mask_of(
            t for p, t in space.fixed_stock if space.drawer[p] == f.seat)
        assert {str(t) for t in ALL_TILES if mine & t.bit} == set(known)
        assert space.keeps(true_deal(events, f)), f.event
        voids += sum(1 for a in space.facts.acts if a.kind != "play" and a.ends)
    assert voids  # some pass or draw proved a void


def test_a_proven_void_is_never_sampled() -> None:
    rules, record, key = generated_match("domena", 4, 5)
    knows = list(iter_knowledge(rules, record.events))
    with_voids = [f for f in decisions_of(rules, record.events)
                  if any(knows[f.event].seats[f.seat].lacks_of(s)
                         for s in range(4) if s != f.seat) and f.constraints.count() > 1]
    assert with_voids
    for f in with_voids[:5]:
        space = f.constraints
        assert isinstance(space, DealSpace)
        mine = knows[f.event].seats[f.seat]
        for d in space.samples(200, rng_for(key, f.event)):
            st = space.state_of(f.before, d)
            for s in range(4):
                if s != f.seat:
                    assert not any(st.hands[s] & SUIT_MASK[n] for n in mine.lacks_of(s))


def test_the_same_review_twice_gives_the_same_numbers() -> None:
    rules, record, key = generated_match("selminha", 2, 4)
    first = list(iter_knowledge_reviews(rules, record.events, key, 10, [0], luck=True,
                                        workers=1))
    again = list(iter_knowledge_reviews(rules, record.events, key, 10, [0], luck=True))
    assert first == again
    assert first[0].decisions and first[0].luck
    other = list(iter_knowledge_reviews(rules, record.events, key + "x", 10, [0], workers=1))
    assert [d.options for d in other[0].decisions] != [d.options for d in first[0].decisions]
