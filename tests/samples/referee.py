"""An independent referee for full-information records, for checking the samples.

Written from ../shared/rules-decisions.md and the seeds alone: it shares no code
with ledger/ (not even the tile type), so that a sample's verdict does not rest
on the engine it is meant to check. It is slow and plain on purpose. It reads
only what the samples need: every hand and the stock shown, canonical tiles.

``referee(match)`` replays a domino-match/1 dict, raises ``Foul`` at the first
rule broken, and returns what the rules make of the match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

Tile = tuple[int, int]  # (high, low)


class Foul(AssertionError):
    def __init__(self, index: int, message: str) -> None:
        super().__init__(f"event {index}: {message}")
        self.index = index


def tile(text: object) -> Tile:
    if isinstance(text, list):
        a, b = text
    else:
        digits = re.findall(r"\d", str(text))
        assert len(digits) == 2, text
        a, b = int(digits[0]), int(digits[1])
    return (max(a, b), min(a, b))


def first_number(text: object) -> int:
    return int(text[0]) if isinstance(text, list) else int(re.findall(r"\d", str(text))[0])


def pips(hand: set[Tile] | list[Tile]) -> int:
    return sum(a + b for a, b in hand)


@dataclass(frozen=True)
class Table:
    """A preset at a seat count, read off rules-decisions.md."""

    preset: str
    seats: int
    teams: bool
    draws: bool
    target: int
    fives: bool = False
    redeal: bool = False  # Selminha: 4 or more doubles in a hand


def table_of(match: dict[str, Any]) -> Table:
    preset = match["table"]["rules"]
    options = match["table"].get("options") or {}
    n = len(match["seats"])
    if preset == "domena":
        t = Table(preset, n, teams=n == 4, draws=n == 2, target=100)
    elif preset in ("sahrat-draw", "sahrat-fives"):
        fives = preset == "sahrat-fives"
        t = Table(preset, n, teams=False, draws=n == 2, target=150 if fives else 100,
                  fives=fives)
    elif preset == "sahrat-partner":
        t = Table(preset, n, teams=True, draws=False, target=100)
    elif preset == "selminha":
        t = Table(preset, n, teams=n == 4, draws=n < 4, target=100, redeal=True)
    elif preset == "arab-block":
        t = Table(preset, n, teams=False, draws=False, target=100)
    elif preset == "casual-arena":
        t = Table(preset, n, teams=bool(options.get("teams")), draws=n < 4, target=100)
    else:
        raise ValueError(preset)
    if "target" in options:
        t = Table(t.preset, t.seats, t.teams, t.draws, options["target"], t.fives, t.redeal)
    return t


def side(t: Table, seat: int) -> int:
    return seat % 2 if t.teams else seat


def opponents(t: Table, winner: int) -> list[int]:
    """Whose pips the winner of a deal scores."""
    if t.preset == "casual-arena":  # "including his partner in couples matches"
        return [s for s in range(t.seats) if s != winner]
    return [s for s in range(t.seats) if side(t, s) != side(t, winner)]


def opener(hands: list[set[Tile]]) -> tuple[int, Tile]:
    """Highest double dealt, else the heaviest tile (pips, then the higher number)."""
    best: tuple[tuple[int, int, int], int, Tile] | None = None
    for s, hand in enumerate(hands):
        for a, b in hand:
            rank = (1, a, 0) if a == b else (0, a + b, a)
            if best is None or rank > best[0]:
                best = (rank, s, (a, b))
    assert best is not None
    return best[1], best[2]


# --- the line of tiles --------------------------------------------------------


@dataclass
class Line:
    """Open ends: number and whether a double lies there; Fives adds the spinner."""

    ends: dict[str, tuple[int, bool]] = field(default_factory=dict)
    spinner: int | None = None
    covered: set[str] = field(default_factory=set)  # spinner sides with a tile on them

    def fits(self, t: Tile) -> list[str]:
        return [e for e in ("left", "right", "up", "down")
                if e in self.ends and self.ends[e][0] in t]

    def laid(self, t: Tile, end: str) -> Line:
        new = Line(dict(self.ends), self.spinner, set(self.covered))
        n = new.ends[end][0]
        other = t[1] if t[0] == n else t[0]
        new.ends[end] = (other, t[0] == t[1])
        if new.spinner is not None:
            new.covered.add(end)
            if {"left", "right"} <= new.covered and "up" not in new.ends:
                new.ends["up"] = new.ends["down"] = (new.spinner, False)
        return new

    def count(self) -> int:
        """Fives: the outer number of each end, a double at an end counting both halves."""
        if self.spinner is not None:
            total = 0
            if not {"left", "right"} <= self.covered:
                total += 2 * self.spinner  # the spinner is still an end itself
            for e in self.covered:
                n, dbl = self.ends[e]
                total += 2 * n if dbl else n
            return total
        return sum(2 * n if dbl else n for n, dbl in self.ends.values())

    def key(self, fives: bool) -> tuple[object, ...]:
        return (sorted(n for n, _ in self.ends.values()), self.count() if fives else 0)


# --- the referee --------------------------------------------------------------


@dataclass
class Verdict:
    deals: list[tuple[str, int | None, int]] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    winner: int | None = None
    ended: str | None = None  # how: "target", "one-round", "resign", "abandon", "agree_draw"
    fives: int = 0  # in-deal Fives points awarded, all deals
    redeals: int = 0


def block_winner(t: Table, hands: list[set[Tile]], leader: int) -> int | None:
    totals = [pips(h) for h in hands]
    low = min(totals)
    lows = [s for s in range(t.seats) if totals[s] == low]
    if t.preset == "domena" and t.teams:
        pairs = {side(t, s) for s in lows}
        if len(pairs) == 1:
            pair = pairs.pop()
        else:
            sums = [totals[0] + totals[2], totals[1] + totals[3]]
            if sums[0] == sums[1]:
                return None
            pair = 0 if sums[0] < sums[1] else 1
        # lowest hand of the pair; partners equal: first counting from the seat after
        # the leader, the leader last
        order = [(leader + k) % t.seats for k in range(1, t.seats + 1)]
        members = [s for s in order if side(t, s) == pair]
        return min(members, key=lambda s: (totals[s], order.index(s)))
    if t.preset == "sahrat-partner":
        if len({side(t, s) for s in lows}) > 1:
            return None
        return min(lows)
    if t.preset == "selminha":
        if t.teams:
            sums = [totals[0] + totals[2], totals[1] + totals[3]]
            return None if sums[0] == sums[1] else (0 if sums[0] < sums[1] else 1)
        if len(lows) == 1:
            return lows[0]
        keys = {s: sorted(a + b for a, b in hands[s]) for s in lows}
        best = min(keys.values())
        winners = [s for s in lows if keys[s] == best]
        return winners[0] if len(winners) == 1 else None
    if t.preset == "casual-arena":
        for k in range(t.seats):
            if (leader + k) % t.seats in lows:
                return (leader + k) % t.seats
    return lows[0] if len(lows) == 1 else None


def round5(n: int) -> int:
    r = n % 5
    return n - r if r <= 2 else n + 5 - r


def referee(match: dict[str, Any]) -> Verdict:
    return _Referee(match).run()


class _Referee:
    """One match's replay: the state between events, one method per event type."""

    def __init__(self, match: dict[str, Any]) -> None:
        self.match = match
        self.t = t = table_of(match)
        self.n = t.seats
        self.sides = 2 if t.teams else self.n
        self.v = Verdict(scores=[0] * self.sides)
        self.phase = "waiting"  # playing, over, ended
        self.hands: list[set[Tile]] = []
        self.stock: list[Tile] = []
        self.line = Line()
        self.to_move = self.leader = self.last_player = 0
        self.must_open: Tile | None = None
        self.drawn: Tile | None = None
        self.plays = 0
        self.redeal_due = False
        self.block_next: int | None = None
        self.last: tuple[str, int | None, int] | None = None
        self.prev: dict[str, Any] | None = None  # how the previous deal went, for the next lead

    def run(self) -> Verdict:
        for i, ev in enumerate(self.match["events"]):
            kind = ev["type"]
            handler = _EVENTS.get(kind) if isinstance(kind, str) else None
            if handler is None:
                raise Foul(i, f"unknown event {kind}")
            handler(self, i, ev)
        return self.v

    # --- the end of a deal, of the match ------------------------------------------

    def deal_over(self, result: str, winner: int | None) -> None:
        t, v = self.t, self.v
        points = 0
        if winner is not None:
            points = pips([x for s in opponents(t, winner) for x in self.hands[s]])
            if t.fives:
                points = round5(points)
            v.scores[side(t, winner)] += points
        self.last = (result, winner, points)
        v.deals.append(self.last)
        self.prev = {"result": result, "winner": winner, "leader": self.leader,
                     "last": self.last_player}
        self.phase = "over"
        self.block_next = self.to_move if result != "out" else None
        if t.target == 0:
            if winner is not None:
                self.end(side(t, winner), "one-round")
        else:
            top = max(v.scores)
            if top >= t.target and v.scores.count(top) == 1:
                self.end(v.scores.index(top), "target")

    def end(self, win_side: int | None, how: str) -> None:
        self.phase = "ended"
        self.v.winner = win_side  # a side's lower seat is its number, teams or not
        self.v.ended = how

    def blocked(self) -> bool:
        if self.t.draws and self.stock:
            return False
        return not any(self.line.fits(x) for h in self.hands for x in h)

    def block_if_blocked(self) -> None:
        if self.blocked():
            self.deal_over(*_block(self.t, self.hands, self.leader, block_winner))

    # --- deal -----------------------------------------------------------------------

    def on_deal(self, i: int, ev: dict[str, Any]) -> None:
        t, n = self.t, self.n
        if self.phase == "playing" and not (self.plays == 0 and self.redeal_due):
            raise Foul(i, "a new deal while a deal is played and no redeal is due")
        if self.phase == "ended":
            raise Foul(i, "a deal after the match ended")
        redealt = self.phase == "playing"
        self.v.redeals += redealt
        hands = self.hands = [set(map(tile, h)) for h in ev["hands"]]
        stock = self.stock = [tile(x) for x in ev.get("stock") or []]
        dealt = [x for h in hands for x in h] + stock
        if len(hands) != n or any(len(h) != 7 for h in hands) or len(set(dealt)) != 28:
            raise Foul(i, "not a deal of the 28 tiles")
        if len(stock) != 28 - 7 * n:
            raise Foul(i, "the stock is not every undealt tile")
        if not t.draws:
            self.stock = []  # out of play
        self.redeal_due = t.redeal and any(sum(a == b for a, b in h) >= 4 for h in hands)
        self.phase, self.line, self.plays, self.drawn = "playing", Line(), 0, None
        self.must_open = None
        self.first_to_move()
        self.leader = self.to_move

    def first_to_move(self) -> None:
        t, prev = self.t, self.prev
        later = prev is not None and t.preset in ("domena", "sahrat-draw", "sahrat-fives",
                                                   "sahrat-partner", "selminha")
        if not later:
            self.to_move, self.must_open = opener(self.hands)
            return
        assert prev is not None
        if t.preset == "domena":
            self.to_move = (prev["winner"] if prev["winner"] is not None
                            else (prev["leader"] + 1) % self.n)
        elif t.preset.startswith("sahrat"):
            self.to_move = prev["winner"] if prev["result"] == "out" else prev["last"]
        else:  # selminha
            self.to_move = (prev["leader"] + 1) % self.n

    # --- play, draw, pass -------------------------------------------------------------

    def on_play(self, i: int, ev: dict[str, Any]) -> None:
        if self.phase != "playing":
            raise Foul(i, "a play outside a deal")
        if self.redeal_due:
            raise Foul(i, "a play on a deal that had to be redealt")
        seat, x = ev["seat"], tile(ev["tile"])
        if seat != self.to_move:
            raise Foul(i, f"seat {seat} plays out of turn (seat {self.to_move} to move)")
        if x not in self.hands[seat]:
            raise Foul(i, f"seat {seat} does not hold {x}")
        if self.drawn is not None and x != self.drawn:
            raise Foul(i, "after drawing a tile that fits, that tile must be played")
        if self.plays == 0:
            self.open_line(i, ev, x)
        else:
            self.extend_line(i, ev, x)
        self.played(seat, x)

    def open_line(self, i: int, ev: dict[str, Any], x: Tile) -> None:
        if self.must_open is not None and x != self.must_open:
            raise Foul(i, f"the deal must open with {self.must_open}")
        a = first_number(ev["tile"])
        b = x[1] if a == x[0] else x[0]
        self.line = Line({"left": (a, a == b), "right": (b, a == b)},
                         spinner=a if (self.t.fives and a == b) else None)

    def extend_line(self, i: int, ev: dict[str, Any], x: Tile) -> None:
        line = self.line
        fits = line.fits(x)
        if not fits:
            raise Foul(i, f"{x} fits no end")
        if "end" in ev:
            if ev["end"] not in fits:
                raise Foul(i, f"{x} does not fit the {ev['end']} end")
            self.line = line.laid(x, ev["end"])
        else:
            options = [line.laid(x, e) for e in fits]
            if len({repr(o.key(self.t.fives)) for o in options}) > 1:
                raise Foul(i, "no end named where the choice matters")
            self.line = options[0]

    def played(self, seat: int, x: Tile) -> None:
        t, v = self.t, self.v
        self.hands[seat].discard(x)
        self.plays += 1
        self.drawn = None
        self.last_player = seat
        if t.fives:
            c = self.line.count()
            if c > 0 and c % 5 == 0:
                v.scores[side(t, seat)] += c
                v.fives += c
        self.to_move = (seat + 1) % self.n
        if not self.hands[seat]:
            self.deal_over("out", seat)
        else:
            self.block_if_blocked()

    def on_draw(self, i: int, ev: dict[str, Any]) -> None:
        seat = ev["seat"]
        if self.phase != "playing" or seat != self.to_move or self.plays == 0:
            raise Foul(i, "a draw out of turn")
        if not self.t.draws:
            raise Foul(i, "a draw at a table without a stock")
        if not self.stock:
            raise Foul(i, "a draw from an empty stock")
        if self.drawn is not None or any(self.line.fits(x) for x in self.hands[seat]):
            raise Foul(i, "a draw while able to play")
        x = self.stock.pop(0)
        if ev.get("tile") is not None and tile(ev["tile"]) != x:
            raise Foul(i, "not the next tile of the stock")
        self.hands[seat].add(x)
        self.drawn = x if self.line.fits(x) else None
        self.block_if_blocked()

    def on_pass(self, i: int, ev: dict[str, Any]) -> None:
        seat = ev["seat"]
        if self.phase in ("over", "ended") and self.block_next is not None:
            if seat != self.block_next:
                raise Foul(i, "a pass after the block, out of turn")
            self.block_next = (seat + 1) % self.n
            return
        if self.phase != "playing" or seat != self.to_move or self.plays == 0:
            raise Foul(i, "a pass out of turn")
        if self.drawn is not None or any(self.line.fits(x) for x in self.hands[seat]):
            raise Foul(i, "a pass while able to play")
        if self.t.draws and self.stock:
            raise Foul(i, "a pass while the stock has tiles")
        self.to_move = (seat + 1) % self.n
        if self.blocked():  # pragma: no cover - a pass cannot make a block appear
            self.deal_over(*_block(self.t, self.hands, self.leader, block_winner))

    # --- what the record claims, and the other events -----------------------------------

    def on_block(self, i: int, ev: dict[str, Any]) -> None:
        if self.phase == "playing" or (self.last is not None and self.last[0] == "out"):
            raise Foul(i, "a block claimed where there is none")

    def on_reveal(self, i: int, ev: dict[str, Any]) -> None:
        if self.phase == "playing":
            raise Foul(i, "a reveal during play")
        for s, h in enumerate(ev["hands"]):
            if h is not None and set(map(tile, h)) != self.hands[s]:
                raise Foul(i, f"seat {s}'s reveal differs from its hand")

    def on_deal_end(self, i: int, ev: dict[str, Any]) -> None:
        last = self.last
        if self.phase == "playing" or last is None:
            raise Foul(i, "a deal_end claim while the deal goes on")
        claim = (ev["result"], ev["winner"], ev.get("points", last[2]))
        if claim != last:
            raise Foul(i, f"deal_end claims {claim}, the rules give {last}")

    def on_bot(self, i: int, ev: dict[str, Any]) -> None:
        pass

    def on_ending(self, i: int, ev: dict[str, Any]) -> None:
        kind, v = ev["type"], self.v
        if self.phase == "ended":
            raise Foul(i, f"{kind} after the match ended")
        if kind == "resign":
            loser = side(self.t, ev["seat"])
            others = [s for s in range(self.sides) if s != loser]
            top = max(v.scores[s] for s in others)
            best = [s for s in others if v.scores[s] == top]
            self.end(best[0] if len(best) == 1 else None, "resign")
        else:
            self.end(None, kind)

    def on_match_end(self, i: int, ev: dict[str, Any]) -> None:
        v = self.v
        if self.phase != "ended":
            raise Foul(i, "a match_end claim while the match goes on")
        claimed_side = None if ev["winner"] is None else side(self.t, ev["winner"])
        if claimed_side != v.winner or ev.get("scores", v.scores) != v.scores:
            raise Foul(i, f"match_end claims {ev['winner']} {ev.get('scores')}, the rules "
                          f"give {v.winner} {v.scores}")


_EVENTS: dict[str, Any] = {
    "deal": _Referee.on_deal, "play": _Referee.on_play, "draw": _Referee.on_draw,
    "pass": _Referee.on_pass, "block": _Referee.on_block, "reveal": _Referee.on_reveal,
    "deal_end": _Referee.on_deal_end, "bot": _Referee.on_bot,
    "match_end": _Referee.on_match_end, "resign": _Referee.on_ending,
    "abandon": _Referee.on_ending, "agree_draw": _Referee.on_ending,
}


def _block(t: Table, hands: list[set[Tile]], leader: int,
           winner_of: Any) -> tuple[str, int | None]:
    w = winner_of(t, hands, leader)
    return ("tie", None) if w is None else ("block", w)
