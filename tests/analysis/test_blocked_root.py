"""A position blocked at the root (nobody can play, nothing left to draw) or finished is
valued at once, by the rules' scoring, without a search (issue 30, item 5).

A search finds a block only after a move; from a blocked root it would pass round the
table for ever (the C search until its limit of positions, the Python one into a
RecursionError). Such positions come up in the review by knowledge: after Arab Block's
6-6 opening, a sampled deal may leave every other 6 in the unused boneyard.
"""

from __future__ import annotations

import pytest

from ledger.analysis.knowledge_review import iter_knowledge_reviews
from ledger.analysis.positions import solve
from ledger.analysis.solver import DealSolver
from ledger.engine.moves import legal_moves
from ledger.formats.canonical import match_hash
from ledger.formats.reader import read_matches
from ledger.rules import make_rules
from ledger.tiles import Tile
from tests.analysis.helpers import position
from tests.exports.corpus import SAMPLES

# Arab Block after 6-6, seat 1 to move: no hand holds a 6 (the others are in the boneyard).
LOW = ["1-1", "1-2", "1-3", "1-4", "1-5", "2-2"]            # 24 pips
OTHER = ["3-3", "0-0", "0-1", "0-2", "0-3", "0-4", "0-5"]   # 21 pips


def _pips(hand: list[str]) -> int:
    return sum(Tile.parse(t).pips for t in hand)


def test_an_arab_block_blocked_root_is_the_seeds_block_scoring() -> None:
    rules = make_rules("arab-block", 2, {})
    st = position(rules, [LOW, OTHER], (6, 6), 1)
    assert [str(m) for m in legal_moves(st)] == ["pass"]
    # Seed 003, "Ending a round": blocked, the lowest pip count wins and scores the
    # loser's remaining pips (21 against 24: seat 1 scores 24).
    assert _pips(OTHER) < _pips(LOW)
    want = (0, _pips(LOW))
    # One position of search allowed: any search would be over its limit at once.
    for native in (True, False):
        assert DealSolver(st, native=native, max_nodes=1).outcome(st) == want
        assert DealSolver(st, native=native, max_nodes=1).margin(st) == want[0] - want[1]
    got = solve(st, max_nodes=1)
    assert got.note is None and got.outcome == want
    with_options = solve(st, options=True, max_nodes=1)
    assert with_options.outcome == want and [o.outcome for o in with_options.options] == [want]


def test_a_tie_on_a_blocked_root_scores_nothing() -> None:
    rules = make_rules("arab-block", 2, {})
    tied = ["3-3", "0-0", "0-1", "0-3", "0-4", "0-5", "2-3"]
    assert _pips(tied) == _pips(LOW)
    st = position(rules, [LOW, tied], (6, 6), 1)
    # Seed 003: "In case of a tie, the round is a draw."
    assert solve(st, max_nodes=1).outcome == (0, 0)


@pytest.mark.parametrize(("preset", "seats"), [("sahrat-draw", 2), ("domena", 4),
                                                ("casual-arena", 3)])
def test_a_blocked_root_is_valued_without_search_on_other_tables(preset: str,
                                                                 seats: int) -> None:
    rules = make_rules(preset, seats, {})
    hands = [LOW, OTHER, ["4-4", "4-5"], ["5-5", "2-3"]][:seats]
    st = position(rules, hands, (6, 6), 1)    # a draw table's stock is empty here
    solved = solve(st, max_nodes=1)
    assert solved.note is None and solved.outcome is not None
    # What the engine scores once the pass proves the block.
    over = DealSolver(st).play(st, legal_moves(st)[0])
    assert over.phase != "playing" and over.last_result is not None
    vec = [0] * rules.sides
    if over.last_result.winner is not None:
        vec[rules.side_of(over.last_result.winner)] = over.last_result.points
    assert solved.outcome == tuple(vec)
    assert sum(solved.outcome) > 0


def test_a_finished_position_is_its_result_even_with_a_hand_hidden() -> None:
    rules = make_rules("arab-block", 2, {})
    st = position(rules, [LOW, OTHER], (6, 6), 1)
    over = DealSolver(st).play(st, legal_moves(st)[0])
    over.hidden = [3, 0]
    got = solve(over, max_nodes=1)
    assert got.note is None and got.outcome == (0, _pips(LOW))


def test_the_arab_block_sample_drops_no_luck_value() -> None:
    """Before: one chance event of this sample (deal 2, the deal itself for seat 1) was
    dropped as "more than 1,000,000,000 positions" after about 10 s."""
    (record,) = read_matches(SAMPLES / "arab-block-2.json")
    assert record.header is not None
    rules = make_rules("arab-block", 2, {})
    key = match_hash(record.header, [e for e in record.events if e is not None])
    deals = list(iter_knowledge_reviews(rules, record.events, key, 8, luck=True, workers=1))
    assert deals and all(s.unvalued == 0 and s.events for d in deals for s in d.luck)
    assert all(d.reviewed for deal in deals for d in deal.decisions)
