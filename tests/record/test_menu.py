"""The recorder's menu: only what the rules allow is offered, and the rest says why not.

For a hand the recorder can see, the offered moves are exactly the engine's
``legal_moves``; every other tile of the hand, and draw or pass when they are
not allowed, comes with the rule's reason. The rules quoted are those of
../shared/rules-decisions.md, "Common to every preset": "You must play if you
can. You draw only when you cannot play ... With nothing to draw you pass."
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from ledger.engine import State, apply, legal_moves, new_state
from ledger.events import Dealt
from ledger.formats.wire import event_to_dict, parse_event
from ledger.recording import Menu, menu, reveal_event, seeded_deal
from ledger.rules import all_tables, make_rules
from ledger.rules.base import Rules
from ledger.tiles import Tile

NAMES = ("Ali", "Omar", "Layla", "Rania")


def _record(st: State, obj: dict[str, Any], index: int) -> State:
    """The engine's strict fold: raises IllegalEvent if the menu offered a wrong event."""
    return apply(st, parse_event(obj, st.rules.seats), index)


def _deal(rules: Rules, hands: list[str | None], stock: list[str] | None = None) -> Dealt:
    return Dealt(hands=tuple(None if h is None else tuple(Tile.parse(t) for t in h.split())
                             for h in hands),
                 stock=None if stock is None else tuple(Tile.parse(t) for t in stock))


def _walk(rules: Rules, seed: int, hidden: bool) -> list[tuple[State, Menu]]:
    """A whole match recorded by taking a random offered choice each time."""
    rng = random.Random(seed)
    st = new_state(rules)
    seen: list[tuple[State, Menu]] = []
    deals = 0
    for i in range(600):
        m = menu(st, NAMES[:rules.seats])
        seen.append((st, m))
        if m.need == "over":
            return seen
        if m.need in ("deal", "redeal"):
            dealt = event_to_dict(seeded_deal(rules, f"menu-{seed}", deals))
            deals += 1
            if hidden:  # the recorder saw seat 0's hand only
                dealt = {"type": "deal", "hands": [dealt["hands"][0]]
                         + [None] * (rules.seats - 1)}
            obj = dealt
        elif m.need == "reveal":
            pool = list(m.reveal[0].candidates)
            rng.shuffle(pool)
            shown: dict[int, list[str]] = {}
            for r in m.reveal:
                take = r.count - len(r.known)
                shown[r.seat], pool = pool[:take], pool[take:]
            obj = reveal_event(st, shown)
        else:
            obj = rng.choice([c for t in m.turns for c in (*t.plays, *t.draws, *t.passes)]).event
        st = _record(st, obj, i)
    raise AssertionError("the match did not end in 600 events")


TABLES = [(p, n, o) for p, n, o in all_tables()]


@pytest.mark.parametrize(("preset", "seats", "options"), TABLES,
                         ids=[f"{p}-{n}{'-teams' if o else ''}" for p, n, o in TABLES])
def test_a_seen_hand_is_offered_exactly_its_legal_moves(preset: str, seats: int,
                                                        options: dict[str, object]) -> None:
    rules = make_rules(preset, seats, {**options, "target": 50 if preset != "casual-arena"
                                       else 50})
    moves_checked = 0
    for seed in range(3):
        for st, m in _walk(rules, seed, hidden=False):
            if m.need != "move":
                continue
            turn = m.turns[0]
            legal = legal_moves(st)
            legal_plays = {(str(mv.tile), mv.end) for mv in legal if mv.kind == "play"}
            offered = {(c.tile, c.end) for c in turn.plays}
            # Every offered play is legal; a legal play left out only repeats one offered
            # (the same tile on another end that leaves the very same table).
            assert offered <= legal_plays
            assert {t for t, _ in offered} == {t for t, _ in legal_plays}
            assert bool(turn.draws) == any(mv.kind == "draw" for mv in legal)
            assert bool(turn.passes) == any(mv.kind == "pass" for mv in legal)
            # Everything else in the hand is refused, with a reason.
            hand = {str(t) for t in st.hand(turn.seat)}
            refused = {r.tile for r in turn.refused if r.tile}
            assert refused == hand - {t for t, _ in offered}
            assert all(r.reason for r in turn.refused)
            words = {r.what for r in turn.refused if not r.tile}
            assert ("pass" in words) != bool(turn.passes)
            if rules.draws:
                assert ("draw" in words) != bool(turn.draws)
            moves_checked += 1
    assert moves_checked > 20


@pytest.mark.parametrize(("preset", "seats", "options"), TABLES,
                         ids=[f"{p}-{n}{'-teams' if o else ''}" for p, n, o in TABLES])
def test_with_only_one_hand_seen_every_offer_is_accepted_by_the_engine(
        preset: str, seats: int, options: dict[str, object]) -> None:
    rules = make_rules(preset, seats, {**options, "target": 50})
    needs = set()
    for seed in range(4):
        # _walk folds strictly: an offered event the rules refuse raises IllegalEvent.
        needs |= {m.need for _, m in _walk(rules, seed, hidden=True)}
    assert {"deal", "move", "over"} <= needs


def test_why_not_draw_and_why_not_pass() -> None:
    rules = make_rules("sahrat-draw", 2, {"target": 0})
    st = new_state(rules)
    st = apply(st, _deal(rules, ["6-6 5-5 3-3 3-2 2-0 1-0 0-0", "6-5 6-4 5-4 5-3 4-3 3-1 2-1"]), 0)
    st = apply(st, parse_event({"type": "play", "seat": 0, "tile": "6-6"}, 2), 1)
    turn = menu(st, NAMES[:2]).turns[0]
    assert turn.seat == 1
    assert {c.tile for c in turn.plays} == {"6-5", "6-4"}
    reasons = {r.what: r.reason for r in turn.refused}
    assert reasons["5-4"] == "it fits no open end (6 and 6)"
    assert reasons["draw"] == "Omar holds 6-5, which fits: a seat draws only when it cannot play"
    assert reasons["pass"] == "Omar can play 6-5"
    # Seat 0 cannot play on 6-4's open 4 and 6; with 14 tiles in the stock it must draw.
    st = apply(st, parse_event({"type": "play", "seat": 1, "tile": "6-4", "end": "right"}, 2), 2)
    turn = menu(st, NAMES[:2]).turns[0]
    assert turn.seat == 0 and not turn.plays
    reasons = {r.what: r.reason for r in turn.refused}
    assert reasons["pass"] == "14 tiles left in the stock: Ali must draw"
    assert reasons["5-5"] == "it fits no open end (6 and 4)"
    # The deal listed no stock order: the recorder taps the tile that came, one of the 14.
    assert len(turn.draws) == 14 and "Ali draws 6-2" in {c.label for c in turn.draws}


def test_the_opening_tile_is_the_only_one_offered_and_the_others_say_so() -> None:
    # rules-decisions.md, domena: "4 seats — holder of 6-6 opens with it."
    rules = make_rules("domena", 4, {"target": 0})
    st = apply(new_state(rules), _deal(rules, [
        "6-6 6-5 6-4 6-3 6-2 6-1 6-0", "5-5 5-4 5-3 5-2 5-1 5-0 0-0",
        "4-4 4-3 4-2 4-1 4-0 1-1 1-0", "3-3 3-2 3-1 3-0 2-2 2-1 2-0"]), 0)
    turn = menu(st, NAMES).turns[0]
    assert [c.event for c in turn.plays] == [{"type": "play", "seat": 0, "tile": "6-6"}]
    assert {r.reason for r in turn.refused if r.tile} == {
        "deal 1 must open with 6-6, the highest double dealt"}
    assert {r.what for r in turn.refused} == {"6-5", "6-4", "6-3", "6-2", "6-1", "6-0", "pass"}


def test_who_may_open_when_the_opening_tile_may_be_in_a_hidden_hand() -> None:
    # domena 2 seats: "holder of the highest double among the 14 dealt opens with it".
    # Seat 0's best is 5-5; 6-6 is unseen (seat 1's hand or the stock): either may open.
    rules = make_rules("domena", 2, {"target": 0})
    st = apply(new_state(rules), _deal(rules, ["5-5 4-1 3-2 6-0 2-1 1-0 0-0", None]), 0)
    m = menu(st, NAMES[:2])
    assert m.need == "lead"
    offers = {(c.seat, c.tile) for t in m.turns for c in t.plays}
    assert offers == {(0, "5-5"), (1, "6-6")}
    # Four seats, no stock: 6-6 is in some hand, and seat 0 does not hold it.
    rules4 = make_rules("domena", 4, {"target": 0})
    st4 = apply(new_state(rules4), _deal(rules4, ["5-5 4-1 3-2 6-0 2-1 1-0 0-0", None, None,
                                                  None]), 0)
    offers4 = {(c.seat, c.tile) for t in menu(st4, NAMES).turns for c in t.plays}
    assert offers4 == {(1, "6-6"), (2, "6-6"), (3, "6-6")}


def test_seeded_deals_repeat_and_are_valid_deals() -> None:
    for preset, seats, options in all_tables():
        rules = make_rules(preset, seats, options)
        a = seeded_deal(rules, "seed", 3)
        assert a == seeded_deal(rules, "seed", 3)
        assert a != seeded_deal(rules, "seed", 4)
        tiles = [t for h in a.hands for t in (h or ())] + list(a.stock or ())
        assert len(tiles) == len(set(tiles)) == 28
        apply(new_state(rules), a, 0)  # the engine takes it as a deal


def test_a_hand_of_four_doubles_asks_for_a_new_deal_and_nothing_else() -> None:
    # rules-decisions.md, selminha: "If any hand is dealt 4 or more doubles, the deal is
    # reshuffled: the record holds a new deal before any play."
    rules = make_rules("selminha", 2, {"target": 50})
    st = apply(new_state(rules), _deal(rules, ["6-6 5-5 4-4 3-3 6-1 5-2 4-0",
                                               "2-2 6-5 6-4 6-3 5-4 5-3 4-3"]), 0)
    m = menu(st, NAMES[:2])
    assert m.need == "redeal" and not m.turns
    assert m.note == "A hand was dealt 4 or more doubles: the rules call for a new deal."
    st = apply(st, seeded_deal(rules, "redeal", 1), 1)  # the engine takes the new deal
    assert menu(st, NAMES[:2]).need in ("move", "redeal")
