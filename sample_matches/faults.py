"""The faulty sample records: one rule broken per file, and the findings it must give.

Each fault starts from a literal base deal (frozen here, so that event indexes
never move when the generator changes), breaks one rule at a known event, and,
where the fold goes on after that kind of fault, finishes the deal with legal
moves from the state the fault left. ``expected`` is worked out from the rules
(the reasoning is in ``why``), not read off the auditor.

Notation of the base moves: "1 6-6" seat 1 opens with 6-6; "0 6-3 right" seat 0
lays 6-3 on the right end; "1 draw 6-0"; "0 pass".
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from ledger.engine.fold import advance
from ledger.engine.moves import legal_moves
from ledger.engine.state import State
from ledger.events import DealScored, Event, HandsRevealed
from ledger.findings import Finding, Unreadable
from ledger.formats.wire import FORMAT, event_from_dict, event_to_dict
from ledger.rules import make_rules


def move(text: str) -> dict[str, Any]:
    words = text.split()
    seat = int(words[0])
    if words[1] == "pass":
        return {"type": "pass", "seat": seat}
    if words[1] == "draw":
        return {"type": "draw", "seat": seat, "tile": words[2] if len(words) > 2 else None}
    ev: dict[str, Any] = {"type": "play", "seat": seat, "tile": words[1]}
    if len(words) > 2:
        ev["end"] = words[2]
    return ev


def deal(hands: list[str], stock: str | None = None) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "deal", "hands": [h.split() for h in hands]}
    if stock is not None:
        ev["stock"] = stock.split()
    return ev


@dataclass(frozen=True)
class Base:
    rules: str
    seats: list[str]
    events: list[dict[str, Any]]
    options: dict[str, Any] = field(default_factory=dict)


# Domena, 2 seats (generator seed 47, deal 1). Seat 1 holds the highest double and
# opens 6-6; seat 1 draws five at events 7-11; seat 0 empties the stock (events
# 17-25) and passes; seat 1 goes out at 41, leaving seat 0 with 3-3 3-2 5-3 1-1 = 21.
DOMENA_2 = Base("domena", ["علي", "Omar"], [
    deal(["6-5 6-3 6-2 3-3 3-0 2-2 2-0", "6-6 5-5 5-4 5-0 3-1 2-1 0-0"],
         "6-0 6-4 1-0 6-1 4-2 5-1 3-2 4-0 5-3 4-4 5-2 4-3 1-1 4-1"),
    *map(move, [
        "1 6-6", "0 6-3 right", "1 3-1 right", "0 6-2 left",            # 1-4
        "1 2-1 right", "0 2-2 left",                                   # 5-6: ends 2 | 2
        "1 draw 6-0", "1 draw 6-4", "1 draw 1-0", "1 draw 6-1",        # 7-10
        "1 draw 4-2", "1 4-2 right", "0 2-0 left", "1 5-0 left",       # 11-14
        "0 6-5 left", "1 6-4 right",                                   # 15-16: ends 6 | 6
        "0 draw 5-1", "0 draw 3-2", "0 draw 4-0", "0 draw 5-3",        # 17-20
        "0 draw 4-4", "0 draw 5-2", "0 draw 4-3", "0 draw 1-1",        # 21-24
        "0 draw 4-1", "0 pass", "1 6-0 right", "0 4-0 right",          # 25-28
        "1 6-1 left", "0 4-4 right", "1 1-0 left", "0 4-1 right",      # 29-32
        "1 0-0 left", "0 5-1 right", "1 5-5 right", "0 5-2 right",     # 33-36
        "1 pass", "0 3-0 left", "1 pass", "0 4-3 left", "1 5-4 left",  # 37-41
    ]),
    {"type": "reveal", "hands": [["1-1", "3-2", "3-3", "5-3"], []]},  # 42
    {"type": "deal_end", "result": "out", "winner": 1, "points": 21},  # 43
])

# Arab Block (seed 5, deal 1): seat 0 opens 6-6; after seat 0's 1-1 at event 13 the
# ends are 1 | 0, seat 0 holds 6-3 4-3 and seat 1 holds 4-2: nobody can play, the
# deal is blocked with seat 1 to move; 6 < 16 so seat 1 wins and scores 16.
ARAB_BLOCK = Base("arab-block", ["Youssef", "ليلى"], [
    deal(["6-6 6-3 4-3 4-0 3-3 2-1 1-1", "6-5 6-4 5-3 5-2 5-0 4-2 3-0"],
         "6-0 2-0 2-2 1-0 3-1 4-4 0-0 5-1 5-5 6-1 4-1 6-2 3-2 5-4"),
    *map(move, [
        "0 6-6", "1 6-4 left", "0 4-0 left", "1 6-5 right",            # 1-4: ends 0 | 5
        "0 pass", "1 5-0 left", "0 pass", "1 5-2 left",                # 5-8
        "0 2-1 left", "1 5-3 right", "0 3-3 right", "1 3-0 right",     # 9-12
        "0 1-1 left",                                                  # 13: blocked
    ]),
    {"type": "block"},                                                 # 14
    {"type": "reveal", "hands": [["6-3", "4-3"], ["4-2"]]},            # 15
    {"type": "deal_end", "result": "block", "winner": 1, "points": 16},  # 16
])

# Selminha, 4 seats (seed 24): seat 2 is dealt five doubles (6-6 4-4 3-3 1-1 0-0), so
# the deal must be reshuffled. SELMINHA_4_FAIR is a deal where no hand holds four.
SELMINHA_4_DOUBLES = deal(["6-5 6-4 6-0 5-5 5-2 5-0 2-0", "5-4 5-1 4-3 4-1 4-0 3-2 1-0",
                           "6-6 4-4 3-3 3-1 2-1 1-1 0-0", "6-3 6-2 6-1 5-3 4-2 3-0 2-2"], "")
SELMINHA_4_FAIR = deal(["6-4 6-1 5-5 5-0 4-3 3-1 0-0", "6-5 5-3 5-1 4-4 4-2 2-1 2-0",
                        "6-2 5-2 4-1 3-3 3-0 1-1 1-0", "6-6 6-3 6-0 5-4 4-0 3-2 2-2"], "")
SELMINHA_4_OTHER = deal(["6-3 5-0 3-3 3-0 2-1 2-0 1-1", "6-2 6-0 5-5 5-4 5-1 4-2 0-0",
                         "6-6 6-4 6-1 5-2 4-4 3-1 1-0", "6-5 5-3 4-3 4-1 4-0 3-2 2-2"], "")
SELMINHA_NAMES = ["João", "Beatriz", "Tiago", "Inês"]

# Selminha, 2 seats (seed 5), deal 1 led by seat 0 (6-6); seat 1 goes out at event 18.
# "In later rounds, the lead passes to the player on the right of whoever led the
# previous round": deal 2 is seat 1's to lead, with any tile.
SELMINHA_2 = Base("selminha", ["Maria", "Rafael"], [
    deal(["6-6 6-3 4-3 4-0 3-3 2-1 1-1", "6-5 6-4 5-3 5-2 5-0 4-2 3-0"],
         "6-0 2-0 2-2 1-0 3-1 4-4 0-0 5-1 5-5 6-1 4-1 6-2 3-2 5-4"),
    *map(move, [
        "0 6-6", "1 6-4 left", "0 4-0 left", "1 6-5 right", "0 draw 6-0",
        "0 6-0 left", "1 5-0 right", "0 6-3 left", "1 3-0 left", "0 draw 2-0",
        "0 2-0 left", "1 4-2 left", "0 4-3 left", "1 5-3 left", "0 draw 2-2",
        "0 draw 1-0", "0 1-0 right", "1 5-2 left",                     # 1-18
    ]),
    {"type": "reveal", "hands": [["1-1", "2-1", "2-2", "3-3"], []]},   # 19
    {"type": "deal_end", "result": "out", "winner": 1, "points": 15},  # 20
    deal(["6-6 6-5 5-3 5-2 5-1 3-1 2-0", "6-4 6-2 5-5 5-4 5-0 4-4 1-0"],
         "6-0 6-3 4-0 1-1 3-2 2-1 2-2 4-3 4-1 0-0 3-3 4-2 3-0 6-1"),    # 21
])

# Casual Arena, 2 seats, one round (seed 2): seat 0 opens 5-5 (5-5 beats seat 1's 4-4)
# and goes out at event 20; seat 1 holds 4-4 5-1 6-1 6-5 = 32.
CASUAL_2 = Base("casual-arena", ["Lucía", "Mateo"], [
    deal(["6-3 5-5 5-2 5-0 2-1 2-0 0-0", "6-2 5-4 5-3 5-1 4-4 4-2 3-1"],
         "4-0 4-3 6-1 6-5 3-0 3-2 3-3 6-0 2-2 4-1 6-4 1-1 1-0 6-6"),
    *map(move, [
        "0 5-5", "1 5-3 right", "0 5-2 left", "1 6-2 left", "0 6-3 left",
        "1 3-1 left", "0 2-1 left", "1 4-2 left", "0 draw 4-0", "0 4-0 left",
        "1 draw 4-3", "1 4-3 right", "0 0-0 left", "1 5-4 right", "0 5-0 right",
        "1 draw 6-1", "1 draw 6-5", "1 draw 3-0", "1 3-0 right", "0 2-0 left",  # 1-20
    ]),
    {"type": "reveal", "hands": [[], ["4-4", "5-1", "6-1", "6-5"]]},   # 21
    {"type": "deal_end", "result": "out", "winner": 0, "points": 32},  # 22
], options={"target": 0})
CASUAL_2_MATCH_END = {"type": "match_end", "winner": 0, "scores": [32, 0]}

# Sahrat Fives, 2 seats (seed 1): seat 1 opens the spinner 6-6, scores 5 at events 11
# (ends 0-0 | 5) and 13 (1 | 4), and goes out at 26; seat 0 holds 4-1 4-2 5-5 4-4 5-0
# 2-0 = 36, which Fives rounds to 35 ("7 becomes 5, 8 becomes 10").
FIVES_2 = Base("sahrat-fives", ["Khalid", "نور"], [
    deal(["6-5 6-2 6-1 4-1 4-0 2-2 1-0", "6-6 5-4 5-2 5-1 4-3 3-3 0-0"],
         "3-1 6-0 3-0 4-2 5-5 4-4 5-0 2-0 3-2 1-1 6-3 6-4 5-3 2-1"),
    *map(move, [
        "1 6-6", "0 6-1 left", "1 5-1 left", "0 6-5 left", "1 draw 3-1",
        "1 draw 6-0", "1 6-0 left", "0 6-2 right", "1 0-0 left", "0 2-2 right",
        "1 5-2 right", "0 1-0 left", "1 5-4 right", "0 4-0 right", "1 3-1 left",
        "0 draw 3-0", "0 3-0 right", "1 3-3 left", "0 draw 4-2", "0 draw 5-5",
        "0 draw 4-4", "0 draw 5-0", "0 draw 2-0", "0 draw 3-2", "0 3-2 right",
        "1 4-3 left",                                                  # 1-26
    ]),
    {"type": "reveal", "hands": [["2-0", "4-1", "4-2", "4-4", "5-0", "5-5"], []]},  # 27
    {"type": "deal_end", "result": "out", "winner": 1, "points": 35},  # 28
])


@dataclass(frozen=True)
class Fault:
    name: str
    base: Base
    events: list[dict[str, Any]]
    expected: list[dict[str, Any]]
    why: str
    finish: bool = False  # play the deal out with legal moves after the fault
    warnings: list[dict[str, Any]] = field(default_factory=list)
    options: dict[str, Any] | None = None


def expect(event: int, code: str, *words: str) -> dict[str, Any]:
    return {"event": event, "severity": "error", "code": code, "words": list(words)}


def faults() -> list[Fault]:
    """Every fault, in the order of the groups below."""
    return [*_move_faults(), *_claim_faults(), *_match_faults(), *_deal_faults()]


def _move_faults() -> list[Fault]:
    """A pass, draw, play or lead that breaks the rules of turn and tiles."""
    a, b, s2 = DOMENA_2.events, ARAB_BLOCK.events, SELMINHA_2.events
    return [
        Fault("illegal-pass", DOMENA_2, a[:13] + [move("0 pass")], [
            expect(13, "illegal-pass", "seat 0", "2-0")],
            "At event 13 the ends are 2 | 4 and seat 0 holds 6-5 3-3 3-0 2-0: 2-0 fits the "
            "left end. 'A pass while able to play ... is illegal' (rules-decisions, common).",
            finish=True),
        Fault("illegal-pass-stock", DOMENA_2, a[:7] + [move("1 pass")], [
            expect(7, "illegal-pass", "seat 1", "stock")],
            "At event 7 the ends are 2 | 2 and seat 1 holds no 2, but all 14 tiles of the "
            "boneyard are there to draw: 'With nothing to draw you pass' only.", finish=True),
        Fault("illegal-draw", DOMENA_2, a[:13] + [move("0 draw 5-1")], [
            expect(13, "illegal-draw", "seat 0", "2-0")],
            "Seat 0 draws 5-1 (the next stock tile) while holding 2-0, which fits the left "
            "end (2): 'You cannot draw when you have a playable tile' (seed 000, §5).",
            finish=True),
        Fault("tile-not-in-hand", DOMENA_2, a[:4] + [move("0 2-1 right")] + a[5:], [
            expect(4, "tile-not-in-hand", "seat 0", "2-1")],
            "2-1 was dealt to seat 1, so seat 0 cannot lay it; the fold stops there."),
        Fault("wrong-end", DOMENA_2, a[:4] + [move("0 6-2 right")] + a[5:], [
            expect(4, "wrong-end", "6-2", "right")],
            "After 3-1 on the right the ends are 6 | 1; 6-2 fits the left end only."),
        Fault("missing-end", DOMENA_2, a[:16] + [move("1 6-4")] + a[17:], [
            expect(16, "missing-end", "6-4")],
            "Ends 6 | 4: 6-4 on the left leaves 4 | 4, on the right 6 | 6. The open numbers "
            "differ, so the record must name the end (match-format, play)."),
        Fault("out-of-turn", DOMENA_2, a[:3] + [move("0 6-2 left")] + a[3:], [
            expect(3, "out-of-turn", "seat 0", "seat 1")],
            "Seat 0 played at event 2; event 3 is seat 1's turn ('Play order is seat order')."),
        Fault("wrong-draw", DOMENA_2, a[:8] + [move("1 draw 4-2")] + a[9:], [
            expect(8, "wrong-draw", "4-2", "6-4")],
            "The stock is listed: draws take it in order, and after 6-0 comes 6-4."),
        Fault("empty-stock", DOMENA_2, a[:26] + [move("0 draw")] + a[27:], [
            expect(26, "empty-stock", "seat 0")],
            "Events 7-11 and 17-25 drew all 14 boneyard tiles; seat 0 must pass at 26."),
        Fault("no-stock", ARAB_BLOCK, b[:5] + [move("0 draw 6-0")] + b[6:], [
            expect(5, "no-stock", "seat 0")],
            "Arab Block: 'The remaining 14 tiles form the boneyard and are not used'; a seat "
            "that cannot play passes."),
        Fault("wrong-opening-tile", DOMENA_2, a[:1] + [move("1 5-5")], [
            expect(1, "wrong-opening-tile", "5-5", "6-6")],
            "First deal, two players: 'the holder of the highest double among the 14 dealt "
            "tiles starts and must open with it': 6-6, not 5-5.", finish=True),
        Fault("wrong-leader", SELMINHA_2, s2[:22] + [move("0 6-6")], [
            expect(22, "wrong-leader", "seat 0", "seat 1")],
            "Seat 0 led deal 1, so 'the lead passes to the player on the right of whoever "
            "led the previous round': seat 1 leads deal 2 (with any tile).", finish=True),
    ]


def _claim_faults() -> list[Fault]:
    """A block or a deal's result claimed where the rules say otherwise."""
    a, b, f2 = DOMENA_2.events, ARAB_BLOCK.events, FIVES_2.events
    return [
        Fault("false-block", DOMENA_2, a[:17] + [{"type": "block"}] + a[17:], [
            expect(17, "false-block", "stock")],
            "After event 16 nine tiles are still in the boneyard: no block."),
        Fault("false-block-after-out", DOMENA_2, a[:42] + [{"type": "block"}] + a[42:], [
            expect(42, "false-block", "going out")],
            "Seat 1 laid its last tile at event 41: the deal ended by going out, not a block."),
        Fault("deal-end-early", DOMENA_2,
              a[:28] + [{"type": "deal_end", "result": "out", "winner": 1, "points": 21}]
              + a[28:], [expect(28, "deal-end-early", "goes on")],
              "After event 27 both seats still hold tiles and seat 0 can lay 4-0 on the "
              "right end (0); the claim comes before the deal ended."),
        Fault("wrong-deal-end", DOMENA_2,
              a[:43] + [{"type": "deal_end", "result": "out", "winner": 1, "points": 23}], [
                  expect(43, "wrong-deal-end", "23", "21")],
              "Seat 0 is left with 3-3 3-2 5-3 1-1 = 6 + 5 + 8 + 2 = 21, not 23 (Domena: "
              "'Points are not rounded')."),
        Fault("wrong-deal-end-winner", ARAB_BLOCK,
              b[:16] + [{"type": "deal_end", "result": "block", "winner": 0, "points": 6}], [
                  expect(16, "wrong-deal-end", "seat 0", "seat 1")],
              "Blocked with 6-3 4-3 (16) against 4-2 (6): 'the lower hand wins and scores the "
              "loser's pips': seat 1, 16."),
        Fault("wrong-deal-end-fives", FIVES_2,
              f2[:28] + [{"type": "deal_end", "result": "out", "winner": 1, "points": 36}], [
                  expect(28, "wrong-deal-end", "36", "35")],
              "Seat 0 holds 36 pips; in Fives 'the count at the end of the round is rounded "
              "to the nearest 5 (7 becomes 5, 8 becomes 10)': 35."),
    ]


def _match_faults() -> list[Fault]:
    """The end of the match claimed wrongly or too early, or events after it."""
    c2 = CASUAL_2.events
    return [
        Fault("wrong-match-end", CASUAL_2,
              c2 + [{"type": "match_end", "winner": 1, "scores": [0, 32]}], [
                  expect(23, "wrong-match-end", "seat 1", "seat 0")],
              "One-round mode: 'the player who wins the round wins the game'. Seat 0 went "
              "out and scores seat 1's 32."),
        Fault("match-end-early", CASUAL_2, c2 + [CASUAL_2_MATCH_END], [
            expect(23, "match-end-early", "target 100")],
            "The same deal at a table playing to 100: 32 points do not end the match.",
            options={}, warnings=[{"event": 23, "code": "match-unfinished"}]),
        Fault("after-match-end", CASUAL_2, c2 + [SELMINHA_2.events[21]], [
            expect(23, "after-match-end", "deal")],
            "The one-round match ended at event 22; a new deal cannot follow."),
        Fault("match-over", CASUAL_2, c2 + [CASUAL_2_MATCH_END, {"type": "bot", "seat": 1}], [
            expect(24, "match-over", "end of the match")],
            "The record's match_end is event 23: nothing may follow the match's end, a bot "
            "taking over seat 1 included."),
    ]


def _deal_faults() -> list[Fault]:
    """Out of order after a block or a deal's end, tiles seen twice, bad deals."""
    a, b = DOMENA_2.events, ARAB_BLOCK.events
    sel4 = Base("selminha", SELMINHA_NAMES, [])
    return [
        Fault("pass-out-of-order", ARAB_BLOCK, b[:14] + [move("0 pass"), move("1 pass")]
              + b[14:], [expect(14, "pass-out-of-order", "seat 0", "seat 1")],
              "Seat 0 laid the last tile (event 13), so seat 1 is next: 'Passes after a block "
              "is already true are accepted only in turn order'. Seat 1's pass at 15 is then "
              "in order."),
        Fault("after-deal-end", DOMENA_2, a[:42] + [move("0 pass")] + a[42:], [
            expect(42, "after-deal-end", "seat 0")],
            "The deal ended when seat 1 went out at event 41; there is no turn to pass."),
        Fault("tile-already-played", ARAB_BLOCK, b[:11] + [move("0 5-3 right")] + b[12:], [
            expect(11, "tile-already-played", "5-3")],
            "Seat 1 laid 5-3 at event 10."),
        Fault("tile-does-not-fit", ARAB_BLOCK, b[:9] + [move("0 4-3 left")] + b[10:], [
            expect(9, "tile-does-not-fit", "4-3")],
            "After 5-2 on the left the ends are 2 | 5: 4-3 fits neither."),
        Fault("reveal-mismatch", DOMENA_2,
              a[:42] + [{"type": "reveal", "hands": [["1-1", "3-2", "3-3"], []]}] + a[43:], [
                  expect(42, "reveal-mismatch", "seat 0")],
              "Seat 0 still holds 5-3 as well: it drew it at event 20 and never laid it."),
        Fault("deal-not-finished", DOMENA_2, a[:21] + [DOMENA_2.events[0]], [
            expect(21, "deal-not-finished", "deal 1")],
            "A new deal at event 21 while seat 0 is still drawing in deal 1.",
            warnings=[{"event": 21, "code": "match-unfinished"}]),
        Fault("redeal-required", sel4, [SELMINHA_4_DOUBLES, move("2 6-6")], [
            expect(1, "redeal-required", "reshuffled")],
            "Seat 2 holds 6-6 4-4 3-3 1-1 0-0: 'If anyone is dealt 4 or more doubles, the "
            "tiles are reshuffled and dealt again' (seed 002); here play goes on instead.",
            finish=True),
        Fault("unexpected-redeal", sel4, [SELMINHA_4_FAIR, SELMINHA_4_OTHER], [
            expect(1, "unexpected-redeal", "4 or more doubles")],
            "No hand of the deal at event 0 holds four doubles (at most 5-5 0-0, 3-3 1-1, "
            "6-6 2-2), yet it is dealt again before any play.", finish=True),
        Fault("bad-deal", DOMENA_2, [deal(["6-5 6-3 6-2 3-3 3-0 2-2 2-0",
                                           "6-6 5-5 5-4 5-0 3-1 2-1 6-3"],
                                          "6-0 6-4 1-0 6-1 4-2 5-1 3-2 4-0 5-3 4-4 5-2 4-3 "
                                          "1-1 4-1")] + a[1:], [
            expect(0, "bad-deal", "6-3")],
            "6-3 is dealt to both seats (and 0-0 to nobody)."),
        Fault("no-deal", DOMENA_2, a[1:], [expect(0, "no-deal", "seat 1")],
              "The record starts with a play: there is no deal to play in."),
    ]


def build(fault: Fault, seed: int = 7) -> tuple[dict[str, Any], dict[str, Any]]:
    """The faulty match and its expected findings."""
    base = fault.base
    options = base.options if fault.options is None else fault.options
    events = [dict(e) for e in fault.events]
    if fault.finish:
        events += _play_out(base.rules, len(base.seats), options, events, seed)
    table: dict[str, Any] = {"rules": base.rules}
    if options:
        table["options"] = options
    match = {"format": FORMAT, "table": table, "seats": base.seats, "events": events}
    expected = {"findings": fault.expected, "warnings": fault.warnings, "why": fault.why}
    return match, expected


def _play_out(preset: str, seats: int, options: dict[str, Any],
              events: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """Legal moves from where the record stops to the end of the deal, then its claims."""
    rng = random.Random(seed)
    rules = make_rules(preset, seats, options)
    st = State(rules)
    findings: list[Finding] = []
    derived: list[Event] = []
    for i, raw in enumerate(events):
        derived = []
        try:
            advance(st, event_from_dict(raw, seats), i, derived, findings)
        except Unreadable as exc:  # pragma: no cover - faults played out are not fatal
            raise AssertionError(f"{preset}: event {i} stops the fold: {exc}") from None
    extra: list[dict[str, Any]] = []
    while st.phase == "playing":
        seat = st.to_move
        assert seat is not None
        choice = rng.choice(legal_moves(st))
        tile = st.stock[st.stock_pos] if choice.kind == "draw" and st.stock else None
        ev = choice.event(seat, tile)
        derived = []
        advance(st, ev, len(events) + len(extra), derived, findings)
        extra.append(event_to_dict(ev))
    scored = next(d for d in derived if isinstance(d, DealScored))
    reveal = HandsRevealed(hands=tuple(tuple(st.hand(s)) for s in range(seats)))
    extra.append(event_to_dict(reveal))
    extra.append({"type": "deal_end", "result": scored.result, "winner": scored.winner,
                  "points": scored.points})
    return extra
