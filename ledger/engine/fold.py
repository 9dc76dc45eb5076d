"""The fold: one recorded event applied to the state, with what it breaks and implies.

``advance`` mutates a state the caller owns; ``step`` and ``apply`` (in
``ledger.engine``) wrap it on a copy so that, seen from outside, folding is a
pure function. A broken rule becomes a ``Finding``; a tile that is not where it
should be raises ``Unreadable`` because nothing after it can be trusted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ledger.engine.board import (
    fitting_ends,
    fives_count,
    open_board,
    opening_rank,
    outcome_key,
    place,
)
from ledger.engine.scoring import end_match, resign_winner, score_deal
from ledger.engine.state import CLOSED, END_NAMES, FITS, State
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
from ledger.findings import Finding, Unreadable, finding
from ledger.i18n.phrases import Counted, Phrase
from ledger.rules.base import HAND_SIZE, Lead
from ledger.tiles import ALL_TILES, FULL_SET, Tile, mask_of, tiles_of

_END_INDEX: dict[str | None, int] = {name: i for i, name in enumerate(END_NAMES)}


class _Ctx:
    """Where one event's findings and derived events go."""

    __slots__ = ("index", "out", "findings")

    def __init__(self, index: int | None, out: list[Event], findings: list[Finding]) -> None:
        self.index = index
        self.out = out
        self.findings = findings

    # ``template`` is the English sentence with {name} slots (the catalogs' msgid); the
    # parameters are built only here, when a rule is broken.
    def error(self, code: str, template: str, /, **params: object) -> None:
        self.findings.append(finding(self.index, "error", code, template, **params))

    def warn(self, code: str, template: str, /, **params: object) -> None:
        self.findings.append(finding(self.index, "warning", code, template, **params))

    def fatal(self, code: str, template: str, /, **params: object) -> Unreadable:
        return Unreadable(finding(self.index, "error", code, template, **params))


def advance(st: State, ev: Event, index: int | None, out: list[Event],
            findings: list[Finding]) -> None:
    ctx = _Ctx(index, out, findings)
    handler: Callable[[State, Any, _Ctx], None] | None = _HANDLERS.get(type(ev))
    if handler is None:
        raise TypeError(f"not a recorded event: {ev!r}")
    if st.closed:
        _match_over(ctx)
        return
    handler(st, ev, ctx)


def _match_over(ctx: _Ctx) -> None:
    """An event after the record's match_end: flagged, and not folded (issue 15)."""
    ctx.error("match-over", "an event after the recorded end of the match: nothing may "
              "follow the match's end")


def advance_all(st: State, events: Iterable[Event | None], findings: list[Finding],
                derived: list[tuple[Event, ...]], stop: int | None = None,
                whole: bool = False) -> bool | None:
    """``advance`` over a record, as the auditor folds it: one context for every event.

    Appends each event's derived events to ``derived`` (``()`` for an event that is
    ``None``, one the reader could not parse). The fold ends at an unreadable event
    (its finding is appended) or at a ``None`` at or after ``stop``; True if it got
    through every event. With ``whole``, it gives up (None) at a deal that does not show
    every hand and the stock, before folding it: such a record needs rebuilding first.

    Every event goes through its handler, the one definition of its rules (``step``
    and ``apply`` use the same ones); the handlers keep their common cases short.
    """
    out: list[Event] = []
    ctx = _Ctx(None, out, findings)
    handlers = _HANDLERS
    record = events if isinstance(events, list) else list(events)
    # Most events derive nothing: every one gets its () up front, the rest are set below.
    base = len(derived)
    derived += [()] * len(record)
    i = 0
    try:
        for i, ev in enumerate(record):
            if ev is None:
                if stop is not None and i >= stop:
                    del derived[base + i + 1:]
                    return False  # its parse finding is already in the report
                continue
            kind = type(ev)
            if kind is Dealt and whole and (ev.stock is None or None in ev.hands):
                return None
            handler = handlers.get(kind)
            if handler is None:
                raise TypeError(f"not a recorded event: {ev!r}")
            ctx.index = i
            if st.closed:
                _match_over(ctx)
                continue
            try:
                handler(st, ev, ctx)
            except Unreadable as exc:
                findings.append(exc.finding)
                derived[base + i] = tuple(out)
                del derived[base + i + 1:]
                return False
            if out:
                derived[base + i] = tuple(out)
                out.clear()
    except BaseException:
        del derived[base + i:]  # an event the fold failed on (a bug) gets no entry
        raise
    return True


def finish(st: State, out: list[Event], findings: list[Finding], index: int | None) -> None:
    """The record has no more events: score a deal still waiting, note an open match."""
    ctx = _Ctx(index, out, findings)
    if st.pending:
        score_deal(st, index, None, out, findings)
    if st.phase != "ended" and st.phase != "waiting":
        ctx.warn("match-unfinished",
                 "the record stops before the match ended (scores {scores}, target {target})",
                 scores=tuple(st.scores), target=st.rules.target)


# --- helpers ---------------------------------------------------------------------


# The parameters of findings: ends as (name, number) pairs, worded per language (an
# end: "the left end (3)"; ``fits``: "... and ..."; ``ends``: "..., ... and ...").


def _end_pair(st: State, i: int) -> tuple[str, int]:
    return (END_NAMES[i], st.ends[i])


def _fits(st: State, tile: Tile) -> tuple[tuple[str, int], ...]:
    return tuple(_end_pair(st, i) for i in fitting_ends(st, tile))


def _open_ends(st: State) -> tuple[tuple[str, int], ...]:
    return tuple(_end_pair(st, i) for i, n in enumerate(st.ends) if n != CLOSED)


def _first_fit(st: State, seat: int) -> Tile | None:
    fits = st.hands[seat] & st.fit_mask()
    return tiles_of(fits)[-1] if fits else None


_rank = opening_rank
_BY_RANK = sorted(ALL_TILES, key=_rank, reverse=True)
_RANK_BITS = tuple((t.bit, t) for t in _BY_RANK)


def _where(st: State, tile: Tile) -> Phrase:
    if st.table & tile.bit:
        return Phrase("it already lies on the table")
    for s, h in enumerate(st.hands):
        if h & tile.bit:
            return Phrase("it is in {seat}'s hand", seat=s)
    if st.stock is not None and tile in st.stock[st.stock_pos:]:
        return Phrase("it is still in the stock")
    return Phrase("it is not in that hand")


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


def _require_deal(st: State, ev: Played | Drew, ctx: _Ctx) -> None:
    played = isinstance(ev, Played)
    seat, tile, deal = ev.seat, None if ev.tile is None else str(ev.tile), st.deal + 1
    if st.phase == "ended":
        raise ctx.fatal("after-match-end",
                        "{seat} played {tile} after the match had ended" if played else
                        "{seat} drew {tile} after the match had ended" if tile else
                        "{seat} drew a tile after the match had ended", seat=seat, tile=tile)
    if st.phase == "waiting":
        raise ctx.fatal("no-deal", "{seat} played before any deal" if played else
                        "{seat} drew before any deal", seat=seat)
    if st.phase == "over":
        raise ctx.fatal("deal-over",
                        "{seat} played {tile} after deal {deal} had ended" if played else
                        "{seat} drew {tile} after deal {deal} had ended" if tile else
                        "{seat} drew a tile after deal {deal} had ended",
                        seat=seat, tile=tile, deal=deal)


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
                          "deal {deal} was dealt again, but no hand held {doubles} or more "
                          "doubles" if rules.redeal_doubles else
                          "deal {deal} was dealt again before any play; this table never "
                          "reshuffles", deal=st.deal + 1, doubles=rules.redeal_doubles or 4)
            st.deal -= 1  # a redeal replaces the deal, it is not a new one
        else:
            ctx.error("deal-not-finished",
                      "deal {deal} was still being played ({seat} to move) when a new "
                      "deal started; it scores nothing", deal=st.deal + 1, seat=st.to_move)
    elif st.pending:
        score_deal(st, ctx.index, None, ctx.out, ctx.findings)
        if st.match_over:
            raise ctx.fatal("after-match-end", "a new deal after the match had ended")
    masks, stock_mask = _validate_deal(st, ev, ctx)
    st.deal += 1
    st.phase = "playing"
    st.over = None
    st.pending = False
    st.fresh = True
    st.table = 0
    st.ends[:] = _NO_ENDS
    st.doubles[:] = _NO_DOUBLES
    st.spinner = CLOSED
    st.arms = 0
    st.passes = 0
    st.drawn = None
    st.block_next = None
    st.last_player = None
    st.plays = 0
    st.in_deal = [0] * len(st.scores)  # one per side, as the scores
    hidden = st.hidden
    if None in ev.hands:
        for s, hand in enumerate(ev.hands):
            hidden[s] = HAND_SIZE if hand is None else 0
    else:
        hidden[:] = [0] * len(hidden)
    st.hands[:] = masks
    st.stock = ev.stock
    st.stock_pos = 0
    st.stock_left = rules.stock_size
    # A valid deal holds no tile twice, so a hand's doubles are those of its bitmask.
    redeal = rules.redeal_doubles
    st.redeal_due = bool(redeal) and any(
        (mask & _DOUBLES).bit_count() >= (redeal or 0)
        for mask, hand in zip(masks, ev.hands, strict=True) if hand is not None)
    _set_lead(st, ev, stock_mask)


_NO_ENDS = (CLOSED,) * 4
_NO_DOUBLES = (False,) * 4
_DOUBLES = mask_of(t for t in ALL_TILES if t.is_double)


def _validate_deal(st: State, ev: Dealt, ctx: _Ctx) -> tuple[list[int], int]:
    """Check the deal; the bitmask of every hand (0 for a hidden one) and of the stock."""
    rules = st.rules
    if len(ev.hands) != rules.seats:
        raise ctx.fatal("bad-deal", "the deal gives {count} hands for {seats} seats",
                        count=len(ev.hands), seats=rules.seats)
    # The usual deal, settled with bitmasks: full hands, a full stock, no tile twice.
    # Anything else goes through the checks below, which name what is wrong.
    masks = [0] * rules.seats
    given = 0
    count = 0
    for s, hand in enumerate(ev.hands):
        if hand is not None:
            if len(hand) != HAND_SIZE:
                break
            mask = 0
            for tile in hand:  # mask_of(hand), inlined
                mask |= tile.bit
            masks[s] = mask
            given |= mask
            count += HAND_SIZE
    else:
        if ev.stock is None or len(ev.stock) == rules.stock_size:
            stock_mask = 0
            if ev.stock is not None:
                stock_mask = mask_of(ev.stock)
                given |= stock_mask
                count += len(ev.stock)
            if given.bit_count() == count:
                return masks, stock_mask
    seen: dict[Tile, Phrase] = {}

    def take(tile: Tile, place_name: Phrase) -> None:
        if tile in seen:
            raise ctx.fatal("bad-deal", "{tile} is dealt twice: to {first} and to {second}",
                            tile=str(tile), first=seen[tile], second=place_name)
        seen[tile] = place_name

    for s, hand in enumerate(ev.hands):
        if hand is None:
            continue
        if len(hand) != HAND_SIZE:
            raise ctx.fatal("bad-deal", "{seat} is dealt {count} tiles, not {size}",
                            seat=s, count=len(hand), size=HAND_SIZE)
        seat = Phrase("{seat}", seat=s)
        for tile in hand:
            take(tile, seat)
    if ev.stock is not None:
        if len(ev.stock) != rules.stock_size:
            raise ctx.fatal("bad-deal", "the stock lists {count} tiles; {seats} seats leave "
                            "{size} undealt", count=len(ev.stock), seats=rules.seats,
                            size=rules.stock_size)
        stock = Phrase("the stock")
        for tile in ev.stock:
            take(tile, stock)
    # Not reached with the checks above (what the bitmasks reject, they name), but the
    # masks stay right whatever the checks let through.
    return ([0 if hand is None else mask_of(hand) for hand in ev.hands],
            0 if ev.stock is None else mask_of(ev.stock))


_NO_LEAD = Lead()


def _set_lead(st: State, ev: Dealt, stock_mask: int) -> None:
    rules = st.rules
    lead = rules.later_lead(st.recap, rules) if st.recap is not None else _NO_LEAD
    st.must_open = None
    if lead.seat is not None:
        st.to_move = st.leader = lead.seat
        return
    # The best tile dealt and its holder (st.hands holds this deal's hands by now; ranks
    # are distinct and a valid deal places each tile once).
    dealt = 0
    for h in st.hands:
        dealt |= h
    best = None
    for bit, tile in _RANK_BITS:
        if dealt & bit:
            best = tile
            break
    holder = None
    if best is not None:
        for s, h in enumerate(st.hands):
            if h & best.bit:
                holder = s
                break
    # With every hand shown, unlisted tiles are undealt (the stock is optional): only a
    # hidden hand can hold a better opening tile than the best one seen.
    if best is not None and (None not in ev.hands or all(
            _rank(t) < _rank(best) for t in ALL_TILES if not (dealt | stock_mask) & t.bit)):
        st.to_move = st.leader = holder
        st.must_open = best
    else:
        st.to_move = st.leader = None  # a hidden hand may hold the opening tile


# --- play, draw, pass --------------------------------------------------------------


def _take_from_hand(st: State, seat: int, tile: Tile, ctx: _Ctx) -> None:
    if st.hands[seat] & tile.bit:
        st.hands[seat] &= ~tile.bit
        return
    if st.table & tile.bit:
        raise ctx.fatal("tile-already-played",
                        "{seat} played {tile}, but {tile} already lies on the table",
                        seat=seat, tile=str(tile))
    if st.hidden[seat] and not st.known_elsewhere() & tile.bit:
        st.hidden[seat] -= 1
        return
    raise ctx.fatal("tile-not-in-hand", "{seat} played {tile}, which it does not hold: "
                    "{where}", seat=seat, tile=str(tile), where=_where(st, tile))


def _on_played(st: State, ev: Played, ctx: _Ctx) -> None:
    if st.phase != "playing":
        _require_deal(st, ev, ctx)
    seat, tile = ev.seat, ev.tile
    table = st.table
    if st.to_move is not None and seat != st.to_move:
        if table:
            raise ctx.fatal("out-of-turn", "{seat} played {tile}, but it was "
                            "{turn}'s turn", seat=seat, tile=str(tile), turn=st.to_move)
        ctx.error("wrong-leader", "{seat} opened deal {deal}, but {leader} had to "
                  "lead it", seat=seat, deal=st.deal + 1, leader=st.to_move)
    if st.redeal_due:
        ctx.error("redeal-required", "deal {deal} had to be reshuffled: a hand was dealt "
                  "{doubles} or more doubles", deal=st.deal + 1, doubles=st.rules.redeal_doubles)
        st.redeal_due = False
    hands = st.hands
    bit = tile.bit
    if hands[seat] & bit:
        hands[seat] ^= bit  # _take_from_hand's first case, without the call
    else:
        _take_from_hand(st, seat, tile, ctx)
    st.fresh = False
    ends = st.ends
    if not table:  # the opening tile
        if st.must_open is not None and tile is not st.must_open:
            ctx.error("wrong-opening-tile",
                      "{seat} opened with {tile}, but deal {deal} must open with {must}, "
                      "the highest double dealt" if st.must_open.is_double else
                      "{seat} opened with {tile}, but deal {deal} must open with {must}, "
                      "the heaviest tile dealt",
                      seat=seat, tile=str(tile), deal=st.deal + 1, must=str(st.must_open))
        if ev.end is not None:
            ctx.warn("end-on-opening", "the first tile of deal {deal} names an end ({side}); "
                     "it changes nothing", deal=st.deal + 1, side=ev.end)
        open_board(st, tile, tile.low if ev.reversed else tile.high)
        st.leader = seat
    else:
        end = _END_INDEX.get(ev.end)  # None for None
        # The named end is open and the tile fits it (FITS[CLOSED] is 0): _lay's common case.
        if end is not None and FITS[number := ends[end]] & bit:
            if st.spinner == CLOSED:  # board.place without a spinner, inlined
                ends[end] = tile.low if number == tile.high else tile.high
                st.doubles[end] = tile.is_double
                st.table = table | bit
            else:
                place(st, tile, end)
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
        fits = FITS[ends[0]] | FITS[ends[1]] | FITS[ends[2]] | FITS[ends[3]]  # st.fit_mask()
        for h in hands:
            if h & fits:
                return  # a seat can play: no block (what _blocked finds first)
        _check_block(st, ctx)


def _lay(st: State, ev: Played, ctx: _Ctx) -> None:
    tile = ev.tile
    fits = fitting_ends(st, tile)
    if not fits:
        raise ctx.fatal("tile-does-not-fit", "{seat} played {tile}, which fits none of "
                        "the open ends: {ends}", seat=ev.seat, tile=str(tile),
                        ends=_open_ends(st))
    if ev.end is not None:
        end = END_NAMES.index(ev.end)
        if end not in fits:
            if st.ends[end] == CLOSED:
                raise ctx.fatal("wrong-end", "{seat} played {tile} on the {side} end, "
                                "which is not open; it fits {fits}", seat=ev.seat,
                                tile=str(tile), side=ev.end, fits=_fits(st, tile))
            raise ctx.fatal("wrong-end", "{seat} played {tile} on {end}, where it does "
                            "not fit", seat=ev.seat, tile=str(tile), end=_end_pair(st, end))
    elif len(fits) == 1 or len({outcome_key(st, tile, i) for i in fits}) == 1:
        end = fits[0]
    else:
        raise ctx.fatal("missing-end", "{seat} played {tile} without naming an end, and "
                        "it fits {fits} with different results", seat=ev.seat, tile=str(tile),
                        fits=_fits(st, tile))
    place(st, tile, end)


def _on_drew(st: State, ev: Drew, ctx: _Ctx) -> None:
    if st.phase != "playing":
        _require_deal(st, ev, ctx)
    seat = ev.seat
    if st.to_move is None or st.table == 0:
        raise ctx.fatal("out-of-turn", "{seat} drew before deal {deal} was opened",
                        seat=seat, deal=st.deal + 1)
    if seat != st.to_move:
        raise ctx.fatal("out-of-turn", "{seat} drew, but it was {turn}'s turn",
                        seat=seat, turn=st.to_move)
    rules = st.rules
    left = st.stock_left
    if not left or not rules.draws:  # (at a table without a stock nothing is ever left)
        if not rules.draws or rules.stock_size == 0:
            raise ctx.fatal("no-stock", "{seat} drew, but this table has no stock to "
                            "draw from: a seat that cannot play passes", seat=seat)
        raise ctx.fatal("empty-stock", "{seat} drew from an empty stock", seat=seat)
    ends = st.ends
    fits = FITS[ends[0]] | FITS[ends[1]] | FITS[ends[2]] | FITS[ends[3]]  # st.fit_mask()
    hands = st.hands
    if st.drawn is not None:
        ctx.error("illegal-draw", "{seat} drew again instead of playing {tile}, which "
                  "fits {fits}", seat=seat, tile=str(st.drawn), fits=_fits(st, st.drawn))
    elif hands[seat] & fits:
        fit = _first_fit(st, seat)
        assert fit is not None
        ctx.error("illegal-draw", "{seat} drew while holding {tile}, which fits {fits}",
                  seat=seat, tile=str(fit), fits=_fits(st, fit))
    tile = ev.tile
    stock = st.stock
    if stock is not None:
        expected = stock[st.stock_pos]
        if tile is None:
            tile = expected
        elif tile is not expected:
            raise ctx.fatal("wrong-draw", "{seat} drew {tile}, but the next tile of the "
                            "stock is {expected}", seat=seat, tile=str(tile),
                            expected=str(expected))
        st.stock_pos += 1
    elif tile is not None and st.known_elsewhere() & tile.bit:
        raise ctx.fatal("wrong-draw", "{seat} drew {tile}, which is not in the stock: "
                        "{where}", seat=seat, tile=str(tile), where=_where(st, tile))
    st.stock_left = left - 1
    if tile is None:
        st.hidden[seat] += 1
    else:
        bit = tile.bit
        hands[seat] |= bit
        if fits & bit:  # a draw lays nothing: the ends are those of ``fits`` above
            st.drawn = tile
    if left == 1:  # the stock is empty now (else a seat can still draw: no block)
        _check_block(st, ctx)


def _on_passed(st: State, ev: Passed, ctx: _Ctx) -> None:
    seat = ev.seat
    if st.phase == "waiting":
        raise ctx.fatal("no-deal", "{seat} passed before any deal", seat=seat)
    if st.phase in ("over", "ended"):
        if st.over == "block" and st.block_next is not None:
            if seat == st.block_next:
                st.block_next = st.rules.next_seat(seat)
            else:
                ctx.error("pass-out-of-order", "{seat} passed after the block, but the "
                          "next seat in turn was {next}", seat=seat, next=st.block_next)
        else:
            ctx.error("after-deal-end", "{seat} passed after deal {deal} had ended",
                      seat=seat, deal=st.deal + 1)
        return
    if st.to_move is not None and seat != st.to_move:
        raise ctx.fatal("out-of-turn", "{seat} passed, but it was {turn}'s turn",
                        seat=seat, turn=st.to_move)
    if st.table == 0:
        ctx.error("illegal-pass", "{seat} passed instead of opening deal {deal}",
                  seat=seat, deal=st.deal + 1)
    elif st.drawn is not None:
        ctx.error("illegal-pass", "{seat} passed instead of playing {tile}, just drawn, "
                  "which fits {fits}", seat=seat, tile=str(st.drawn), fits=_fits(st, st.drawn))
    else:
        fit = _first_fit(st, seat)
        if fit is not None:
            ctx.error("illegal-pass", "{seat} passed holding {tile}, which fits {fits}",
                      seat=seat, tile=str(fit), fits=_fits(st, fit))
        elif _can_draw(st):
            ctx.error("illegal-pass", "{seat} passed, but {left} were left in the stock "
                      "to draw", seat=seat,
                      left=Counted("{count} tiles", "{count} tiles", st.stock_left))
    st.passes += 1
    st.drawn = None
    st.to_move = st.rules.next_seat(seat)
    _check_block(st, ctx)


# --- claims ----------------------------------------------------------------------


def _on_block(st: State, ev: BlockClaimed, ctx: _Ctx) -> None:
    if st.over == "block":
        return
    if st.over == "out":
        ctx.error("false-block", "the record claims a block, but deal {deal} ended with "
                  "{seat} going out", deal=st.deal + 1, seat=st.last_player)
    elif st.phase == "playing":
        ctx.error("false-block", "the record claims a block, but {reason}",
                  reason=_why_not_blocked(st))


def _why_not_blocked(st: State) -> Phrase:
    if _can_draw(st):
        return Counted("{count} tiles are left in the stock", "{count} tiles are left in the "
                       "stock", st.stock_left)
    for s in range(st.rules.seats):
        fit = _first_fit(st, s)
        if fit is not None:
            return Phrase("{seat} can still play {tile} on {fits}", seat=s, tile=str(fit),
                          fits=_fits(st, fit))
    if st.table == 0:
        return Phrase("no tile has been played yet")
    return Phrase("a hidden hand may still hold a tile that fits")


def _on_revealed(st: State, ev: HandsRevealed, ctx: _Ctx) -> None:
    if st.phase == "playing" or st.phase == "waiting":
        ctx.error("reveal-before-end", "hands were revealed while deal {deal} was still being "
                  "played", deal=st.deal + 1)
        return
    if len(ev.hands) != st.rules.seats:
        ctx.error("reveal-mismatch", "the reveal lists {count} hands for {seats} seats",
                  count=len(ev.hands), seats=st.rules.seats)
        return
    hands, hidden, table = st.hands, st.hidden, st.table
    for s, hand in enumerate(ev.hands):
        if hand is None:
            continue
        shown = mask_of(hand)
        if hands[s] & ~shown or len(hand) != hands[s].bit_count() + hidden[s] or shown & table:
            ctx.error("reveal-mismatch", "{seat} shows {shown}, but the plays leave it "
                      "{left}", seat=s, shown=_tiles_param(hand), left=_hand_phrase(st, s))
            continue
        hands[s] = shown
        hidden[s] = 0
    if st.pending:
        score_deal(st, None, None, ctx.out, ctx.findings)


def _tiles_param(tiles: Iterable[Tile]) -> tuple[str, ...] | Phrase:
    names = tuple(map(str, tiles))
    return names if names else Phrase("no tiles")


def _hand_phrase(st: State, seat: int) -> tuple[str, ...] | Phrase:
    known = tiles_of(st.hands[seat])
    if st.hidden[seat]:
        extra = Counted("{count} unseen tile", "{count} unseen tiles", st.hidden[seat])
        return Phrase("{tiles} and {unseen}", tiles=tuple(map(str, known)), unseen=extra) \
            if known else extra
    return _tiles_param(known)


def _on_deal_end(st: State, ev: DealEndClaimed, ctx: _Ctx) -> None:
    if st.phase == "playing" or st.phase == "waiting":
        ctx.error("deal-end-early", "the record says deal {deal} ended ({result}), but by the "
                  "rules it goes on: {reason}", deal=st.deal + 1, result=ev.result,
                  reason=_why_not_blocked(st))
        return
    if st.pending:
        score_deal(st, ctx.index, ev, ctx.out, ctx.findings)
    got = st.last_result
    if got is None:
        return
    if (ev.result, ev.winner) != (got.result, got.winner) or (
            ev.points is not None and ev.points != got.points):
        ctx.error("wrong-deal-end", "the record says deal {deal} ended {claimed}, but by the "
                  "rules it ended {actual}", deal=st.deal + 1,
                  claimed=_result_phrase(ev.result, ev.winner, ev.points),
                  actual=_result_phrase(got.result, got.winner, got.points))


def _result_phrase(result: str, winner: int | None, points: int | None) -> Phrase:
    if result == "tie":
        return Phrase("in a tie, nobody scoring")
    if winner is None:
        return Phrase("in a {result} with no winner", result=result)
    if result == "out":
        return Phrase("with {seat} winning by going out", seat=winner) if points is None \
            else Phrase("with {seat} winning by going out scoring {points}", seat=winner,
                        points=points)
    return Phrase("with {seat} winning by a block", seat=winner) if points is None \
        else Phrase("with {seat} winning by a block scoring {points}", seat=winner,
                    points=points)


def _on_bot(st: State, ev: BotSeated, ctx: _Ctx) -> None:
    st.bots |= 1 << ev.seat


def _close_pending(st: State, ctx: _Ctx) -> bool:
    """Score a finished deal before a match-level event; True if that ended the match."""
    if st.pending:
        score_deal(st, ctx.index, None, ctx.out, ctx.findings)
    return st.phase == "ended"


def _on_resigned(st: State, ev: Resigned, ctx: _Ctx) -> None:
    if _close_pending(st, ctx) or st.phase == "ended":
        ctx.error("after-match-end", "{seat} resigned after the match had ended",
                  seat=ev.seat)
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
    st.closed = True
    _close_pending(st, ctx)
    if st.phase != "ended":
        ctx.error("match-end-early", "the record says the match ended, but by the rules it "
                  "goes on: scores {scores}, target {target}", scores=tuple(st.scores),
                  target=st.rules.target)
        return
    rules = st.rules
    same_winner = (ev.winner is None and st.winner is None) or (
        ev.winner is not None and st.winner is not None
        and 0 <= ev.winner < rules.seats and rules.side_of(ev.winner) == rules.side_of(st.winner))
    same_scores = ev.scores is None or list(ev.scores) == st.scores
    if not (same_winner and same_scores):
        claimed = _winner_phrase(ev.winner)
        actual = _winner_phrase(st.winner)
        if ev.scores is not None:
            ctx.error("wrong-match-end", "the record says the match ended with {claimed} at "
                      "{claimed_scores}, but by the rules it ended with {actual} at {scores}",
                      claimed=claimed, claimed_scores=tuple(ev.scores), actual=actual,
                      scores=tuple(st.scores))
        else:
            ctx.error("wrong-match-end", "the record says the match ended with {claimed}, but "
                      "by the rules it ended with {actual} at {scores}", claimed=claimed,
                      actual=actual, scores=tuple(st.scores))


def _winner_phrase(seat: int | None) -> Phrase:
    return Phrase("no winner") if seat is None else Phrase("{seat} winning", seat=seat)


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
