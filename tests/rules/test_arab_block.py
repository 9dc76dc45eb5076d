"""Block dominoes (Arab cafés): seed 003_d57eb88baa050f56.txt (rules-decisions.md `arab-block`).

Tests cite the seed's headings ("§ Starting the Game").
"""

from __future__ import annotations

import pytest

from ledger.rules import RulesError
from ledger.tiles import Tile

from .helpers import deal, lead_after, moves, run, std_deal, table
from .scenarios import (
    ARAB_BLOCK_AT_ONCE,
    ARAB_BLOCK_EVEN,
    ARAB_BLOCK_PLAYED,
    ARAB_OUT_LEADER,
    ARAB_OUT_OTHER,
)

SEED = "003_d57eb88baa050f56.txt"
ARAB = table("arab-block", 2)


def test_two_players_seven_tiles_boneyard_not_used() -> None:
    """003_d57eb88baa050f56.txt § Overview / § Setup: "two players, no drawing from the
    boneyard"; "Each player draws 7 tiles for their hand. The remaining 14 tiles form the
    boneyard and are not used in the Block variant." """
    assert ARAB.seats == 2 and ARAB.stock_size == 14 and not ARAB.draws
    with pytest.raises(RulesError):
        table("arab-block", 4)
    r = run(ARAB, ARAB_OUT_OTHER.deal(), moves("1:66 0:63l 1:62r 0:22r 1:draw"))
    assert r.errors == ["no-stock"]


def test_highest_double_plays_first() -> None:
    """003_d57eb88baa050f56.txt § Starting the Game: "The player with the highest double in
    their hand plays first. If one player has the 6-6, they start. If no one has the 6-6,
    the player with the 5-5 starts, and so on." ARAB_OUT_LEADER: 6-6 to 3-3 are undealt,
    seat 1's 2-2 is the highest double."""
    assert lead_after(ARAB, ARAB_OUT_OTHER.events()[:1]) == (1, Tile.parse("66"))
    five = deal("44 65 64 63 62 61 60", "55 33 54 53 52 51 50")
    assert lead_after(ARAB, [five]) == (1, Tile.parse("55"))
    assert lead_after(ARAB, ARAB_OUT_LEADER.events()[:1]) == (1, Tile.parse("22"))
    assert run(ARAB, ARAB_OUT_LEADER.deal(), moves("0:42")).errors == [
        "wrong-leader", "wrong-opening-tile"]


def test_no_double_highest_pip_tile_starts() -> None:
    """003_d57eb88baa050f56.txt § Starting the Game: "If no player has a double, the player
    with the highest-pip tile starts." (Ties: rules-decisions.md § Common, 6-1 first.)"""
    hands = deal("52 43 41 40 30 20 10", "61 51 42 32 31 21 50")
    assert lead_after(ARAB, [hands]) == (1, Tile.parse("61"))


def test_every_deal_starts_with_the_highest_double() -> None:
    """003_d57eb88baa050f56.txt § Starting the Game, rules-decisions.md `arab-block`: "The
    seed gives no other rule for later deals, so this one holds for every deal." Seat 0
    went out, but seat 1 holds 6-6 in the next deal and opens with it."""
    events = [*ARAB_OUT_OTHER.events(), std_deal(2, 1)]
    assert lead_after(ARAB, events) == (1, Tile.parse("66"))
    assert run(ARAB, events, moves("1:66")).clean()
    assert "wrong-leader" in run(ARAB, events, moves("0:40")).errors


def test_playing_tiles_match_an_end_other_half_open_choose_the_end() -> None:
    """003_d57eb88baa050f56.txt § Playing Tiles: "Each tile must connect to the chain by
    matching pips ... The matching half of your tile connects to the chain; the other half
    becomes the new open end. ... If your tile can match either end, you choose which end
    to play on." """
    r = run(ARAB, ARAB_BLOCK_PLAYED.deal(), moves("0:66 1:63l"))
    assert r.state.open_ends() == [("left", 3), ("right", 6)]
    assert run(ARAB, ARAB_BLOCK_PLAYED.deal(), moves("0:66 1:63r")).state.open_ends() == [
        ("left", 6), ("right", 3)]
    assert run(ARAB, ARAB_BLOCK_PLAYED.deal(), moves("0:66 1:63l 0:20r")).errors == [
        "tile-does-not-fit"]


def test_doubles_sideways_do_not_change_gameplay() -> None:
    """003_d57eb88baa050f56.txt § Playing Tiles: "Doubles are placed perpendicular (sideways)
    to the chain. This is a visual tradition and doesn't change gameplay." No third end."""
    r = run(ARAB, ARAB_OUT_OTHER.deal(), moves("1:66 0:63l 1:62r"))
    assert r.state.open_ends() == [("left", 3), ("right", 2)]
    assert run(ARAB, ARAB_OUT_OTHER.deal(), moves("1:66 0:63l 1:62r 0:60u")).errors == [
        "tile-does-not-fit"]


def test_passing_you_must_pass_when_nothing_matches() -> None:
    """003_d57eb88baa050f56.txt § Passing: "if you have no tile that matches either open end,
    you must pass your turn. There is no drawing from the boneyard." ARAB_OUT_OTHER: seat 1
    passes twice; passing with a match is refused."""
    assert run(ARAB, ARAB_OUT_OTHER.events()).clean()
    assert run(ARAB, ARAB_OUT_OTHER.deal(), moves("1:66 0:pass")).errors == ["illegal-pass"]


def test_round_ends_when_a_player_places_the_last_tile() -> None:
    """003_d57eb88baa050f56.txt § Ending a Round: "A player places their last tile - they
    'domino' and win the round." § Scoring: "you score the total pip count of ALL your
    opponent's remaining tiles." Seat 0 keeps 2-0 (ARAB_OUT_LEADER); seat 1 keeps 5-5 and
    6-4 (ARAB_OUT_OTHER)."""
    assert run(ARAB, ARAB_OUT_LEADER.events()).deals == [("out", 1, 2)]
    assert run(ARAB, ARAB_OUT_OTHER.events()).deals == [("out", 0, 20)]


def test_both_pass_consecutively_blocked() -> None:
    """003_d57eb88baa050f56.txt § Ending a Round: "Both players pass consecutively - the game
    is 'blocked.'" rules-decisions.md: the engine ends the deal as soon as neither can
    play; the two passes that follow are accepted in turn."""
    r = run(ARAB, ARAB_BLOCK_PLAYED.events())
    assert r.deals == [("block", 0, 47)]
    passed = run(ARAB, ARAB_BLOCK_PLAYED.events(), moves("1:pass 0:pass"))
    assert passed.clean() and passed.deals == r.deals
    assert run(ARAB, ARAB_BLOCK_PLAYED.events(), moves("0:pass")).errors == [
        "pass-out-of-order"]
    at_once = run(ARAB, ARAB_BLOCK_AT_ONCE.events())
    assert at_once.deals == [("block", 0, 55)]


def test_blocked_lowest_total_wins_the_losers_pips() -> None:
    """003_d57eb88baa050f56.txt § Ending a Round: "The player with the lowest total pip count
    on their remaining tiles wins." § Scoring: "If the game is blocked: the winner scores
    the loser's remaining pip total." 16 against 47; 11 against 55."""
    assert run(ARAB, ARAB_BLOCK_PLAYED.events()).report.scores == [47, 0]
    assert run(ARAB, ARAB_BLOCK_AT_ONCE.events()).report.scores == [55, 0]


def test_blocked_tie_is_a_draw() -> None:
    """003_d57eb88baa050f56.txt § Ending a Round: "In case of a tie, the round is a draw."
    Both keep 38: nobody scores."""
    r = run(ARAB, ARAB_BLOCK_EVEN.events())
    assert r.deals == [("tie", None, 0)]
    assert r.report.scores == [0, 0]


def test_scores_accumulate_first_to_100_wins() -> None:
    """003_d57eb88baa050f56.txt § Scoring: "Scores accumulate across rounds." § Winning the
    Game: "The first player to reach 100 points (across multiple rounds) wins the game."
    Seat 0 wins 55 twice (it holds 6-6 both times): 110."""
    once = run(ARAB, ARAB_BLOCK_AT_ONCE.events())
    assert once.report.scores == [55, 0] and not once.report.complete
    r = run(ARAB, ARAB_BLOCK_AT_ONCE.events(), ARAB_BLOCK_AT_ONCE.events())
    assert r.clean(), r.report.findings
    assert r.report.scores == [110, 0]
    assert r.report.complete and r.report.winner == 0
