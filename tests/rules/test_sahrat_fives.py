"""Sahrat Domino Fives: seed 001_e536ce776a04bae3.txt (rules-decisions.md `sahrat-fives`).

The counts below are worked out by hand in ``scenarios.py`` (FIVES_SCRIPT): the
open ends after each play, a double at an end counting both halves, the 5-5
spinner counting 10 only while one of its sides is bare.
"""

from __future__ import annotations

import pytest

from ledger.engine.scoring import round_to_five
from ledger.tiles import Tile

from .helpers import DealScored, deal, lead_after, moves, run, table
from .scenarios import FIVES_COUNTS, FIVES_EVEN, FIVES_LOW_R0, fives2

SEED = "001_e536ce776a04bae3.txt"
TWO = table("sahrat-fives", 2)
FOUR = table("sahrat-fives", 4)


def test_fives_two_or_four_each_for_himself_target_150() -> None:
    """001_e536ce776a04bae3.txt §1: "Domino Fives: 2 or 4 players, each for himself, and the
    open ends score points. The target is 150 points." """
    assert TWO.fives and FOUR.fives
    assert not TWO.teams and not FOUR.teams and FOUR.sides == 4
    assert TWO.target == FOUR.target == 150
    assert TWO.draws and not FOUR.draws


def test_after_every_play_a_multiple_of_5_scores_at_once() -> None:
    """001_e536ce776a04bae3.txt: "After every play, add up the open ends: the outer number of
    each end, and a double at an end counts both halves. If the total is a multiple of 5,
    you score it at once (10 scores 10)." Every play of FIVES_SCRIPT, seat by seat."""
    r = run(TWO, fives2("43").events())
    assert r.clean(), r.report.findings
    assert r.fives == FIVES_COUNTS
    assert r.report.scores == [70 + 5, 10]


def test_the_opening_tile_counts_5_5_scores_10() -> None:
    """001_e536ce776a04bae3.txt: "The opening tile counts too (5-5 scores 10 ...)." """
    r = run(TWO, fives2("43").deal(), moves("0:55"))
    assert r.fives == [(1, 0, 10)]
    assert r.state.scores == [10, 0]


def test_the_opening_tile_counts_6_4_scores_10() -> None:
    """001_e536ce776a04bae3.txt: "The opening tile counts too (... and 6-4 scores 10)." No
    double is dealt and 6-5 is in the stock, so seat 0 opens its 6-4; 4-1 then leaves
    6 + 1 = 7, which scores nothing."""
    hands = deal("64 63 62 61 60 54 53", "52 51 50 43 42 41 40")
    assert lead_after(TWO, [hands]) == (0, Tile.parse("64"))
    r = run(TWO, hands, moves("0:64 1:41r"))
    assert r.fives == [(1, 0, 10)]


def test_a_double_at_an_end_counts_both_halves() -> None:
    """001_e536ce776a04bae3.txt: "a double at an end counts both halves." After 1-1 (left)
    and 4-4 (right) the ends count 2 + 8 = 10 (as single halves they would make 5)."""
    r = run(TWO, fives2("43").deal(), moves("0:55 1:51l 0:54r 1:11l 0:44r"))
    assert r.fives[-1] == (5, 0, 10)


def test_spinner_counts_both_halves_only_while_it_is_an_end() -> None:
    """001_e536ce776a04bae3.txt "The opening double has a bonus", rules-decisions.md: "the
    spinner counts both halves only while it is itself an end (before both sides are
    covered)". 5-1 on its left: 1 + 10 = 11, no score. 5-4 on its right: 1 + 4 = 5,
    seat 0 scores 5 (not 15)."""
    r = run(TWO, fives2("43").deal(), moves("0:55 1:51l 0:54r"))
    assert r.fives == [(1, 0, 10), (3, 0, 5)]


def test_spinner_opens_up_and_down_once_both_sides_are_covered() -> None:
    """001_e536ce776a04bae3.txt: "once a tile sits on both its left and its right, it also
    opens an end above and below, so there are 4 ends." rules-decisions.md: "An arm with
    no tile on it adds nothing to the sum." Before 5-4, "up" is refused; after it, 5-0
    goes up and the count is 2 + 8 + 0 = 10."""
    early = run(TWO, fives2("43").deal(), moves("0:55 1:51l 0:54u"))
    assert early.errors == ["wrong-end"]
    r = run(TWO, fives2("43").deal(), moves("0:55 1:51l 0:54r 1:11l 0:44r 1:50u"))
    assert [name for name, _ in r.state.open_ends()] == ["left", "right", "up", "down"]
    assert r.fives[-1] == (6, 1, 10)


def test_a_double_played_later_is_an_ordinary_tile() -> None:
    """001_e536ce776a04bae3.txt: "A double played later is an ordinary tile." 1-1, 4-4 and
    2-2 open no new ends: the line keeps four ends to the last play."""
    r = run(TWO, fives2("43").deal(), moves(
        "0:55 1:51l 0:54r 1:11l 0:44r 1:50u 0:53d 1:32d 0:30u 1:22d"))
    assert len(r.state.open_ends()) == 4
    assert r.state.open_ends() == [("left", 1), ("right", 4), ("up", 3), ("down", 2)]


def test_the_end_may_be_left_out_when_up_and_down_are_alike() -> None:
    """match-format.md `play`: "`end` may be left out when every end the tile fits would
    leave the same open numbers (and, in Fives, the same count)"; the tile then goes on the
    first end it fits. 5-0 fits up and down alike: it goes up."""
    r = run(TWO, fives2("43").deal(), moves("0:55 1:51l 0:54r 1:11l 0:44r 1:50"))
    assert r.clean()
    assert ("up", 0) in r.state.open_ends()


def test_a_count_of_0_scores_nothing() -> None:
    """rules-decisions.md `sahrat-fives`: "If the sum is a positive multiple of 5, the seat
    that played scores it at once." A later deal opened with 0-0 counts 0: no score."""
    r = run(TWO, FIVES_EVEN.events(), deal("00 60 61 62 30 31 32", "66 64 65 63 11 22 40"),
            moves("0:00"))
    assert r.clean(), r.report.findings
    assert [f for f in r.fives if f[0] > len(FIVES_EVEN.events())] == []


@pytest.mark.parametrize(("x", "pips", "rounded"), [
    ("10", 1, 0), ("65", 11, 10), ("42", 6, 5), ("43", 7, 5),  # remainder 1 or 2: down
    ("21", 3, 5), ("63", 9, 10),                                # remainder 3 or 4: up
])
def test_round_end_count_rounded_to_the_nearest_5(x: str, pips: int, rounded: int) -> None:
    """001_e536ce776a04bae3.txt: "In Fives: the count at the end of the round is rounded to
    the nearest 5 (7 becomes 5, 8 becomes 10)." rules-decisions.md: "a remainder of 1 or 2
    rounds down, 3 or 4 rounds up". Seat 0 goes out; seat 1 keeps ``x``."""
    r = run(TWO, fives2(x).events())
    assert r.clean(), r.report.findings
    assert r.deals == [("out", 0, rounded)]
    assert r.report.scores == [70 + rounded, 10]
    assert sum(int(c) for c in x) == pips


def test_rounding_examples_of_the_seed() -> None:
    """001_e536ce776a04bae3.txt: "(7 becomes 5, 8 becomes 10)" - the rounding itself."""
    assert round_to_five(7) == 5
    assert round_to_five(8) == 10
    assert [round_to_five(n) for n in range(10, 15)] == [10, 10, 10, 15, 15]


def test_blocked_round_lowest_hand_scores_the_others_rounded() -> None:
    """001_e536ce776a04bae3.txt «قفلت» "the lowest hand wins and scores the others' pips",
    and the rounding of "the count at the end of the round". Four seats: seat 0 scores 15
    in the deal (6-3 leaves 3 + 12), then wins the block with 7 pips: 35 + 20 + 28 = 83,
    rounded to 85."""
    r = run(FOUR, FIVES_LOW_R0.events())
    assert r.clean(), r.report.findings
    assert r.fives == [(5, 0, 15)]
    assert r.deals == [("block", 0, 85)]
    assert r.report.scores == [100, 0, 0, 0]
    scored = [ev for _, ev in r.derived(DealScored)]
    assert len(scored) == 1


def test_target_is_checked_at_the_end_of_the_round_not_in_the_middle() -> None:
    """001_e536ce776a04bae3.txt: "In Fives the target is checked at the end of the round, not
    in the middle of it." With a target of 20, seat 0 has 25 after its third play; the
    match ends only when the deal does."""
    r = run(table("sahrat-fives", 2, target=20), fives2("43").events())
    assert r.clean(), r.report.findings
    assert [i for i, _ in r.ended] == [13]
    assert r.report.winner == 0 and r.report.scores == [75, 10]


def test_tie_at_the_top_one_more_round() -> None:
    """001_e536ce776a04bae3.txt: "The game ends when the top score reaches the target ... and
    nobody shares it. If players tie at the top, one more round is played." Target 10:
    FIVES_EVEN ends 10 to 10, so a second deal is played (seat 0 went out and leads it);
    it ends 85 to 20."""
    rules = table("sahrat-fives", 2, target=10)
    first = run(rules, FIVES_EVEN.events())
    assert first.report.scores == [10, 10] and not first.report.complete
    both = run(rules, FIVES_EVEN.events(), fives2("43").events())
    assert both.clean(), both.report.findings
    assert both.report.scores == [85, 20]
    assert both.report.complete and both.report.winner == 0


def test_fives_draws_like_domino_draw() -> None:
    """001_e536ce776a04bae3.txt: "In Domino (draw) and Fives: with no tile that fits, you draw
    from the stock one tile at a time until one fits. You cannot draw while you hold a tile
    that fits." Seat 1 draws 0-0, 2-2, then 6-2 and lays it (6-6 + 2 = 14: no score)."""
    drawfit = deal("66 65 64 63 54 53 43", "55 44 33 21 10 20 31", stock="00 22 62")
    r = run(TWO, drawfit, moves("0:66 1:draw 1:draw 1:draw 1:62r"))
    assert r.clean(), r.report.findings
    assert r.fives == []
    assert run(TWO, drawfit, moves("0:66 1:draw 1:draw 1:draw 1:62r 0:draw")).errors == [
        "illegal-draw"]
