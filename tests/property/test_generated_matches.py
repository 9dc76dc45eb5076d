"""Properties of random legal matches of every table: tiles, folding, auditing.

The generator (ledger/sim/generator.py) plays random legal moves; these tests
hold the engine and the auditor to what must be true of any legal record.
"""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.audit import audit_record
from ledger.engine import State, apply, fold, new_state, step
from ledger.events import DealEndClaimed, DealScored, Dealt, MatchEndClaimed
from ledger.formats.reader import parse_match
from ledger.rules.base import SET_SIZE
from ledger.tiles import FULL_SET

from .corpus import Table, match_dict, recorded_events, rules_of, seeds, tables

SETTINGS = settings(max_examples=40, deadline=None)


def _places(st_: State) -> list[tuple[str, int]]:
    """Where every tile is: each hand, the table, the stock still to draw (or out of play)."""
    places = [(f"seat {s}", h) for s, h in enumerate(st_.hands)]
    places.append(("table", st_.table))
    rest = 0
    if st_.stock is not None:
        for t in st_.stock[st_.stock_pos:]:
            rest |= t.bit
    places.append(("stock", rest))
    return places


@SETTINGS
@given(table=tables(), seed=seeds)
def test_the_28_tiles_are_conserved_after_every_event(table: Table, seed: int) -> None:
    # rules-decisions.md "Common": a double-six set, 28 tiles; a tile is in exactly one
    # place (a hand, the line, the stock; Arab Block's undealt 14 are out of play).
    events = recorded_events(table, seed)
    state = new_state(rules_of(table))
    dealt = False
    for i, ev in enumerate(events):
        result = step(state, ev, i)
        assert result.readable and not [f for f in result.findings if f.severity == "error"]
        state = result.state
        dealt = dealt or isinstance(ev, Dealt)
        if not dealt:
            continue
        assert not any(state.hidden), "a generated record shows every hand"
        places = _places(state)
        union = 0
        for name, mask in places:
            assert not union & mask, f"event {i}: a tile of {name} is also somewhere else"
            union |= mask
        assert union == FULL_SET, f"event {i}: tiles missing: {FULL_SET & ~union:#x}"
        assert sum(m.bit_count() for _, m in places) == SET_SIZE
        if state.stock is not None:
            assert state.stock_left == len(state.stock) - state.stock_pos


@settings(max_examples=30, deadline=None)
@given(table=tables(), seed=seeds, cuts=st.lists(st.floats(0, 1), min_size=1, max_size=6))
def test_folding_a_prefix_then_the_rest_equals_folding_all(
        table: Table, seed: int, cuts: list[float]) -> None:
    rules = rules_of(table)
    events = recorded_events(table, seed)
    whole = fold(rules, events)
    # The same record through the auditor's mutable fold ends in the same state.
    report = audit_record(parse_match(match_dict(table, seed)))
    assert report.state == whole
    # Every prefix state, strictly folded (apply works on copies: a pure function).
    prefixes = [new_state(rules)]
    for i, ev in enumerate(events):
        prefixes.append(apply(prefixes[-1], ev, i))
    assert prefixes[-1] == whole
    for cut in cuts:
        k = round(cut * len(events))
        snapshot = prefixes[k].copy()
        assert fold(rules, events[:k]) == prefixes[k]
        state = prefixes[k]
        derived = []
        for i, ev in enumerate(events[k:], start=k):
            result = step(state, ev, i)
            derived.extend(result.derived)
            state = result.state
        assert state == whole
        assert prefixes[k] == snapshot, "folding the rest changed the prefix state"
        # The derived events of the rest are those the whole fold derives from it.
        again = new_state(rules)
        whole_derived = []
        for i, ev in enumerate(events):
            result = step(again, ev, i)
            if i >= k:
                whole_derived.extend(result.derived)
            again = result.state
        assert derived == whole_derived


@settings(max_examples=60, deadline=None)
@given(table=tables(), seed=seeds)
def test_every_generated_match_audits_clean(table: Table, seed: int) -> None:
    obj = orjson.loads(orjson.dumps(match_dict(table, seed)))
    record = parse_match(obj)
    assert not record.problems
    report = audit_record(record)
    assert report.ok and report.complete, report.findings
    assert report.findings == []
    assert len(report.derived) == len(obj["events"])
    # The claims the generator logged are what the audit computes.
    claims = [ev for ev in record.events if isinstance(ev, DealEndClaimed)]
    assert [(c.result, c.winner, c.points) for c in claims] == [
        (d["result"], d["winner"], d["points"]) for d in report.deals]
    end = record.events[-1]
    assert isinstance(end, MatchEndClaimed)
    assert list(end.scores or ()) == report.scores and end.winner == report.winner
    # Every deal played is scored once, right where the rules end it.
    scored = [i for i, evs in enumerate(report.derived)
              for d in evs if isinstance(d, DealScored)]
    assert len(scored) == len(claims)
    assert report.to_dict()["ok"] is True
