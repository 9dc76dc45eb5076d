"""Sahrat Domino (draw): seed 001_e536ce776a04bae3.txt (rules-decisions.md `sahrat-draw`).

The seed has one numbered section ("1 Tiles and the deal"); the tests cite its
paragraphs by their first words.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from ledger.rules import RulesError
from ledger.rules.base import Rules
from ledger.tiles import Tile

from .helpers import Event, Scenario, deal, lead_after, moves, run, std_deal, std_plain, table
from .scenarios import (
    BLOCK2,
    LOW_R0,
    LOW_R2,
    OUT2,
    OUT_R0,
    OUT_R2,
    PARTNERS_R0_R2,
    TIE2,
    TIE_EVEN,
    TIE_R1_R2,
    TWIN2,
)

SEED = "001_e536ce776a04bae3.txt"
TWO = table("sahrat-draw", 2)
FOUR = table("sahrat-draw", 4)


def check_lead(rules: Rules, events: Sequence[Event], seat: int) -> None:
    """The next deal (6-6 dealt to the seat after ``seat``) is led by ``seat``, any tile."""
    n = rules.seats
    by = (seat + 1) % n
    nxt = [*events, std_deal(n, by)]
    assert lead_after(rules, nxt) == (seat, None)
    assert run(rules, nxt, moves(f"{seat}:{std_plain(n, seat, by)}")).clean()
    assert "wrong-leader" in run(rules, nxt, moves(f"{by}:66")).errors


# --- 1 Tiles and the deal ------------------------------------------------------------------


def test_tiles_seven_each_rest_is_the_stock_none_with_four() -> None:
    """001_e536ce776a04bae3.txt §1 Tiles and the deal: "Each player gets 7 tiles; the rest
    is the «البنك» (the stock). With 4 players all 28 tiles are dealt and there is no
    stock: a player with no tile that fits passes." """
    assert TWO.stock_size == 14 and TWO.draws
    assert FOUR.stock_size == 0 and not FOUR.draws
    nofit = deal("66 60 61 30 31 32 10", "55 44 00 40 41 21 20", "62 50 51 52 53 54 63",
                 "64 65 42 43 22 33 11")
    assert run(FOUR, nofit, moves("0:66 1:pass 2:62l")).clean()
    assert run(FOUR, nofit, moves("0:66 1:draw")).errors == ["no-stock"]


def test_play_goes_to_the_right_in_seat_order() -> None:
    """001_e536ce776a04bae3.txt §1: "Play goes to the right." (match-format.md: seat order.)"""
    assert run(FOUR, LOW_R2.deal(), moves("0:66 1:63r 2:26l")).clean()
    assert run(FOUR, LOW_R2.deal(), moves("0:66 2:26l")).errors == ["out-of-turn"]


def test_domino_draw_two_or_four_each_for_himself_target_100() -> None:
    """001_e536ce776a04bae3.txt §1: "Domino (draw): 2 or 4 players, each for himself. The
    target is 100 points." """
    assert not TWO.teams and not FOUR.teams and FOUR.sides == 4
    assert TWO.target == FOUR.target == 100
    with pytest.raises(RulesError):
        table("sahrat-draw", 3)
    r = run(FOUR, LOW_R2.events())  # seat 2 wins and scores alone
    assert r.report.scores == [0, 0, 82, 0]


# --- First round / Later rounds ----------------------------------------------------------------


def test_first_round_highest_double_starts_with_it() -> None:
    """001_e536ce776a04bae3.txt: "First round: the holder of the highest double starts with
    it (always 6-6 when all 28 tiles are dealt)." OUT2: seat 1's 5-5 (6-6 undealt); four
    seats: seat 3 holds 6-6."""
    assert lead_after(TWO, OUT2.events()[:1]) == (1, Tile.parse("55"))
    assert lead_after(FOUR, LOW_R2.events(by=3)[:1]) == (3, Tile.parse("66"))
    assert run(FOUR, LOW_R2.events(by=3)).clean()


def test_first_round_no_double_heaviest_tile_starts_with_it() -> None:
    """001_e536ce776a04bae3.txt: "If nobody holds a double, the holder of the heaviest tile
    starts with it." (6-1 before 5-2 before 4-3, rules-decisions.md § Common.)"""
    hands = deal("52 43 41 40 30 20 10", "61 51 42 32 31 21 50")
    assert lead_after(TWO, [hands]) == (1, Tile.parse("61"))
    assert run(TWO, hands, moves("1:51")).errors == ["wrong-opening-tile"]


def test_later_rounds_winner_starts_with_any_tile() -> None:
    """001_e536ce776a04bae3.txt: "Later rounds: the winner of the last round starts with any
    tile." OUT2: seat 0 went out; four seats, OUT_R2: seat 2 went out."""
    check_lead(TWO, OUT2.events(), 0)
    check_lead(FOUR, OUT_R2.events(), 2)


def test_later_rounds_after_a_block_the_last_tile_layer_starts() -> None:
    """001_e536ce776a04bae3.txt: "If the last round was blocked, the player who laid the
    last tile starts." BLOCK2: seat 1 wins but seat 0 laid 2-2 last; LOW_R2: seat 2 wins,
    seat 1 laid 0-6 last."""
    assert run(TWO, BLOCK2.events()).deals == [("block", 1, 54)]
    check_lead(TWO, BLOCK2.events(), 0)
    check_lead(FOUR, LOW_R2.events(), 1)


def test_later_rounds_after_a_tied_block_the_last_tile_layer_starts() -> None:
    """001_e536ce776a04bae3.txt "If the last round was blocked, the player who laid the last
    tile starts", rules-decisions.md: "also when that block was a tie". TIE2: seat 0 led
    and laid 3-3 last; TWIN2: seat 1 led, seat 0 laid 6-5 last; TIE_EVEN: seat 1 last."""
    check_lead(TWO, TIE2.events(), 0)
    check_lead(TWO, TWIN2.events(), 0)
    check_lead(FOUR, TIE_EVEN.events(), 1)


# --- Laying tiles --------------------------------------------------------------------------


def test_lay_on_a_matching_end_other_half_becomes_the_end() -> None:
    """001_e536ce776a04bae3.txt: "Lay a tile on an open end that matches one of its halves;
    the other half becomes the new end." 6-3 on 6 leaves 3; 4-1 on 4 is refused at 3."""
    r = run(FOUR, LOW_R2.deal(), moves("0:66 1:63r"))
    assert r.state.open_ends() == [("left", 6), ("right", 3)]
    assert run(FOUR, LOW_R2.deal(), moves("0:66 1:63r 2:26r")).errors == ["wrong-end"]


def test_a_tile_that_fits_both_ends_goes_where_you_choose() -> None:
    """001_e536ce776a04bae3.txt: "A tile that fits both ends goes on the end you choose." """
    left = run(FOUR, LOW_R2.deal(), moves("0:66 1:63l"))
    right = run(FOUR, LOW_R2.deal(), moves("0:66 1:63r"))
    assert left.clean() and right.clean()
    assert left.state.open_ends() == [("left", 3), ("right", 6)]


def test_a_double_sits_in_line_its_number_stays_open() -> None:
    """001_e536ce776a04bae3.txt: "A double sits in line like any tile, and its number stays
    open." (Domino draw: no spinner.) After 6-6 and 6-3 the 6 stays open on the left; once
    both sides are covered there is no third end."""
    r = run(FOUR, LOW_R2.deal(), moves("0:66 1:63r 2:26l"))
    assert r.state.open_ends() == [("left", 2), ("right", 3)]
    assert run(FOUR, LOW_R2.deal(), moves("0:66 1:63r 2:26l 3:34u")).errors == ["wrong-end"]


DRAWFIT = deal("66 65 64 63 54 53 43", "55 44 33 21 10 20 31", stock="00 22 62")


def test_draw_one_at_a_time_until_one_fits() -> None:
    """001_e536ce776a04bae3.txt: "In Domino (draw) and Fives: with no tile that fits, you draw
    from the stock one tile at a time until one fits." Seat 1 draws 0-0, 2-2 and 6-2, then
    lays 6-2; the fitting tile cannot be kept back."""
    assert run(TWO, DRAWFIT, moves("0:66 1:draw 1:draw 1:draw 1:62r")).clean()
    assert run(TWO, DRAWFIT, moves("0:66 1:draw 1:draw 1:draw 1:draw")).errors == [
        "illegal-draw"]


def test_cannot_draw_while_holding_a_tile_that_fits() -> None:
    """001_e536ce776a04bae3.txt: "You cannot draw while you hold a tile that fits." """
    assert run(TWO, std_deal(2), moves("0:66 1:draw")).errors == ["illegal-draw"]


def test_stock_empty_the_server_passes_you() -> None:
    """001_e536ce776a04bae3.txt: "If the stock is empty, the server passes you." Seat 1 draws
    all 14 tiles without a 6; its pass is recorded and accepted; a further draw is not."""
    hoard = deal("66 65 64 63 62 61 60", "55 44 33 21 10 20 31")
    draws = "1:draw " * 14
    assert run(TWO, hoard, moves(f"0:66 {draws}1:pass")).clean()
    assert run(TWO, hoard, moves(f"0:66 {draws}1:draw")).errors == ["empty-stock"]


# --- «دومينو!» and «قفلت» ------------------------------------------------------------------------


def test_domino_out_wins_and_scores_every_opponents_pips() -> None:
    """001_e536ce776a04bae3.txt «دومينو!»: "the player who lays his last tile wins the round
    and scores the pips left in every opponent's hand." OUT_R0: seats 1, 2, 3 keep 0-0,
    3-3, 4-4: 0 + 6 + 8 = 14. OUT2: 11."""
    assert run(FOUR, OUT_R0.events()).deals == [("out", 0, 14)]
    assert run(TWO, OUT2.events()).deals == [("out", 0, 11)]


def test_blocked_lowest_hand_wins_and_scores_the_others() -> None:
    """001_e536ce776a04bae3.txt «قفلت»: "if nobody can play and nothing is left to draw, the
    lowest hand wins and scores the others' pips as above." LOW_R2: seat 2 (8) scores
    35 + 25 + 22; BLOCK2: seat 1 (52) scores 54."""
    assert run(FOUR, LOW_R2.events()).deals == [("block", 2, 82)]
    assert run(TWO, BLOCK2.events()).deals == [("block", 1, 54)]


@pytest.mark.parametrize(("rules", "scenario"), [
    (TWO, TIE2), (TWO, TWIN2), (FOUR, TIE_R1_R2), (FOUR, TIE_EVEN), (FOUR, PARTNERS_R0_R2),
], ids=["two-36", "two-20", "four-r1-r2", "four-even", "four-r0-r2"])
def test_blocked_two_tied_for_lowest_nobody_scores(rules: Rules, scenario: Scenario) -> None:
    """001_e536ce776a04bae3.txt «قفلت»: "If two sides tie for the lowest, nobody scores";
    rules-decisions.md: "With 4 seats each for himself, any two seats tied for lowest:
    nobody scores" (seats 0 and 2 too: there are no partners in Domino draw)."""
    r = run(rules, scenario.events())
    assert r.deals == [("tie", None, 0)]
    assert set(r.report.scores or []) == {0}


# --- The game ends -------------------------------------------------------------------------------


def test_game_ends_when_the_top_score_reaches_the_target_unshared() -> None:
    """001_e536ce776a04bae3.txt: "The game ends when the top score reaches the target (100
    ...) and nobody shares it." Seat 2 wins 82 (seat 1 laid the last tile and leads
    next), seat 1 wins 83 (seat 2 laid the last tile), seat 2 wins 83: 165, the match
    ends there and not before."""
    d1 = LOW_R2.events()
    d2 = LOW_R0.events(by=1)
    d3 = LOW_R0.events(by=2)
    r = run(FOUR, d1, d2, d3)
    assert r.clean(), r.report.findings
    assert r.deals == [("block", 2, 82), ("block", 1, 83), ("block", 2, 83)]
    assert r.report.scores == [0, 83, 165, 0]
    assert r.report.complete and r.report.winner == 2
    assert [i for i, _ in r.ended] == [len(r.events) - 1]
