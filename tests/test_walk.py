"""The walk (ledger/walk.py, issue 29): one traversal of a match through the rules engine.

Its readers rely on a few promises: the walk ends at an event that makes the rest
unreadable (and says where); an unparsed event (``None``) is passed by or ends the walk;
a walk from a snapshot gives what the walk from the start gives; the visitors see the
state before each event and the step after it; ``states`` hands out copies.
"""

from __future__ import annotations

from typing import Any

import pytest

from ledger.engine.state import State
from ledger.events import Dealt, Event, Passed, Played
from ledger.findings import Unreadable
from ledger.formats.reader import parse_match
from ledger.rules import make_rules
from ledger.sim.generator import generate_match
from ledger.store.log.snapshots import encode
from ledger.walk import Walk, Walked, states, step_into


def _match(seed: int = 4) -> tuple[Any, list[Event | None]]:
    record = parse_match(generate_match("sahrat-draw", 2, seed=seed))
    assert record.header is not None
    return make_rules("sahrat-draw", 2, {}), list(record.events)


def test_the_walk_ends_at_an_unreadable_event_and_says_where() -> None:
    rules, events = _match()
    opening = next(i for i, ev in enumerate(events) if isinstance(ev, Played))
    ev = events[opening]
    assert isinstance(ev, Played)
    events[opening] = Played(seat=1 - ev.seat, tile=ev.tile)  # not in its hand: unreadable
    walk = Walk(rules, events)
    got = list(walk)
    assert walk.stopped_at == opening and len(got) == opening + 1
    assert not got[-1].readable and got[-1].findings[-1].code == "tile-not-in-hand"
    assert all(w.readable for w in got[:-1])


@pytest.mark.parametrize("stop_at_none", [False, True])
def test_an_unparsed_event_is_passed_by_or_ends_the_walk(stop_at_none: bool) -> None:
    rules, events = _match()
    events.append(None)
    events.append(Passed(seat=0))
    walk = Walk(rules, events, stop_at_none=stop_at_none)
    got = list(walk)
    if stop_at_none:
        assert walk.stopped_at == len(events) - 2 and len(got) == len(events) - 2
    else:
        assert got[-2].event is None and got[-2].readable and got[-2].findings == ()
        assert got[-1].event == Passed(seat=0)


def test_a_walk_from_a_snapshot_is_the_walk_from_the_start() -> None:
    rules, events = _match()
    deals = [i for i, ev in enumerate(events) if isinstance(ev, Dealt)]
    assert len(deals) >= 2
    whole = [encode(s) for s in states(rules, events)]
    at = deals[1]  # the snapshot: the state after the second deal's deal event
    snapshot = State(rules)
    for w in Walk(rules, events, stop=at + 1):
        snapshot = w.state.copy()
    kept = encode(snapshot)
    # (each state read as the walk stands on it: the walk's state moves on after)
    resumed = [(encode(w.state), w.knows(0))
               for w in Walk(rules, events, start=snapshot, first=at + 1)]
    assert [st for st, _ in resumed] == whole[at + 2:]
    # ... and each seat knows in the deal it starts in what the walk from the start says
    from_start = [w.knows(0) for w in Walk(rules, events)][at + 1:]
    assert [k for _, k in resumed] == from_start and from_start[0].seen
    assert encode(snapshot) == kept  # the walk copies its start, never changes it


def test_visitors_see_the_state_before_and_the_step_after() -> None:
    rules, events = _match()
    seen: list[tuple[str, int, int]] = []

    class Count:
        def before(self, st: State, ev: Event, index: int) -> None:
            seen.append(("before", index, st.plays))

        def after(self, walked: Walked) -> None:
            seen.append(("after", walked.index, walked.state.plays))

    list(Walk(rules, events[:4], visitors=(Count(),)))
    assert [(k, i) for k, i, _ in seen] == [(k, i) for i in range(4) for k in ("before", "after")]
    for i in range(4):  # a play counts between the state before it and the step after
        before, after = seen[2 * i][2], seen[2 * i + 1][2]
        assert after - before == (1 if isinstance(events[i], Played) else 0), i


def test_states_are_copies_and_step_into_refuses_an_unreadable_event() -> None:
    rules, events = _match()
    got = list(states(rules, events[:5]))
    assert len(got) == 6 and len({id(s) for s in got}) == 6
    st = got[1]  # after the deal
    deal = events[0]
    assert isinstance(deal, Dealt) and deal.hands[0] is not None
    foreign = next(t for t in deal.hands[1] or () if t not in deal.hands[0])
    with pytest.raises(Unreadable):
        step_into(st, Played(seat=0, tile=foreign), 1)
