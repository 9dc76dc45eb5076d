"""Sahrat Partner Domino: seed 001_e536ce776a04bae3.txt (rules-decisions.md `sahrat-partner`)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from ledger.rules import RulesError
from ledger.tiles import Tile

from .helpers import Event, deal, lead_after, moves, run, std_deal, std_plain, table
from .scenarios import (
    LOW_R2,
    LOW_R2_HEAVY_PAIR,
    OUT_R0,
    OUT_R2,
    PARTNERS_R0_R2,
    PARTNERS_R1_R3,
    TIE_EVEN,
    TIE_R1_R2,
)

SEED = "001_e536ce776a04bae3.txt"
PARTNER = table("sahrat-partner", 4)


def check_lead(events: Sequence[Event], seat: int) -> None:
    """The next deal (6-6 dealt to the seat after ``seat``) is led by ``seat``, any tile."""
    by = (seat + 1) % 4
    nxt = [*events, std_deal(4, by)]
    assert lead_after(PARTNER, nxt) == (seat, None)
    assert run(PARTNER, nxt, moves(f"{seat}:{std_plain(4, seat, by)}")).clean()
    assert "wrong-leader" in run(PARTNER, nxt, moves(f"{by}:66")).errors


def test_partner_four_players_two_teams_target_100() -> None:
    """001_e536ce776a04bae3.txt §1: "Partner Domino: 4 players in two teams, your partner
    across from you. The target is 100 points, and the team's score is shared." """
    assert PARTNER.teams and [PARTNER.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert PARTNER.target == 100
    with pytest.raises(RulesError):
        table("sahrat-partner", 2)
    assert run(PARTNER, OUT_R2.events()).report.scores == [10, 0]


def test_partner_no_drawing_pass_without_a_fit() -> None:
    """001_e536ce776a04bae3.txt: "In Partner: no drawing; a player with no tile that fits
    passes." """
    nofit = deal("66 60 61 30 31 32 10", "55 44 00 40 41 21 20", "62 50 51 52 53 54 63",
                 "64 65 42 43 22 33 11")
    assert run(PARTNER, nofit, moves("0:66 1:pass 2:62l")).clean()
    assert run(PARTNER, nofit, moves("0:66 1:draw")).errors == ["no-stock"]
    assert run(PARTNER, nofit, moves("0:66 1:pass 2:pass")).errors == ["illegal-pass"]


def test_partner_first_round_6_6_starts() -> None:
    """001_e536ce776a04bae3.txt: "First round: the holder of the highest double starts with
    it (always 6-6 when all 28 tiles are dealt)." """
    assert lead_after(PARTNER, LOW_R2.events(by=1)[:1]) == (1, Tile.parse("66"))
    assert run(PARTNER, LOW_R2.events(by=1)).clean()


def test_partner_a_double_sits_in_line() -> None:
    """001_e536ce776a04bae3.txt: "A double sits in line like any tile, and its number stays
    open." No spinner at the Partner table."""
    assert run(PARTNER, LOW_R2.deal(), moves("0:66 1:63r 2:26l 3:34u")).errors == ["wrong-end"]


def test_partner_out_scores_both_opponents_never_the_partner() -> None:
    """001_e536ce776a04bae3.txt «دومينو!»: "In Partner you score both opponents' pips, never
    your partner's." OUT_R0: seat 0 out, partner seat 2 keeps 3-3: 0 + 8. OUT_R2: seat 2
    out, partner seat 0 keeps 4-4: 10 + 0."""
    assert run(PARTNER, OUT_R0.events()).deals == [("out", 0, 8)]
    assert run(PARTNER, OUT_R2.events()).deals == [("out", 2, 10)]


def test_partner_block_lowest_hand_wins_for_the_team() -> None:
    """001_e536ce776a04bae3.txt «قفلت»: "the lowest hand wins and scores the others' pips as
    above" - as above for Partner: both opponents, never the partner. LOW_R2: seat 2 (8)
    wins 25 + 22; LOW_R2_HEAVY_PAIR: seat 2 (12) wins 20 + 23 though its team holds more."""
    assert run(PARTNER, LOW_R2.events()).deals == [("block", 2, 47)]
    assert run(PARTNER, LOW_R2_HEAVY_PAIR.events()).deals == [("block", 2, 43)]


def test_partner_two_partners_tied_for_lowest_still_win() -> None:
    """001_e536ce776a04bae3.txt «قفلت»: "(in Partner, two partners tied for lowest still win
    it)"; rules-decisions.md § Common: the deal's `winner` is then "the team's lower seat
    number". Seats 0 and 2 tie: seat 0, 25 + 25; seats 1 and 3 tie: seat 1, 29 + 21."""
    r = run(PARTNER, PARTNERS_R0_R2.events())
    assert r.deals == [("block", 0, 50)] and r.report.scores == [50, 0]
    r = run(PARTNER, PARTNERS_R1_R3.events())
    assert r.deals == [("block", 1, 50)] and r.report.scores == [0, 50]


def test_partner_two_sides_tied_for_lowest_nobody_scores() -> None:
    """001_e536ce776a04bae3.txt «قفلت»: "If two sides tie for the lowest, nobody scores."
    Seats 1 and 2 (opponents) tie at 19 in TIE_R1_R2 and at 18 in TIE_EVEN."""
    for scenario in (TIE_R1_R2, TIE_EVEN):
        r = run(PARTNER, scenario.events())
        assert r.deals == [("tie", None, 0)]
        assert r.report.scores == [0, 0]


def test_partner_later_rounds_winner_or_last_tile_layer() -> None:
    """001_e536ce776a04bae3.txt: "Later rounds: the winner of the last round starts with any
    tile. If the last round was blocked, the player who laid the last tile starts." OUT_R2:
    seat 2 went out. PARTNERS_R0_R2: seats 0+2 win the block (winner seat 0) but seat 1
    laid the last tile."""
    check_lead(OUT_R2.events(), 2)
    check_lead(PARTNERS_R0_R2.events(), 1)


def test_partner_match_ends_at_100_for_the_team() -> None:
    """001_e536ce776a04bae3.txt: "The game ends when the top score reaches the target (100
    ...) and nobody shares it." The 6-line block five times, each led by the seat that laid
    the last tile before: the teams win 47 in turn; seats 0+2 pass 100 at the fifth."""
    d1 = LOW_R2.events()          # seat 2 wins for 0+2; seat 1 laid the last tile
    d2 = LOW_R2.events(by=1)      # seat 1 leads; seat 3 wins for 1+3; seat 2 laid last
    d3 = LOW_R2.events(by=2)      # seat 0 wins for 0+2: 94
    d4 = LOW_R2.events(by=3)      # seat 1 wins for 1+3: 94
    two = run(PARTNER, d1, d2)
    assert two.report.scores == [47, 47] and not two.report.complete
    d5 = LOW_R2.events(by=0)      # seat 2 wins for 0+2: 141
    r = run(PARTNER, d1, d2, d3, d4, d5)
    assert r.clean(), r.report.findings
    assert r.report.scores == [141, 94]
    assert r.report.complete and r.report.winner == 0
    assert [i for i, _ in r.ended] == [len(r.events) - 1]
