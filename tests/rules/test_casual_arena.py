"""Casual Arena: seed 004_4a02ef295e7c1bfa.txt (rules-decisions.md `casual-arena`).

Tests cite the seed's headings ("§ Round end").
"""

from __future__ import annotations

import pytest

from ledger.rules import RulesError
from ledger.rules.base import Rules
from ledger.tiles import Tile

from .helpers import (
    DrawAgreed,
    Scenario,
    deal,
    lead_after,
    moves,
    run,
    std_deal,
    table,
)
from .scenarios import (
    BLOCK2,
    LOW_R2,
    OUT2,
    OUT3,
    OUT_R0,
    OUT_R2,
    PARTNERS_R0_R2,
    TIE2,
    TIE3,
    TIE_EVEN,
    TIE_R1_R2,
    TWIN2,
    TWIN3,
)

SEED = "004_4a02ef295e7c1bfa.txt"
TWO = table("casual-arena", 2)
THREE = table("casual-arena", 3)
FOUR = table("casual-arena", 4)
COUPLES = table("casual-arena", 4, teams=True)


def test_matches_of_two_three_or_four_and_couples() -> None:
    """004_4a02ef295e7c1bfa.txt § Dominoes modes: "It also allows having matches of 2, 3 or 4
    players, and with couples." rules-decisions.md: "option `teams` (couples: 4 seats, 0+2
    against 1+3)"."""
    assert [t.seats for t in (TWO, THREE, FOUR)] == [2, 3, 4]
    assert not FOUR.teams and FOUR.sides == 4
    assert COUPLES.teams and [COUPLES.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    with pytest.raises(RulesError):
        table("casual-arena", 3, teams=True)


def test_seven_tiles_each_the_rest_available_to_take() -> None:
    """004_4a02ef295e7c1bfa.txt § Match start: "At the beginning each player gets 7 tiles from
    a total of 28 and the remaining tiles, if there are any, will be available to take." """
    assert (TWO.stock_size, THREE.stock_size, FOUR.stock_size) == (14, 7, 0)
    assert TWO.draws and THREE.draws and not FOUR.draws and not COUPLES.draws


def test_highest_double_starts_he_is_the_hand() -> None:
    """004_4a02ef295e7c1bfa.txt § Match start: "The player with the highest double will be the
    one who starts playing and he's called the hand." OUT2: 6-6 undealt, seat 1's 5-5;
    TWIN3: seat 2's 5-5; four seats: seat 3's 6-6."""
    assert lead_after(TWO, OUT2.events()[:1]) == (1, Tile.parse("55"))
    assert lead_after(THREE, TWIN3.events()[:1]) == (2, Tile.parse("55"))
    assert lead_after(FOUR, LOW_R2.events(by=3)[:1]) == (3, Tile.parse("66"))
    assert run(TWO, OUT2.deal(), moves("1:65")).errors == ["wrong-opening-tile"]


def test_no_double_dealt_heaviest_tile() -> None:
    """rules-decisions.md `casual-arena`: "no double dealt: the heaviest tile" (the seed names
    only the highest double). Three seats, every double in the stock: seat 2's 6-5."""
    three = deal("10 20 30 40 50 60 21", "31 41 51 61 32 42 52", "62 43 53 63 54 64 65")
    assert lead_after(THREE, [three]) == (2, Tile.parse("65"))


def test_every_deal_the_highest_double_starts() -> None:
    """004_4a02ef295e7c1bfa.txt § Match start with rules-decisions.md `casual-arena`: "The seed
    gives no other rule for later deals": the highest double opens every deal. Seat 0 won
    OUT2; in the next deal seat 1 holds 6-6 and must open with it."""
    events = [*OUT2.events(), std_deal(2, 1)]
    assert lead_after(TWO, events) == (1, Tile.parse("66"))
    assert "wrong-leader" in run(TWO, events, moves("0:40")).errors
    four = [*OUT_R2.events(), std_deal(4, 3)]
    assert lead_after(FOUR, four) == (3, Tile.parse("66"))


def test_turns_advance_counterclockwise_line_with_two_endings() -> None:
    """004_4a02ef295e7c1bfa.txt § Match start: "the turns will advance counterclockwise and each
    of the players will place a tile building a line of tiles with 2 endings." """
    assert run(THREE, std_deal(3), moves("0:66 1:63l 2:60r")).clean()
    assert run(THREE, std_deal(3), moves("0:66 2:60r")).errors == ["out-of-turn"]
    r = run(THREE, std_deal(3), moves("0:66 1:63l 2:60r"))
    assert [name for name, _ in r.state.open_ends()] == ["left", "right"]


def test_place_a_tile_else_take_until_you_can_else_pass() -> None:
    """004_4a02ef295e7c1bfa.txt § Turns and way to play: "Each turn the player must place a tile
    over the table connecting one of the 2 values of the tile with one of the endings of the
    line. When it's not possible, he has to take a tile until he can. If there aren't any
    tiles to take, the player must pass and the turn will change." """
    drawfit = deal("66 65 64 63 54 53 43", "55 44 33 21 10 20 31", stock="00 22 62")
    assert run(TWO, drawfit, moves("0:66 1:draw 1:draw 1:draw 1:62r")).clean()
    assert run(TWO, drawfit, moves("0:66 1:pass")).errors == ["illegal-pass"]
    assert run(TWO, std_deal(2), moves("0:66 1:draw")).errors == ["illegal-draw"]
    hoard = deal("66 65 64 63 54 53 43", "55 44 33 21 10 20 31", "62 61 60 52 51 50 42")
    assert run(THREE, hoard, moves("0:66 " + "1:draw " * 7 + "1:pass 2:62r")).clean()


def test_round_end_the_last_tile_wins_the_round() -> None:
    """004_4a02ef295e7c1bfa.txt § Round end: "When a player puts his last tile, he wins that
    round." § Match end: he sums "as many points as all the values of the opponents'
    tiles". OUT2: 6-5 (11); OUT3: 5-5 and 6-4 (20); OUT_R0 (four, no couples): 0 + 6 + 8."""
    assert run(TWO, OUT2.events()).deals == [("out", 0, 11)]
    assert run(THREE, OUT3.events()).deals == [("out", 2, 20)]
    assert run(FOUR, OUT_R0.events()).deals == [("out", 0, 14)]


def test_block_lowest_points_value_wins() -> None:
    """004_4a02ef295e7c1bfa.txt § Round end: "The match may also end when no player can place
    or take. This situation is called block. In such case, the values of all the tiles are
    summed and the player with the less points value is who wins." BLOCK2: seat 1 (52)
    scores 54; LOW_R2: seat 2 (8) scores 35 + 25 + 22."""
    assert run(TWO, BLOCK2.events()).deals == [("block", 1, 54)]
    assert run(FOUR, LOW_R2.events()).deals == [("block", 2, 82)]


@pytest.mark.parametrize(("rules", "scenario", "expected"), [
    (TWO, TIE2, ("block", 0, 36)),           # seat 0 led: the hand wins
    (TWO, TWIN2, ("block", 1, 20)),          # seat 1 led: the hand wins
    (THREE, TIE3, ("block", 1, 62 + 17)),    # seat 0 led; tied seats 1, 2: seat 1 closer
    (THREE, TWIN3, ("block", 0, 15 + 56)),   # seat 2 led; tied seats 0, 1: seat 0 closer
    (FOUR, TIE_R1_R2, ("block", 1, 20 + 19 + 32)),   # seat 0 led; seats 1, 2 tie
    (FOUR, TIE_EVEN, ("block", 1, 27 + 18 + 27)),
    (FOUR, PARTNERS_R0_R2, ("block", 0, 25 + 20 + 25)),  # the hand itself is tied
], ids=["two-hand", "two-hand-seat1", "three-closer", "three-wrap", "four-closer",
        "four-even", "four-hand"])
def test_block_draw_wins_the_hand_or_the_one_closer_to_the_hand(
        rules: Rules, scenario: Scenario, expected: tuple[str, int, int]) -> None:
    """004_4a02ef295e7c1bfa.txt § Round end: "In case of a draw, wins the hand or the one that
    is closer to the hand." rules-decisions.md: "of the tied seats, the first in play order
    starting from the seat that led the deal. A block never ends in a tie." """
    r = run(rules, scenario.events())
    assert r.clean(), r.report.findings
    assert r.deals == [expected]


def test_one_round_mode_the_round_winner_wins_the_game() -> None:
    """004_4a02ef295e7c1bfa.txt § Match end: "In the one round mode, the player who wins the
    round wins the game." (`target` 0, rules-decisions.md.)"""
    r = run(table("casual-arena", 3, target=0), TIE3.events())
    assert r.report.complete and r.report.winner == 1
    assert r.report.scores == [0, 79, 0]


def test_points_modes_sum_opponents_including_partner_excluding_own() -> None:
    """004_4a02ef295e7c1bfa.txt § Match end: "the player who wins the round will sum as many
    points as all the values of the opponents' tiles, including his partner in couples
    matches, and excluding his own points." Couples: OUT_R0 0 + 6 (partner's 3-3) + 8;
    OUT_R2 8 (partner's 4-4) + 10 + 0; LOW_R2 35 (partner) + 25 + 22, not seat 2's own 8."""
    assert run(COUPLES, OUT_R0.events()).deals == [("out", 0, 14)]
    assert run(COUPLES, OUT_R2.events()).deals == [("out", 2, 18)]
    assert run(COUPLES, LOW_R2.events()).deals == [("block", 2, 82)]


def test_reaching_50_or_100_wins_the_match() -> None:
    """004_4a02ef295e7c1bfa.txt § Match end: "When after one or several rounds the player
    reaches 50 or 100 points, he wins the match." BLOCK2 gives seat 1 54: enough for 50,
    not for 100."""
    r50 = run(table("casual-arena", 2, target=50), BLOCK2.events())
    assert r50.report.complete and r50.report.winner == 1
    assert not run(TWO, BLOCK2.events()).report.complete


def test_couples_a_couple_wins_when_any_member_wins() -> None:
    """004_4a02ef295e7c1bfa.txt § Couples matches: "These are played just like the 4 players
    matches with the only difference being that a couple wins when any of its members
    wins." rules-decisions.md: "In couples the team wins what its member won." Seat 2 wins
    LOW_R2: seats 0+2 score 82 and, at target 50, win the match (reported as seat 0)."""
    r = run(table("casual-arena", 4, teams=True, target=50), LOW_R2.events())
    assert r.report.scores == [82, 0]
    assert r.report.complete and r.report.winner == 0
    solo = run(table("casual-arena", 4, target=50), LOW_R2.events())
    assert solo.report.scores == [0, 0, 82, 0] and solo.report.winner == 2


def test_a_draw_only_if_all_players_agree() -> None:
    """004_4a02ef295e7c1bfa.txt § Draw: "Only if all players agree a game can end in a draw."
    rules-decisions.md: "`agree_draw`: the match ends drawn." """
    r = run(THREE, TIE3.events(), DrawAgreed())
    assert r.clean(), r.report.findings
    assert r.report.complete and r.report.winner is None
    assert r.report.scores == [0, 79, 0]
