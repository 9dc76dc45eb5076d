"""PlayElephant Domena: seed 000_3053cf30db062627.txt (and rules-decisions.md `domena`).

Section numbers are the seed's own ("§6 A blocked deal, four players").
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from ledger.rules.base import Rules
from ledger.tiles import Tile

from .helpers import (
    STD,
    BotSeated,
    Dealt,
    Event,
    FivesScored,
    Scenario,
    deal,
    lead_after,
    moves,
    run,
    std_deal,
    std_plain,
    table,
)
from .scenarios import (
    BLOCK2,
    LINE6_SCRIPT,
    LOW_R2,
    LOW_R2_HEAVY_PAIR,
    OUT2,
    OUT_R0,
    OUT_R2,
    PARTNERS_R0_R2,
    PARTNERS_R1_R3,
    TIE2,
    TIE_EVEN,
    TIE_R1_R2,
    TWIN2,
)

SEED = "000_3053cf30db062627.txt"
TWO = table("domena", 2)
FOUR = table("domena", 4)


def check_lead(rules: Rules, events: Sequence[Event], seat: int) -> None:
    """A next deal (6-6 dealt to the seat after ``seat``) is led by ``seat`` with any tile:
    its plain tile is accepted, the 6-6 holder opening is a wrong leader."""
    n = rules.seats
    by = (seat + 1) % n
    nxt = [*events, std_deal(n, by)]
    assert lead_after(rules, nxt) == (seat, None)
    assert run(rules, nxt, moves(f"{seat}:{std_plain(n, seat, by)}")).clean()
    assert "wrong-leader" in run(rules, nxt, moves(f"{by}:66")).errors


# --- §1 Set, players, direction -----------------------------------------------------------


def test_s1_one_on_one_or_two_pairs_sharing_a_score() -> None:
    """000_3053cf30db062627.txt §1: "Two players play one on one. Four players play in two
    pairs, and partners sit opposite each other. The score of a pair is shared." """
    assert not TWO.teams and TWO.sides == 2
    assert FOUR.teams and [FOUR.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    r = run(FOUR, LOW_R2.events())  # r2 = seat 2 wins the block for seats 0 and 2
    assert r.report.scores == [47, 0]


def test_s1_play_goes_counter_clockwise_in_seat_order() -> None:
    """000_3053cf30db062627.txt §1: "Play goes counter-clockwise" - match-format.md: the
    seats are listed in that order, so after seat 1 comes seat 2."""
    assert run(FOUR, std_deal(4), moves("0:66 1:63l 2:62r")).clean()
    assert run(FOUR, std_deal(4), moves("0:66 1:63l 3:64r")).errors == ["out-of-turn"]


def test_s1_a_double_is_an_ordinary_tile_no_spinner() -> None:
    """000_3053cf30db062627.txt §1: "A double is laid across the line, but it is an ordinary
    tile: there is no spinner, and nothing is added to the line at the sides." With 6-6
    covered left and right, the line still has two ends; "up" is not one of them."""
    r = run(FOUR, LOW_R2.deal(), moves("0:66 1:63r 2:26l"))
    assert r.state.open_ends() == [("left", 2), ("right", 3)]
    assert run(FOUR, LOW_R2.deal(), moves("0:66 1:63r 2:26l 3:34u")).errors == ["wrong-end"]


def test_s1_nothing_is_scored_during_the_deal() -> None:
    """000_3053cf30db062627.txt §1: "Nothing is scored during the deal. Points are counted
    once, when the deal ends." OUT2 opens 5-5 (a Fives table would score 10): no score
    until seat 0 goes out, then 11 (seat 1's 6-5)."""
    r = run(TWO, OUT2.events())
    assert r.derived(FivesScored) == []
    scored = [i for i, evs in enumerate(r.report.derived) if evs]
    assert scored == [len(r.events) - 1]  # only the last play derives anything
    assert r.report.scores == [11, 0]


# --- §2 The deal ----------------------------------------------------------------------------


def test_s2_seven_each_boneyard_of_14_for_two_none_for_four() -> None:
    """000_3053cf30db062627.txt §2: "Each player gets 7 tiles. Two players: the remaining 14
    tiles stay face down as the boneyard. Four players: all 28 tiles are dealt, so there is
    no boneyard." """
    assert TWO.stock_size == 14 and TWO.draws
    assert FOUR.stock_size == 0 and not FOUR.draws
    full = deal(*STD[2])
    assert full.stock is not None and len(full.stock) == 14
    short = Dealt(hands=full.hands, stock=full.stock[:13])
    assert run(TWO, short, moves("0:66")).errors == ["bad-deal"]


# --- §3 The first tile ----------------------------------------------------------------------


def test_s3_first_deal_four_players_holder_of_66_opens_with_it() -> None:
    """000_3053cf30db062627.txt §3 First deal: "Four players: the holder of 66 starts and
    must open with exactly this tile." 6-6 is seat 2's here."""
    events = LOW_R2.events(by=2)
    assert lead_after(FOUR, events[:1]) == (2, Tile.parse("66"))
    assert run(FOUR, events).clean()
    assert run(FOUR, events[:1], moves("2:12")).errors == ["wrong-opening-tile"]
    assert sorted(run(FOUR, events[:1], moves("3:63")).errors) == [
        "wrong-leader", "wrong-opening-tile"]


def test_s3_first_deal_two_players_highest_double_among_the_dealt() -> None:
    """000_3053cf30db062627.txt §3 First deal: "Two players: the holder of the highest double
    among the 14 dealt tiles starts and must open with it." 6-6 is in the boneyard; seat 1's
    5-5 is the highest double dealt."""
    assert lead_after(TWO, OUT2.events()[:1]) == (1, Tile.parse("55"))
    assert run(TWO, OUT2.events()).clean()
    assert run(TWO, OUT2.deal(), moves("1:65")).errors == ["wrong-opening-tile"]


def test_s3_first_deal_no_double_heaviest_tile_61_before_52_before_43() -> None:
    """000_3053cf30db062627.txt §3 First deal: "If neither player has a double, the player
    with the heaviest tile starts with it. Between equal weights the tile with the higher
    number wins, so 61 beats 52, which beats 43." """
    with_61 = deal("52 43 41 40 30 20 10", "61 51 42 32 31 21 50")
    assert lead_after(TWO, [with_61]) == (1, Tile.parse("61"))
    without_61 = deal("43 41 40 30 20 10 60", "52 51 42 32 31 21 50")
    assert lead_after(TWO, [without_61]) == (1, Tile.parse("52"))
    assert sorted(run(TWO, without_61, moves("0:43")).errors) == [
        "wrong-leader", "wrong-opening-tile"]


def test_s3_later_deal_winner_leads_with_any_tile() -> None:
    """000_3053cf30db062627.txt §3 Later deals: "The winner of the previous deal leads, and
    may play any tile." Seat 0 went out in OUT2; in the next deal seat 0 leads, and with a
    plain tile, although seat 1 holds 6-6."""
    check_lead(TWO, OUT2.events(), 0)


def test_s3_later_deal_pair_game_the_player_who_went_out() -> None:
    """000_3053cf30db062627.txt §3 Later deals: "In a pair game the winner is the player who
    went out." Seat 2 went out (OUT_R2); seat 2 leads next, not its partner seat 0."""
    check_lead(FOUR, OUT_R2.events(), 2)


def test_s3_later_deal_after_block_lowest_hand_in_winning_pair() -> None:
    """000_3053cf30db062627.txt §3 Later deals: "After a block it is the player with the
    lowest hand in the winning pair." LOW_R2: seat 2 (8 pips) beats its partner seat 0
    (35). TIE_R1_R2: the pair 0+2 wins on sums; seat 2 (19) is lower than seat 0 (20)."""
    check_lead(FOUR, LOW_R2.events(), 2)
    check_lead(FOUR, TIE_R1_R2.events(), 2)


@pytest.mark.parametrize(("scenario", "by", "leader"), [
    (PARTNERS_R0_R2, 0, 2),  # seats 0 and 2 tie: count from seat 1: seat 2 comes first
    (PARTNERS_R1_R3, 0, 1),  # seats 1 and 3 tie: seat 1 comes first
    (PARTNERS_R0_R2, 1, 3),  # seat 1 led; seats 1 and 3 tie: from seat 2, seat 3 first
    (PARTNERS_R0_R2, 3, 1),  # seat 3 led; seats 3 and 1 tie: from seat 0, seat 1 first
])
def test_s3_later_deal_partners_equal_counting_rule(scenario: Scenario, by: int,
                                                    leader: int) -> None:
    """000_3053cf30db062627.txt §3 Later deals, "the lowest hand in the winning pair", with
    rules-decisions.md `domena`: "if both partners are equal: the one reached first counting
    seats from the one after the previous leader, the previous leader last"."""
    events = scenario.events(by=by)
    assert run(FOUR, events).deals[0][1] == leader
    check_lead(FOUR, events, leader)


def test_s3_later_deal_after_a_tie_next_player_from_previous_leader() -> None:
    """000_3053cf30db062627.txt §3 Later deals: "If the previous deal ended in a tie with no
    winner, the lead passes to the next player counter-clockwise from the previous
    leader." Two seats: seat 0 led TIE2, seat 1 leads next. Four seats: seat 1 led the
    tied deal (TIE_EVEN turned one seat), seat 2 leads next."""
    check_lead(TWO, TIE2.events(), 1)
    check_lead(FOUR, TIE_EVEN.events(by=1), 2)


# --- §4 Playing a tile ------------------------------------------------------------------------


def test_s4_a_tile_joins_an_end_showing_the_same_number() -> None:
    """000_3053cf30db062627.txt §4: "One half of your tile must show the same number as that
    end." With ends 2 and 3, seat 3's 6-5 fits neither."""
    r = run(FOUR, LOW_R2.deal(), moves("0:66 1:63r 2:26l 3:65r"))
    assert r.errors == ["tile-does-not-fit"]


def test_s4_fits_both_ends_you_choose() -> None:
    """000_3053cf30db062627.txt §4: "If your tile fits both ends, you choose which one to
    use." 6-3 may go left or right of 6-6."""
    for end in "lr":
        r = run(FOUR, LOW_R2.deal(), moves(f"0:66 1:63{end}"))
        assert r.clean()
    assert run(FOUR, LOW_R2.deal(), moves("0:66 1:63l")).state.open_ends() == [
        ("left", 3), ("right", 6)]


def test_s4_blank_joins_only_blank() -> None:
    """000_3053cf30db062627.txt §4: "The blank half (0) only joins another blank." After 5-0
    the right end is 0: seat 1 may lay 0-6 there, not 4-6."""
    script = LINE6_SCRIPT.split()
    base = " ".join(script[:9])  # up to 5-0: ends 6 and 0
    assert run(FOUR, LOW_R2.deal(), moves(f"{base} 1:06r")).clean()
    bad = run(FOUR, LOW_R2.deal(), moves(f"{base} 1:51r"))  # seat 1 holds 5-1
    assert bad.errors == ["tile-does-not-fit"]


def test_s4_must_play_cannot_pass_or_draw_with_a_move() -> None:
    """000_3053cf30db062627.txt §4: "If you have a tile that can be played, you must play.
    You cannot pass or draw while you have a move." """
    assert run(FOUR, LOW_R2.deal(), moves("0:66 1:pass")).errors == ["illegal-pass"]
    two = deal("66 65 64 63 54 53 43", "55 44 33 21 10 20 31", stock="00 22 62")
    r = run(TWO, two, moves("0:66 1:draw 1:draw 1:draw 1:62r 0:draw"))
    assert r.errors == ["illegal-draw"]


# --- §5 No move: drawing and passing -----------------------------------------------------------

DRAWFIT = deal("66 65 64 63 54 53 43", "55 44 33 21 10 20 31", stock="00 22 62")


def test_s5_two_players_draw_one_at_a_time_until_one_fits() -> None:
    """000_3053cf30db062627.txt §5 Two players: "If you cannot play, you take tiles from the
    boneyard, one at a time, until you pick one that fits. There is no limit." Seat 1 draws
    0-0 and 2-2 (no fit), then 6-2."""
    r = run(TWO, DRAWFIT, moves("0:66 1:draw 1:draw 1:draw 1:62r"))
    assert r.clean(), r.report.findings
    assert r.state.stock_left == 11


def test_s5_the_tile_that_fits_is_played_at_once() -> None:
    """000_3053cf30db062627.txt §5: "The tile that fits must be played at once, and your turn
    ends with it." Drawing again or passing after 6-2 is illegal; playing it ends the turn."""
    base = "0:66 1:draw 1:draw 1:draw"
    assert run(TWO, DRAWFIT, moves(f"{base} 1:draw")).errors == ["illegal-draw"]
    assert run(TWO, DRAWFIT, moves(f"{base} 1:pass")).errors == ["illegal-pass"]
    assert run(TWO, DRAWFIT, moves(f"{base} 1:62r")).state.to_move == 0


def test_s5_boneyard_empty_and_no_play_you_pass_at_no_cost() -> None:
    """000_3053cf30db062627.txt §5: "If the boneyard runs out and you still cannot play, you
    pass. Passing costs nothing." Seat 1 draws all 14 tiles (no 6 among them), then
    passes; the scores do not move."""
    hoard = deal("66 65 64 63 62 61 60", "55 44 33 21 10 20 31")
    r = run(TWO, hoard, moves("0:66 " + "1:draw " * 14 + "1:pass"))
    assert r.clean(), r.report.findings
    assert r.report.scores == [0, 0] and r.state.to_move == 0


def test_s5_cannot_draw_with_a_playable_tile() -> None:
    """000_3053cf30db062627.txt §5: "You cannot draw when you have a playable tile." Seat 1
    holds 6-3 over 6-6."""
    assert run(TWO, std_deal(2), moves("0:66 1:draw")).errors == ["illegal-draw"]


def test_s5_four_players_no_boneyard_pass_without_penalty() -> None:
    """000_3053cf30db062627.txt §5 Four players: "There is no boneyard. A player with no move
    passes (bas) and the turn goes to the next player. A pass is not penalised and scores
    nothing." OUT_R2 has two passes; a draw at four is refused."""
    r = run(FOUR, OUT_R2.events())
    assert r.clean()
    assert r.deals == [("out", 2, 10)]  # no pass changed the score
    assert run(FOUR, std_deal(4), moves("0:66 1:draw")).errors == ["no-stock"]


# --- §6 End of a deal -----------------------------------------------------------------------


def test_s6_going_out_the_whole_pair_wins() -> None:
    """000_3053cf30db062627.txt §6 Going out: "The player who plays their last tile wins the
    deal. In a pair game the whole pair wins, even though only one partner went out."
    Seat 2 goes out: seats 0 and 2 score (the pair's shared score)."""
    r = run(FOUR, OUT_R2.events())
    assert r.deals == [("out", 2, 10)]
    assert r.report.scores == [10, 0]
    two = run(TWO, OUT2.events())
    assert two.deals == [("out", 0, 11)]


def test_s6_block_two_players_fewer_pips_wins() -> None:
    """000_3053cf30db062627.txt §6 A blocked deal: "A deal is blocked when nobody can play and
    there is nothing left to draw ... Two players: the player with fewer pips wins."
    BLOCK2: seat 1 holds 52, seat 0 54."""
    r = run(TWO, BLOCK2.events())
    assert r.deals == [("block", 1, 54)]
    assert r.report.scores == [0, 54]


def test_s6_block_two_players_equal_nobody_scores() -> None:
    """000_3053cf30db062627.txt §6 A blocked deal: "If both hands are equal, nobody scores."
    TIE2 (36 and 36) and TWIN2 (20 and 20)."""
    for scenario in (TIE2, TWIN2):
        r = run(TWO, scenario.events())
        assert r.deals == [("tie", None, 0)]
        assert r.report.scores == [0, 0]


def test_s6_block_four_players_lowest_hand_wins_for_the_pair() -> None:
    """000_3053cf30db062627.txt §6 A blocked deal, four players: "the player with the lowest
    hand of all wins for their pair." LOW_R2: seat 2 (8) wins; LOW_R2_HEAVY_PAIR: seat 2
    (12) wins for seats 0+2 although that pair holds more (47 against 43)."""
    assert run(FOUR, LOW_R2.events()).deals == [("block", 2, 25 + 22)]
    assert run(FOUR, LOW_R2_HEAVY_PAIR.events()).deals == [("block", 2, 20 + 23)]


def test_s6_block_four_players_two_lowest_tie_compare_pair_sums() -> None:
    """000_3053cf30db062627.txt §6 A blocked deal, four players: "If the two lowest hands
    belong to players of different pairs and are equal, the sums of the two pairs are
    compared." TIE_R1_R2: seats 1 and 2 hold 19; pair 0+2 holds 39, pair 1+3 holds 51, so
    seats 0+2 win 51; the pair's lowest hand is seat 2."""
    assert run(FOUR, TIE_R1_R2.events()).deals == [("block", 2, 51)]


def test_s6_block_four_players_pair_sums_equal_nobody_scores() -> None:
    """000_3053cf30db062627.txt §6 A blocked deal, four players: "If those are equal too,
    nobody scores." TIE_EVEN: seats 1 and 2 hold 18, both pairs 45."""
    r = run(FOUR, TIE_EVEN.events())
    assert r.deals == [("tie", None, 0)]
    assert r.report.scores == [0, 0]


def test_s6_partners_tied_for_lowest_win_for_their_pair() -> None:
    """000_3053cf30db062627.txt §6 "the player with the lowest hand of all wins for their
    pair", rules-decisions.md `domena`: "Two partners tied for lowest: their pair wins."
    PARTNERS_R0_R2 (seats 0 and 2 hold 20): seats 0+2 score 25 + 25; PARTNERS_R1_R3: seats
    1+3 score 29 + 21."""
    assert run(FOUR, PARTNERS_R0_R2.events()).deals == [("block", 2, 50)]
    assert run(FOUR, PARTNERS_R1_R3.events()).deals == [("block", 1, 50)]


def test_s6_last_move_before_the_block_no_extra_credit() -> None:
    """000_3053cf30db062627.txt §6: "The player who made the last move before the block gets
    no extra credit or blame." In TIE_R1_R2 seat 1 lays the blocking tile and ties for
    lowest with seat 2; the pair sums decide, and seat 1's pair loses."""
    r = run(FOUR, TIE_R1_R2.events())
    assert r.state.last_player == 1
    assert r.deals == [("block", 2, 51)]
    assert r.report.scores == [51, 0]


# --- §7 Scoring -------------------------------------------------------------------------------


def test_s7_winner_scores_the_losing_sides_pips_not_rounded() -> None:
    """000_3053cf30db062627.txt §7: "The winner of the deal scores all the pips on the tiles
    left in the losing side's hands: the one opponent in a one-on-one game, both opponents
    in a pair game. ... Points are not rounded." LOW_R2: 25 + 22 = 47; BLOCK2: 54."""
    assert run(FOUR, LOW_R2.events()).report.scores == [47, 0]
    assert run(TWO, BLOCK2.events()).report.scores == [0, 54]


def test_s7_winners_own_and_partners_tiles_not_counted() -> None:
    """000_3053cf30db062627.txt §7: "The winner's own tiles are not subtracted. A winning
    partner's tiles are not counted either." OUT_R0: seat 0 goes out; partner seat 2 keeps
    3-3 (6), seats 1 and 3 keep 0-0 and 4-4: the pair scores 0 + 8. LOW_R2: the winner's
    8 and partner's 35 are neither added nor subtracted: 47."""
    assert run(FOUR, OUT_R0.events()).deals == [("out", 0, 8)]
    assert run(FOUR, LOW_R2.events()).deals == [("block", 2, 47)]


# --- §8 End of the game -------------------------------------------------------------------------


def test_s8_first_side_to_reach_100_wins() -> None:
    """000_3053cf30db062627.txt §8: "After every deal the score is updated. The first side to
    reach 100 points or more wins the game." Seats 0+2 win three blocks of 47: 47, 94, then
    141; the match ends after the third deal, not before."""
    d1 = LOW_R2.events()          # seat 2 wins, leads next
    d2 = LOW_R2.events(by=2)      # seat 2 holds 6-6 and leads; seat 0 wins, leads next
    d3 = LOW_R2.events()
    r = run(FOUR, d1, d2, d3)
    assert r.clean(), r.report.findings
    assert [d[2] for d in r.deals] == [47, 47, 47]
    assert r.report.scores == [141, 0]
    assert [i for i, _ in r.ended] == [len(r.events) - 1]
    assert r.report.winner == 0 and r.report.complete
    two = run(FOUR, d1, d2)
    assert two.report.scores == [94, 0] and not two.report.complete


def test_s8_target_option_reached_exactly_wins() -> None:
    """000_3053cf30db062627.txt §8 "reach 100 points or more" with rules-decisions.md
    `domena`: "the first side to reach `target` ... or more wins": 47 points reach a
    target of 47."""
    r = run(table("domena", 4, target=47), LOW_R2.events())
    assert r.report.complete and r.report.winner == 0
    assert not run(table("domena", 4, target=48), LOW_R2.events()).report.complete


def test_s8_score_sheet_every_deal_out_block_or_tie() -> None:
    """000_3053cf30db062627.txt §8: "Only the winner scores in a deal ... The score sheet
    shows every deal, the points and how it ended: out, block or tie." Seat 0 leads a tie
    (seat 1 leads next), seat 1 leads and seat 0 goes out (seat 0 leads next), seat 0 leads
    and seat 1 wins the block."""
    r = run(TWO, TIE2.events(), OUT2.events(), BLOCK2.events())
    assert r.clean(), r.report.findings
    assert r.deals == [("tie", None, 0), ("out", 0, 11), ("block", 1, 54)]
    assert r.report.scores == [11, 54]


# --- §9 Conduct and penalties ------------------------------------------------------------------


def test_s9_illegal_moves_are_not_accepted() -> None:
    """000_3053cf30db062627.txt §9: "the server does not accept a tile that does not fit or a
    pass when you have a move." """
    assert run(FOUR, LOW_R2.deal(), moves("0:66 1:63r 2:26l 3:65r")).errors == [
        "tile-does-not-fit"]
    assert run(FOUR, LOW_R2.deal(), moves("0:66 1:63r 2:pass")).errors == ["illegal-pass"]


def test_s9_a_marked_bot_takes_the_seat_and_finishes() -> None:
    """000_3053cf30db062627.txt §9: "A marked bot takes the seat of a player who has left and
    finishes the game." rules-decisions.md `domena`: "`bot` events are legal"."""
    events = LOW_R2.events()
    r = run(FOUR, events[:3], BotSeated(seat=3), events[3:])
    assert r.clean(), r.report.findings
    assert r.deals == [("block", 2, 47)]
