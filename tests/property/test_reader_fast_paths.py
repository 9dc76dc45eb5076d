"""The reader's and auditor's fast paths give what the plain code gives.

``parse_events`` keeps one event object per distinct play/draw/pass (and deal end
claim) and looks tiles up by their exact text; the reader and the engine build
some events without their ``__init__`` (``ledger.events.new_*``); ``advance_all``
folds a record with one context, through the same handlers as ``step``.
None may change a result: the same events (or the same errors), the same derived
events, the same findings, the same state, for legal records and broken ones.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.audit import audit_record
from ledger.engine import finish, new_state, step
from ledger.events import (
    DealScored,
    Dealt,
    Event,
    HandsRevealed,
    new_deal_scored,
    new_dealt,
    new_revealed,
)
from ledger.findings import Finding
from ledger.formats.reader import parse_match
from ledger.formats.wire import ParseError, _parse_event, parse_events
from ledger.rules.base import Rules
from ledger.tiles import ALL_TILES

from .corpus import TABLES, Table, match_dict, recorded_events, rules_of, seeds, tables

TEXTS = [str(t) for t in ALL_TILES] + ["3-6", "63", "6|3", "[3:6]", " 6 - 3 ", "7-1", "x", ""]
ODD = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 5), st.floats(), st.sampled_from(TEXTS),
    st.lists(st.integers(0, 7), max_size=3), st.sampled_from(["left", "right", "up", "middle"]),
    st.dictionaries(st.just("k"), st.integers(), max_size=1),
)
MOVES = st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "draw", "pass"]), "seat": st.integers(0, 4)},
    optional={"tile": st.sampled_from(TEXTS), "end": st.sampled_from(["left", "right", "up"])},
)
CLAIMS = st.fixed_dictionaries(
    {"type": st.just("deal_end"),
     "result": st.sampled_from(["out", "block", "tie", "won", None])},
    optional={"winner": st.one_of(st.none(), st.booleans(), st.integers(-1, 4),
                                  st.just(1.0)),
              "points": st.one_of(st.none(), st.booleans(), st.integers(0, 30),
                                  st.just(5.0), st.just("5")),
              "at": st.one_of(st.none(), st.just("2026-11-01T20:15:00Z"))},
)
EVENTS = st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "draw", "pass", "deal", "reveal", "bogus"])},
    optional={"seat": ODD, "tile": ODD, "end": ODD, "hands": ODD,
              "at": st.one_of(st.none(), st.just("2026-11-01T20:15:00Z"), st.integers())},
)


def _plain(obj: Any, seats: int) -> object:
    """What the event reads as without any cache: the event, or the error's code and text."""
    try:
        return _parse_event(obj, seats)
    except ParseError as exc:
        return (exc.code, exc.message)


@settings(max_examples=60, deadline=None)
@given(objs=st.lists(st.one_of(MOVES, CLAIMS, EVENTS, ODD), max_size=12),
       seats=st.integers(1, 4))
def test_parse_events_reads_every_event_as_the_plain_reader(objs: list[Any], seats: int) -> None:
    expected = [_plain(obj, seats) for obj in objs]
    for _ in range(2):  # a cold and a warm cache
        events, errors = parse_events(objs, seats)
        failed = dict(errors)
        got = [(failed[i].code, failed[i].message) if i in failed else ev
               for i, ev in enumerate(events)]
        assert got == expected
        assert all(events[i] is None for i in failed)


@settings(max_examples=30, deadline=None)
@given(table=tables(), seed=seeds)
def test_the_auditor_derives_what_stepping_through_the_engine_derives(
        table: Table, seed: int) -> None:
    report = audit_record(parse_match(match_dict(table, seed)))
    state = new_state(rules_of(table))
    for i, ev in enumerate(recorded_events(table, seed)):
        result = step(state, ev, i)
        assert report.derived[i] == result.derived, f"event {i}"
        state = result.state
    assert report.state == state


def test_a_number_equal_to_a_kept_one_is_still_read_for_what_it_is() -> None:
    """1.0 and True equal 1 (and hash alike), so they find the events kept for 1; a seat,
    winner or points must still be an int."""
    play = {"type": "play", "seat": 1, "tile": "6-3", "end": "left"}
    claim = {"type": "deal_end", "result": "out", "winner": 1, "points": 1}
    cases = [play, {**play, "seat": True}, {**play, "seat": 1.0},
             {"type": "pass", "seat": 1}, {"type": "pass", "seat": True},
             claim, {**claim, "winner": True}, {**claim, "winner": 1.0},
             {**claim, "points": True}, {**claim, "points": 1.0},
             {**claim, "at": "2026-11-01T20:15:00Z"}, {**play, "at": "2026-11-01T20:15:00Z"}]
    for seats in (2, 4):
        expected = [_plain(obj, seats) for obj in cases]
        for _ in range(2):  # a cold and a warm cache
            events, errors = parse_events(cases, seats)
            failed = dict(errors)
            got = [(failed[i].code, failed[i].message) if i in failed else ev
                   for i, ev in enumerate(events)]
            assert got == expected


def test_events_built_without_init_are_the_events_the_classes_build() -> None:
    hands = ((ALL_TILES[27], ALL_TILES[0]), None)
    stock = (ALL_TILES[5],)
    for built, made in [
        (new_dealt(hands, stock, None), Dealt(hands=hands, stock=stock)),
        (new_dealt(hands, None, "2026-11-01T20:15:00Z"),
         Dealt(hands=hands, at="2026-11-01T20:15:00Z")),
        (new_revealed(hands, None), HandsRevealed(hands=hands)),
        (new_deal_scored(2, "block", None, 0, (10, 4), 1, (3, None)),
         DealScored(deal=2, result="block", winner=None, points=0, scores=(10, 4), leader=1,
                    pips=(3, None))),
    ]:
        assert type(built) is type(made)
        assert built == made and hash(built) == hash(made) and repr(built) == repr(made)


def _mutated(obj: dict[str, Any], how: int, where: int, seats: int, cut: int
             ) -> dict[str, Any]:
    """The match with one move changed (by another seat, on another end or none named,
    dropped, swapped with the next event, made a pass or a draw; ``how`` 7: none) and,
    unless ``cut`` is 0, the events after a later play, draw or pass cut off: a deal may
    stop anywhere."""
    events: list[Any] = obj["events"]
    moves = [i for i, ev in enumerate(events) if ev["type"] in ("play", "draw", "pass")]
    i = moves[where % len(moves)]
    ev = dict(events[i])
    if how == 0:
        ev["seat"] = (ev["seat"] + 1) % seats
    elif how == 1 and ev["type"] == "play":
        ev["end"] = ["left", "right", "up", "down"][where % 4]
    elif how == 2 and ev["type"] == "play":
        ev.pop("end", None)
    elif how == 3:
        del events[i]
    elif how == 4 and i + 1 < len(events):
        events[i + 1], ev = ev, events[i + 1]
    elif how == 5:
        ev = {"type": "pass", "seat": ev["seat"]}
    elif how == 6:
        ev = {"type": "draw", "seat": ev["seat"], "tile": None}
    if how != 3:
        events[i] = ev
    if cut:  # right after a later move, so that the state left mid-deal is compared too
        later = [k for k in range(i, len(events)) if events[k]["type"] == ("play", "draw",
                                                                             "pass")[cut % 3]]
        if later:
            del events[later[cut % len(later)] + 1:]
    return obj


@settings(max_examples=150, deadline=None)
@given(table=tables(), seed=seeds, how=st.integers(0, 7), where=st.integers(0, 10**6),
       cut=st.one_of(st.just(0), st.integers(1, 10**6)))
def test_the_auditor_folds_a_broken_record_as_stepping_through_the_engine_does(
        table: Table, seed: int, how: int, where: int, cut: int) -> None:
    """Whatever a change breaks, the inline fold finds what ``step`` finds, event by event,
    stops where it stops, and (where it gets through) leaves the same state."""
    rules = rules_of(table)
    _assert_folds_as_stepping(rules, _mutated(match_dict(table, seed), how, where, rules.seats,
                                              cut))


def test_the_auditor_folds_each_kind_of_broken_move_as_stepping_through_the_engine_does(
        ) -> None:
    """Every move kind made every other kind (a pass or a draw while the stock is not empty,
    a play instead of a pass...), at every table, early and late in a deal."""
    for preset, seats, options in TABLES:
        table: Table = (preset, seats, tuple(sorted(options.items())))
        rules = rules_of(table)
        events = match_dict(table, 1)["events"]
        for kind in ("play", "draw", "pass"):
            sites = [i for i, ev in enumerate(events) if ev["type"] == kind][:40:7]
            for i in sites:
                for how in (0, 5, 6):
                    obj = match_dict(table, 1)
                    obj["events"] = obj["events"][:i + 3]
                    _assert_folds_as_stepping(rules, _mutated(obj, how, sum(
                        ev["type"] in ("play", "draw", "pass") for ev in events[:i]),
                        seats, 0))


def _assert_folds_as_stepping(rules: Rules, obj: dict[str, Any]) -> None:
    record = parse_match(obj)
    events = record.events
    assert not record.problems and all(ev is not None for ev in events)
    report = audit_record(record)
    state = new_state(rules)
    derived: list[tuple[Event, ...]] = []
    findings: list[Finding] = []
    for i, ev in enumerate(events):
        assert ev is not None
        result = step(state, ev, i)
        derived.append(result.derived)
        findings.extend(result.findings)
        if not result.readable:
            break
        state = result.state
    else:
        out: list[Event] = []
        last = state.copy()
        finish(last, out, findings, len(events) - 1 if events else None)
        if out:
            derived[-1] += tuple(out)
        assert report.state == last
    findings.sort(key=lambda f: -1 if f.event is None else f.event)
    assert report.derived == derived
    assert [(f.event, f.code, f.message) for f in report.findings] == \
        [(f.event, f.code, f.message) for f in findings]


def test_the_losers_kept_for_a_table_are_the_ones_its_rules_name() -> None:
    """score_deal keeps ``Rules.losers_of`` answers by seat count, teams and count_partner:
    every table and winner still gets what its own rules say."""
    from ledger.engine import scoring

    scoring._LOSERS.clear()
    for _ in range(2):  # a cold and a warm cache, the tables in turn
        for preset, seats, options in TABLES:
            rules = rules_of((preset, seats, tuple(sorted(options.items()))))
            for winner in range(seats):
                assert scoring._losers(rules, winner) == rules.losers_of(winner)
