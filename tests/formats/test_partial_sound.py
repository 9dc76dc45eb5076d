"""Rebuilding hidden hands never guesses (match-format.md, *Partial records*: "a hand is
filled in only when it is certain").

Legal generated matches have hands, stocks and draws hidden at random (seeded); the
rebuild must give back the true tile wherever it fills one in, and of a hand it leaves
hidden, name only tiles the hand truly held, with the rest among its candidates.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from ledger.events import Dealt, Drew, Event
from ledger.formats.partial import rebuild_hands
from ledger.formats.reader import parse_match
from ledger.rules import make_rules
from ledger.rules.base import HAND_SIZE, Rules
from ledger.sim.generator import generate_corpus


def _hidden(events: list[Event | None], rnd: random.Random) -> list[Event | None]:
    out: list[Event | None] = []
    for ev in events:
        if isinstance(ev, Dealt):
            hands = tuple(None if rnd.random() < 0.5 else h for h in ev.hands)
            ev = replace(ev, hands=hands, stock=None if rnd.random() < 0.6 else ev.stock)
        elif isinstance(ev, Drew) and rnd.random() < 0.5:
            ev = replace(ev, tile=None)
        out.append(ev)
    return out


def _cases() -> list[tuple[str, list[Event | None], Rules]]:
    cases = []
    for m in generate_corpus(60, seed=23):
        record = parse_match(m)
        assert record.header is not None
        h = record.header
        cases.append((f"{h.preset}-{len(h.seats)}", list(record.events),
                      make_rules(h.preset, len(h.seats), h.options)))
    return cases


@pytest.mark.parametrize("with_rules", [True, False])
def test_what_the_rebuild_fills_in_is_true_and_what_it_leaves_is_bounded(
        with_rules: bool) -> None:
    rnd = random.Random(29)
    filled = left = 0
    for table, truth, rules in _cases():
        for _ in range(3):
            shown = _hidden(truth, rnd)
            rebuilt, hidden = rebuild_hands(shown, rules if with_rules else None)
            assert len(rebuilt) == len(truth)
            for ev, given, true in zip(rebuilt, shown, truth, strict=True):
                if isinstance(ev, Dealt):
                    assert isinstance(true, Dealt) and isinstance(given, Dealt)
                    for hand, was, real in zip(ev.hands, given.hands, true.hands, strict=True):
                        if hand is not None:
                            assert sorted(hand) == sorted(real), table
                            filled += was is None
                elif isinstance(ev, Drew) and ev.tile is not None:
                    assert isinstance(true, Drew) and ev.tile == true.tile, table
            for h in hidden:
                deal = truth[h.event]
                assert isinstance(deal, Dealt)
                real = set(deal.hands[h.seat] or ())
                assert set(h.known) <= real, table
                assert h.unknown == HAND_SIZE - len(h.known), table
                if h.candidates:
                    assert real - set(h.known) <= set(h.candidates), table
                left += 1
    assert filled > 20 and left > 20  # both ways taken, many times
