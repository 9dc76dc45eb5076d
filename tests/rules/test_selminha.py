"""Selminha: seed 002_10d567ad275b8de6.txt (rules-decisions.md `selminha`).

Tests cite the seed's headings ("§ Who leads", "§ Scoring").
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from ledger.rules import RulesError
from ledger.rules.base import BlockView, Rules
from ledger.tiles import SUIT_MASK, Tile

from .helpers import (
    Abandoned,
    DealScored,
    Event,
    Resigned,
    deal,
    lead_after,
    moves,
    run,
    std_deal,
    std_plain,
    table,
    tiles,
)
from .scenarios import (
    BLOCK2,
    LOW_R2,
    LOW_R2_HEAVY_PAIR,
    OUT2,
    OUT3,
    OUT_R2B,
    PARTNERS_R0_R2,
    TIE2,
    TIE3,
    TIE_EVEN,
    TWIN2,
    TWIN3,
)

SEED = "002_10d567ad275b8de6.txt"
TWO = table("selminha", 2)
THREE = table("selminha", 3)
FOUR = table("selminha", 4)


def check_lead(rules: Rules, events: Sequence[Event], seat: int) -> None:
    """The next deal (6-6 dealt to the seat after ``seat``) is led by ``seat``, any tile."""
    n = rules.seats
    by = (seat + 1) % n
    nxt = [*events, std_deal(n, by)]
    assert lead_after(rules, nxt) == (seat, None)
    assert run(rules, nxt, moves(f"{seat}:{std_plain(n, seat, by)}")).clean()
    assert "wrong-leader" in run(rules, nxt, moves(f"{by}:66")).errors


# --- The goal, players and partners --------------------------------------------------------


def test_players_two_or_three_for_themselves_four_in_teams() -> None:
    """002_10d567ad275b8de6.txt § Players and partners: "Two, three or four can play. With two
    or three, everyone plays for themselves. With four, you always play in teams: partners
    sit across from each other and score together." """
    assert not TWO.teams and not THREE.teams and THREE.sides == 3
    assert FOUR.teams and [FOUR.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    with pytest.raises(RulesError):
        table("selminha", 5)
    assert run(FOUR, OUT_R2B.events()).report.scores == [15, 0]  # seats 0+2 together


def test_play_passes_to_the_right_in_seat_order() -> None:
    """002_10d567ad275b8de6.txt § Players and partners: "Play passes to the right: after you,
    the player on your right goes." """
    assert run(THREE, std_deal(3), moves("0:66 1:63l 2:60r")).clean()
    assert run(THREE, std_deal(3), moves("0:66 2:60r")).errors == ["out-of-turn"]


def test_target_50_or_100() -> None:
    """002_10d567ad275b8de6.txt § The goal / § Options: "The game is played to the target you
    choose, 50 or 100 points"; rules-decisions.md: "default 100"."""
    assert TWO.target == 100
    assert table("selminha", 2, target=50).target == 50
    for bad in (0, 75, 150):
        with pytest.raises(RulesError):
            table("selminha", 3, target=bad)


# --- The 28 tiles, the deal ----------------------------------------------------------------


def test_a_tile_is_worth_the_pips_on_both_ends() -> None:
    """002_10d567ad275b8de6.txt § The 28 tiles: "A tile is worth the total pips on both ends:
    the 6-4 is worth 10 and the double blank is worth 0. Each number appears on seven
    tiles." BLOCK2's 54 is seat 0's nine tiles added up."""
    assert Tile.parse("6-4").pips == 10 and Tile.parse("0-0").pips == 0
    assert all(mask.bit_count() == 7 for mask in SUIT_MASK)
    assert run(TWO, BLOCK2.events()).deals == [("block", 1, 9 + 7 + 6 + 6 + 9 + 2 + 4 + 10 + 1)]


def test_boneyard_14_with_two_7_with_three_none_with_four() -> None:
    """002_10d567ad275b8de6.txt § The deal and the boneyard: "Each player gets 7 tiles. The
    rest stay face down in the boneyard: 14 tiles with two players and 7 with three. With
    four players, all 28 tiles are dealt and there is no boneyard." """
    assert (TWO.stock_size, THREE.stock_size, FOUR.stock_size) == (14, 7, 0)
    assert TWO.draws and THREE.draws and not FOUR.draws


# --- Redeal on four doubles --------------------------------------------------------------------

FOUR_DOUBLES = deal("66 55 44 33 10 20 30", "65 64 63 62 61 60 54")
FIVE_DOUBLES = deal("65 64 63 62 61 60 54", "66 55 44 33 22 20 30")
THREE_DOUBLES = deal("66 55 44 40 10 20 30", "65 64 63 62 61 60 54")


def test_four_or_more_doubles_reshuffled_and_dealt_again() -> None:
    """002_10d567ad275b8de6.txt § The deal and the boneyard: "If anyone is dealt 4 or more
    doubles, the tiles are reshuffled and dealt again." A new `deal` before any play is
    the redeal; it replaces the deal (one deal on the score sheet)."""
    for bad in (FOUR_DOUBLES, FIVE_DOUBLES):
        r = run(TWO, bad, OUT2.events())
        assert r.clean(), r.report.findings
        assert r.deals == [("out", 0, 11)]
        assert r.state.deal == 0


def test_a_play_on_a_deal_that_had_to_be_redealt_is_an_error() -> None:
    """002_10d567ad275b8de6.txt "the tiles are reshuffled and dealt again"; rules-decisions.md
    `selminha`: "A play on a deal that had to be redealt ... is an error." """
    assert run(TWO, FOUR_DOUBLES, moves("0:66")).errors == ["redeal-required"]
    four = deal("66 55 44 33 10 20 30", "65 64 63 62 61 60 54", "53 52 51 50 43 42 41",
                "40 32 31 22 21 11 00")
    assert run(FOUR, four, moves("0:66")).errors == ["redeal-required"]


def test_a_redeal_not_called_for_is_an_error() -> None:
    """rules-decisions.md `selminha`: "a redeal that was not called for, is an error." Three
    doubles is not four."""
    assert run(TWO, THREE_DOUBLES, moves("0:66")).clean()
    assert run(TWO, THREE_DOUBLES, OUT2.events()).errors == ["unexpected-redeal"]
    assert run(table("domena", 2), FOUR_DOUBLES, OUT2.events()).errors == [
        "unexpected-redeal"]  # only Selminha reshuffles


# --- Who leads ---------------------------------------------------------------------------------


def test_first_round_double_six_leads_and_is_the_first_tile() -> None:
    """002_10d567ad275b8de6.txt § Who leads: "In the first round, the player holding the
    double six leads, and it must be the first tile played." """
    assert lead_after(FOUR, LOW_R2.events(by=2)[:1]) == (2, Tile.parse("66"))
    assert lead_after(THREE, [std_deal(3, 1)]) == (1, Tile.parse("66"))
    assert run(THREE, std_deal(3, 1), moves("1:62")).errors == ["wrong-opening-tile"]


def test_first_round_double_six_in_the_boneyard_highest_double() -> None:
    """002_10d567ad275b8de6.txt § Who leads: "If the double six is in the boneyard, which can
    only happen with two or three players, the player with the highest double leads with
    that double." OUT2: seat 1's 5-5; TWIN3: seat 2's 5-5."""
    assert lead_after(TWO, OUT2.events()[:1]) == (1, Tile.parse("55"))
    assert lead_after(THREE, TWIN3.events()[:1]) == (2, Tile.parse("55"))
    assert run(TWO, OUT2.events()).clean()


def test_first_round_no_double_heaviest_tile() -> None:
    """002_10d567ad275b8de6.txt § Who leads: "If no one holds a double, the player with the
    heaviest tile leads with it (if two tiles have the same total, the one with the higher
    number wins)." 6-1 is in the stock: 5-2 beats 4-3."""
    hands = deal("43 41 40 30 20 10 60", "52 51 42 32 31 21 50")
    assert lead_after(TWO, [hands]) == (1, Tile.parse("52"))
    three = deal("10 20 30 40 50 60 21", "31 41 51 61 32 42 52", "62 43 53 63 54 64 65")
    assert lead_after(THREE, [three]) == (2, Tile.parse("65"))


def test_later_rounds_lead_passes_to_the_right_of_the_previous_leader() -> None:
    """002_10d567ad275b8de6.txt § Who leads: "In later rounds, the lead passes to the player on
    the right of whoever led the previous round, and they can open with any tile." Not the
    winner: OUT_R2B was led by seat 0 and won by seat 2, so seat 1 leads; TIE3 was led by
    seat 0 and won by seat 2, so seat 1 leads; OUT2 was led by seat 1: seat 0."""
    check_lead(FOUR, OUT_R2B.events(), 1)
    check_lead(THREE, TIE3.events(), 1)
    check_lead(TWO, OUT2.events(), 0)
    check_lead(TWO, TIE2.events(), 1)


def test_later_round_lead_survives_a_redeal() -> None:
    """002_10d567ad275b8de6.txt § Who leads ("the player on the right of whoever led the
    previous round") with § The deal ("dealt again"): a redeal does not move the lead.
    Seat 0 led BLOCK2; the next deal is redealt; seat 1 still leads."""
    check_lead(TWO, [*BLOCK2.events(), FIVE_DOUBLES], 1)


# --- Taking your turn ---------------------------------------------------------------------------


def test_match_an_open_end_choose_when_both_fit_no_spinners() -> None:
    """002_10d567ad275b8de6.txt § Taking your turn: "play a tile that matches the number on one
    of the two open ends. The other number on your tile becomes the new open end. If your
    tile fits both ends, you choose ... The line always has just two open ends: a double is
    placed crosswise, but it does not open new branches (no spinners)." """
    assert run(TWO, std_deal(2), moves("0:66 1:63l")).state.open_ends() == [
        ("left", 3), ("right", 6)]
    assert run(TWO, std_deal(2), moves("0:66 1:63r")).state.open_ends() == [
        ("left", 6), ("right", 3)]
    assert run(TWO, std_deal(2), moves("0:66 1:63l 0:62r 1:64u")).errors == [
        "tile-does-not-fit"]


def test_draw_until_one_fits_then_play_it() -> None:
    """002_10d567ad275b8de6.txt § Taking your turn: "If nothing fits, draw from the boneyard one
    tile at a time until you get one that does, then play it." Three seats: seat 1 draws
    6-1 and plays it (TIE3)."""
    assert run(THREE, TIE3.events()).clean()
    drawfit = deal("66 65 64 63 54 53 43", "55 44 33 21 10 20 31", stock="00 22 62")
    assert run(TWO, drawfit, moves("0:66 1:draw 1:draw 1:draw 1:pass")).errors == [
        "illegal-pass"]


def test_nothing_fits_and_no_boneyard_you_pass() -> None:
    """002_10d567ad275b8de6.txt § Taking your turn: "If nothing fits and the boneyard is empty
    (or there is none, at a table of four), you pass." """
    assert run(FOUR, OUT_R2B.events()).clean()  # three passes at four
    hoard = deal("66 65 64 63 54 53 43", "55 44 33 21 10 20 31", "62 61 60 52 51 50 42")
    assert run(THREE, hoard, moves("0:66 " + "1:draw " * 7 + "1:pass 2:62r")).clean()


def test_no_pass_or_draw_while_holding_a_tile_that_fits() -> None:
    """002_10d567ad275b8de6.txt § Taking your turn: "You can't pass while holding a tile that
    fits, and you can't draw when you have a play." """
    assert run(TWO, std_deal(2), moves("0:66 1:pass")).errors == ["illegal-pass"]
    assert run(TWO, std_deal(2), moves("0:66 1:draw")).errors == ["illegal-draw"]
    assert run(FOUR, std_deal(4), moves("0:66 1:pass")).errors == ["illegal-pass"]


# --- How a round ends -----------------------------------------------------------------------------


def test_going_out_ends_the_round_right_away() -> None:
    """002_10d567ad275b8de6.txt § How a round ends: "Going out: Someone plays the last tile in
    their hand. The round ends right away." After seat 2 goes out nobody plays on."""
    r = run(THREE, OUT3.events())
    assert r.deals == [("out", 2, 20)]
    assert run(THREE, OUT3.events(), moves("0:55l")).errors == ["deal-over"]


def test_blocked_game_round_ends_there() -> None:
    """002_10d567ad275b8de6.txt § How a round ends: "Blocked game: Everyone passes in turn and
    no one can play. The round ends there too." rules-decisions.md: the block is known as
    soon as nobody can play; the passes may follow in turn."""
    r = run(TWO, BLOCK2.events(), moves("1:pass 0:pass"))
    assert r.clean(), r.report.findings
    assert r.deals == [("block", 1, 54)]
    assert run(TWO, BLOCK2.events(), moves("0:pass")).errors == ["pass-out-of-order"]


# --- Scoring ---------------------------------------------------------------------------------


def test_going_out_scores_the_opponents_pips() -> None:
    """002_10d567ad275b8de6.txt § Scoring: "Going out: The player who went out scores the total
    pips left in the opponents' hands." Three seats: 10 + 10; two: 11; four: seat 2 scores
    seats 1 and 3 (15 + 0), not partner seat 0's 5-3."""
    assert run(THREE, OUT3.events()).deals == [("out", 2, 20)]
    assert run(TWO, OUT2.events()).deals == [("out", 0, 11)]
    assert run(FOUR, OUT_R2B.events()).deals == [("out", 2, 15)]


def test_blocked_fewest_pips_wins_the_opponents_total() -> None:
    """002_10d567ad275b8de6.txt § Scoring: "Blocked game: The player with the fewest pips in
    hand wins and scores the total in the opponents' hands." BLOCK2: seat 1 (52) scores
    54. "At the end of the round, every hand is shown and the pips left in each one are
    added up": the deal's record keeps both totals."""
    r = run(TWO, BLOCK2.events())
    assert r.deals == [("block", 1, 54)]
    [(_, scored)] = r.derived(DealScored)
    assert isinstance(scored, DealScored) and scored.pips == (54, 52)


def test_blocked_at_four_team_totals_are_compared() -> None:
    """002_10d567ad275b8de6.txt § Scoring: "At a table of four, each team's total is compared."
    rules-decisions.md: "the deal's `winner` is the team's lower seat number". LOW_R2:
    0+2 hold 43, 1+3 47: seat 0 scores 47. LOW_R2_HEAVY_PAIR: seat 2 is the lowest hand
    but 0+2 hold 47 against 43: seats 1+3 win 47."""
    assert run(FOUR, LOW_R2.events()).deals == [("block", 0, 47)]
    r = run(FOUR, LOW_R2_HEAVY_PAIR.events())
    assert r.deals == [("block", 1, 47)]
    assert r.report.scores == [0, 47]
    assert run(FOUR, PARTNERS_R0_R2.events()).deals == [("block", 0, 50)]


def test_blocked_and_tied_with_teams_no_one_scores() -> None:
    """002_10d567ad275b8de6.txt § Scoring: "Blocked and tied, with teams: Both teams have the
    same total: no one scores this round." TIE_EVEN: 45 and 45."""
    r = run(FOUR, TIE_EVEN.events())
    assert r.deals == [("tie", None, 0)]
    assert r.report.scores == [0, 0]


def test_blocked_and_tied_no_teams_lowest_tile_wins() -> None:
    """002_10d567ad275b8de6.txt § Scoring: "Blocked and tied, no teams: Among the tied players,
    the one holding the lowest tile wins". TIE2: both 36, seat 1 holds 0-0 against seat 0's
    1-0: seat 1 scores 36. TIE3: seats 1 and 2 hold 17; seat 2's 0-0 beats seat 1's 2-0:
    seat 2 scores 62 + 17."""
    assert run(TWO, TIE2.events()).deals == [("block", 1, 36)]
    assert run(THREE, TIE3.events()).deals == [("block", 2, 79)]


def test_blocked_and_tied_next_lowest_tiles_then_no_one() -> None:
    """002_10d567ad275b8de6.txt § Scoring: "if those tie too, the next-lowest tiles are
    compared. If everything is equal, no one scores." TWIN2 (2 5 6 7 against 2 5 6 7) and
    TWIN3 (4 5 6 against 4 5 6): nobody. Three hands of 13 whose lowest tiles are 3, 2, 2
    (2-0 and 1-1): the next-lowest decide, 4 before 5."""
    assert run(TWO, TWIN2.events()).deals == [("tie", None, 0)]
    assert run(THREE, TWIN3.events()).deals == [("tie", None, 0)]
    hands = (tiles("30 50 32"),   # 3 5 5
             tiles("20 41 33"),   # 2 5 6
             tiles("11 43 22"))   # 2 4 7
    assert THREE.block_winner(BlockView(hands, 0, THREE)) == 2


# --- Winning, resigning ----------------------------------------------------------------------


def test_first_to_reach_or_pass_the_target_wins_team_at_four() -> None:
    """002_10d567ad275b8de6.txt § Winning the game: "The first to reach or pass the target, 50
    or 100 points, wins. At a table of four, it's the team that wins." Target 50: seats 1+3
    win LOW_R2_HEAVY_PAIR on team totals (43 against 47): 47, not yet 50. Seat 1 leads
    the next deal (LOW_R2 turned one seat); seats 1+3 hold 35 + 8 = 43 against 25 + 22:
    47 more, 94, and the team wins."""
    rules = table("selminha", 4, target=50)
    first = run(rules, LOW_R2_HEAVY_PAIR.events())
    assert first.report.scores == [0, 47] and not first.report.complete
    both = run(rules, LOW_R2_HEAVY_PAIR.events(), LOW_R2.events(by=1))
    assert both.clean(), both.report.findings
    assert both.report.scores == [0, 94]
    assert both.report.complete and both.report.winner == 1


def test_resign_you_lose_at_three_the_remaining_player_with_more_points_wins() -> None:
    """002_10d567ad275b8de6.txt § Options, Resigning and inactivity: "If you resign or leave in
    the middle of a game, you lose; at a table of three, the remaining player with more
    points wins." After TIE3 seat 2 has 79: if seat 0 resigns seat 2 wins; if seat 2
    resigns, seats 0 and 1 have 0 each: no winner (rules-decisions.md)."""
    assert run(THREE, TIE3.events(), Resigned(seat=0)).report.winner == 2
    r = run(THREE, TIE3.events(), Resigned(seat=2))
    assert r.report.complete and r.report.winner is None
    assert run(TWO, OUT2.events(), Resigned(seat=0)).report.winner == 1
    assert run(FOUR, OUT_R2B.events(), Resigned(seat=2)).report.winner == 1


def test_inactivity_table_ends_with_no_winner() -> None:
    """002_10d567ad275b8de6.txt § Options: "A table with no moves for 7 days ends with no
    winner." rules-decisions.md: "`abandon`: no winner."""
    r = run(THREE, TIE3.events(), Abandoned(reason="no moves for 7 days"))
    assert r.report.complete and r.report.winner is None
    assert r.report.scores == [0, 0, 79]
