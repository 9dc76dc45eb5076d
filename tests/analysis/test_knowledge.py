"""What each seat knew: seen tiles, unseen counts, numbers others lack, used-up numbers."""

from __future__ import annotations

from ledger.analysis.knowledge import iter_knowledge, knowledge_at
from ledger.audit import audit_record
from ledger.events import Passed
from ledger.formats.reader import parse_match
from ledger.rules import make_rules
from ledger.sim.generator import generate_match
from ledger.tiles import SUIT_MASK, Tile, mask_of

# Domena, two players (seed 000 §5: draw until a tile fits, play it at once; pass when
# the boneyard is empty). Ends after 6-6 then 6-4: 6|4.
DRAWS = {
    "format": "domino-match/1",
    "table": {"rules": "domena"},
    "seats": ["Ali", "Omar"],
    "events": [
        {"type": "deal",
         "hands": [["6-6", "5-5", "5-3", "3-3", "2-2", "1-1", "0-0"],
                   ["6-4", "6-2", "5-2", "4-1", "3-1", "2-0", "1-0"]],
         "stock": ["3-2", "5-1", "4-4", "6-5", "6-3", "6-1", "6-0",
                   "5-4", "5-0", "4-3", "4-2", "4-0", "3-0", "2-1"]},
        {"type": "play", "seat": 0, "tile": "6-6"},                    # step 2
        {"type": "play", "seat": 1, "tile": "6-4", "end": "right"},    # ends 6|4
        {"type": "draw", "seat": 0, "tile": "3-2"},                    # step 4: no 6, no 4
        {"type": "draw", "seat": 0, "tile": "5-1"},                    # 3-2 did not fit
        {"type": "draw", "seat": 0, "tile": "4-4"},
        {"type": "play", "seat": 0, "tile": "4-4", "end": "right"},    # step 7: ends 6|4
        {"type": "play", "seat": 1, "tile": "6-2", "end": "left"},     # ends 2|4
        {"type": "play", "seat": 0, "tile": "2-2", "end": "left"},     # ends 2|4
        {"type": "play", "seat": 1, "tile": "4-1", "end": "right"},    # ends 2|1
    ],
}


def test_the_draw_record_is_legal() -> None:
    report = audit_record(parse_match(DRAWS))
    assert report.ok, report.findings


def test_a_seat_that_drew_lacks_the_numbers_at_the_ends() -> None:
    # Seed 002 tips: "a player who drew or passed when a number was showing on an open
    # end doesn't have that number". Seat 0 drew at ends 6|4, kept 3-2 and 5-1 (unseen
    # by seat 1), played the 4-4 it drew last: only 6 and 4 are certain.
    record = parse_match(DRAWS)
    rules = make_rules("domena", 2)
    during = knowledge_at(rules, record.events, 5)
    assert during.seats[1].lacks_of(0) == ()  # still drawing: it may hold a fitting tile
    done = knowledge_at(rules, record.events, 7)
    assert done.seats[1].lacks_of(0) == (4, 6)
    # Seat 0 saw its own draws; seat 1 did not.
    assert Tile.parse("3-2") in done.seats[0].seen
    assert Tile.parse("3-2") not in done.seats[1].seen
    # Playing reveals nothing about what a seat lacks.
    assert knowledge_at(rules, record.events, 10).seats[0].lacks_of(1) == ()


def test_unseen_counts_from_a_seats_own_view() -> None:
    record = parse_match(DRAWS)
    rules = make_rules("domena", 2)
    k = knowledge_at(rules, record.events, 3)  # after 6-6 and 6-4
    # Seat 1 has seen its hand and 6-6: of the 6s it holds 6-4 and 6-2, and 6-6 is
    # down, so 4 sixes are unseen; of the 4s, 6-4 and 4-1: 5 unseen.
    assert k.seats[1].unseen[6] == 4
    assert k.seats[1].unseen[4] == 5
    held = mask_of(Tile.parse(t) for t in DRAWS["events"][0]["hands"][1])  # type: ignore[index]
    seen = held | Tile.parse("6-6").bit
    assert k.seats[1].unseen == tuple(7 - (seen & SUIT_MASK[n]).bit_count() for n in range(7))


def test_passes_show_lacks_to_everyone_in_a_pass_game() -> None:
    record = parse_match(generate_match("domena", 4, {}, seed=7))
    rules = make_rules("domena", 4)
    steps = list(iter_knowledge(rules, record.events))
    checked = 0
    for i, ev in enumerate(record.events):
        if isinstance(ev, Passed) and steps[i].ends:
            ends = set(steps[i].ends)
            after = steps[i + 1]
            for observer in after.seats:
                if observer.seat != ev.seat:
                    assert ends <= set(observer.lacks_of(ev.seat))
            checked += 1
    assert checked


def test_a_number_is_used_up_when_its_seven_tiles_are_down() -> None:
    record = parse_match(generate_match("domena", 4, {}, seed=3))
    rules = make_rules("domena", 4)
    seen_any = False
    for k in iter_knowledge(rules, record.events):
        table = mask_of(k.table)
        for n in range(7):
            down = table & SUIT_MASK[n] == SUIT_MASK[n]
            assert (n in dict(k.used_up)) == down
            seen_any |= down
        # Everyone lacks a used-up number.
        for s in k.seats:
            for _other, nums in s.lacks:
                assert set(dict(k.used_up)) <= set(nums)
    assert seen_any
