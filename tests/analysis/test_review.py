"""Reviews of recorded deals: decisions, mistakes and step values against brute force."""

from __future__ import annotations

from typing import Any

import pytest

import ledger.analysis.solver as solver_module
from ledger.analysis.review import review_match, stock_from_draws
from ledger.engine.fold import advance
from ledger.engine.state import State
from ledger.events import Dealt, Drew
from ledger.formats.reader import parse_match
from ledger.rules import make_rules
from ledger.sim.generator import generate_match
from ledger.tiles import Tile
from tests.analysis.helpers import assert_left_out_not_guessed, brute, brute_options, match_states

# One Arab Block deal played to the end (seed 003: highest double leads; no drawing;
# target 0 makes it a one-deal match). Seat 0 ends by going out with 3-3 and scores
# what seat 1 still holds: 2-0, 2 points.
SHORT = {
    "format": "domino-match/1",
    "table": {"rules": "arab-block", "options": {"target": 0}},
    "seats": ["Ali", "Omar"],
    "events": [
        {"type": "deal", "hands": [["6-6", "6-5", "5-5", "5-4", "4-4", "4-3", "3-3"],
                                   ["6-0", "0-0", "1-0", "1-1", "2-1", "2-2", "2-0"]]},
        {"type": "play", "seat": 0, "tile": "6-6"},
        {"type": "play", "seat": 1, "tile": "6-0", "end": "left"},
        {"type": "play", "seat": 0, "tile": "6-5", "end": "right"},
        {"type": "play", "seat": 1, "tile": "0-0", "end": "left"},
        {"type": "play", "seat": 0, "tile": "5-5", "end": "right"},
        {"type": "play", "seat": 1, "tile": "1-0", "end": "left"},
        {"type": "play", "seat": 0, "tile": "5-4", "end": "right"},
        {"type": "play", "seat": 1, "tile": "1-1", "end": "left"},
        {"type": "play", "seat": 0, "tile": "4-4", "end": "right"},
        {"type": "play", "seat": 1, "tile": "2-1", "end": "left"},
        {"type": "play", "seat": 0, "tile": "4-3", "end": "right"},
        {"type": "play", "seat": 1, "tile": "2-2", "end": "left"},
        {"type": "play", "seat": 0, "tile": "3-3", "end": "right"},
    ],
}


def short_match() -> dict[str, Any]:
    return SHORT


def test_short_deal_decisions_match_brute_force() -> None:
    record = parse_match(SHORT)
    rules = make_rules("arab-block", 2, {"target": 0})
    (review,) = review_match(rules, record.events)
    assert review.result == (2, 0)
    # Only seat 1 ever had a choice (0-0, 1-0 or 2-0 on the 0; later 2-1 or 2-0...).
    states = {}
    st = State(rules)
    for i, ev in enumerate(record.events):
        states[i] = st.copy()
        advance(st, ev, i, [], [])
    assert review.best == brute(states[1])
    assert review.decisions, "the record has choices"
    for d in review.decisions:
        before = states[d.event]
        expected = brute_options(before)
        assert [(str(o.move), o.outcome) for o in d.options] == expected
        side = rules.side_of(d.seat)
        best = max(v[side] - v[1 - side] for _, v in expected)
        played = dict(expected)[d.played]
        assert d.lost == best - (played[side] - played[1 - side])
    # Every step is valued as brute force values the position after it.
    for step in review.steps:
        assert step.outcome == brute(states[step.event + 1]) if step.event + 1 in states \
            else step.outcome == review.result


def test_json_shape_of_a_deal() -> None:
    record = parse_match(SHORT)
    rules = make_rules("arab-block", 2, {"target": 0})
    (review,) = review_match(rules, record.events)
    obj = review.to_dict()
    assert obj["deal"] == 0
    assert isinstance(obj["best"], list) and len(obj["best"]) == 2
    for d in obj["decisions"]:
        assert set(d) == {"event", "seat", "played", "options", "lost"}
        assert d["played"] in [o["move"] for o in d["options"]]
        assert all(set(o) == {"move", "outcome"} for o in d["options"])
        assert d["lost"] >= 0


def test_every_deal_of_a_pass_match_is_reviewed() -> None:
    record = parse_match(generate_match("sahrat-partner", 4, {}, seed=2))
    rules = make_rules("sahrat-partner", 4)
    reviews = review_match(rules, record.events)
    deals = [d for d, _ in enumerate(match_states("sahrat-partner", 4, {}, seed=2))]
    assert [r.deal for r in reviews] == deals
    for r in reviews:
        assert r.analysed and r.note is None and r.result is not None
        # Best play from the start can only be matched or beaten by the side that
        # errs least; the last step is the deal's actual result.
        assert r.steps[-1].outcome == r.result
        for d in r.decisions:
            assert d.best in [o.outcome for o in d.options]


def test_a_mistake_is_where_the_best_outcome_drops() -> None:
    record = parse_match(generate_match("domena", 4, {}, seed=3))
    rules = make_rules("domena", 4)
    for r in review_match(rules, record.events, deals=[0, 1]):
        assert r.best is not None
        before = r.best
        for step in r.steps:
            side = rules.side_of(step.seat)
            margin_before = before[side] - before[1 - side]
            margin_after = step.outcome[side] - step.outcome[1 - side]
            # A move can never do better than best play; it loses exactly ``lost``.
            assert margin_before - margin_after == step.lost
            before = step.outcome


def test_hidden_hands_are_not_analysed() -> None:
    match = generate_match("domena", 4, {}, seed=1)
    match = {**match, "events": [dict(e) for e in match["events"]]}
    first = match["events"][0]
    reveal = next(e for e in match["events"] if e["type"] == "reveal")
    # Two seats still holding tiles at the end: without the reveal, which of the tiles
    # never laid each of them held stays unknown.
    hide = [s for s, hand in enumerate(reveal["hands"]) if hand][:2]
    assert len(hide) == 2
    first["hands"] = [None if s in hide else h for s, h in enumerate(first["hands"])]
    match["events"] = [e for e in match["events"] if e["type"] != "reveal"]
    record = parse_match(match)
    reviews = review_match(make_rules("domena", 4), record.events, deals=[0])
    assert reviews[0].best is None
    assert "hidden" in (reviews[0].note or "")


def test_unknown_stock_order_is_said_so() -> None:
    match = generate_match("domena", 2, {}, seed=1)
    events = [dict(e) for e in match["events"]]
    for e in events:
        if e["type"] == "deal":
            e.pop("stock", None)
    record = parse_match({**match, "events": events})
    (review,) = review_match(make_rules("domena", 2), record.events, deals=[0])
    assert review.best is None and "stock" in (review.note or "")


def test_stock_order_rebuilt_when_one_tile_was_never_drawn() -> None:
    rules = make_rules("domena", 2)
    hands = (tuple(Tile.parse(t) for t in ["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0"]),
             tuple(Tile.parse(t) for t in ["5-5", "5-4", "5-3", "5-2", "5-1", "5-0", "4-4"]))
    dealt = Dealt(hands=hands)
    st = State(rules)
    advance(st, dealt, 0, [], [])
    rest = [t for t in map(Tile.parse, ["4-3", "4-2", "4-1", "4-0", "3-3", "3-2", "3-1",
                                         "3-0", "2-2", "2-1", "2-0", "1-1", "1-0", "0-0"])]
    draws = [Drew(seat=0, tile=t) for t in rest[:13]]
    assert stock_from_draws(st, [dealt, *draws], 0) == tuple(rest)
    assert stock_from_draws(st, [dealt, *draws[:12]], 0) is None  # two never drawn


def test_step_by_step_matches_the_review() -> None:
    from ledger.analysis.review import analyse_step
    from ledger.analysis.solver import DealSolver

    record = parse_match(generate_match("selminha", 4, {}, seed=6))
    rules = make_rules("selminha", 4)
    (review,) = review_match(rules, record.events, deals=[0])
    solvers: dict[int, DealSolver] = {}
    for d in review.decisions:
        at = analyse_step(rules, record.events, d.event, solvers)
        assert at.options == d.options and at.played == d.played and at.lost == d.lost
        assert at.best is not None and at.to_move == d.seat
    assert len(solvers) == 1  # one solver served every step of the deal
    assert analyse_step(rules, record.events, 0).note == "no deal is being played here"


@pytest.mark.slow(reason="the Python max-n over a deal: 3-7 s")
def test_too_large_positions_are_left_out_not_guessed(monkeypatch: pytest.MonkeyPatch) -> None:
    # The Python max-n (an install without a C compiler) keeps an exact value per
    # position: with room for only 3000, the start of a 4-seat deal each for himself does
    # not fit, its end does, and what is solved is what an unlimited solver finds. (The C
    # search drops values instead, and stops on visits: test_native.py.)
    monkeypatch.setattr(solver_module, "_NativeSearch", None)
    record = parse_match(generate_match("sahrat-draw", 4, {}, seed=2))
    rules = make_rules("sahrat-draw", 4)
    (small,) = review_match(rules, record.events, deals=[0], budget=3000)
    (full,) = review_match(rules, record.events, deals=[0])
    assert "too large" in (small.note or "")
    assert "positions to solve exactly" in (small.note or "")
    assert_left_out_not_guessed(small, full)


def test_two_sided_bounds_can_be_dropped_without_changing_a_value() -> None:
    record = parse_match(generate_match("domena", 4, {}, seed=9))
    rules = make_rules("domena", 4)
    (tight,) = review_match(rules, record.events, deals=[0], budget=50)
    (roomy,) = review_match(rules, record.events, deals=[0])
    assert tight == roomy
