"""ledger/replay/ without the web: frames agree with the engine, the board is drawable."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from ledger.audit import audit_record
from ledger.engine import fold
from ledger.formats.reader import parse_match
from ledger.replay import (
    PlacedTile,
    ReplayMatch,
    SeatOutOfRange,
    Snapshot,
    StepOutOfRange,
    deal_ends,
    deals,
    frame,
    labels,
)
from ledger.rules import all_tables, make_rules
from ledger.sim.generator import generate_match


def replay_of(obj: dict[str, Any]) -> ReplayMatch:
    rec = parse_match(obj)
    report = audit_record(rec)
    assert rec.header is not None and report.rules is not None
    return ReplayMatch.of(report.rules, rec.header.seats, rec.events, report.findings,
                          report.derived)


# A hand-made Arab Block deal (seed 003: 7 tiles each, no drawing; "The player with
# the highest double in their hand plays first"): seat 0 holds 6-6 and opens with it.
HAND_MADE = {
    "format": "domino-match/1",
    "table": {"rules": "arab-block"},
    "seats": ["<b>Ali</b>", "Omar & Co"],
    "events": [
        {"type": "deal", "hands": [["6-6", "6-3", "6-1", "3-3", "1-0", "5-5", "4-2"],
                                   ["6-5", "3-2", "1-1", "5-0", "4-4", "2-2", "0-0"]]},
        {"type": "play", "seat": 0, "tile": "6-6"},
        {"type": "play", "seat": 1, "tile": "6-5", "end": "right"},
        {"type": "play", "seat": 0, "tile": "6-3", "end": "left"},
        {"type": "play", "seat": 1, "tile": "3-2", "end": "left"},
        {"type": "bot", "seat": 1},
    ],
}


def test_hand_made_board_is_laid_as_at_the_table() -> None:
    rm = replay_of(HAND_MADE)
    fr = frame(rm, 5)  # after the deal and four plays
    by_tile = {t.tile: t for t in fr.board.tiles}
    # The opening double lies crosswise at the centre: one unit wide, two tall.
    assert by_tile["6-6"] == PlacedTile("6-6", -0.5, -1.0, True, 6, 6, "open", 2)
    # 6-5 on the right: its 6 touches the double, its 5 is the open right end.
    assert by_tile["6-5"] == PlacedTile("6-5", 0.5, -0.5, False, 6, 5, "right", 3)
    # On the left the line runs leftwards: the open number is on the left half.
    assert by_tile["6-3"] == PlacedTile("6-3", -2.5, -0.5, False, 3, 6, "left", 4)
    assert by_tile["3-2"] == PlacedTile("3-2", -4.5, -0.5, False, 2, 3, "left", 5)
    assert fr.board.ends == (("left", 2), ("right", 5))
    assert fr.board.fives is None and fr.board.spinner is None
    assert fr.hands[0].tiles == ("6-1", "5-5", "4-2", "3-3", "1-0")
    assert fr.hands[1].tiles == ("5-0", "4-4", "2-2", "1-1", "0-0")
    assert fr.turn == 0 and fr.stock is None
    assert not fr.hands[1].bot
    assert frame(rm, 6).hands[1].bot  # the bot takes the seat from its event on


def test_tiles_laid_later_in_the_deal_are_not_shown_yet() -> None:
    rm = replay_of(HAND_MADE)
    assert [t.tile for t in frame(rm, 3).board.tiles] == ["6-6", "6-5"]
    assert frame(rm, 1).board.tiles == ()
    assert frame(rm, 0).phase == "waiting" and frame(rm, 0).hands[0].tiles == ()
    # The frame of one deal keeps one box, so the picture does not jump while stepping.
    assert frame(rm, 2).board.box == frame(rm, 5).board.box


def test_one_seat_view_hides_the_other_hands() -> None:
    rm = replay_of(HAND_MADE)
    fr = frame(rm, 5, seat=1)
    assert fr.hands[1].tiles == ("5-0", "4-4", "2-2", "1-1", "0-0")
    assert fr.hands[0].tiles == () and fr.hands[0].hidden == 5 and fr.hands[0].seen == ()
    assert fr.hands[0].pips is None
    assert fr.stock_tiles is None


def test_steps_and_seats_out_of_range() -> None:
    rm = replay_of(HAND_MADE)
    with pytest.raises(StepOutOfRange):
        frame(rm, 7)
    with pytest.raises(StepOutOfRange):
        frame(rm, -1)
    with pytest.raises(SeatOutOfRange):
        frame(rm, 2, seat=2)


def _tables() -> list[tuple[str, int, dict[str, object]]]:
    return all_tables()


@pytest.mark.parametrize(("preset", "seats", "options"), _tables())
def test_frames_agree_with_the_engine_at_every_step(preset: str, seats: int,
                                                    options: dict[str, object]) -> None:
    obj = generate_match(preset, seats, options, seed=7)
    rm = replay_of(obj)
    rec = parse_match(obj)
    rules = make_rules(preset, seats, options)
    for step in range(rm.last_step + 1):
        state = fold(rules, rec.events[:step])  # the strict fold of ledger.engine
        fr = frame(rm, step)
        for s in range(seats):
            assert sorted(fr.hands[s].tiles) == sorted(str(t) for t in state.hand(s))
        if state.table:
            assert list(fr.board.ends) == state.open_ends()
            assert len(fr.board.tiles) == state.table.bit_count()
        assert fr.scores == tuple(state.scores)
        if fr.stock is not None:
            assert fr.stock == state.stock_left


def _cells(t: PlacedTile) -> list[tuple[float, float, int]]:
    if t.vertical:
        return [(t.x, t.y, t.first), (t.x, t.y + 1, t.second)]
    return [(t.x, t.y, t.first), (t.x + 1, t.y, t.second)]


def _touch(a: tuple[float, float, int], b: tuple[float, float, int]) -> bool:
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    return (dx == 1 and dy < 1) or (dy == 1 and dx < 1)


def _overlap(a: PlacedTile, b: PlacedTile) -> bool:
    return (a.x < b.x + b.width and b.x < a.x + a.width
            and a.y < b.y + b.height and b.y < a.y + a.height)


@pytest.mark.parametrize(("preset", "seats", "options"), _tables())
def test_the_line_never_overlaps_and_joins_equal_numbers(preset: str, seats: int,
                                                         options: dict[str, object]) -> None:
    for seed in range(6):
        rm = replay_of(generate_match(preset, seats, options, seed=seed))
        ends = [s - 1 for s in rm.deal_starts()[1:]] + [rm.last_step]
        for step in ends:
            tiles = frame(rm, step).board.tiles
            for a, b in itertools.combinations(tiles, 2):
                assert not _overlap(a, b), (a, b)
            last_on_arm: dict[str, PlacedTile] = {}
            for t in tiles:
                if t.arm != "open":
                    prev = last_on_arm.get(t.arm, tiles[0])
                    # The halves that touch show the same number, as at a real table.
                    assert any(c[2] == d[2] and _touch(c, d)
                               for c in _cells(t) for d in _cells(prev)), (prev, t)
                    last_on_arm[t.arm] = t
            box = frame(rm, step).board.box
            for t in tiles:
                assert box.x <= t.x and t.x + t.width <= box.x + box.width
                assert box.y <= t.y and t.y + t.height <= box.y + box.height


def test_fives_spinner_opens_up_and_down_arms() -> None:
    # Seed 001, Fives: "Once tiles lie on both its left and its right, it opens up
    # and down too". Find generated deals where the up or down arm was used.
    used = set()
    for seed in range(40):
        rm = replay_of(generate_match("sahrat-fives", 2, {}, seed=seed))
        tiles = frame(rm, rm.last_step).board.tiles
        used |= {t.arm for t in tiles}
        fr = frame(rm, rm.last_step)
        if fr.board.spinner is not None:
            assert fr.board.fives is not None
    assert {"up", "down"} & used


def test_snapshot_gives_the_same_frame() -> None:
    obj = generate_match("domena", 2, {}, seed=3)
    rm = replay_of(obj)
    rec = parse_match(obj)
    rules = make_rules("domena", 2, {})
    starts = [s - 1 for s in rm.deal_starts()]
    for start in starts[1:3]:
        # Just before the deal event, and just after it (where the store takes them).
        for at in (start, start + 1):
            snap = Snapshot(at, fold(rules, rec.events[:at]))
            for step in (start + 1, start + 4, start + 9):
                assert frame(rm, step, snapshot=snap) == frame(rm, step)
                assert frame(rm, step, 1, snapshot=snap) == frame(rm, step, 1)


def test_reveal_is_what_a_seat_has_seen() -> None:
    obj = generate_match("domena", 2, {}, seed=5)
    rm = replay_of(obj)
    reveal = next(i for i, ev in enumerate(obj["events"]) if ev["type"] == "reveal")
    before = frame(rm, reveal, seat=0)
    after = frame(rm, reveal + 1, seat=0)
    assert before.hands[1].seen == ()
    assert sorted(after.hands[1].seen) == sorted(obj["events"][reveal]["hands"][1])
    assert after.hands[1].tiles == ()


def test_partial_record_shows_rebuilt_hands() -> None:
    obj = generate_match("arab-block", 2, {}, seed=2)
    first_deal = obj["events"][0]
    hidden_hand = first_deal["hands"][1]
    first_deal["hands"][1] = None  # a recorder who saw only seat 0's tiles; reveal follows
    rm = replay_of(obj)
    assert sorted(frame(rm, 1).hands[1].tiles) == sorted(hidden_hand)


def test_unreadable_record_stops_the_frames() -> None:
    obj = generate_match("arab-block", 2, {}, seed=4)
    play = next(i for i, ev in enumerate(obj["events"]) if ev["type"] == "play" and i > 3)
    obj["events"][play]["tile"] = "6-6" if obj["events"][play]["tile"] != "6-6" else "5-5"
    rm = replay_of(obj)
    assert frame(rm, play).readable
    last = frame(rm, rm.last_step)
    assert not last.readable and last.stopped_at == play


def test_labels_name_players_and_derived_results() -> None:
    rm = replay_of(HAND_MADE)
    got = labels(rm)
    assert [lb.step for lb in got] == [1, 2, 3, 4, 5, 6]
    assert got[2].text == "Omar & Co plays 6-5 on the right"
    assert got[5].text == "A bot takes over Omar & Co's seat"
    obj = generate_match("sahrat-fives", 2, {}, seed=1)
    fives = replay_of(obj)
    notes = [n for lb in labels(fives) for n in lb.notes]
    assert any(n.startswith("Fives: ") for n in notes)
    assert any(n.startswith("Deal 1: ") for n in notes)


def test_redeal_keeps_the_deal_number() -> None:
    # Selminha (seed 002): a hand with 4 or more doubles is reshuffled.
    for seed in range(200):
        obj = generate_match("selminha", 2, {}, seed=seed)
        types = [ev["type"] for ev in obj["events"]]
        if "deal" in types and types[types.index("deal") + 1] == "deal":
            break
    else:
        pytest.skip("no redeal in these seeds")
    got = labels(replay_of(obj))
    assert got[0].deal == got[1].deal == 1
    assert got[1].text.startswith("Reshuffled")


def test_a_window_of_one_deal_gives_the_same_frames_and_labels() -> None:
    obj = generate_match("sahrat-fives", 4, {}, seed=9)
    full = replay_of(obj)
    rec = parse_match(obj)
    rules = make_rules("sahrat-fives", 4, {})
    starts = [s - 1 for s in full.deal_starts()]
    start, stop = starts[2], starts[3]
    part = ReplayMatch.windowed(full.rules, full.seats, full.types, start,
                                full.events[start:stop], full.findings, full.derived)
    assert part.last_step == full.last_step and part.deal_starts() == full.deal_starts()
    snap = Snapshot(start + 1, fold(rules, rec.events[:start + 1]))
    for step in range(start + 1, stop + 1):
        assert frame(part, step, 2, snapshot=snap) == frame(full, step, 2)
    assert labels(part, start, stop) == labels(full)[start:stop]
    with pytest.raises(ValueError, match="loaded"):
        frame(part, starts[1] + 2, snapshot=snap)  # another deal: its events are not there


def test_deal_lines_follow_the_derived_results() -> None:
    obj = generate_match("domena", 2, {}, seed=4)
    rm = replay_of(obj)
    got = deals(rm)
    report = audit_record(parse_match(obj))
    assert [d.deal for d in got] == list(range(1, len(report.deals) + 1))
    assert [d.first_step for d in got] == rm.deal_starts()
    for line, deal in zip(got, report.deals, strict=True):
        assert line.result is not None and f"+{deal['points']}" in line.result
    assert got[-1].last_step == rm.last_step


@pytest.mark.parametrize("preset,seats,seed", [("domena", 2, 4), ("sahrat-fives", 4, 2),
                                               ("selminha", 3, 5)])
def test_deal_ends_are_the_deal_lines_last_steps(preset: str, seats: int, seed: int) -> None:
    # The whole-match chart reads where each deal ends from deal_ends, which words nothing.
    rm = replay_of(generate_match(preset, seats, {}, seed=seed))
    lines = deals(rm)
    assert len(lines) > 1
    assert deal_ends(rm) == {line.deal: line.last_step for line in lines}
