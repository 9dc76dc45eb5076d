"""The rules of play as the seeds and rules-decisions.md write them: a brute-force referee.

Independent of ``ledger.engine`` on purpose. It keeps its own hands, stock and
line of tiles from a record's events and decides every candidate move (each of
the 28 tiles on each of the 4 ends, a draw, a pass) from the rule text, so the
property tests can hold the engine's ``legal_moves`` against it. It shares only
the Tile value type and the parsed event classes with the code under test.

Rule sentences it rests on (seed file, section):
- 000 §4, 001 "Lay a tile...", 002 "Taking your turn", 003 "Playing Tiles", 004 "Turns":
  a tile joins an open end showing one of its numbers; the other number becomes the end.
- 000 §4 "If you have a tile that can be played, you must play. You cannot pass or
  draw while you have a move"; 001, 002, 004 alike: no draw or pass while a tile fits.
- 000 §5, 001, 002, 004: with nothing that fits, draw one tile at a time until one
  fits, then play it at once; with nothing to draw, pass. 003 "Passing": Arab Block
  never draws; with 4 seats all 28 tiles are dealt and nobody draws.
- 001 "The opening double has a bonus" (Fives only): once tiles sit on both its left
  and right, the opening double opens an end above and below.
- rules-decisions.md "Common": a deal ends when a hand is empty or, with nothing left
  to draw, no seat can play (a block is decided as soon as it is true).
- Who opens: 000 §3, 001 "First round", 002 "Who leads", 003 "Starting the Game",
  004 "Match start": the highest double dealt, else the heaviest tile (rules-decisions:
  pips, then the higher number). Later deals (000 §3, 001, 002): the preset's leader
  with any tile; 003 and 004 give no other rule, so every deal opens as the first.
- 002 "The deal and the boneyard": a hand of 4 or more doubles is reshuffled, so no
  move is legal until the new deal.
"""

from __future__ import annotations

from collections.abc import Iterable

from ledger.events import DealEndClaimed, Dealt, Drew, Event, Passed, Played
from ledger.tiles import ALL_TILES, Tile

END_NAMES = ("left", "right", "up", "down")
EVERY_DEAL_BY_DOUBLE = frozenset({"arab-block", "casual-arena"})

Move = tuple[str, Tile | None, str | None]  # ("play", tile, end), ("draw", None, None), ...


def table_draws(preset: str, seats: int) -> bool:
    return preset != "arab-block" and seats < 4


def opening_tile(hands: Iterable[Iterable[Tile]]) -> Tile:
    """The highest double dealt, else the heaviest tile (pips, then the higher number)."""
    dealt = [t for hand in hands for t in hand]
    doubles = [t for t in dealt if t.high == t.low]
    if doubles:
        return max(doubles, key=lambda t: t.high)
    return max(dealt, key=lambda t: (t.high + t.low, t.high))


def _fits(tile: Tile, number: int) -> bool:
    return tile.high == number or tile.low == number


class Referee:
    """Follows one match's recorded events and says what the seat to move may do."""

    def __init__(self, preset: str, seats: int) -> None:
        self.preset = preset
        self.seats = seats
        self.draws = table_draws(preset, seats)
        self.fives = preset == "sahrat-fives"
        self.phase = "waiting"  # waiting, playing, over
        self.hands: list[set[Tile]] = [set() for _ in range(seats)]
        self.stock: list[Tile] = []
        self.stock_pos = 0
        self.line: set[Tile] = set()
        self.ends: dict[str, int] = {}
        self.double_at: dict[str, bool] = {}
        self.spinner: int | None = None
        self.arms: set[str] = set()
        self.to_move: int | None = None
        self.must_open: Tile | None = None
        self.just_drew: Tile | None = None
        self.redeal_due = False
        self.played_deals = 0
        self.leader: int | None = None
        self.last_player: int | None = None
        self.result: str | None = None
        self.winner: int | None = None
        # The previous deal that was played: (leader, last player, result, winner).
        self.previous: tuple[int, int | None, str, int | None] | None = None

    # --- following the record ------------------------------------------------------

    def feed(self, ev: Event | None) -> None:
        if isinstance(ev, Dealt):
            self._deal(ev)
        elif isinstance(ev, Played):
            self._play(ev)
        elif isinstance(ev, Drew):
            self._draw(ev)
        elif isinstance(ev, Passed):
            if self.phase == "playing":
                self.to_move = (ev.seat + 1) % self.seats
                self.just_drew = None
                self._check_block()
        elif isinstance(ev, DealEndClaimed) and self.result == "block" and self.phase == "over":
            # Domena's block winner (the lowest hand of the winning pair, or nobody on a
            # tie) is the rules tests' business; here it only names the next leader.
            self.winner = ev.winner

    def _deal(self, ev: Dealt) -> None:
        if self.phase == "over" and self.result is not None:
            assert self.leader is not None
            self.previous = (self.leader, self.last_player, self.result, self.winner)
            self.played_deals += 1
        hands = [set(h or ()) for h in ev.hands]
        self.hands = hands
        self.stock = list(ev.stock or ())
        self.stock_pos = 0
        self.line = set()
        self.ends = {}
        self.double_at = {}
        self.spinner = None
        self.arms = set()
        self.just_drew = None
        self.result = None
        self.winner = None
        self.last_player = None
        self.phase = "playing"
        self.redeal_due = self.preset == "selminha" and any(
            sum(t.high == t.low for t in h) >= 4 for h in hands)
        if self.previous is None or self.preset in EVERY_DEAL_BY_DOUBLE:
            self.must_open = opening_tile(hands)
            self.to_move = next(s for s, h in enumerate(hands) if self.must_open in h)
        else:
            self.must_open = None
            self.to_move = self._later_leader(*self.previous)

    def _later_leader(self, leader: int, last: int | None, result: str,
                      winner: int | None) -> int:
        if self.preset == "domena":
            # 000 §3: the winner leads; after a tie, the next seat after the previous leader.
            return (leader + 1) % self.seats if winner is None else winner
        if self.preset.startswith("sahrat"):
            # 001: the winner of the last round; if it was blocked, who laid the last tile.
            if result == "out":
                assert winner is not None
                return winner
            assert last is not None
            return last
        # 002: the seat after whoever led the previous round.
        return (leader + 1) % self.seats

    def _play(self, ev: Played) -> None:
        tile, seat = ev.tile, ev.seat
        self.hands[seat].discard(tile)
        if not self.line:
            first = tile.low if ev.reversed else tile.high
            second = tile.high if ev.reversed else tile.low
            self.ends = {"left": first, "right": second}
            self.double_at = {"left": tile.high == tile.low, "right": tile.high == tile.low}
            self.spinner = tile.high if self.fives and tile.high == tile.low else None
            self.leader = seat
        else:
            end = ev.end or next(e for e in END_NAMES if e in self.ends
                                 and _fits(tile, self.ends[e]))
            self._lay(tile, end)
        self.line.add(tile)
        self.last_player = seat
        self.just_drew = None
        if not self.hands[seat]:
            self.phase, self.result, self.winner = "over", "out", seat
            self.to_move = None
            return
        self.to_move = (seat + 1) % self.seats
        self._check_block()

    def _lay(self, tile: Tile, end: str) -> None:
        number = self.ends[end]
        self.ends[end] = tile.low if tile.high == number else tile.high
        self.double_at[end] = tile.high == tile.low
        if self.spinner is not None:
            self.arms.add(end)
            if {"left", "right"} <= self.arms and "up" not in self.ends:
                self.ends["up"] = self.ends["down"] = self.spinner
                self.double_at["up"] = self.double_at["down"] = False

    def _draw(self, ev: Drew) -> None:
        tile = self.stock[self.stock_pos] if ev.tile is None else ev.tile
        self.stock_pos += 1
        self.hands[ev.seat].add(tile)
        if any(_fits(tile, n) for n in self.ends.values()):
            self.just_drew = tile
        self._check_block()

    def _can_draw(self) -> bool:
        return self.draws and self.stock_pos < len(self.stock)

    def _check_block(self) -> None:
        if self._can_draw():
            return
        if any(_fits(t, n) for h in self.hands for t in h for n in self.ends.values()):
            return
        self.phase, self.result, self.to_move = "over", "block", None

    # --- the rules' verdicts ----------------------------------------------------------

    def moves(self) -> set[Move]:
        """Every legal move of the seat to move, each candidate decided by the rule text."""
        if self.phase != "playing" or self.redeal_due or self.to_move is None:
            return set()
        hand = self.hands[self.to_move]
        if not self.line:
            if self.must_open is not None:
                return {("play", self.must_open, None)} if self.must_open in hand else set()
            return {("play", t, None) for t in hand}
        legal: set[Move] = set()
        for tile in ALL_TILES:
            for end in END_NAMES:
                if (tile in hand and end in self.ends and _fits(tile, self.ends[end])
                        and (self.just_drew is None or tile is self.just_drew)):
                    legal.add(("play", tile, end))
        if not legal:
            # No tile fits: draw while the stock lasts, else pass.
            legal.add(("draw", None, None) if self._can_draw() else ("pass", None, None))
        return legal

    def count(self) -> int:
        """Fives (001 and rules-decisions): the open ends added up."""
        if self.spinner is not None:
            total = 0 if {"left", "right"} <= self.arms else 2 * self.spinner
            for end in self.arms:
                total += self.ends[end] * (2 if self.double_at[end] else 1)
            return total
        return sum(self.ends[e] * (2 if self.double_at[e] else 1) for e in ("left", "right"))

    def outcome(self, tile: Tile, end: str) -> tuple[tuple[int, ...], int]:
        """The open numbers (as a multiset) and, in Fives, the count after laying there."""
        saved = (dict(self.ends), dict(self.double_at), set(self.arms))
        self._lay(tile, end)
        result = (tuple(sorted(self.ends.values())), self.count() if self.fives else 0)
        self.ends, self.double_at, self.arms = saved
        return result

    def may_omit_end(self, tile: Tile) -> bool:
        """match-format.md: ``end`` may be left out when every end it fits gives the same
        open numbers (and, in Fives, the same count)."""
        ends = [e for e in END_NAMES if ("play", tile, e) in self.moves()]
        return bool(ends) and len({self.outcome(tile, e) for e in ends}) == 1

    def is_legal_play(self, seat: int, tile: Tile, end: str | None) -> bool:
        """Would the record's play be accepted (with no error) in this position?"""
        if seat != self.to_move:
            return False
        if not self.line:
            return ("play", tile, None) in self.moves()  # an end here is a warning at most
        if end is None:
            return self.may_omit_end(tile)
        return ("play", tile, end) in self.moves()
