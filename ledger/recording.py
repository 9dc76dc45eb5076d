"""Recording a match as it is played: what may be recorded next, and why not the rest.

The recorder's page offers only what the rules allow: ``menu(state)`` lists,
for the folded state of a match, every event that may come next as a ready
wire object (a ``Choice``) and, for the seat to move, every tile or action it
may not take with the rule's reason (a ``Refusal``). For a seat whose hand is
known these are exactly the engine's ``legal_moves``; for a hidden hand (only
the recorder's own hand was entered) they are "any unseen tile that fits",
draw and pass, since nobody at the table can tell more.

Labels, reasons and notes are English text that keeps its wording (``Said``), so
a page words them in its reader's language.

Also: seeded random deals (practice and demonstrations) and the tiles a
reveal may name. Pure: no I/O, no clock; randomness comes from the caller.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ledger.engine.board import fitting_ends, outcome_key
from ledger.engine.moves import legal_moves
from ledger.engine.state import CLOSED, END_NAMES, State
from ledger.events import Dealt
from ledger.i18n.phrases import Counted, Phrase, Said, seat_named
from ledger.rules.base import HAND_SIZE, Rules
from ledger.tiles import ALL_TILES, FULL_SET, Tile, tiles_of

Need = Literal["deal", "redeal", "move", "lead", "reveal", "over"]


@dataclass(frozen=True, slots=True)
class Choice:
    """One event the recorder may append now (a button on the page)."""

    kind: str                 # play, draw, pass, resign, agree_draw, abandon
    event: dict[str, Any]     # the domino-match/1 event object to append
    label: str                # what the button says, in words
    seat: int | None = None
    tile: str | None = None
    end: str | None = None
    number: int | None = None  # the open number the tile joins


@dataclass(frozen=True, slots=True)
class Refusal:
    """A tile or action the seat may not take now, and the rule that says so."""

    what: str                 # "5-2", "draw", "pass"
    reason: str
    tile: str | None = None


@dataclass(frozen=True, slots=True)
class Turn:
    """What one seat may do: its plays, draws and passes, and what it may not."""

    seat: int
    hidden: bool              # the hand is not known: unseen tiles are offered
    plays: tuple[Choice, ...]
    draws: tuple[Choice, ...]
    passes: tuple[Choice, ...]
    refused: tuple[Refusal, ...]
    note: str = ""


@dataclass(frozen=True, slots=True)
class RevealSeat:
    """A hand to show at the end of a deal: how many tiles, and which they may be."""

    seat: int
    known: tuple[str, ...]    # tiles already known to be in it
    count: int                # tiles it holds, known ones included
    candidates: tuple[str, ...]  # tiles the unknown ones may be


@dataclass(frozen=True, slots=True)
class Menu:
    need: Need
    note: str = ""
    turns: tuple[Turn, ...] = ()
    reveal: tuple[RevealSeat, ...] = ()
    # Hidden hands on a table that reshuffles: the table may call the deal off.
    redeal_allowed: bool = False
    ending: tuple[Choice, ...] = ()  # resign, agree a draw, abandon

    @property
    def choices(self) -> tuple[Choice, ...]:
        """Every event on offer (the page's buttons), the match-ending ones last."""
        out: list[Choice] = []
        for t in self.turns:
            out += [*t.plays, *t.draws, *t.passes]
        return (*out, *self.ending)


# --- names and words -------------------------------------------------------------------


def _name(seats: Sequence[str], seat: int) -> str | Phrase:
    # A button names the player alone (the panel's heading says the seat's number too).
    return seats[seat] if 0 <= seat < len(seats) else seat_named(seat)


def _numbers(st: State) -> str | Phrase:
    nums = [str(n) for n in st.ends if n != CLOSED]
    return nums[0] if len(nums) == 1 else Phrase("{a} and {b}", a=", ".join(nums[:-1]),
                                                 b=nums[-1])


def _tiles(n: int) -> Phrase:
    return Counted("{count} tile", "{count} tiles", n)


def _rank(tile: Tile) -> tuple[int, int, int]:
    """Who opens a deal: the highest double, else the heaviest tile (as the fold ranks)."""
    return (1, tile.high, 0) if tile.is_double else (0, tile.pips, tile.high)


def _by_face(mask: int) -> list[Tile]:
    """Tiles high first (6-6, 6-5, ...), as a player sorts a hand."""
    return sorted(tiles_of(mask), key=lambda t: (t.high, t.low), reverse=True)


def _play(seat: int, tile: Tile, end: str | None, number: int | None,
          seats: Sequence[str]) -> Choice:
    event: dict[str, Any] = {"type": "play", "seat": seat, "tile": str(tile)}
    if end is None:
        label = Said(Phrase("{name} opens with {tile}", name=_name(seats, seat),
                            tile=str(tile)))
    else:
        event["end"] = end
        label = Said(Phrase("{name} plays {tile} on the {side} end ({number})",
                            name=_name(seats, seat), tile=str(tile), side=end, number=number))
    return Choice("play", event, label, seat, str(tile), end, number)


def unseen(st: State) -> int:
    """Tiles whose place nobody at the table knows (in a hidden hand or an unlisted stock)."""
    return FULL_SET & ~st.known_elsewhere()


# --- the menu ----------------------------------------------------------------------------


def menu(st: State, seats: Sequence[str]) -> Menu:
    """What may be recorded next in the match whose folded state is ``st``."""
    rules = st.rules
    ending = _ending(st, seats)
    if st.phase == "ended":
        return Menu("over", _ended_note(st, seats))
    if st.phase == "waiting":
        return Menu("deal", Said(Phrase("Deal the first hand.")), ending=ending)
    if st.phase == "over":
        if st.pending:
            return Menu("reveal", Said(Phrase("The deal is over. Show the tiles left in the "
                                              "hands nobody saw, so that the rules can score "
                                              "it.")),
                        reveal=_reveal_seats(st), ending=ending)
        return Menu("deal", Said(Phrase("Deal {deal}.", deal=st.deal + 2)), ending=ending)
    if st.redeal_due:
        doubles = rules.redeal_doubles or 4
        return Menu("redeal", Said(Phrase("A hand was dealt {doubles} or more doubles: the "
                                          "rules call for a new deal.", doubles=doubles)),
                    ending=ending)
    redeal_allowed = bool(rules.redeal_doubles) and st.fresh and any(st.hidden)
    if st.to_move is None:
        return Menu("lead", _lead_note(st), turns=_openers(st, seats),
                    redeal_allowed=redeal_allowed, ending=ending)
    return Menu("move", "", turns=(_turn(st, st.to_move, seats),),
                redeal_allowed=redeal_allowed, ending=ending)


def _ended_note(st: State, seats: Sequence[str]) -> str:
    if st.winner is None:
        if st.end_reason == "abandon":
            return Said(Phrase("The match was abandoned."))
        if st.end_reason == "agree_draw":
            return Said(Phrase("The match was drawn by agreement."))
        return Said(Phrase("The match is over, with no winner."))
    rules = st.rules
    names = " & ".join(str(_name(seats, s))
                       for s in rules.side_seats(rules.side_of(st.winner)))
    return Said(Phrase("The match is over: {names} won.", names=names))


def _lead_note(st: State) -> str:
    return Said(Phrase("The holder of the highest double (else the heaviest tile) leads "
                       "with it, and it may be in a hand nobody saw: tap who opened, with "
                       "which tile."))


def _ending(st: State, seats: Sequence[str]) -> tuple[Choice, ...]:
    """Ways to end the match early, which every table accepts."""
    if st.phase == "ended":
        return ()
    out = [Choice("resign", {"type": "resign", "seat": s},
                  Said(Phrase("{name} resigns", name=_name(seats, s))), s)
           for s in range(st.rules.seats)]
    out.append(Choice("agree_draw", {"type": "agree_draw"},
                      Said(Phrase("The players agree a draw"))))
    out.append(Choice("abandon", {"type": "abandon", "reason": "abandoned at the table"},
                      Said(Phrase("Abandon the match (no winner)"))))
    return tuple(out)


def _turn(st: State, seat: int, seats: Sequence[str]) -> Turn:
    if st.hidden[seat]:
        return _hidden_turn(st, seat, seats)
    return _known_turn(st, seat, seats)


def _known_turn(st: State, seat: int, seats: Sequence[str]) -> Turn:
    """A hand the recorder can see: the engine's legal moves, and the reasons for the rest."""
    rules = st.rules
    name = _name(seats, seat)
    legal = legal_moves(st)
    plays: list[Choice] = []
    draws: list[Choice] = []
    passes: list[Choice] = []
    for m in legal:
        if m.kind == "play":
            assert m.tile is not None
            number = st.ends[END_NAMES.index(m.end)] if m.end is not None else None
            plays.append(_play(seat, m.tile, m.end, number, seats))
        elif m.kind == "draw":
            draws += _draw_choices(st, seat, seats)
        else:
            passes.append(Choice("pass", {"type": "pass", "seat": seat},
                                 Said(Phrase("{name} passes", name=name)), seat))
    playable = {c.tile for c in plays}
    refused: list[Refusal] = []
    hand = _by_face(st.hands[seat])
    for tile in hand:
        if str(tile) in playable:
            continue
        refused.append(Refusal(str(tile), _why_not_play(st, tile), str(tile)))
    fit = next((t for t in hand if str(t) in playable), None)
    if rules.draws and not draws:
        refused.append(Refusal("draw", _why_not_draw(st, name, fit)))
    if not passes:
        refused.append(Refusal("pass", _why_not_pass(st, name, fit, bool(draws))))
    return Turn(seat, False, _dedupe(st, _high_first(plays)), tuple(draws), tuple(passes),
                tuple(refused))


def _high_first(plays: list[Choice]) -> list[Choice]:
    """Plays in the order a player holds the tiles: 6-6, 6-5, ... (each tile's ends kept)."""
    def key(c: Choice) -> tuple[int, int]:
        t = Tile.parse(c.tile)
        return (-t.high, -t.low)

    return sorted(plays, key=key)  # stable: a tile's ends stay left, right, up, down


def _dedupe(st: State, plays: list[Choice]) -> tuple[Choice, ...]:
    """A tile offered on two ends that leave the very same table is one choice, not two."""
    out: list[Choice] = []
    seen: set[tuple[str | None, object]] = set()
    for c in plays:
        if c.end is None or c.tile is None:
            out.append(c)
            continue
        tile = Tile.parse(c.tile)
        key = (c.tile, outcome_key(st, tile, END_NAMES.index(c.end)))
        if key in seen:
            continue  # e.g. both ends show 3: either way the table is the same
        seen.add(key)
        out.append(c)
    return tuple(out)


def _draw_choices(st: State, seat: int, seats: Sequence[str]) -> list[Choice]:
    name = _name(seats, seat)
    if st.stock is not None:
        tile = st.stock[st.stock_pos]
        return [Choice("draw", {"type": "draw", "seat": seat, "tile": str(tile)},
                       Said(Phrase("{name} draws from the stock", name=name)), seat,
                       str(tile))]
    if st.hidden[seat]:
        # Nobody sees what a hidden hand draws: the tile stays unknown till the reveal.
        return [Choice("draw", {"type": "draw", "seat": seat, "tile": None},
                       Said(Phrase("{name} draws a tile", name=name)), seat)]
    # The deal did not list the stock's order: the recorder says which tile came.
    return [Choice("draw", {"type": "draw", "seat": seat, "tile": str(t)},
                   Said(Phrase("{name} draws {tile}", name=name, tile=str(t))), seat, str(t))
            for t in _by_face(unseen(st))]


def _why_not_play(st: State, tile: Tile) -> str:
    if st.table == 0:
        if st.must_open is not None:
            if st.must_open.is_double:
                return Said(Phrase("deal {deal} must open with {tile}, the highest double "
                                   "dealt", deal=st.deal + 1, tile=str(st.must_open)))
            return Said(Phrase("deal {deal} must open with {tile}, the heaviest tile dealt",
                               deal=st.deal + 1, tile=str(st.must_open)))
        return Said(Phrase("this seat may not open the deal"))
    if not st.fit_mask() & tile.bit:
        return Said(Phrase("it fits no open end ({numbers})", numbers=_numbers(st)))
    if st.drawn is not None:
        return Said(Phrase("after drawing, only the drawn tile ({tile}) may be played",
                           tile=str(st.drawn)))
    return Said(Phrase("the rules do not allow it now"))


def _why_not_draw(st: State, name: str | Phrase, fit: Tile | None) -> str:
    if st.table == 0:
        return Said(Phrase("the deal has not been opened yet"))
    if fit is not None:
        return Said(Phrase("{name} holds {tile}, which fits: a seat draws only when it "
                           "cannot play", name=name, tile=str(fit)))
    if st.stock_left == 0:
        return Said(Phrase("the stock is empty"))
    return Said(Phrase("this table has no stock to draw from"))


def _why_not_pass(st: State, name: str | Phrase, fit: Tile | None, can_draw: bool) -> str:
    if st.table == 0:
        return Said(Phrase("the deal must be opened, not passed"))
    if fit is not None:
        return Said(Phrase("{name} can play {tile}", name=name, tile=str(fit)))
    if can_draw:
        return Said(Phrase("{tiles} left in the stock: {name} must draw",
                           tiles=_tiles(st.stock_left), name=name))
    return Said(Phrase("a seat may pass only when it can neither play nor draw"))


def _hidden_turn(st: State, seat: int, seats: Sequence[str]) -> Turn:
    """A hand nobody saw: any tile not seen elsewhere that fits, and draw or pass."""
    rules = st.rules
    name = _name(seats, seat)
    pool = st.hands[seat] | unseen(st)
    plays: list[Choice] = []
    if st.table == 0:
        tiles = ([st.must_open] if st.must_open is not None and pool & st.must_open.bit
                 else _by_face(pool))
        plays = [_play(seat, t, None, None, seats) for t in tiles]
    else:
        for tile in _by_face(pool & st.fit_mask()):
            for i in fitting_ends(st, tile):
                plays.append(_play(seat, tile, END_NAMES[i], st.ends[i], seats))
    draws: list[Choice] = []
    passes: list[Choice] = []
    refused: list[Refusal] = []
    known_fit = next((t for t in _by_face(st.hands[seat] & st.fit_mask())), None)
    can_draw = rules.draws and st.stock_left > 0 and st.table != 0
    if can_draw and st.drawn is None and known_fit is None:
        draws = _draw_choices(st, seat, seats)
    elif rules.draws:
        refused.append(Refusal("draw", _why_not_draw(st, name, known_fit or st.drawn)))
    if st.table != 0 and not can_draw and known_fit is None and st.drawn is None:
        passes = [Choice("pass", {"type": "pass", "seat": seat},
                         Said(Phrase("{name} passes", name=name)), seat)]
    else:
        refused.append(Refusal("pass", _why_not_pass(st, name, known_fit or st.drawn,
                                                     can_draw)))
    note = Said(Phrase("Nobody saw {name}'s hand: every tile not yet seen that fits is "
                       "offered ({tiles} unseen in it).", name=name,
                       tiles=_tiles(st.hidden[seat])))
    return Turn(seat, True, _dedupe(st, plays), tuple(draws), tuple(passes), tuple(refused),
                note)


def _openers(st: State, seats: Sequence[str]) -> tuple[Turn, ...]:
    """A deal whose opening tile may lie in a hidden hand: who may have opened, with what.

    The opener holds the best tile dealt. A tile nobody saw may be it if it outranks
    every tile seen in a hand; a seen hand's best tile may be it too, unless some
    unseen tile outranks it and the table has no stock to hide that tile in.
    """
    rules = st.rules
    pool = unseen(st)
    seen_best: tuple[Tile, int] | None = None
    for s in range(rules.seats):
        for t in tiles_of(st.hands[s]):
            if seen_best is None or _rank(t) > _rank(seen_best[0]):
                seen_best = (t, s)
    higher = [t for t in tiles_of(pool) if seen_best is None or _rank(t) > _rank(seen_best[0])]
    higher.sort(key=_rank, reverse=True)
    if rules.stock_size == 0 and higher:
        higher = higher[:1]  # every tile is in a hand: the best unseen one is the best dealt
    turns: list[Turn] = []
    for s in range(rules.seats):
        plays: list[Choice] = []
        if seen_best is not None and seen_best[1] == s and (rules.stock_size or not higher):
            plays.append(_play(s, seen_best[0], None, None, seats))
        if st.hidden[s]:
            plays += [_play(s, t, None, None, seats) for t in higher]
        if plays:
            turns.append(Turn(s, bool(st.hidden[s]), tuple(plays), (), (), ()))
    return tuple(turns)


def _reveal_seats(st: State) -> tuple[RevealSeat, ...]:
    pool = unseen(st)
    out = []
    for s in range(st.rules.seats):
        if st.hidden[s]:
            known = st.hands[s]
            out.append(RevealSeat(s, tuple(str(t) for t in _by_face(known)),
                                  known.bit_count() + st.hidden[s],
                                  tuple(str(t) for t in _by_face(pool))))
    return tuple(out)


def reveal_event(st: State, shown: dict[int, Sequence[str]]) -> dict[str, Any]:
    """The reveal of a deal's end: the hands entered for hidden seats, the others as known."""
    hands: list[list[str] | None] = []
    for s in range(st.rules.seats):
        if st.hidden[s]:
            known = [str(t) for t in _by_face(st.hands[s])]
            hands.append(known + [t for t in shown.get(s, ()) if t not in known])
        else:
            hands.append([str(t) for t in _by_face(st.hands[s])])
    return {"type": "reveal", "hands": hands}


# --- dealing ---------------------------------------------------------------------------


def random_deal(rules: Rules, rng: random.Random) -> Dealt:
    """A shuffled deal: every hand, and the undealt tiles in the order they are drawn."""
    tiles = list(ALL_TILES)
    rng.shuffle(tiles)
    hands = tuple(tuple(sorted(tiles[s * HAND_SIZE:(s + 1) * HAND_SIZE],
                               key=lambda t: (t.high, t.low), reverse=True))
                  for s in range(rules.seats))
    rest = tuple(tiles[rules.seats * HAND_SIZE:])
    return Dealt(hands=hands, stock=rest if rest else None)


def seeded_deal(rules: Rules, seed: str, number: int) -> Dealt:
    """The ``number``-th random deal (0-based, redeals counted) of a practice seed."""
    return random_deal(rules, random.Random(f"{seed}:{number}"))
