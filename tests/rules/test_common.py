"""rules-decisions.md, "Common to every preset": what every table shares.

Each test names the bullet of rules-decisions.md it checks; where a bullet
restates a seed sentence, the per-table modules check the seed's own words.
"""

from __future__ import annotations

import pytest

from ledger.engine import legal_moves
from ledger.rules import RulesError, all_tables, make_rules
from ledger.rules.base import Rules
from ledger.tiles import ALL_TILES, Tile

from .helpers import (
    STD,
    Abandoned,
    BlockClaimed,
    BlockDetected,
    BotSeated,
    DealEndClaimed,
    DealScored,
    Dealt,
    DrawAgreed,
    IllegalEvent,
    MatchEndClaimed,
    Played,
    Resigned,
    apply,
    deal,
    moves,
    new_state,
    play,
    run,
    std_deal,
    table,
)
from .scenarios import BLOCK2, LINE6_SCRIPT, LOW_R0, LOW_R2, OUT2, TIE2

TABLES = all_tables()
IDS = [f"{p}-{s}{'-teams' if o else ''}" for p, s, o in TABLES]
DRAW_TABLES = [t for t in TABLES if make_rules(*t).draws]
DRAW_IDS = [f"{p}-{s}" for p, s, _ in DRAW_TABLES]
NO_STOCK_TABLES = [t for t in TABLES if not make_rules(*t).draws]
NO_STOCK_IDS = [f"{p}-{s}{'-teams' if o else ''}" for p, s, o in NO_STOCK_TABLES]


def rules_of(t: tuple[str, int, dict[str, object]]) -> Rules:
    return make_rules(*t)


# After OPEN[n] both sides of 6-6 are covered; UP[n] is the next seat laying a 6-tile
# on "up", which only a Fives spinner opens.
OPEN = {2: "0:66 1:63l 0:62r", 3: "0:66 1:63l 2:60r", 4: "0:66 1:63l 2:62r"}
UP = {2: "1:64u", 3: "0:62u", 4: "3:64u"}


@pytest.mark.parametrize("t", TABLES, ids=IDS)
def test_only_the_fives_opening_double_opens_four_ends(
        t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md, sahrat-fives: "The opening tile of a deal, if it is a double, is
    the spinner. Once tiles lie on both its left and its right, it opens `up` and `down`";
    every other table keeps two ends (Domena §1 "there is no spinner", Sahrat "A double
    sits in line like any tile", Selminha "no spinners", Arab "doesn't change gameplay",
    Casual Arena "a line of tiles with 2 endings")."""
    rules = rules_of(t)
    n = rules.seats
    r = run(rules, std_deal(n), moves(f"{OPEN[n]} {UP[n]}"))
    if rules.fives:
        assert r.clean(), r.report.findings
    else:
        # with ends 3 and 2 a 6-tile fits nowhere: no up end to take it
        assert r.errors == ["tile-does-not-fit"]
        two = run(rules, std_deal(n), moves(OPEN[n]))
        assert [name for name, _ in two.state.open_ends()] == ["left", "right"]


# --- the set, the deal, the order of play ----------------------------------------------


def test_double_six_set_tiles_worth_sum_of_halves() -> None:
    """rules-decisions.md § Common: "Double-six set, 28 tiles ... A tile is worth the sum
    of its halves." """
    assert len(ALL_TILES) == 28
    assert len({(t.high, t.low) for t in ALL_TILES}) == 28
    assert Tile.parse("6-6").pips == 12
    assert Tile.parse("0-0").pips == 0
    assert Tile.parse("6-4").pips == 10
    assert sum(t.pips for t in ALL_TILES) == 168  # each number 0..6 shows 8 times


@pytest.mark.parametrize("t", TABLES, ids=IDS)
def test_seven_tiles_per_hand(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "7 tiles per hand" (a hand of 6 is not a deal)."""
    rules = rules_of(t)
    hands = list(STD[rules.seats])
    hands[0] = hands[0][:-3]  # drop one tile
    r = run(rules, deal(*hands, rest=False), moves("0:66"))
    assert r.errors == ["bad-deal"]
    assert rules.stock_size == 28 - 7 * rules.seats


@pytest.mark.parametrize("t", TABLES, ids=IDS)
def test_play_order_is_seat_order(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "Play order is seat order (0, 1, 2, ...)": after seat 0
    opens, only seat 1 may move."""
    rules = rules_of(t)
    assert run(rules, std_deal(rules.seats), moves("0:66 1:63l")).clean()
    wrong = {2: "0:62l", 3: "2:60l", 4: "2:62l"}[rules.seats]  # a 6 held by another seat
    assert run(rules, std_deal(rules.seats), moves(f"0:66 {wrong}")).errors == ["out-of-turn"]


@pytest.mark.parametrize("t", TABLES, ids=IDS)
def test_teams_are_seats_0_2_against_1_3(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "Teams (where the table has them): seats 0+2 against
    1+3." Teams: domena 4, sahrat-partner, selminha 4, casual-arena 4 with teams."""
    rules = rules_of(t)
    has_teams = (t[0], t[1]) in {("domena", 4), ("sahrat-partner", 4), ("selminha", 4)} \
        or bool(t[2].get("teams"))
    assert rules.teams is has_teams
    if has_teams:
        assert [rules.side_of(s) for s in range(4)] == [0, 1, 0, 1]
        assert rules.sides == 2
    else:
        assert [rules.side_of(s) for s in range(rules.seats)] == list(range(rules.seats))


@pytest.mark.parametrize("t", TABLES, ids=IDS)
def test_tile_joins_only_a_matching_end(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "A tile joins an end that shows one of its numbers;
    blank joins only blank." After 6-6 and 6-0 the ends are 6 and 0: 3-1 (or 5-2) fits neither,
    a blank end takes 0-0 but not 1-1."""
    rules = rules_of(t)
    n = rules.seats
    hands = {2: ("66 11 10 30 31 32 33", "60 00 62 61 63 64 65"),
             3: ("66 11 10 30 31 32 33", "60 00 62 61 63 64 65", "50 51 52 53 54 55 20"),
             4: ("66 11 10 30 31 32 20", "60 00 62 61 63 64 65", "50 51 52 53 54 55 21",
                 "40 41 42 43 44 22 33")}[n]
    # seat 1 opens a blank end; the next seat tries a tile with neither 6 nor 0
    bad = "0:31l" if n == 2 else "2:52l"
    r = run(rules, deal(*hands), moves(f"0:66 1:60r {bad}"))
    assert r.errors == ["tile-does-not-fit"]
    blank = run(rules, deal(*hands), moves("0:66 1:60r"))
    assert blank.clean()
    assert blank.state.open_ends() == [("left", 6), ("right", 0)]
    assert blank.state.fit_mask() & Tile.parse("0-0").bit
    assert not blank.state.fit_mask() & Tile.parse("1-1").bit


# --- must play, drawing, passing ---------------------------------------------------------


@pytest.mark.parametrize("t", TABLES, ids=IDS)
def test_pass_while_able_to_play_is_illegal(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "You must play if you can ... A pass while able to
    play ... is illegal." Seat 1 holds 6-3 when 6-6 is down."""
    rules = rules_of(t)
    r = run(rules, std_deal(rules.seats), moves("0:66 1:pass"))
    assert r.errors == ["illegal-pass"]
    assert r.at("illegal-pass") == [2]
    with pytest.raises(IllegalEvent) as exc:
        state = apply(new_state(rules), std_deal(rules.seats), 0)
        state = apply(state, play(0, "66"), 1)
        apply(state, moves("1:pass")[0], 2)
    assert exc.value.finding.code == "illegal-pass"


# Draw tables: seat 0 opens 6-6, seat 1 holds no 6; the stock gives 0-0 and 2-2
# (no fit) and then 6-2, which fits.
DRAWFIT = {
    2: ("66 65 64 63 54 53 43", "55 44 33 21 10 20 31"),
    3: ("66 65 64 63 54 53 43", "55 44 33 21 10 20 31", "61 60 52 51 50 42 41"),
}


def drawfit(seats: int) -> Dealt:
    return deal(*DRAWFIT[seats], stock="00 22 62")


@pytest.mark.parametrize("t", DRAW_TABLES, ids=DRAW_IDS)
def test_draw_until_a_tile_fits_then_play_it(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "You draw only when you cannot play, one tile at a time,
    until a drawn tile fits, and then you play a tile at once (it can only be the drawn
    one)." Two draws that do not fit are legal; the third (6-2) is played at once."""
    rules = rules_of(t)
    r = run(rules, drawfit(rules.seats), moves("0:66 1:draw 1:draw 1:draw 1:62r"))
    assert r.clean(), r.report.findings
    assert r.state.hand(1) == sorted(
        Tile.parse(x) for x in ["55", "44", "33", "21", "10", "20", "31", "00", "22"])
    # after the third draw the only legal move is 6-2
    state = new_state(rules)
    for i, ev in enumerate([drawfit(rules.seats), *moves("0:66 1:draw 1:draw 1:draw")]):
        state = apply(state, ev, i)
    assert {str(m) for m in legal_moves(state)} == {"6-2 left", "6-2 right"}


@pytest.mark.parametrize("t", DRAW_TABLES, ids=DRAW_IDS)
def test_drawn_tile_that_fits_must_be_played(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: after a drawn tile fits, "you play a tile at once":
    drawing again or passing instead is illegal."""
    rules = rules_of(t)
    again = run(rules, drawfit(rules.seats), moves("0:66 1:draw 1:draw 1:draw 1:draw"))
    assert again.errors == ["illegal-draw"]
    assert again.at("illegal-draw") == [5]
    passed = run(rules, drawfit(rules.seats), moves("0:66 1:draw 1:draw 1:draw 1:pass"))
    assert passed.errors == ["illegal-pass"]


@pytest.mark.parametrize("t", DRAW_TABLES, ids=DRAW_IDS)
def test_draw_while_able_to_play_is_illegal(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "a draw while able to play ... is illegal." After
    6-2 the ends are 6 and 2; seat 0 holds 6-5 and draws."""
    rules = rules_of(t)
    script = "0:66 1:draw 1:draw 1:draw 1:62r"
    nxt = 2 % rules.seats  # the seat after 1: seat 0 with two seats, seat 2 with three
    r = run(rules, drawfit(rules.seats), moves(f"{script} {nxt}:draw"))
    assert r.errors == ["illegal-draw"]


@pytest.mark.parametrize("t", DRAW_TABLES, ids=DRAW_IDS)
def test_pass_with_tiles_left_to_draw_is_illegal(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "With nothing to draw you pass" - so with a stock left,
    a seat that cannot play must draw, not pass."""
    rules = rules_of(t)
    r = run(rules, drawfit(rules.seats), moves("0:66 1:pass"))
    assert r.errors == ["illegal-pass"]


# Seat 1 has no 6 and the stock holds none: it draws the whole stock without a fit.
HOARD = {
    2: ("66 65 64 63 62 61 60", "55 44 33 21 10 20 31"),
    3: ("66 65 64 63 54 53 43", "55 44 33 21 10 20 31", "62 61 60 52 51 50 42"),
}


@pytest.mark.parametrize("t", DRAW_TABLES, ids=DRAW_IDS)
def test_empty_stock_pass_is_legal_draw_is_not(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "With nothing to draw you pass. ... a draw from an empty
    stock ... is illegal." Seat 1 draws all 14 (or 7) tiles, none fits."""
    rules = rules_of(t)
    draws = " ".join(["1:draw"] * rules.stock_size)
    passed = run(rules, deal(*HOARD[rules.seats]), moves(f"0:66 {draws} 1:pass"))
    assert passed.clean(), passed.report.findings
    assert passed.state.stock_left == 0
    assert passed.state.to_move == 2 % rules.seats
    drew = run(rules, deal(*HOARD[rules.seats]), moves(f"0:66 {draws} 1:draw"))
    assert drew.errors == ["empty-stock"]


# Seat 1 holds no 6: after 6-6 it cannot play.
NOFIT = {2: ("66 60 61 62 30 31 32", "55 44 33 21 10 20 40"),
         4: ("66 60 61 30 31 32 10", "55 44 00 40 41 21 20", "62 50 51 52 53 54 63",
             "64 65 42 43 22 33 11")}


@pytest.mark.parametrize("t", NO_STOCK_TABLES, ids=NO_STOCK_IDS)
def test_draw_at_a_table_without_stock_is_illegal(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "a draw on a table without a stock is illegal" (four
    seats deal all 28; Arab block never uses the boneyard)."""
    rules = rules_of(t)
    r = run(rules, deal(*NOFIT[rules.seats]), moves("0:66 1:draw"))
    assert r.errors == ["no-stock"]


@pytest.mark.parametrize("t", NO_STOCK_TABLES, ids=NO_STOCK_IDS)
def test_pass_without_a_fit_is_legal_at_a_table_without_stock(
        t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "With nothing to draw you pass." Seat 1 holds no 6."""
    rules = rules_of(t)
    r = run(rules, deal(*NOFIT[rules.seats]), moves("0:66 1:pass"))
    assert r.clean(), r.report.findings
    assert r.state.to_move == 2 % rules.seats


# --- who opens ------------------------------------------------------------------------

TWO_SEATS = [t for t in TABLES if t[1] == 2]
TWO_IDS = [t[0] for t in TWO_SEATS]


@pytest.mark.parametrize("t", TWO_SEATS, ids=TWO_IDS)
def test_heaviest_tile_leads_when_nobody_holds_a_double(
        t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "'Heaviest tile' leads when nobody holds a double: the
    highest pip total; between equal totals, the tile with the higher number (6-1 before
    5-2 before 4-3). The leader must open with that tile." No tile above 7 pips is dealt;
    seat 1 holds 6-1, seat 0 holds 5-2 and 4-3."""
    rules = rules_of(t)
    hands = ("52 43 41 40 30 20 10", "61 51 42 32 31 21 50")
    assert run(rules, deal(*hands), moves("1:61")).clean()
    wrong_tile = run(rules, deal(*hands), moves("1:51"))
    assert wrong_tile.errors == ["wrong-opening-tile"]
    wrong_seat = run(rules, deal(*hands), moves("0:52"))
    assert sorted(wrong_seat.errors) == ["wrong-leader", "wrong-opening-tile"]


@pytest.mark.parametrize("t", TWO_SEATS, ids=TWO_IDS)
def test_heaviest_tile_tie_five_two_before_four_three(
        t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "5-2 before 4-3": 6-1 is in the stock, seat 1 holds 5-2,
    seat 0 holds 4-3, both 7 pips."""
    rules = rules_of(t)
    hands = ("43 41 40 30 20 10 60", "52 51 42 32 31 21 50")
    assert run(rules, deal(*hands), moves("1:52")).clean()
    assert run(rules, deal(*hands), moves("0:43")).errors == ["wrong-leader",
                                                            "wrong-opening-tile"]


THREE_SEATS = [t for t in TABLES if t[1] == 3]


@pytest.mark.parametrize("t", THREE_SEATS, ids=[t[0] for t in THREE_SEATS])
def test_heaviest_tile_three_seats(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "Heaviest tile" with three seats: every double is in
    the stock, seat 2 holds 6-5 (11 pips), the heaviest tile."""
    rules = rules_of(t)
    hands = ("10 20 30 40 50 60 21", "31 41 51 61 32 42 52", "62 43 53 63 54 64 65")
    assert run(rules, deal(*hands), moves("2:65")).clean()
    assert run(rules, deal(*hands), moves("2:64")).errors == ["wrong-opening-tile"]


@pytest.mark.parametrize("t", TWO_SEATS, ids=TWO_IDS)
def test_highest_double_leads_and_opens_with_it(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "A 'highest double' lead must open with that double."
    6-6 is in the stock; seat 1 holds 5-5, seat 0 holds only 4-4."""
    rules = rules_of(t)
    hands = ("44 65 64 63 62 61 60", "55 33 54 53 52 51 50")
    assert run(rules, deal(*hands), moves("1:55")).clean()
    assert run(rules, deal(*hands), moves("1:54")).errors == ["wrong-opening-tile"]
    assert sorted(run(rules, deal(*hands), moves("0:44")).errors) == [
        "wrong-leader", "wrong-opening-tile"]


@pytest.mark.parametrize("t", TWO_SEATS, ids=TWO_IDS)
def test_any_double_outranks_the_heaviest_tile(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: the heaviest tile leads only "when nobody holds a
    double": seat 0's 0-0 beats seat 1's 6-5."""
    rules = rules_of(t)
    hands = ("00 10 20 30 40 50 60", "65 64 63 54 53 43 62")
    assert run(rules, deal(*hands), moves("0:00")).clean()
    assert "wrong-leader" in run(rules, deal(*hands), moves("1:65")).errors


@pytest.mark.parametrize("t", TWO_SEATS, ids=TWO_IDS)
def test_opening_rule_holds_when_the_record_lists_no_stock(
        t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "A 'highest double' lead must open with that double" -
    also when a record shows both hands but leaves out the optional stock: the undealt
    tiles are in no hand, so 6-6 among them cannot lead."""
    rules = rules_of(t)
    hands = ("44 65 64 63 62 61 60", "55 33 54 53 52 51 50")
    dealt = deal(*hands, rest=False)
    assert dealt.stock is None
    assert run(rules, dealt, moves("1:55")).clean()
    assert "wrong-leader" in run(rules, dealt, moves("0:44")).errors


# --- the end of a deal -----------------------------------------------------------------

FOUR_PLAIN = [t for t in TABLES if t[1] == 4 and t[0] != "sahrat-fives"]
FOUR_IDS = [f"{p}{'-teams' if o else ''}" for p, _, o in FOUR_PLAIN]


@pytest.mark.parametrize("t", FOUR_PLAIN, ids=FOUR_IDS)
def test_block_detected_as_soon_as_true_four_seats(
        t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "Block is detected as soon as it is true: the engine
    does not wait for everyone to pass." The tenth tile (0-6) puts the last 6 down with
    6 at both ends: the deal ends on that play."""
    rules = rules_of(t)
    r = run(rules, LOW_R2.events())
    assert r.clean(), r.report.findings
    last = len(r.events) - 1
    assert [i for i, _ in r.derived(BlockDetected)] == [last]
    assert [i for i, _ in r.derived(DealScored)] == [last]
    assert r.state.phase in ("over", "ended")


TWO_DRAW_PLAIN = [t for t in DRAW_TABLES if t[1] == 2 and t[0] != "sahrat-fives"]


@pytest.mark.parametrize("t", TWO_DRAW_PLAIN, ids=[t[0] for t in TWO_DRAW_PLAIN])
def test_block_detected_at_the_draw_that_empties_the_stock(
        t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: a deal ends "when, with nothing left to draw, no seat
    can play"; detected as soon as true. Seat 1's sixth draw empties the stock with both
    ends 2 and every 2-tile down: blocked before anyone passes."""
    rules = rules_of(t)
    r = run(rules, BLOCK2.events())
    assert r.clean(), r.report.findings
    last = len(r.events) - 1
    assert [i for i, _ in r.derived(BlockDetected)] == [last]
    assert r.state.stock_left == 0


@pytest.mark.parametrize("t", FOUR_PLAIN, ids=FOUR_IDS)
def test_passes_after_a_block_only_in_turn_order(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "A record may still show the passes of seats that cannot
    play ... they are accepted and change nothing" and "Passes after a block is already
    true are accepted only in turn order." Seat 1 laid the blocking tile: seats 2, 3, 0
    may pass, in that order."""
    rules = rules_of(t)
    plain = run(rules, LOW_R2.events())
    passed = run(rules, LOW_R2.events(), moves("2:pass 3:pass 0:pass 1:pass"))
    assert passed.clean(), passed.report.findings
    assert passed.deals == plain.deals
    assert passed.report.scores == plain.report.scores
    wrong = run(rules, LOW_R2.events(), moves("2:pass 0:pass"))
    assert wrong.errors == ["pass-out-of-order"]
    assert wrong.deals == plain.deals


def test_block_claim_is_checked_not_taken() -> None:
    """match-format.md claims / rules-decisions.md § Common: a `block` claim while a seat
    can still play is reported (false-block); the deal goes on by the rules."""
    rules = table("domena", 4)
    early = run(rules, LOW_R2.deal(), moves(LINE6_SCRIPT)[:5], BlockClaimed(),
                moves(LINE6_SCRIPT)[5:])
    assert early.errors == ["false-block"]
    assert early.deals == run(rules, LOW_R2.events()).deals
    late = run(rules, LOW_R2.events(), BlockClaimed())
    assert late.clean()


# --- who scores, deal winner seat ---------------------------------------------------------


def test_only_the_winning_side_scores() -> None:
    """rules-decisions.md § Common: "Only a deal's winning side scores." Sahrat draw with
    four seats each for himself: r0 (7 pips left) wins the block; the others stay at 0."""
    r = run(table("sahrat-draw", 4), LOW_R0.events())
    assert r.deals == [("block", 0, 35 + 20 + 28)]
    assert r.report.scores == [83, 0, 0, 0]


# --- bot, resign, abandon, agree_draw -----------------------------------------------------


@pytest.mark.parametrize("t", TABLES, ids=IDS)
def test_bot_is_accepted_and_play_goes_on(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "`bot` ... accepted under every preset." A bot takes
    seat 1 and plays its turn."""
    rules = rules_of(t)
    r = run(rules, std_deal(rules.seats), moves("0:66"), BotSeated(seat=1), moves("1:63l"))
    assert r.clean(), r.report.findings
    assert r.state.bots == 0b10
    assert not r.report.complete


@pytest.mark.parametrize("t", TABLES, ids=IDS)
def test_resign_the_resigning_side_loses(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "A resigning side loses: with two sides the other wins;
    with more, the other side with the most points (a shared top: no winner)." At 0 points
    all round, more than two sides means no winner."""
    rules = rules_of(t)
    r = run(rules, std_deal(rules.seats), moves("0:66"), Resigned(seat=1))
    assert r.clean(), r.report.findings
    assert r.report.complete
    if rules.sides == 2:
        assert r.report.winner == 0  # seat 1's side lost; the other side is seat 0's
    else:
        assert r.report.winner is None
    after = run(rules, std_deal(rules.seats), moves("0:66"), Resigned(seat=1), moves("1:63l"))
    assert after.errors == ["after-match-end"]


def test_resign_with_more_sides_the_richest_other_wins() -> None:
    """rules-decisions.md § Common: with more than two sides, "the other side with the most
    points" wins. Sahrat draw, four seats: seat 0 won the first deal (83)."""
    r = run(table("sahrat-draw", 4), LOW_R0.events(), Resigned(seat=1))
    assert r.report.winner == 0
    r = run(table("sahrat-draw", 4), LOW_R0.events(), Resigned(seat=0))
    assert r.report.winner is None  # seats 1, 2, 3 share the top at 0


@pytest.mark.parametrize("t", TABLES, ids=IDS)
def test_abandon_and_agree_draw_end_with_no_winner(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "`abandon` and `agree_draw` are accepted under every
    preset" and end the match with no winner."""
    rules = rules_of(t)
    for ev in (Abandoned(reason="inactivity"), DrawAgreed()):
        r = run(rules, std_deal(rules.seats), moves("0:66"), ev)
        assert r.clean(), r.report.findings
        assert r.report.complete
        assert r.report.winner is None
        assert run(rules, std_deal(rules.seats), moves("0:66"), ev,
                   moves("1:63l")).errors == ["after-match-end"]


# --- options ------------------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "seats", "target"), [
    ("domena", 2, 100), ("sahrat-draw", 2, 100), ("sahrat-fives", 2, 150),
    ("sahrat-partner", 4, 100), ("selminha", 2, 100), ("arab-block", 2, 100),
    ("casual-arena", 2, 100),
])
def test_default_targets(preset: str, seats: int, target: int) -> None:
    """rules-decisions.md § Common: "Options: `target` everywhere ... Casual Arena ...
    default 100"; the seeds: Domena §8 100, Sahrat 100 / Fives 150, Selminha 100 default,
    Arab 100."""
    assert table(preset, seats).target == target


@pytest.mark.parametrize("t", TABLES, ids=IDS)
def test_target_is_a_whole_number_zero_or_more(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "`target` everywhere (an integer >= 0 ...)"."""
    preset, seats, options = t
    for bad in (-1, "100", 12.5, True):
        with pytest.raises(RulesError) as exc:
            make_rules(preset, seats, {**options, "target": bad})
        assert exc.value.code == "bad-option"
    if preset not in ("selminha", "casual-arena"):
        assert make_rules(preset, seats, {**options, "target": 0}).target == 0
        assert make_rules(preset, seats, {**options, "target": 37}).target == 37


@pytest.mark.parametrize(("preset", "seats", "allowed", "refused"), [
    ("selminha", 2, (50, 100), (0, 75, 150)),
    ("casual-arena", 3, (0, 50, 100), (25, 150)),
])
def test_target_choices_of_selminha_and_casual(preset: str, seats: int,
                                               allowed: tuple[int, ...],
                                               refused: tuple[int, ...]) -> None:
    """rules-decisions.md § Common: "Selminha 50 or 100; Casual Arena 0, 50 or 100"."""
    for value in allowed:
        assert table(preset, seats, target=value).target == value
    for value in refused:
        with pytest.raises(RulesError) as exc:
            table(preset, seats, target=value)
        assert exc.value.code == "bad-option"


def test_teams_only_for_casual_arena_four_seats() -> None:
    """rules-decisions.md § Common: "`teams` for `casual-arena` with 4 seats"; an option a
    table does not have is an error (match-format.md: "unknown names are an error")."""
    assert table("casual-arena", 4, teams=True).teams
    assert not table("casual-arena", 4, teams=False).teams
    with pytest.raises(RulesError) as exc:
        table("casual-arena", 2, teams=True)
    assert exc.value.code == "bad-option"
    with pytest.raises(RulesError) as exc:
        table("casual-arena", 4, teams="yes")
    assert exc.value.code == "bad-option"
    for preset, seats in (("domena", 4), ("selminha", 4), ("sahrat-draw", 4)):
        with pytest.raises(RulesError) as exc:
            table(preset, seats, teams=True)
        assert exc.value.code == "unknown-option"
    with pytest.raises(RulesError) as exc:
        table("domena", 2, spinner=True)
    assert exc.value.code == "unknown-option"


@pytest.mark.parametrize(("preset", "seats"), [
    ("domena", 3), ("sahrat-draw", 3), ("sahrat-partner", 2), ("selminha", 5),
    ("arab-block", 4), ("casual-arena", 5),
])
def test_seat_counts_the_seeds_allow(preset: str, seats: int) -> None:
    """match-format.md "Rules presets": domena 2/4, sahrat 2/4 (partner 4), selminha 2-4,
    arab-block 2, casual-arena 2-4; any other count is refused."""
    with pytest.raises(RulesError) as exc:
        table(preset, seats)
    assert exc.value.code == "bad-seat-count"


def test_target_zero_first_deal_with_a_winner_decides() -> None:
    """rules-decisions.md § Common: "With `target` 0 the first deal that has a winner decides
    the match, and its points still count in `scores`." Casual Arena one-round mode: seat 0
    goes out, seat 1 keeps 6-5 (11)."""
    r = run(table("casual-arena", 2, target=0), OUT2.events())
    assert r.deals == [("out", 0, 11)]
    assert r.report.scores == [11, 0]
    assert r.report.winner == 0 and r.report.complete


def test_target_zero_a_tie_decides_nothing() -> None:
    """rules-decisions.md § Common: target 0 - "the first deal that has a winner": a tied
    deal (Domena, both hands 36) does not end the match; the next deal is played."""
    rules = table("domena", 2, target=0)
    r = run(rules, TIE2.events())
    assert r.deals == [("tie", None, 0)]
    assert not r.report.complete
    # Domena §3: after a tie the next seat after the previous leader (seat 0) leads.
    nxt = run(rules, TIE2.events(), deal("10 20 30 40 50 60 21", "31 41 51 61 32 42 52"),
              moves("1:31"))
    assert nxt.clean(), nxt.report.findings


# --- `end` on plays -------------------------------------------------------------------------


@pytest.mark.parametrize("t", TABLES, ids=IDS)
def test_end_on_the_first_tile_is_a_warning(t: tuple[str, int, dict[str, object]]) -> None:
    """rules-decisions.md § Common: "An `end` on the first tile of a deal changes nothing
    (a warning at most)."""
    rules = rules_of(t)
    r = run(rules, std_deal(rules.seats), [Played(seat=0, tile=Tile.parse("66"), end="right")],
            moves("1:63l"))
    assert r.errors == []
    assert r.at("end-on-opening") == [1]


@pytest.mark.parametrize("t", TABLES, ids=IDS)
def test_end_may_be_left_out_only_when_the_result_is_the_same(
        t: tuple[str, int, dict[str, object]]) -> None:
    """match-format.md `play`: "`end` may be left out when every end the tile fits would
    leave the same open numbers (and, in Fives, the same count)". On 6-6 a 6-3 leaves 6
    and 3 either way; with ends 2 and 6, a 6-2 leaves 6/6 or 2/2, so the end is needed."""
    rules = rules_of(t)
    n = rules.seats
    hands = {2: ("66 32 61 60 30 31 10", "63 62 65 64 00 11 22"),
             3: ("66 62 61 60 30 31 10", "63 65 64 00 11 22 40", "32 50 51 52 53 54 55"),
             4: ("66 61 60 30 31 10 20", "63 65 64 00 11 22 40", "32 50 51 52 53 54 55",
                 "62 41 42 43 44 33 21")}[n]
    same = run(rules, deal(*hands), moves("0:66 1:63"))
    assert same.clean(), same.report.findings
    # 6-6, 6-3 left, 3-2 left: the ends are 2 and 6 and the next seat holds 6-2
    script = {2: "0:66 1:63l 0:32l 1:62", 3: "0:66 1:63l 2:32l 0:62",
              4: "0:66 1:63l 2:32l 3:62"}[n]
    assert run(rules, deal(*hands), moves(script)).errors == ["missing-end"]
    assert run(rules, deal(*hands), moves(script + "r")).clean()


# --- claims ---------------------------------------------------------------------------------


def test_deal_end_claim_checked_never_taken_over_the_rules() -> None:
    """match-format.md: "Claims (`block`, `deal_end`, `match_end`) ... The importer checks
    each against the rules and reports a mismatch; it never takes a claim over what the
    rules compute." Domena 4: the pair r0+r2 wins the block with 25 + 22 = 47."""
    rules = table("domena", 4)
    right = run(rules, LOW_R2.events(), DealEndClaimed(result="block", winner=2, points=47))
    assert right.clean(), right.report.findings
    wrong = run(rules, LOW_R2.events(), DealEndClaimed(result="out", winner=1, points=50))
    assert wrong.errors == ["wrong-deal-end"]
    assert wrong.deals == [("block", 2, 47)]
    assert wrong.report.scores == [47, 0]
    early = run(rules, LOW_R2.deal(), moves(LINE6_SCRIPT)[:4],
                DealEndClaimed(result="block", winner=2, points=47))
    assert early.errors == ["deal-end-early"]


def test_match_end_claim_checked_never_taken_over_the_rules() -> None:
    """match-format.md: a `match_end` claim is checked against the rules. Domena 4 with
    target 40: the 47-point block ends the match for seats 0+2 (reported as seat 0)."""
    rules = table("domena", 4, target=40)
    right = run(rules, LOW_R2.events(), MatchEndClaimed(winner=2, scores=(47, 0)))
    assert right.clean(), right.report.findings
    assert right.report.winner == 0
    wrong = run(rules, LOW_R2.events(), MatchEndClaimed(winner=1, scores=(0, 47)))
    assert wrong.errors == ["wrong-match-end"]
    assert wrong.report.winner == 0 and wrong.report.scores == [47, 0]
    early = run(table("domena", 4), LOW_R2.events(), MatchEndClaimed(winner=0, scores=(47, 0)))
    assert early.errors == ["match-end-early"]


def test_nothing_may_follow_the_match_end() -> None:
    """Issue 15: "Nothing may follow the match's end" (match-format.md: `match_end` is the
    claim of the final result). Domena 4 with target 40: the 47-point block ends the match;
    a `bot` takeover, a resignation and an agreed draw after the `match_end` event are each
    flagged (match-over) and folded into nothing: the result stays seat 0's at 47-0."""
    rules = table("domena", 4, target=40)
    end = MatchEndClaimed(winner=2, scores=(47, 0))
    n = len(LOW_R2.events())
    bot = run(rules, LOW_R2.events(), end, BotSeated(seat=1))
    assert bot.errors == ["match-over"]
    assert bot.at("match-over") == [n + 1]
    assert bot.state.bots == 0  # not folded: nobody took seat 1
    assert bot.report.winner == 0 and bot.report.scores == [47, 0] and bot.report.complete
    more = run(rules, LOW_R2.events(), end, Resigned(seat=0), DrawAgreed())
    assert more.errors == ["match-over", "match-over"]
    assert more.report.winner == 0 and more.state.end_reason != "resign"
    # The same events before a match_end are folded as ever: the claim comes last.
    assert run(rules, LOW_R2.events(), BotSeated(seat=1), end).clean()
    # A match_end claimed early still closes the record: the plays after it are not folded.
    early = run(table("domena", 4), LOW_R2.deal(), moves(LINE6_SCRIPT)[:4],
                MatchEndClaimed(winner=0, scores=(0, 0)), moves(LINE6_SCRIPT)[4:6])
    assert early.errors == ["match-end-early", "match-over", "match-over"]
    assert early.state.plays == 4
