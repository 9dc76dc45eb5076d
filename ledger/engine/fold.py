"""The fold: one recorded event applied to the state, with what it breaks and implies.

``advance`` mutates a state the caller owns; ``step`` and ``apply`` (in
``ledger.engine``) wrap it on a copy so that, seen from outside, folding is a
pure function. A broken rule becomes a ``Finding``; a tile that is not where it
should be raises ``Unreadable`` because nothing after it can be trusted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ledger.engine.board import fitting_ends, fives_count, open_board, outcome_key, place
from ledger.engine.scoring import end_match, resign_winner, score_deal
from ledger.engine.state import CLOSED, END_NAMES, State
from ledger.events import (
    Abandoned,
    BlockClaimed,
    BlockDetected,
    BotSeated,
    DealEndClaimed,
    Dealt,
    DrawAgreed,
    Drew,
    Event,
    FivesScored,
    HandsRevealed,
    MatchEndClaimed,
    Passed,
    Played,
    Resigned,
)
from ledger.findings import Finding, Unreadable
from ledger.rules.base import HAND_SIZE, Lead
from ledger.tiles import ALL_TILES, FULL_SET, Tile, mask_of, tiles_of

_END_INDEX = {name: i for i, name in enumerate(END_NAMES)}


class _Ctx:
    """Where one event's findings and derived events go."""

    __slots__ = ("index", "out", "findings")

    def __init__(self, index: int | None, out: list[Event], findings: list[Finding]) -> None:
        self.index = index
        self.out = out
        self.findings = findings

    def error(self, code: str, message: str) -> None:
        self.findings.append(Finding(self.index, "error", code, message))

    def warn(self, code: str, message: str) -> None:
        self.findings.append(Finding(self.index, "warning", code, message))

    def fatal(self, code: str, message: str) -> Unreadable:
        return Unreadable(Finding(self.index, "error", code, message))


def advance(st: State, ev: Event, index: int | None, out: list[Event],
            findings: list[Finding]) -> None:
    ctx = _Ctx(index, out, findings)
    handler: Callable[[State, Any, _Ctx], None] | None = _HANDLERS.get(type(ev))
    if handler is None:
        raise TypeError(f"not a recorded event: {ev!r}")
    handler(st, ev, ctx)


def advance_all(st: State, events: Iterable[Event | None], findings: list[Finding],
                derived: list[tuple[Event, ...]], stop: int | None = None) -> bool:
    """``advance`` over a record, as the auditor folds it: one context for every event.

    Appends each event's derived events to ``derived`` (``()`` for an event that is
    ``None``, one the reader could not parse). The fold ends at an unreadable event
    (its finding is appended) or at a ``None`` at or after ``stop``; True if it got
    through every event.
    """
    out: list[Event] = []
    ctx = _Ctx(None, out, findings)
    handlers = _HANDLERS
    keep = derived.append
    for i, ev in enumerate(events):
        if ev is None:
            keep(())
            if stop is not None and i >= stop:
                return False  # its parse finding is already in the report
            continue
        handler = handlers.get(type(ev))
        if handler is None:
            raise TypeError(f"not a recorded event: {ev!r}")
        ctx.index = i
        try:
            handler(st, ev, ctx)
        except Unreadable as exc:
            findings.append(exc.finding)
            keep(tuple(out))
            return False
        if out:
            keep(tuple(out))
            out.clear()
        else:
            keep(())
    return True


def finish(st: State, out: list[Event], findings: list[Finding], index: int | None) -> None:
    """The record has no more events: score a deal still waiting, note an open match."""
    ctx = _Ctx(index, out, findings)
    if st.pending:
        score_deal(st, index, None, out, findings)
    if st.phase != "ended" and st.phase != "waiting":
        ctx.warn("match-unfinished",
                 f"the record stops before the match ended (scores {_scores(st)}, "
                 f"target {st.rules.target})")


# --- helpers ---------------------------------------------------------------------


def _scores(st: State) -> str:
    return ", ".join(str(s) for s in st.scores)


def _end_phrase(st: State, i: int) -> str:
    return f"the {END_NAMES[i]} end ({st.ends[i]})"


def _fits_phrase(st: State, tile: Tile) -> str:
    return " and ".join(_end_phrase(st, i) for i in fitting_ends(st, tile))


def _ends_phrase(st: State) -> str:
    ends = [_end_phrase(st, i) for i, n in enumerate(st.ends) if n != CLOSED]
    return ", ".join(ends[:-1]) + " and " + ends[-1] if len(ends) > 1 else ends[0]


def _first_fit(st: State, seat: int) -> Tile | None:
    fits = st.hands[seat] & st.fit_mask()
    return tiles_of(fits)[-1] if fits else None


def _rank(tile: Tile) -> tuple[int, int, int]:
    """Who opens a deal: the highest double, else the heaviest tile."""
    return (1, tile.high, 0) if tile.is_double else (0, tile.pips, tile.high)


_BY_RANK = sorted(ALL_TILES, key=_rank, reverse=True)


def _where(st: State, tile: Tile) -> str:
    if st.table & tile.bit:
        return "it already lies on the table"
    for s, h in enumerate(st.hands):
        if h & tile.bit:
            return f"it is in seat {s}'s hand"
    if st.stock is not None and tile in st.stock[st.stock_pos:]:
        return "it is still in the stock"
    return "it is not in that hand"


def _can_draw(st: State) -> bool:
    return st.rules.draws and st.stock_left > 0


def _blocked(st: State) -> bool:
    """Nobody can play and nothing is left to draw (decided as soon as it is true)."""
    if st.rules.draws and st.stock_left > 0:  # _can_draw(st), without the call
        return False
    fits = st.fit_mask()
    for h in st.hands:
        if h & fits:
            return False
    if any(st.hidden):
        unplaced = FULL_SET & ~st.known_elsewhere()
        if unplaced & fits:
            # A hidden hand may hold a fitting tile: only a round of passes proves the block.
            return st.passes >= st.rules.seats
    return True


def _check_block(st: State, ctx: _Ctx) -> None:
    if st.stock_left > 0 and st.rules.draws:
        return  # the common case, settled before a call: a seat can still draw
    if _blocked(st):
        st.phase = "over"
        st.over = "block"
        st.block_next = st.to_move
        st.pending = True
        ctx.out.append(BlockDetected(deal=st.deal))
        score_deal(st, None, None, ctx.out, ctx.findings)


def _require_deal(st: State, ev: Played | Drew, ctx: _Ctx, verb: str) -> None:
    if st.phase == "ended":
        raise ctx.fatal("after-match-end",
                        f"seat {ev.seat} {verb} {ev.tile or 'a tile'} after the match had ended")
    if st.phase == "waiting":
        raise ctx.fatal("no-deal", f"seat {ev.seat} {verb} before any deal")
    if st.phase == "over":
        raise ctx.fatal("deal-over", f"seat {ev.seat} {verb} {ev.tile or 'a tile'} after "
                        f"deal {st.deal + 1} had ended")


# --- deal ------------------------------------------------------------------------


def _on_dealt(st: State, ev: Dealt, ctx: _Ctx) -> None:
    rules = st.rules
    if st.phase == "ended":
        raise ctx.fatal("after-match-end", "a new deal after the match had ended")
    if st.phase == "playing":
        if st.fresh:
            # A hidden hand (partial record) may have held the doubles that call for it.
            hidden_doubles = bool(rules.redeal_doubles) and any(st.hidden)
            if not st.redeal_due and not hidden_doubles:
                ctx.error("unexpected-redeal",
                          f"deal {st.deal + 1} was dealt again, but no hand held "
                          f"{rules.redeal_doubles or 4} or more doubles"
                          if rules.redeal_doubles else
                          f"deal {st.deal + 1} was dealt again before any play; this table "
                          "never reshuffles")
            st.deal -= 1  # a redeal replaces the deal, it is not a new one
        else:
            ctx.error("deal-not-finished",
                      f"deal {st.deal + 1} was still being played (seat {st.to_move} to move) "
                      "when a new deal started; it scores nothing")
    elif st.pending:
        score_deal(st, ctx.index, None, ctx.out, ctx.findings)
        if st.match_over:
            raise ctx.fatal("after-match-end", "a new deal after the match had ended")
    _validate_deal(st, ev, ctx)
    st.deal += 1
    st.phase = "playing"
    st.over = None
    st.pending = False
    st.fresh = True
    st.table = 0
    st.ends[:] = [CLOSED] * 4
    st.doubles[:] = [False] * 4
    st.spinner = CLOSED
    st.arms = 0
    st.passes = 0
    st.drawn = None
    st.block_next = None
    st.last_player = None
    st.plays = 0
    st.in_deal = [0] * rules.sides
    for s, hand in enumerate(ev.hands):
        st.hands[s] = 0 if hand is None else mask_of(hand)
        st.hidden[s] = HAND_SIZE if hand is None else 0
    st.stock = ev.stock
    st.stock_pos = 0
    st.stock_left = rules.stock_size
    st.redeal_due = bool(rules.redeal_doubles) and any(
        hand is not None and sum(t.is_double for t in hand) >= (rules.redeal_doubles or 0)
        for hand in ev.hands)
    _set_lead(st, ev)


def _validate_deal(st: State, ev: Dealt, ctx: _Ctx) -> None:
    rules = st.rules
    if len(ev.hands) != rules.seats:
        raise ctx.fatal("bad-deal", f"the deal gives {len(ev.hands)} hands for "
                        f"{rules.seats} seats")
    # The usual deal, settled with bitmasks: full hands, a full stock, no tile twice.
    # Anything else goes through the checks below, which name what is wrong.
    given = 0
    count = 0
    for hand in ev.hands:
        if hand is not None:
            if len(hand) != HAND_SIZE:
                break
            given |= mask_of(hand)
            count += HAND_SIZE
    else:
        if ev.stock is None or len(ev.stock) == rules.stock_size:
            if ev.stock is not None:
                given |= mask_of(ev.stock)
                count += len(ev.stock)
            if given.bit_count() == count:
                return
    seen: dict[Tile, str] = {}

    def take(tile: Tile, place_name: str) -> None:
        if tile in seen:
            raise ctx.fatal("bad-deal", f"{tile} is dealt twice: to {seen[tile]} and to "
                            f"{place_name}")
        seen[tile] = place_name

    for s, hand in enumerate(ev.hands):
        if hand is None:
            continue
        if len(hand) != HAND_SIZE:
            raise ctx.fatal("bad-deal", f"seat {s} is dealt {len(hand)} tiles, not {HAND_SIZE}")
        for tile in hand:
            take(tile, f"seat {s}")
    if ev.stock is not None:
        if len(ev.stock) != rules.stock_size:
            raise ctx.fatal("bad-deal", f"the stock lists {len(ev.stock)} tiles; "
                            f"{rules.seats} seats leave {rules.stock_size} undealt")
        for tile in ev.stock:
            take(tile, "the stock")


def _set_lead(st: State, ev: Dealt) -> None:
    rules = st.rules
    lead = rules.later_lead(st.recap, rules) if st.recap is not None else Lead()
    st.must_open = None
    if lead.seat is not None:
        st.to_move = st.leader = lead.seat
        return
    # The best tile dealt and its holder (st.hands holds this deal's hands by now; ranks
    # are distinct and a valid deal places each tile once).
    dealt = 0
    for h in st.hands:
        dealt |= h
    best = next((t for t in _BY_RANK if dealt & t.bit), None)
    holder = None if best is None else next(
        s for s, h in enumerate(st.hands) if h & best.bit)
    shown = dealt
    if ev.stock is not None:
        shown |= mask_of(ev.stock)
    # With every hand shown, unlisted tiles are undealt (the stock is optional): only a
    # hidden hand can hold a better opening tile than the best one seen.
    unplaced = [t for t in ALL_TILES if not shown & t.bit] if None in ev.hands else []
    if best is not None and all(_rank(t) < _rank(best) for t in unplaced):
        st.to_move = st.leader = holder
        st.must_open = best
    else:
        st.to_move = st.leader = None  # a hidden hand may hold the opening tile


# --- play, draw, pass --------------------------------------------------------------


def _take_from_hand(st: State, seat: int, tile: Tile, ctx: _Ctx, verb: str) -> None:
    if st.hands[seat] & tile.bit:
        st.hands[seat] &= ~tile.bit
        return
    if st.table & tile.bit:
        raise ctx.fatal("tile-already-played",
                        f"seat {seat} {verb} {tile}, but {tile} already lies on the table")
    if st.hidden[seat] and not st.known_elsewhere() & tile.bit:
        st.hidden[seat] -= 1
        return
    raise ctx.fatal("tile-not-in-hand", f"seat {seat} {verb} {tile}, which it does not hold: "
                    f"{_where(st, tile)}")


def _on_played(st: State, ev: Played, ctx: _Ctx) -> None:
    if st.phase != "playing":
        _require_deal(st, ev, ctx, "played")
    seat, tile = ev.seat, ev.tile
    opening = st.table == 0
    if st.to_move is not None and seat != st.to_move:
        if not opening:
            raise ctx.fatal("out-of-turn", f"seat {seat} played {tile}, but it was seat "
                            f"{st.to_move}'s turn")
        ctx.error("wrong-leader", f"seat {seat} opened deal {st.deal + 1}, but seat "
                  f"{st.to_move} had to lead it")
    if st.redeal_due:
        ctx.error("redeal-required", f"deal {st.deal + 1} had to be reshuffled: a hand was "
                  f"dealt {st.rules.redeal_doubles} or more doubles")
        st.redeal_due = False
    hands = st.hands
    if hands[seat] & tile.bit:
        hands[seat] ^= tile.bit  # _take_from_hand's first case, without the call
    else:
        _take_from_hand(st, seat, tile, ctx, "played")
    st.fresh = False
    if opening:
        if st.must_open is not None and tile is not st.must_open:
            ctx.error("wrong-opening-tile", f"seat {seat} opened with {tile}, but deal "
                      f"{st.deal + 1} must open with {st.must_open}, "
                      + ("the highest double dealt" if st.must_open.is_double
                         else "the heaviest tile dealt"))
        if ev.end is not None:
            ctx.warn("end-on-opening", f"the first tile of deal {st.deal + 1} names an end "
                     f"({ev.end}); it changes nothing")
        open_board(st, tile, tile.low if ev.reversed else tile.high)
        st.leader = seat
    else:
        end = _END_INDEX.get(ev.end) if ev.end is not None else None
        if end is not None and (number := st.ends[end]) != CLOSED and (
                tile.high == number or tile.low == number):
            place(st, tile, end)  # the named end is open and fits: _lay's common case
        else:
            _lay(st, ev, ctx)
    st.last_player = seat
    st.passes = 0
    st.drawn = None
    st.plays += 1
    rules = st.rules
    if rules.fives:
        count = fives_count(st)
        if count > 0 and count % 5 == 0:
            side = rules.side_of(seat)
            st.scores[side] += count
            st.in_deal[side] += count
            ctx.out.append(FivesScored(deal=st.deal, seat=seat, points=count))
    if hands[seat] == 0 and st.hidden[seat] == 0:
        st.phase = "over"
        st.over = "out"
        st.pending = True
        st.to_move = None
        score_deal(st, None, None, ctx.out, ctx.findings)
        return
    st.to_move = rules.next_seat(seat)
    if st.stock_left == 0 or not rules.draws:  # else a seat can still draw: no block
        fits = st.fit_mask()
        for h in hands:
            if h & fits:
                return  # a seat can play: no block (what _blocked finds first)
        _check_block(st, ctx)


def _lay(st: State, ev: Played, ctx: _Ctx) -> None:
    tile = ev.tile
    fits = fitting_ends(st, tile)
    if not fits:
        raise ctx.fatal("tile-does-not-fit", f"seat {ev.seat} played {tile}, which fits "
                        f"none of the open ends: {_ends_phrase(st)}")
    if ev.end is not None:
        end = END_NAMES.index(ev.end)
        if end not in fits:
            if st.ends[end] == CLOSED:
                raise ctx.fatal("wrong-end", f"seat {ev.seat} played {tile} on the {ev.end} "
                                f"end, which is not open; it fits {_fits_phrase(st, tile)}")
            raise ctx.fatal("wrong-end", f"seat {ev.seat} played {tile} on "
                            f"{_end_phrase(st, end)}, where it does not fit")
    elif len(fits) == 1 or len({outcome_key(st, tile, i) for i in fits}) == 1:
        end = fits[0]
    else:
        raise ctx.fatal("missing-end", f"seat {ev.seat} played {tile} without naming an end, "
                        f"and it fits {_fits_phrase(st, tile)} with different results")
    place(st, tile, end)


def _on_drew(st: State, ev: Drew, ctx: _Ctx) -> None:
    if st.phase != "playing":
        _require_deal(st, ev, ctx, "drew")
    seat = ev.seat
    if st.to_move is None or st.table == 0:
        raise ctx.fatal("out-of-turn", f"seat {seat} drew before deal {st.deal + 1} was opened")
    if seat != st.to_move:
        raise ctx.fatal("out-of-turn", f"seat {seat} drew, but it was seat {st.to_move}'s turn")
    if not st.rules.draws or st.rules.stock_size == 0:
        raise ctx.fatal("no-stock", f"seat {seat} drew, but this table has no stock to draw "
                        "from: a seat that cannot play passes")
    if st.stock_left == 0:
        raise ctx.fatal("empty-stock", f"seat {seat} drew from an empty stock")
    if st.drawn is not None:
        ctx.error("illegal-draw", f"seat {seat} drew again instead of playing {st.drawn}, "
                  f"which fits {_fits_phrase(st, st.drawn)}")
    elif st.hands[seat] & st.fit_mask():
        fit = _first_fit(st, seat)
        assert fit is not None
        ctx.error("illegal-draw", f"seat {seat} drew while holding {fit}, which fits "
                  f"{_fits_phrase(st, fit)}")
    tile = ev.tile
    if st.stock is not None:
        expected = st.stock[st.stock_pos]
        if tile is None:
            tile = expected
        elif tile is not expected:
            raise ctx.fatal("wrong-draw", f"seat {seat} drew {tile}, but the next tile of the "
                            f"stock is {expected}")
        st.stock_pos += 1
    elif tile is not None and st.known_elsewhere() & tile.bit:
        raise ctx.fatal("wrong-draw", f"seat {seat} drew {tile}, which is not in the stock: "
                        f"{_where(st, tile)}")
    st.stock_left -= 1
    if tile is None:
        st.hidden[seat] += 1
    else:
        st.hands[seat] |= tile.bit
        if st.fit_mask() & tile.bit:
            st.drawn = tile
    _check_block(st, ctx)


def _on_passed(st: State, ev: Passed, ctx: _Ctx) -> None:
    seat = ev.seat
    if st.phase == "waiting":
        raise ctx.fatal("no-deal", f"seat {seat} passed before any deal")
    if st.phase in ("over", "ended"):
        if st.over == "block" and st.block_next is not None:
            if seat == st.block_next:
                st.block_next = st.rules.next_seat(seat)
            else:
                ctx.error("pass-out-of-order", f"seat {seat} passed after the block, but the "
                          f"next seat in turn was seat {st.block_next}")
        else:
            ctx.error("after-deal-end", f"seat {seat} passed after deal {st.deal + 1} had "
                      "ended")
        return
    if st.to_move is not None and seat != st.to_move:
        raise ctx.fatal("out-of-turn", f"seat {seat} passed, but it was seat {st.to_move}'s "
                        "turn")
    if st.table == 0:
        ctx.error("illegal-pass", f"seat {seat} passed instead of opening deal {st.deal + 1}")
    elif st.drawn is not None:
        ctx.error("illegal-pass", f"seat {seat} passed instead of playing {st.drawn}, just "
                  f"drawn, which fits {_fits_phrase(st, st.drawn)}")
    else:
        fit = _first_fit(st, seat)
        if fit is not None:
            ctx.error("illegal-pass", f"seat {seat} passed holding {fit}, which fits "
                      f"{_fits_phrase(st, fit)}")
        elif _can_draw(st):
            ctx.error("illegal-pass", f"seat {seat} passed, but {st.stock_left} tiles were "
                      "left in the stock to draw")
    st.passes += 1
    st.drawn = None
    st.to_move = st.rules.next_seat(seat)
    _check_block(st, ctx)


# --- claims ----------------------------------------------------------------------


def _on_block(st: State, ev: BlockClaimed, ctx: _Ctx) -> None:
    if st.over == "block":
        return
    if st.over == "out":
        ctx.error("false-block", f"the record claims a block, but deal {st.deal + 1} ended "
                  f"with seat {st.last_player} going out")
    elif st.phase == "playing":
        reason = _why_not_blocked(st)
        ctx.error("false-block", f"the record claims a block, but {reason}")


def _why_not_blocked(st: State) -> str:
    if _can_draw(st):
        return f"{st.stock_left} tiles are left in the stock"
    for s in range(st.rules.seats):
        fit = _first_fit(st, s)
        if fit is not None:
            return f"seat {s} can still play {fit} on {_fits_phrase(st, fit)}"
    if st.table == 0:
        return "no tile has been played yet"
    return "a hidden hand may still hold a tile that fits"


def _on_revealed(st: State, ev: HandsRevealed, ctx: _Ctx) -> None:
    if st.phase == "playing" or st.phase == "waiting":
        ctx.error("reveal-before-end", f"hands were revealed while deal {st.deal + 1} was "
                  "still being played")
        return
    if len(ev.hands) != st.rules.seats:
        ctx.error("reveal-mismatch", f"the reveal lists {len(ev.hands)} hands for "
                  f"{st.rules.seats} seats")
        return
    for s, hand in enumerate(ev.hands):
        if hand is None:
            continue
        shown = mask_of(hand)
        count = st.hands[s].bit_count() + st.hidden[s]
        if st.hands[s] & ~shown or len(hand) != count or shown & st.table:
            ctx.error("reveal-mismatch", f"seat {s} shows {', '.join(map(str, hand)) or 'no tiles'}"
                      f", but the plays leave it {_hand_phrase(st, s)}")
            continue
        st.hands[s] = shown
        st.hidden[s] = 0
    if st.pending:
        score_deal(st, None, None, ctx.out, ctx.findings)


def _hand_phrase(st: State, seat: int) -> str:
    known = ", ".join(str(t) for t in tiles_of(st.hands[seat]))
    if st.hidden[seat]:
        extra = f"{st.hidden[seat]} unseen tile{'s' if st.hidden[seat] > 1 else ''}"
        return f"{known} and {extra}" if known else extra
    return known or "no tiles"


def _on_deal_end(st: State, ev: DealEndClaimed, ctx: _Ctx) -> None:
    if st.phase == "playing" or st.phase == "waiting":
        ctx.error("deal-end-early", f"the record says deal {st.deal + 1} ended ({ev.result}), "
                  f"but by the rules it goes on: {_why_not_blocked(st)}")
        return
    if st.pending:
        score_deal(st, ctx.index, ev, ctx.out, ctx.findings)
    got = st.last_result
    if got is None:
        return
    if (ev.result, ev.winner) != (got.result, got.winner) or (
            ev.points is not None and ev.points != got.points):
        ctx.error("wrong-deal-end", f"the record says deal {st.deal + 1} ended "
                  f"{_result_phrase(ev.result, ev.winner, ev.points)}, but by the rules it "
                  f"ended {_result_phrase(got.result, got.winner, got.points)}")


def _result_phrase(result: str, winner: int | None, points: int | None) -> str:
    if result == "tie" or winner is None:
        return f"in a {result} with no winner" if result != "tie" else "in a tie, nobody scoring"
    how = "going out" if result == "out" else "a block"
    pts = f" scoring {points}" if points is not None else ""
    return f"with seat {winner} winning by {how}{pts}"


def _on_bot(st: State, ev: BotSeated, ctx: _Ctx) -> None:
    st.bots |= 1 << ev.seat


def _close_pending(st: State, ctx: _Ctx) -> bool:
    """Score a finished deal before a match-level event; True if that ended the match."""
    if st.pending:
        score_deal(st, ctx.index, None, ctx.out, ctx.findings)
    return st.phase == "ended"


def _on_resigned(st: State, ev: Resigned, ctx: _Ctx) -> None:
    if _close_pending(st, ctx) or st.phase == "ended":
        ctx.error("after-match-end", f"seat {ev.seat} resigned after the match had ended")
        return
    side = resign_winner(st.rules, st.scores, ev.seat)
    end_match(st, side, "resign", ctx.out)


def _on_abandoned(st: State, ev: Abandoned, ctx: _Ctx) -> None:
    if _close_pending(st, ctx) or st.phase == "ended":
        ctx.error("after-match-end", "the match was abandoned after it had ended")
        return
    end_match(st, None, "abandon", ctx.out)


def _on_draw_agreed(st: State, ev: DrawAgreed, ctx: _Ctx) -> None:
    if _close_pending(st, ctx) or st.phase == "ended":
        ctx.error("after-match-end", "a draw was agreed after the match had ended")
        return
    end_match(st, None, "agree_draw", ctx.out)


def _on_match_end(st: State, ev: MatchEndClaimed, ctx: _Ctx) -> None:
    _close_pending(st, ctx)
    if st.phase != "ended":
        ctx.error("match-end-early", f"the record says the match ended, but by the rules it "
                  f"goes on: scores {_scores(st)}, target {st.rules.target}")
        return
    rules = st.rules
    same_winner = (ev.winner is None and st.winner is None) or (
        ev.winner is not None and st.winner is not None
        and 0 <= ev.winner < rules.seats and rules.side_of(ev.winner) == rules.side_of(st.winner))
    same_scores = ev.scores is None or list(ev.scores) == st.scores
    if not (same_winner and same_scores):
        claimed = "no winner" if ev.winner is None else f"seat {ev.winner} winning"
        actual = "no winner" if st.winner is None else f"seat {st.winner} winning"
        ctx.error("wrong-match-end", f"the record says the match ended with {claimed}"
                  + (f" at {', '.join(map(str, ev.scores))}" if ev.scores is not None else "")
                  + f", but by the rules it ended with {actual} at {_scores(st)}")


_HANDLERS: dict[type, Callable[[State, Any, _Ctx], None]] = {
    Dealt: _on_dealt,
    Played: _on_played,
    Drew: _on_drew,
    Passed: _on_passed,
    BlockClaimed: _on_block,
    HandsRevealed: _on_revealed,
    DealEndClaimed: _on_deal_end,
    BotSeated: _on_bot,
    Resigned: _on_resigned,
    Abandoned: _on_abandoned,
    DrawAgreed: _on_draw_agreed,
    MatchEndClaimed: _on_match_end,
}
