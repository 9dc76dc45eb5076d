"""Hand-made endgames, one per table family, where the best bet given what the mover knew
is not the best play for the hands as they lay (the hindsight best).

Each position: four seats, no stock (every tile not listed lies on the table), seat 0 to
move, with two tiles that fit. Seat 0 has seen its own hand and the table; the other
hands' sizes are known and no void is proven, so every way of giving the listed unseen
tiles to seats 1-3 in those sizes is equally likely. The expected values are over every
one of those deals (``every_deal``), each solved exactly; the hindsight values are those
of the real hands. The true deal's line is worked out by hand in each case's comment; the
means were checked against the brute force of ``helpers`` (``exhaustive``) too, below.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from ledger.analysis.knowledge_review import Facts, values_over
from ledger.analysis.positions import solve, with_hands
from ledger.analysis.sampling import constraints, every_deal
from ledger.analysis.solver import worth
from ledger.engine.moves import Move, legal_moves
from ledger.rules import make_rules
from ledger.tiles import Tile, mask_of
from tests.analysis.helpers import after, exhaustive, position

CASES = {
    # Domena, four players in pairs (seed 000 "Domena rules" §5 "Four players: pass", §6
    # "Going out": the pair wins; §7: the winners score the losing pair's pips). Ends 2|1;
    # seat 0 holds 1-0 and 5-1; seat 1 6-3, seat 2 (partner) 3-0, seat 3 5-2.
    # As they lie: 1-0 on the 1 leaves 2|0; seat 1 passes, the partner lays 3-0 and goes
    # out: +9 + 7 = 16 for the pair. 5-1 leaves 2|5: seats 1 and 2 pass, seat 3 lays 5-2
    # and goes out: -(1 + 3) = -4. Hindsight best: 1-0.
    # By knowledge (6 deals of 6-3, 3-0, 5-2 to seats 1-3): 1-0 averages -4, 5-1 -2/3,
    # since 1-0 wins only when the partner holds 3-0, while 5-1 keeps the 5 end for a
    # partner with 5-2 and plays off the heavier tile. Best bet: 5-1.
    "pairs": dict(preset="domena", hands=[["1-0", "5-1"], ["6-3"], ["3-0"], ["5-2"]],
                  ends=(2, 1), hindsight="1-0 right", knowledge="5-1 right",
                  means={"1-0 right": Fraction(-4), "5-1 right": Fraction(-2, 3)}),
    # Sahrat Domino with four players, each for himself (seed 001 "Domino rules | Sahrat":
    # no stock with four, a player who cannot play passes; the player who lays his last
    # tile scores the pips in every opponent's hand). Ends 6|5; seat 0 holds 5-1 and 6-0;
    # seat 1 4-1 and 6-4, seat 2 5-2, seat 3 4-0 and 2-0.
    # As they lie: 5-1 on the 5 (ends 6|1) wins seat 0 14 points under best play, 6-0
    # on the 6 (ends 0|5) none. By knowledge (30 deals): 5-1 averages 9/5, 6-0 52/15.
    "each for himself": dict(
        preset="sahrat-draw", hands=[["5-1", "6-0"], ["4-1", "6-4"], ["5-2"], ["4-0", "2-0"]],
        ends=(6, 5), hindsight="5-1 right", knowledge="6-0 left",
        means={"5-1 right": Fraction(9, 5), "6-0 left": Fraction(52, 15)}),
    # Sahrat Domino Fives, four players each for himself (seed 001: the open ends score
    # during the round, the count at its end is rounded to the nearest 5). The same
    # position: as they lie 5-1 is worth 20 to seat 0 and 6-0 5; by knowledge 5-1
    # averages 3 and 6-0 8.
    "Fives": dict(
        preset="sahrat-fives", hands=[["5-1", "6-0"], ["4-1", "6-4"], ["5-2"], ["4-0", "2-0"]],
        ends=(6, 5), hindsight="5-1 right", knowledge="6-0 left",
        means={"5-1 right": Fraction(3), "6-0 left": Fraction(8)}),
}


def _facts(case: dict[str, object]) -> Facts:
    rules = make_rules(str(case["preset"]), 4, {})
    hands = case["hands"]
    assert isinstance(hands, list)
    st = position(rules, hands, case["ends"], to_move=0,  # type: ignore[arg-type]
                  in_deal=[0] * rules.sides)
    unseen = mask_of(Tile.parse(t) for hand in hands[1:] for t in hand)
    c = constraints(unseen, (1, 2, 3), [len(h) for h in hands[1:]], [(), (), ()])
    return Facts(0, 0, st, 0, legal_moves(st)[0], c, ())


@pytest.mark.parametrize("family", list(CASES))
def test_best_bet_differs_from_hindsight_best(family: str) -> None:
    case = CASES[family]
    f = _facts(case)
    rules = f.before.rules
    deals = list(every_deal(f.constraints))
    legal, rows = values_over(f, deals, workers=1)
    means = {str(m): Fraction(sum(r[j] for r in rows if r is not None), len(deals))
             for j, m in enumerate(legal)}
    assert all(r is not None for r in rows)
    assert means == case["means"]
    assert max(means, key=lambda m: means[m]) == case["knowledge"]
    # As the hands lay: the solver's values of the real deal.
    truth = solve(f.before, options=True)
    values = {str(o.move): worth(rules, o.outcome, 0) for o in truth.options}
    assert max(values, key=lambda m: values[m]) == case["hindsight"] != case["knowledge"]


@pytest.mark.parametrize("family", list(CASES))
def test_the_means_by_brute_force(family: str) -> None:
    case = CASES[family]
    f = _facts(case)
    rules = f.before.rules
    search = exhaustive()
    sums: dict[str, Fraction] = {}
    deals = list(every_deal(f.constraints))
    for d in deals:
        st = with_hands(f.before, [f.before.hands[0], *d.hands])
        for move in legal_moves(st):
            vec = search(after(st, move))
            sums[str(move)] = sums.get(str(move), Fraction(0)) + worth(rules, vec, 0)
    assert {m: v / len(deals) for m, v in sums.items()} == case["means"]
    assert Move.parse(str(case["hindsight"])) in legal_moves(f.before)
