"""One walk, one truth (issue 29): every sample match walked, and each reader agrees with it.

The walk (ledger/walk.py) yields the state after each event, its findings and derived
events, and each seat's hand and sight. The audit's findings and derived events, the
replay's frames (scores, phase, each seat's own hand and what it has seen), and the
snapshots' states after each deal must be the walk's, step by step: a reader that
stepped the engine on its own could drift from it (the pages disagreed before).
"""

from __future__ import annotations

from typing import Any

import pytest

from ledger.analysis.knowledge import SeatKnowledge, iter_knowledge, seat_facts
from ledger.audit import audit_record
from ledger.formats.partial import rebuild_hands
from ledger.formats.reader import parse_match
from ledger.replay import ReplayMatch, frame
from ledger.rules import make_rules
from ledger.seatview import Viewer
from ledger.store.log.snapshots import encode, fold_rows
from ledger.tiles import Tile
from ledger.walk import Walk, Walked
from tests.samples.files import PARTIAL, complete_samples, load, match_files

SAMPLES = {**complete_samples(), **{f"partial/{p.name}": load(p) for p in match_files(PARTIAL)}}
# The replay frames fold from the start of their deal at every step: a long archive match
# is checked at every deal's first and last steps and at a stride between.
EVERY_STEP = 400


def _walk(match: dict[str, Any]) -> tuple[Any, list[Walked], Any]:
    record = parse_match(match)
    assert record.header is not None
    rules = make_rules(record.header.preset, len(record.header.seats), record.header.options)
    events, _ = rebuild_hands(list(record.events), rules)
    walk = Walk(rules, events, stop=record.stop)
    walked = []
    for w in walk:
        # the walk's state changes at the next event: what is kept is copied
        walked.append(Walked(w.index, w.event, w.state.copy(), w.derived, w.findings,
                             w.readable, w.deal_start, w.events))
    return record, walked, walk


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_audit_is_the_walk(name: str) -> None:
    record, walked, walk = _walk(SAMPLES[name])
    report = audit_record(record)
    tail_derived, tail_found = walk.finish() if walk.stopped_at is None else ((), ())
    found = [f for w in walked for f in w.findings] + list(tail_found)
    said = {(f.event, f.code, f.message) for f in found}
    audit_said = {(f.event, f.code, f.message) for f in report.findings
                  if f.code != "hidden-tiles" and f not in record.problems}
    assert said == audit_said
    derived = [w.derived for w in walked]
    if derived and tail_derived:
        derived[-1] += tail_derived
    assert [tuple(d) for d in report.derived] == derived
    assert report.scores == list(walk.state.scores)


def _steps(match: ReplayMatch, walked: list[Walked]) -> list[int]:
    if len(walked) <= EVERY_STEP:
        return list(range(len(walked) + 1))
    edges = {s for d in match.deal_starts() for s in (d, d - 1)}
    return sorted({0, len(walked)} | {s for s in edges if 0 <= s <= len(walked)}
                  | set(range(0, len(walked), 17)))


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_replay_and_each_seat_see_the_walk(name: str) -> None:
    record, walked, _ = _walk(SAMPLES[name])
    assert record.header is not None
    rules = walked[0].state.rules if walked else None
    if rules is None:
        return
    match = ReplayMatch.of(rules, record.header.seats, record.events)
    for step in _steps(match, walked):
        if step == 0:
            continue
        w = walked[step - 1]
        if not w.readable:
            break
        everyone = frame(match, step)
        assert everyone.scores == tuple(w.state.scores), step
        assert everyone.phase == w.state.phase, step
        for s in range(rules.seats):
            seen = frame(match, step, viewer=Viewer.of_seat(s))
            knows = w.knows(s)
            own = seen.hands[s]
            assert sorted(map(Tile.parse, own.tiles)) == sorted(knows.hand), (step, s)
            assert all(h.tiles == () for h in seen.hands if h.seat != s), (step, s)
            if w.state.phase != "waiting":
                assert seen.sight.known == {str(t) for t in knows.seen}, (step, s)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_snapshots_are_the_walk_after_each_deal(name: str) -> None:
    record, walked, _ = _walk(SAMPLES[name])
    if not walked:
        return
    rules = walked[0].state.rules
    rows = [(i, i, ev, True) for i, ev in enumerate(record.events)]
    folded = fold_rows(rules, rows, rebuild=True, upto=None)
    after_deals = [(w.index, encode(w.state)) for w in walked
                   if w.readable and w.event is not None and w.event.TYPE == "deal"]
    assert [(index, encode(st)) for _, index, st in folded.deal_states] == after_deals


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_knowledge_sees_what_the_walk_says_each_seat_saw(name: str) -> None:
    record, walked, _ = _walk(SAMPLES[name])
    if not walked:
        return
    rules = walked[0].state.rules
    for k in iter_knowledge(rules, record.events):
        if k.step == 0 or walked[k.step - 1].state.phase != "playing":
            continue
        w = walked[k.step - 1]
        for s in range(rules.seats):
            assert set(k.seats[s].seen) == set(w.knows(s).seen), (k.step, s)


def test_the_walks_inference_hook_is_asked_only_when_a_reader_asks() -> None:
    record, _, _ = _walk(SAMPLES["partial/sahrat-draw-2-seen-by-seat-0.json"])
    assert record.header is not None
    rules = make_rules(record.header.preset, len(record.header.seats), record.header.options)
    asked: list[tuple[int, int]] = []

    def infer(w: Walked, seat: int) -> object:
        asked.append((w.index, seat))
        return seat_facts(w, seat)

    events, _ = rebuild_hands(list(record.events), rules)
    for w in Walk(rules, events, infer=infer):
        if w.index == 12:  # asked while the walk stands there (its state moves on after)
            assert asked == []
            facts = w.knows(0).facts
            assert asked == [(12, 0)]
            assert isinstance(facts, SeatKnowledge)
            assert set(facts.seen) == set(w.knows(0).seen)
            assert asked == [(12, 0)]  # once per seat and step
    assert asked == [(12, 0)]
