"""Perfect-information ("double-dummy") values of the positions of one deal.

Once a deal is over every hand and the stock's order are known, so each
position has one outcome under best play by every side. ``DealSolver`` answers,
for any position of one deal given as an engine ``State``: the points each side
ends the deal with under best play (in-deal Fives scores included), and the
same for every legal move.

What "best play" means:

- Two sides (two seats, or two teams): each side maximises its own points minus
  the other's (zero-sum), searched with alpha-beta (MTD(f), null windows, a
  transposition table of bounds). Without Fives only one side scores in a deal,
  so the margin is the whole outcome. With Fives both sides can score; among
  lines of equal margin the outcome shown is that of the first best move in the
  engine's legal-move order at every turn.
- Three or four sides (each for himself): max-n. Each seat maximises its own
  points. Tie rule: at equal own points a seat takes the outcome where the
  strongest other side scores least, then where the others score least in total,
  then the outcome whose points, read in seat order, are lowest first. The rule
  depends on outcomes only, never on the order moves are tried, so it is the
  same for every equivalent way of writing a move.

The search state is compact: hands as bitmasks, the open ends as a small board
id, the stock position and the seat to move. Draws are forced and, with the
stock's order known, deterministic. One transposition table serves every
position of the deal, so analysing each step costs little more than the root.
Terminal values come from the rules' own hooks (``losers_of``, ``block_winner``,
``round_to_five``) and, for Fives, the engine's own board code.

Speed: pass tables (no stock, no Fives) have specialised searches for both
kinds. Moves are tried in the order that tends to be best: the one leaving the
next seat the fewest tiles to answer with, heaviest tile first among equals.
Two-sided searches cut on pip bounds (without Fives a side can win at most the
pips the others hold, plus what is left to draw). Max-n prunes a position once
what its mover already has there makes it worse for the parent's mover than a
move the parent already has ("shallow pruning"; without Fives a deal has one
winner, which bounds what the parent can get).

The C search: every table runs in ``_maxn.c`` (built at install; without a compiler the
Python searches below answer, the same values more slowly, and the solver says so once;
the tests compare the two on every table). Two sides: the same alpha-beta with MTD(f)
and pip bounds, on a table of bounds (dropping one costs time, never exactness). Three
or four sides: max-n, its table keeping exact values in a fixed room of
``native_slots`` and dropping the cheapest to search again when full, so memory is
bounded and nothing is guessed. The seeds' block rules are written again in C (matched
by the rules' hook, ``_block_kind``; another hook is called in Python). What stops a
search is ``max_nodes``, the positions one search may visit (a count, not a clock).
Beyond it the position is reported too large, never guessed. With two threads (a large
max-n position, ``THREADS``) each thread, and each of its fibers, may visit that many,
and which positions fit so close to the limit may differ from run to run; a value given
is exact either way.
Fives with four seats is the large case: every seat scores during the deal, so no
outcome bounds another and almost nothing can be skipped; the search values every
position of the deal (tens of millions). What keeps that to seconds: boards keyed by
what decides the rest of the deal (once the spinner has opened its four ends they are
alike: an end is its number, whether a double lies there and whether its arm holds a
tile), a forced move not kept, only what follows it, a table sized by the machine
(``NATIVE_SLOTS``), and both cores on each position: two threads share the table, one
trying the first branchings' moves in reverse order (see ``_maxn.c``). A first deal
(6-6 opens) visits 100 to 150 million positions, 20 to 26 million of them distinct, in
about 30 s of CPU (40 s with two threads on a busy machine, where they seldom run at
once), a later one more: its leader may open with any tile, and each double he holds
opens a large tree of its own (``benchmarks/solver.py``). A profile (perf) puts about
four fifths of that time on waiting for the table's memory, one random line a visit.
Tried and measured, cutting nothing worth keeping: bounds on what the rest of a deal can
score (the in-deal counts leave the sum of the seats' futures far above what a parent
already has, so shallow pruning never fires), keying dead ends (a number no tile held
shows) by what they add (0.7% fewer visits), and a small cache-sized table for positions
of 8 tiles or fewer (twice the visits). Then (``benchmarks/maxn_position.py``, one thread,
old and new build alternating): looking up all of a position's children before searching
any (4% fewer visits, about 10% more CPU), also asking for the lines of their children
(no gain), writing a kept value some stores later once its line has come (no gain: a
store seldom waits), keeping no position of 6 or 8 tiles or fewer (1.4 and 3.9 times the
visits), keeping only positions with more than 16 to 256 visits below them (2.3 to 15
times), and a 256 MiB table (2% less CPU over three first deals, within the noise). The
table's huge pages are in use; a read of it costs 300 to 500 ns when the search waits for
it and under 20 ns when asked for well ahead, and each position searched waits about once,
for its first child's line (its moves are known only then): hiding that needs several
searches interleaved on one thread, not another order within one position. That is what
the fibers do (``FIBERS``, ``_maxn.c``): each thread runs four searches of the position,
switching to the next at every look-up of the table while its line comes; a position is
searched by one of them at a time (the others try their other moves first, then wait for
its value), so they visit what one search visits. With the boards made canonical and the
Fives count taken in straight-line code (a third fewer instructions a visit), a first
deal's review takes about 1.8 times less wall clock and CPU than before (median 8.3 s of
wall clock on a quiet machine, ``benchmarks/maxn.py``). Six or eight fibers, or a switch
before each store as well, gained nothing more; in a profile of one thread what is left
is about a fifth the kernel zeroing the fresh table's pages, a quarter still waiting for
the table, the rest the moves' own work. Twenty first deals' reviews on a quiet machine
(``benchmarks/solver.py``): median 9.6 s of wall clock, at most 13.8 s, against a goal of
2 s and 5 s. Reaching it would take visiting several times fewer positions, and exact
max-n with every seat scoring during the deal has no bound that skips them (above).

Positions on their own (a prefix of a deal, or hands the caller supplies) and batches of
them: ``ledger/analysis/positions.py``.

Memory of the Python max-n: it must keep an exact value for every position of a
subtree. It keeps at most ``budget`` of them (half as many outcome vectors on the
general path); a position whose subtree does not fit raises ``TooLarge`` rather than
being guessed. Two-sided tables keep only bounds, which are dropped when the table is
full.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ledger.engine.board import fives_count, place
from ledger.engine.moves import Move, legal_moves
from ledger.engine.scoring import round_to_five
from ledger.engine.state import CLOSED, State
from ledger.events import Event
from ledger.findings import Finding, Unreadable
from ledger.rules.base import BlockView, Rules, single_lowest_or_tie
from ledger.rules.casual_arena import _block_winner as arena_block
from ledger.rules.domena import _block_winner as domena_block
from ledger.rules.sahrat import _partner_block_winner as partner_block
from ledger.rules.selminha import _block_winner as selminha_block
from ledger.tiles import ALL_TILES, SUIT_MASK, Tile, tiles_of
from ledger.walk import step_into

try:
    from ledger.analysis._maxn import Search as _NativeSearch
    from ledger.analysis._maxn import TooLong as _TooLong
except ImportError:  # pragma: no cover - installed without a C compiler: Python max-n
    _NativeSearch = None  # type: ignore[assignment,misc]
    _TooLong = RuntimeError  # type: ignore[assignment,misc]

Outcome = tuple[int, ...]

PIPS: tuple[int, ...] = tuple(t.pips for t in ALL_TILES)
PIPS_TOTAL = sum(PIPS)
# OTHER[t][n]: the number tile t leaves open when laid on an end showing n (-1: no fit).
OTHER: tuple[tuple[int, ...], ...] = tuple(
    tuple(t.other(n) if t.has(n) else -1 for n in range(7)) for t in ALL_TILES)
_INF = 1 << 20
_C_INF = 30000  # _maxn.c's AB_INF: no bound on that side of a window
# A move in the search: (points it scores << 24 | board id) << 5 | tile index.
_TILE_BITS = 5
_BOARD_BITS = 24
_BOARD_MASK = (1 << _BOARD_BITS) - 1
_MAX_BOARDS = 1 << _BOARD_BITS
# A position's key: hands << 32 | board id << 8 | stock position << 2 | seat to move.
_KEY_LOW = 32
# A deal has at most 28 plays plus draws and passes; the search recurses once per step.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 4000))


class NotAnalysable(ValueError):
    """The position lacks what perfect-information play needs (a hidden hand, the stock order)."""


class TooLarge(NotAnalysable):
    """Solving the position exactly would keep more positions than the solver's budget."""


class HandHidden(NotAnalysable):
    """A hand the position needs is not known."""


class StockUnknown(NotAnalysable):
    """The table draws and the stock's order is not known."""


class _Overflow(Exception):
    """Raised inside the max-n search when its table reaches the budget."""


# The most positions one solver keeps (about 100-200 bytes each). Two-sided searches
# keep bounds, which can be dropped at any time; max-n keeps exact values, and a
# position whose max-n subtree does not fit is reported as too large, not guessed.
MAX_POSITIONS = 1_500_000
# The C max-n drops kept values when its table is full, so memory never stops it; time
# does: one position may visit at most this many positions (about 100 s), after which it
# is too large. The count, not a clock, so that every run gives the same answer. The
# largest position measured, a 4-seat Fives opening double, visited 500 million.
MAX_NODES = 1_000_000_000
# Room of the C max-n's table, 16 bytes a position (four-seat Fives with a table of 128
# MiB or more: 8 bytes, twice as many positions in that memory). Fives with four seats
# keeps tens of millions (up to 512 MiB, a sixteenth of the machine's memory at most: a
# full table drops values and searches them again; 256 MiB costs such a deal about a third
# more time, 128 MiB about 1.7 times more; the table's pages are taken as they are
# touched); the tables where one seat wins keep under a million (32 MiB: zeroing more
# memory would cost more than it saves).
NATIVE_SLOTS_MOST = 1 << 25


def _machine_slots() -> int:
    """The Fives table's room: at most a sixteenth of the machine's memory, 512 MiB."""
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not a POSIX system
        return 1 << 24
    slots = 1 << 20
    while slots < NATIVE_SLOTS_MOST and slots * 2 * 16 * 16 <= memory:
        slots *= 2
    return slots


NATIVE_SLOTS = _machine_slots()
# Threads on one large max-n position (the C search; at most 2): the review of a deal is
# one position after another, so both cores work on each.
THREADS = min(2, os.cpu_count() or 1)
# Searches of one large 4-seat Fives position per thread, switching while the table's
# memory comes (``_maxn.c``, fibers; x86-64 only, else 1).
FIBERS = 4
NATIVE_SLOTS_ONE_WINNER = 1 << 21
# Two sides keep bounds, a few ten thousand per deal (4 MiB: a fresh table's pages are
# zeroed as they are first touched, which a larger one spreads over more of them).
NATIVE_SLOTS_TWO_SIDES = 1 << 18


_said_python = False


def _say_python_once() -> None:
    """An install without the C search works, slower: say so, once per process."""
    global _said_python
    if not _said_python:
        _said_python = True
        logging.getLogger(__name__).warning(
            "the C search was not built (no C compiler at install): the solver runs in "
            "Python, the same values much more slowly")


def _code(board: int, gain: int, tile: int) -> int:
    return (gain << _BOARD_BITS | board) << _TILE_BITS | tile


# --- boards -------------------------------------------------------------------------


class _LineBoards:
    """Two open ends, no Fives: the board is the unordered pair of end numbers.

    Which end is called left changes nothing in play or score, so (3, 5) and
    (5, 3) are one board: id ``lo * 7 + hi``.
    """

    def __init__(self) -> None:
        self.fit: list[int] = []
        for bid in range(49):
            lo, hi = divmod(bid, 7)
            self.fit.append(SUIT_MASK[lo] | SUIT_MASK[hi] if lo <= hi else 0)
        self.codes: dict[int, tuple[int, ...]] = {}

    def of_state(self, st: State) -> int:
        a, b = st.ends[0], st.ends[1]
        return a * 7 + b if a <= b else b * 7 + a

    def moves(self, bid: int, t: int) -> tuple[int, ...]:
        """The moves of tile ``t`` on board ``bid`` as search codes, one per board made."""
        key = bid << _TILE_BITS | t
        got = self.codes.get(key)
        if got is None:
            lo, hi = divmod(bid, 7)
            out: list[int] = []
            for n, keep in ((lo, hi), (hi, lo)):
                o = OTHER[t][n]
                if o >= 0:
                    code = _code(o * 7 + keep if o <= keep else keep * 7 + o, 0, t)
                    if code not in out:
                        out.append(code)
            got = self.codes[key] = tuple(out)
        return got


class _FivesBoards:
    """Sahrat Fives: up to four ends, doubles at ends and the spinner; interned on demand.

    Moves are made by the engine's own ``place`` and counted by its
    ``fives_count`` on a scratch state, so in-deal scores equal the engine's.
    """

    def __init__(self, rules: Rules) -> None:
        self._scratch = State(rules)
        self._ids: dict[tuple[object, ...], int] = {}
        self._boards: list[tuple[tuple[int, ...], tuple[bool, ...], int, int]] = []
        self.fit: list[int] = []
        self.codes: dict[int, tuple[int, ...]] = {}

    def _intern(self, ends: Sequence[int], doubles: Sequence[bool], spinner: int,
                arms: int) -> int:
        key = (tuple(ends), tuple(doubles), spinner, arms)
        bid = self._ids.get(key)
        if bid is None:
            bid = len(self._boards)
            if bid >= _MAX_BOARDS:
                raise OverflowError("too many Fives boards for one deal")
            self._ids[key] = bid
            self._boards.append((tuple(ends), tuple(doubles), spinner, arms))
            fit = 0
            for n in ends:
                if n != CLOSED:
                    fit |= SUIT_MASK[n]
            self.fit.append(fit)
        return bid

    def of_state(self, st: State) -> int:
        return self._intern(st.ends, st.doubles, st.spinner, st.arms)

    def moves(self, bid: int, t: int) -> tuple[int, ...]:
        key = bid << _TILE_BITS | t
        got = self.codes.get(key)
        if got is None:
            ends, doubles, spinner, arms = self._boards[bid]
            tile = ALL_TILES[t]
            out: list[int] = []
            sc = self._scratch
            for end, n in enumerate(ends):
                if n == CLOSED or not tile.has(n):
                    continue
                sc.ends[:] = ends
                sc.doubles[:] = doubles
                sc.spinner = spinner
                sc.arms = arms
                place(sc, tile, end)
                count = fives_count(sc)
                nb = self._intern(sc.ends, sc.doubles, sc.spinner, sc.arms)
                code = _code(nb, count if count > 0 and count % 5 == 0 else 0, t)
                if code not in out:
                    out.append(code)
            got = self.codes[key] = tuple(out)
        return got


_PIPS14 = tuple(sum(PIPS[i] for i in range(14) if m >> i & 1) for m in range(1 << 14))
_PIPS14_HIGH = tuple(sum(PIPS[i + 14] for i in range(14) if m >> i & 1) for m in range(1 << 14))


def _mask_pips(mask: int) -> int:
    return _PIPS14[mask & 0x3FFF] + _PIPS14_HIGH[mask >> 14]


class _View(BlockView):
    """The engine's block view with each hand's pips counted once (the hooks ask often)."""

    __slots__ = ("counted",)
    counted: tuple[int, ...]

    def pips(self, seat: int) -> int:
        return self.counted[seat]


class _Watched(tuple[tuple[Tile, ...], ...]):
    """The hands of a block view, noting whether the hook looked at the tiles.

    A hook is a pure function of its view: if it decided from the pips alone (as most
    tables do), every block with the same pips per seat has the same result, and the
    solver reuses it without asking again.
    """

    read = False

    def _seen(self) -> None:
        self.read = True

    def __getitem__(self, i: Any) -> Any:
        self._seen()
        return super().__getitem__(i)

    def __iter__(self) -> Iterator[tuple[Tile, ...]]:
        self._seen()
        return super().__iter__()

    def __contains__(self, x: object) -> bool:
        self._seen()
        return super().__contains__(x)

    def __reversed__(self) -> Iterator[tuple[Tile, ...]]:
        self._seen()
        return reversed(tuple(super().__iter__()))

    def __eq__(self, other: object) -> bool:
        self._seen()
        return super().__eq__(other)

    def __hash__(self) -> int:
        self._seen()
        return super().__hash__()

    def __repr__(self) -> str:
        self._seen()
        return super().__repr__()

    def __lt__(self, other: tuple[Any, ...]) -> bool:
        self._seen()
        return super().__lt__(other)

    def __le__(self, other: tuple[Any, ...]) -> bool:
        self._seen()
        return super().__le__(other)

    def __gt__(self, other: tuple[Any, ...]) -> bool:
        self._seen()
        return super().__gt__(other)

    def __ge__(self, other: tuple[Any, ...]) -> bool:
        self._seen()
        return super().__ge__(other)

    def index(self, *args: Any) -> int:
        self._seen()
        return super().index(*args)

    def count(self, x: Any) -> int:
        self._seen()
        return super().count(x)


_HALF_TILES: dict[int, tuple[Tile, ...]] = {}


def _tiles(mask: int) -> tuple[Tile, ...]:
    """``tiles_of`` as a tuple, from cached 14-bit halves."""
    low = _HALF_TILES.get(mask & 0x3FFF)
    if low is None:
        low = _HALF_TILES[mask & 0x3FFF] = tuple(tiles_of(mask & 0x3FFF))
    high = _HALF_TILES.get(mask & ~0x3FFF)
    if high is None:
        high = _HALF_TILES[mask & ~0x3FFF] = tuple(tiles_of(mask & ~0x3FFF))
    return low + high


# --- the solver ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Option:
    """One legal move at a position and the outcome of best play after it."""

    move: Move
    outcome: Outcome


def worth(rules: Rules, outcome: Outcome, side: int) -> int:
    """What a side plays for: its points minus the other's (two sides), or its points (max-n)."""
    if rules.sides == 2:
        return outcome[side] - outcome[1 - side]
    return outcome[side]


def final_outcome(st: State) -> Outcome:
    """Points per side of a finished deal (``st``): in-deal scores and its result."""
    vec = list(st.in_deal)
    res = st.last_result
    if res is not None and res.winner is not None:
        vec[st.rules.side_of(res.winner)] += res.points
    return tuple(vec)


def maxn_key(vec: Outcome, side: int) -> tuple[int, ...]:
    """Max-n preference of ``side`` (higher is better), the tie rule in the module doc."""
    others = [v for s, v in enumerate(vec) if s != side]
    return (vec[side], -max(others), -sum(others)) + tuple(-v for v in vec)


class DealSolver:
    """Best-play values of the positions of one deal (one shared transposition table).

    ``start`` is the state of the deal just after it was dealt (any later state of
    the deal does too), with every hand known and, on tables that draw, the
    stock's order. ``shared``: use the C search kept for this table (reset for this
    deal) rather than a new one, for one-position solves (``positions.solve``); a
    solver made later with ``shared`` takes it over, so this one must not be used after.
    """

    def __init__(self, start: State, budget: int = MAX_POSITIONS,
                 native: bool | None = None, max_nodes: int = MAX_NODES,
                 native_slots: int | None = None, shared: bool = False,
                 threads: int | None = None, fibers: int | None = None) -> None:
        rules = start.rules
        self._shared = shared
        self._threads = THREADS if threads is None else threads
        self._fibers = FIBERS if fibers is None else fibers
        self.budget = budget
        self.max_nodes = max_nodes
        self._native_slots = native_slots or (
            NATIVE_SLOTS_TWO_SIDES if rules.sides == 2 else
            NATIVE_SLOTS if rules.fives else NATIVE_SLOTS_ONE_WINNER)
        if native and _NativeSearch is None:
            raise RuntimeError("the C max-n search was not built (no C compiler at install)")
        self._use_native = native is not False and _NativeSearch is not None
        if native is None and _NativeSearch is None:
            _say_python_once()
        if any(start.hidden):
            raise HandHidden("a hand of this deal stays hidden")
        self.rules = rules
        self.deal = start.deal
        self.draws = rules.draws and rules.stock_size > 0
        if self.draws and (start.stock is None or len(start.stock) != rules.stock_size):
            raise StockUnknown("the order of the stock is not known")
        self.stock: tuple[Tile, ...] = tuple(start.stock or ()) if self.draws else ()
        self.boards: _LineBoards | _FivesBoards = (
            _FivesBoards(rules) if rules.fives else _LineBoards())
        # Without draws a tile never changes hands, so a position is keyed by the tiles
        # still held; the hands at the start tell whose they are.
        self._owners = tuple(start.hands)
        self._leader = start.leader if start.leader is not None else (start.to_move or 0)
        self.tt: dict[int, tuple[int, int, int]] = {}
        self.memo: dict[int, Outcome] = {}
        self.memo_codes: dict[int, int] = {}
        self._blocks: dict[int, Outcome] = {}
        # What the C search answered, by its arguments: the table may drop any value, and
        # a review asks for a few hundred positions, some twice (a deal's start).
        self._answers: dict[tuple[Any, ...], Outcome] = {}
        self._guess0 = 0
        self._hands = [0] * rules.seats
        self._pips = [0] * rules.seats
        self._spips = [0] * rules.sides
        self._build()

    # --- public -------------------------------------------------------------------

    @property
    def position_limit(self) -> int:
        """How many exact max-n values this solver keeps before a position is too large."""
        return self.budget if self._fast_maxn else self.budget // 2

    def outcome(self, st: State, fresh: bool = True) -> Outcome:
        """Points per side at the end of the deal under best play from ``st``.

        In-deal scores already made are included; a finished deal gives its result.
        Max-n only: TooLarge when the position's subtree does not fit the budget.
        ``fresh=False`` says the positions kept are all inside this one's subtree (a
        later position of the same line), so starting again empty cannot help.
        """
        if st.phase != "playing":
            return self._final(st)
        blocked = self._blocked_root(st)
        if blocked is not None:
            return self._final(blocked)
        if st.table == 0:
            if self.rules.sides == 2 and not self.rules.fives and self._native is not None:
                return self._opening(st)
            return self.best_of(st, self.options(st))
        if self.rules.sides == 2:
            m0 = self.margin(st)
            if self.rules.fives:
                return self._line_outcome(st, m0)
            return _add(tuple(st.in_deal), _split(m0))
        return _add(tuple(st.in_deal), self._maxn(st, fresh))

    @property
    def native(self) -> bool:
        """Whether the search runs in C (then only ``max_nodes`` makes a position too large:
        its table drops values when full)."""
        return self._native is not None

    def _maxn(self, st: State, fresh: bool) -> Outcome:
        """Max-n from ``st``: with the kept positions, else from scratch, else TooLarge."""
        if self._native is not None:
            p = self._load(st)
            args = (tuple(st.hands), _board_code(st), self._drawers(st), p,
                    st.stock_pos if self.draws else 0)
            got = self._answers.get(args)
            if got is not None:
                return got
            if fresh and st.plays == 1 and self._native.stored > self._native.capacity // 2:
                # Another opening tile than the one kept (``fresh``): its tree shares next
                # to nothing with that one, which would only crowd the table (with four
                # seats and Fives, starting empty halves the time of an opening double).
                self._native.clear()
            try:
                got = self._native.solve(*args, self.max_nodes)
            except _TooLong:
                raise TooLarge(f"more than {self.max_nodes:,} positions to search (with three "
                               "or four sides each for himself, few can be skipped)") from None
            self._answers[args] = got
            return got
        for attempt in range(2):
            p = self._load(st)
            kb, u, bd, pos = self._keys(st)
            kept = len(self.memo) + len(self.memo_codes)
            try:
                if self._fast_maxn:
                    code = self._mx_line(u, _ends8(st.ends[0], st.ends[1]), p, -1, -_INF)
                    return _decode(code, self.rules.sides)
                got = self._mx(kb, u, bd, p, pos, -1, -_INF)
                assert got is not None
                return got
            except _Overflow:
                # What is kept may belong to other branches (another opening tile...):
                # start again with an empty table before giving up.
                self.memo.clear()
                self.memo_codes.clear()
                if attempt or not fresh or kept < self.position_limit // 4:
                    raise TooLarge(f"more than {self.position_limit:,} positions to solve "
                                   "exactly (max-n keeps every one)") from None
        raise AssertionError("unreachable")

    def _opening(self, st: State) -> Outcome:
        """The empty table's value, two sides without Fives: what ``best_of`` picks among
        its options, each after the first only asked whether it beats the best so far (a
        window of the C search's MTD(f)), so an opening tile that does not is not searched
        to its exact value. The same outcome as valuing every option exactly."""
        seat = st.to_move
        assert seat is not None
        side = self.rules.side_of(seat)
        best: Outcome | None = None
        for move in legal_moves(st):
            child = self.play(st, move)
            if best is None or child.phase != "playing":
                got: Outcome | None = self.outcome(child)
            else:
                got = self._above(child, side, worth(self.rules, best, side))
            # Only an option worth more than the best so far replaces it: the first best
            # stays, as with ``best_of``.
            if got is not None and (best is None or worth(self.rules, got, side)
                                    > worth(self.rules, best, side)):
                best = got
        assert best is not None
        return best

    def _above(self, st: State, side: int, floor: int) -> Outcome | None:
        """``st``'s outcome if it is worth more than ``floor`` to ``side``, else None."""
        assert self._native is not None
        p = self._load(st)
        d = st.in_deal[side] - st.in_deal[1 - side]
        # Worth to ``side``: d + m when the seat to move is on it, else d - m (m: the margin
        # of the mover's side, what the C search answers).
        mine = self._side[p] == side
        alpha, beta = (floor - d, _C_INF) if mine else (-_C_INF, d - floor)
        guess = alpha + 1 if mine else beta
        try:
            m = self._native.margin(tuple(st.hands), _board_code(st), self._drawers(st), p,
                                    st.stock_pos if self.draws else 0, guess, self.max_nodes,
                                    alpha, beta)
        except _TooLong:
            raise TooLarge(f"more than {self.max_nodes:,} positions to search") from None
        if m <= alpha or m >= beta:
            return None
        m0 = m if self._side[p] == 0 else -m
        return _add(tuple(st.in_deal), _split(m0))

    def options(self, st: State) -> list[Option]:
        """Every legal move at ``st`` with the outcome of best play after it."""
        return [Option(move, self.outcome(self.play(st, move))) for move in legal_moves(st)]

    def best_of(self, st: State, options: Sequence[Option]) -> Outcome:
        """The outcome the seat to move picks among ``options`` (the rules of the module doc)."""
        seat = st.to_move
        assert seat is not None and options
        side = self.rules.side_of(seat)
        if self.rules.sides == 2:
            best = options[0].outcome
            for o in options[1:]:
                if worth(self.rules, o.outcome, side) > worth(self.rules, best, side):
                    best = o.outcome
            return best
        start = tuple(st.in_deal)
        # Max-n compares futures: the points already scored are the same for every option.
        return max((o.outcome for o in options),
                   key=lambda vec: maxn_key(_sub(vec, start), side))

    def margin(self, st: State) -> int:
        """Two sides: side 0's points minus side 1's from ``st`` on, under best play."""
        if st.phase != "playing" or st.table == 0 or self._blocked_root(st) is not None:
            out = self.outcome(st)
            return out[0] - out[1] - (st.in_deal[0] - st.in_deal[1])
        p = self._load(st)
        flip = self._side[p] != 0
        g = -self._guess0 if flip else self._guess0
        if self._native is not None:
            try:
                g = self._native.margin(tuple(st.hands), _board_code(st), self._drawers(st), p,
                                        st.stock_pos if self.draws else 0, g, self.max_nodes)
            except _TooLong:
                raise TooLarge(f"more than {self.max_nodes:,} positions to search") from None
            m0 = -g if flip else g
            self._guess0 = m0
            return m0
        kb, u, bd, pos = self._keys(st)
        fast = self._fast
        ends = _ends8(st.ends[0], st.ends[1])
        if fast:
            # A bound kept from an earlier search is a better first guess than the last value.
            entry = self.tt.get(u | ends << 28 | p << 34)
            if entry is not None:
                g = entry[0] if entry[0] > -_INF else entry[1]
        # Null-window tests "value >= b" until the bounds meet (MTD(f)); while only one
        # bound is known the step doubles, then the interval is halved.
        lo, hi = -_INF, _INF
        b = g
        step = 1
        while lo < hi:
            if len(self.tt) > self.budget:
                self.tt.clear()  # only bounds: dropping them costs time, never exactness
            if fast:
                r = self._ab_line(u, ends, p, b - 1, b)
            else:
                r = self._ab(kb, u, bd, p, pos, b - 1, b)
            if r >= b:
                lo = r
            else:
                hi = r
            if lo == -_INF:
                b = hi - step + 1
                step *= 2
            elif hi == _INF:
                b = lo + step
                step *= 2
            else:
                b = (lo + hi + 1) // 2
        g = lo
        m0 = -g if flip else g
        self._guess0 = m0
        return m0

    def play(self, st: State, move: Move) -> State:
        """The engine state after ``move`` (a draw takes the stock's next tile)."""
        seat = st.to_move
        assert seat is not None
        stock_tile = None
        if move.kind == "draw":
            assert st.stock is not None
            stock_tile = st.stock[st.stock_pos]
        child = st.copy()
        out: list[Event] = []
        findings: list[Finding] = []
        try:
            step_into(child, move.event(seat, stock_tile), None, out, findings)
        except Unreadable as exc:  # pragma: no cover - legal moves always fold
            raise AssertionError(f"engine refused a legal move {move}: {exc.finding}") from None
        return child

    # --- positions ------------------------------------------------------------------

    def _final(self, st: State) -> Outcome:
        return final_outcome(st)

    def _blocked_root(self, st: State) -> State | None:
        """When nobody can play at ``st`` and nothing is left to draw: the position after
        the pass that proves the block, scored by the engine (the rules' block scoring).
        A search never starts from there: it only finds a block after a move, so from a
        blocked root it would pass round the table for ever."""
        if st.phase != "playing" or st.table == 0 or st.to_move is None or any(st.hidden):
            return None
        if self.draws and st.stock_left > 0:
            return None
        fits = st.fit_mask()
        if any(h & fits for h in st.hands):
            return None
        after = self.play(st, Move("pass"))
        return after if after.phase != "playing" else None

    def _line_outcome(self, st: State, m0: int) -> Outcome:
        """Two sides with Fives: follow the first best move at every turn to the end."""
        target = m0 + st.in_deal[0] - st.in_deal[1]
        while st.phase == "playing":
            moves = legal_moves(st)
            if len(moves) == 1:
                st = self.play(st, moves[0])
                continue
            for move in moves:
                child = self.play(st, move)
                if child.in_deal[0] - child.in_deal[1] + self.margin(child) == target:
                    st = child
                    break
            else:  # pragma: no cover - the best move is always among the legal ones
                raise AssertionError("no move reaches the best-play value")
        return self._final(st)

    def _load(self, st: State) -> int:
        """Copy a state's hands into the search; the seat to move."""
        if any(st.hidden):
            raise HandHidden("a hand stays hidden at this position")
        if st.deal != self.deal or st.to_move is None:
            raise ValueError("this position is not one of this deal's")
        if not self.draws and any(h & ~self._owners[s] for s, h in enumerate(st.hands)):
            raise ValueError("this position is not one of this deal's")
        spips = self._spips
        spips[:] = [0] * len(spips)
        for s, h in enumerate(st.hands):
            self._hands[s] = h
            self._pips[s] = sum(PIPS[t.index] for t in tiles_of(h))
            spips[self._side[s]] += self._pips[s]
        return st.to_move

    def _drawers(self, st: State) -> int:
        """Who holds each tile drawn so far, 2 bits per stock place (the C search's key)."""
        out = 0
        width = 1 if self.rules.seats == 2 else 2
        for k in range(st.stock_pos if self.draws else 0):
            bit = self.stock[k].bit
            for s, h in enumerate(st.hands):
                if h & bit:
                    out |= s << width * k
        return out

    def _keys(self, st: State) -> tuple[int, int, int, int]:
        kb = 0
        u = 0
        for s, h in enumerate(st.hands):
            kb |= h << self._shift[s]
            u |= h
        bd = self.boards.of_state(st)
        return kb, u, bd, st.stock_pos if self.draws else 0

    # --- the search -----------------------------------------------------------------

    def _build(self) -> None:
        """Set up the Python searches over the deal's constant tables, or the C search."""
        rules = self.rules
        seats = rules.seats
        side = tuple(rules.side_of(s) for s in range(seats))
        self._side = side
        if rules.sides == 2:
            # The margin search flips sign at every change of turn.
            assert all(side[(s + 1) % seats] != side[s] for s in range(seats))
        # Key of the hands: all hands packed when tiles move between them (draws), else
        # the union of the hands (each tile's holder is fixed for the deal).
        self._shift = tuple(28 * s for s in range(seats)) if self.draws else (0,) * seats
        general = _General(self)
        self._ab: Callable[[int, int, int, int, int, int, int], int] = general.ab
        self._mx = general.mx
        self._fast_maxn = rules.sides > 2 and not rules.fives and not self.draws
        self._fast = rules.sides == 2 and not rules.fives and not self.draws
        self._native: _NativeSearch | None = None
        if self._use_native:
            self._native = _native_search(rules, self._native_slots,
                                          general.stock, general.native_block, self._leader,
                                          self._shared, self._threads, self._fibers)
            return  # the Python searches' own tables are not needed
        if self._fast_maxn:
            self._mx_line = _LineMaxn(rules, self._hands, self._pips, self.memo_codes,
                                      general.block_vec, self.budget).mx
        if self._fast:
            self._ab_line = _LineSearch(rules, self._hands, self._spips, self.tt,
                                        general.fast_block_vec).ab


# A table of bounds: (lower, upper, best move code) of a position's margin.
_NO_BOUNDS = (-_INF, _INF, -1)


def _window(entry: tuple[int, int, int], alpha: int, beta: int) -> tuple[int | None, int, int]:
    """A kept position's bounds against the window: its value if they decide it, and
    the window narrowed by them."""
    lo, hi, _ = entry
    if lo >= beta:
        return lo, alpha, beta
    if hi <= alpha:
        return hi, alpha, beta
    if lo == hi:
        return lo, alpha, beta
    return None, max(alpha, lo), min(beta, hi)


def _better(c: int, code: int, alpha: int, beta: int) -> tuple[int, int, int, bool]:
    """Alpha-beta's step when move ``code``, worth ``c``, beats the best so far: the new
    best value and move, the window's floor raised to it, and whether the search of this
    position stops (``c`` reaches beta: the parent will not let play come here)."""
    if c > alpha:
        return c, code, c, c >= beta
    return c, code, alpha, False


def _bounds_after(entry: tuple[int, int, int], v: int, alpha: int, beta: int,
                  best: int) -> tuple[int, int, int]:
    """What a search of window (alpha, beta) that found ``v`` proves of the margin."""
    if v <= alpha:
        return entry[0], v, best
    if v >= beta:
        return v, entry[1], best
    return v, v, best


class _General:
    """The Python searches of any table (the reference the C search is tested against):
    alpha-beta on the margin for two sides, max-n for more. They work on the solver's
    own lists (hands, pips) and tables, set from a position by ``DealSolver._load``."""

    def __init__(self, solver: DealSolver) -> None:
        rules = solver.rules
        seats = rules.seats
        self.rules = rules
        self.seats, self.sides, self.fives = seats, rules.sides, rules.fives
        self.side = side = solver._side
        self.nxt = tuple((s + 1) % seats for s in range(seats))
        self.losers = tuple(rules.losers_of(s) for s in range(seats))
        self.shift = solver._shift
        self.stock = tuple(t.index for t in solver.stock)
        self.nstock = len(self.stock)
        self.hands, self.pips, self.spips = solver._hands, solver._pips, solver._spips
        self.tt, self.memo, self.blocks = solver.tt, solver.memo, solver._blocks
        self.fitof, self.moves_of, self.codes = (solver.boards.fit, solver.boards.moves,
                                                 solver.boards.codes)
        self.leader = solver._leader
        # Outcome vectors take about twice the room of the fast path's numbers.
        self.vector_budget = solver.budget // 2
        # The most a side can still win: the pips it would score. Without Fives nothing
        # else scores, and pips only fall, so this bounds the margin both ways.
        self.use_bounds = not rules.fives
        self.stock_rest = tuple(sum(PIPS[t] for t in self.stock[k:])
                                for k in range(self.nstock + 1))
        self.counts_partner = rules.count_partner and seats > rules.sides
        self.own_seats = tuple(tuple(w for w in range(seats) if side[w] == side[s])
                               for s in range(seats))
        self.opp_seats = tuple(tuple(w for w in range(seats) if side[w] != side[s])
                               for s in range(seats))
        # Block results by pips alone, when the rules' hook decided without looking at
        # the tiles (see _Watched).
        self.by_pips: dict[tuple[int, ...], Outcome] = {}
        self.prefs: dict[Outcome, tuple[tuple[int, ...], ...]] = {}
        # Without Fives only the deal's winner scores, so an outcome is one seat's points,
        # and a seat's worth of it is those points if it wins, minus the winner's if another
        # does. That allows "shallow pruning" between a position and its parent: the best
        # the mover here has found bounds what the parent's mover can get from here, and
        # once that is less than it already has, the rest of this position is not needed.
        self.single_winner = not rules.fives

    # --- values of ends -------------------------------------------------------------

    def out_points(self, p: int) -> int:
        pts = 0
        for s in self.losers[p]:
            pts += self.pips[s]
        return round_to_five(pts) if self.fives else pts

    def block_vec(self, kb: int) -> Outcome:
        """The blocked deal's outcome with the hands set now (``kb``: their key)."""
        got = self.blocks.get(kb)
        if got is None:
            counted = tuple(self.pips)
            got = self.by_pips.get(counted)
            if got is None:
                rules = self.rules
                shown = _Watched(_tiles(h) for h in self.hands)
                view = _View(shown, self.leader, rules)
                object.__setattr__(view, "counted", counted)
                w = rules.block_winner(view)
                vec = [0] * self.sides
                if w is not None:
                    pts = sum(counted[s] for s in self.losers[w])
                    vec[self.side[w]] = round_to_five(pts) if self.fives else pts
                got = tuple(vec)
                if not shown.read:
                    self.by_pips[counted] = got
            self.blocks[kb] = got
        return got

    def fast_block_vec(self, kb: int) -> Outcome:
        """``block_vec`` for the fast paths, which keep no pips per seat."""
        got = self.blocks.get(kb)
        if got is None:
            for s in range(self.seats):
                self.pips[s] = _mask_pips(self.hands[s])
            got = self.block_vec(kb)
        return got

    def native_block(self, *held: int) -> Outcome:
        """``block_vec`` of the hands the C search holds (its hook for unwritten rules)."""
        kb = 0
        for s in range(self.seats):
            self.hands[s] = held[s]
            self.pips[s] = _mask_pips(held[s])
            kb |= held[s] << self.shift[s]
        return self.block_vec(kb)

    def moves(self, bd: int, fit: int, q: int, first: int) -> list[int]:
        """The moves of the tiles ``fit`` on board ``bd``, likely best first: ``first`` (a
        kept best move), then those that leave seat ``q`` (next) the fewest tiles to
        answer with, the heaviest tile first among equals."""
        mv: list[int] = []
        x = fit
        bk = bd << _TILE_BITS
        codes = self.codes
        while x:
            lb = x & -x
            x ^= lb
            t = lb.bit_length() - 1
            mv += codes.get(bk | t) or self.moves_of(bd, t)
        if len(mv) > 1:
            hq = self.hands[q]
            fitof = self.fitof
            mv.sort(key=lambda c: (c != first,
                                   (hq & fitof[(c >> _TILE_BITS) & _BOARD_MASK]).bit_count(),
                                   -PIPS[c & 31]))
        return mv

    # --- two sides: alpha-beta on the margin ---------------------------------------

    def ab(self, kb: int, u: int, bd: int, p: int, pos: int, alpha: int, beta: int) -> int:
        """Future margin for the side of seat ``p`` (to move); fail-soft alpha-beta."""
        fit = self.hands[p] & self.fitof[bd]
        if not fit:
            return self._ab_no_move(kb, u, bd, p, pos, alpha, beta)
        if self.use_bounds:
            done, alpha, beta = self._ab_bounds(p, pos, alpha, beta)
            if done is not None:
                return done
        key = kb << _KEY_LOW | bd << 8 | pos << 2 | p
        entry = self.tt.get(key, _NO_BOUNDS)
        done, a, b = _window(entry, alpha, beta)
        if done is not None:
            return done
        mv = self.moves(bd, fit, self.nxt[p], entry[2])
        v, best = self._ab_moves(kb, u, p, pos, mv, a, b)
        if len(mv) > 1:  # a forced move is its child's value: nothing to keep
            self.tt[key] = _bounds_after(entry, v, a, b, best)
        return v

    def _ab_no_move(self, kb: int, u: int, bd: int, p: int, pos: int, alpha: int,
                    beta: int) -> int:
        """Seat ``p`` cannot play: it draws the stock's next tile, or passes."""
        if pos >= self.nstock:
            return -self.ab(kb, u, bd, self.nxt[p], pos, -beta, -alpha)  # a forced pass
        hands, pips, spips = self.hands, self.pips, self.spips
        mine = self.side[p]
        t = self.stock[pos]
        lb = 1 << t
        h = hands[p]
        hands[p] = h | lb
        pips[p] += PIPS[t]
        spips[mine] += PIPS[t]
        nu = u | lb
        if pos + 1 == self.nstock and not nu & self.fitof[bd]:
            vec = self.block_vec(kb | lb << self.shift[p])
            v = vec[mine] - vec[1 - mine]
        else:
            v = self.ab(kb | lb << self.shift[p], nu, bd, p, pos + 1, alpha, beta)
        hands[p] = h
        pips[p] -= PIPS[t]
        spips[mine] -= PIPS[t]
        return v

    def _ab_bounds(self, p: int, pos: int, alpha: int,
                   beta: int) -> tuple[int | None, int, int]:
        """The pip bounds on the margin: a value if they decide it, and the window."""
        mine = self.side[p]
        spips, pips = self.spips, self.pips
        # What is left in the stock may still be drawn into any hand.
        more = self.stock_rest[pos]
        if self.counts_partner:
            total = spips[0] + spips[1] + more
            up = total - min(pips[w] for w in self.own_seats[p])
            down = total - min(pips[w] for w in self.opp_seats[p])
        else:
            up = spips[1 - mine] + more
            down = spips[mine] + more
        if up <= alpha:
            return up, alpha, beta
        if -down >= beta:
            return -down, alpha, beta
        return None, max(alpha, -down), min(beta, up)

    def _ab_moves(self, kb: int, u: int, p: int, pos: int, mv: list[int], alpha: int,
                  beta: int) -> tuple[int, int]:
        """The best of the moves ``mv`` of seat ``p``: its margin and its code."""
        hands, pips, spips, fitof = self.hands, self.pips, self.spips, self.fitof
        mine = self.side[p]
        h = hands[p]
        v = -_INF
        best = -1
        pt = pips[p]
        q = self.nxt[p]
        sp = self.shift[p]
        for code in mv:
            t = code & 31
            nb = (code >> _TILE_BITS) & _BOARD_MASK
            gain = code >> (_TILE_BITS + _BOARD_BITS)
            lb = 1 << t
            nh = h ^ lb
            hands[p] = nh
            pips[p] = pt - PIPS[t]
            spips[mine] -= PIPS[t]
            nkb = kb ^ lb << sp
            nu = u ^ lb
            if not nh:
                c = gain + self.out_points(p)
            elif pos >= self.nstock and not nu & fitof[nb]:
                vec = self.block_vec(nkb)
                c = gain + vec[mine] - vec[1 - mine]
            else:
                c = gain - self.ab(nkb, nu, nb, q, pos, gain - beta, gain - alpha)
            hands[p] = h
            pips[p] = pt
            spips[mine] += PIPS[t]
            if c > v:
                v, best, alpha, cut = _better(c, code, alpha, beta)
                if cut:
                    break
        return v, best

    # --- three or four sides: max-n ------------------------------------------------

    def pref(self, vec: Outcome) -> tuple[tuple[int, ...], ...]:
        """Each seat's preference key of an outcome (cached: outcomes repeat a lot)."""
        got = self.prefs.get(vec)
        if got is None:
            got = self.prefs[vec] = tuple(maxn_key(vec, s) for s in range(self.sides))
        return got

    def mx(self, kb: int, u: int, bd: int, p: int, pos: int, parent: int,
           limit: int) -> Outcome | None:
        """Future points per side under max-n play, memoised when exact.

        ``parent`` moved into this position and already has a move worth ``limit``
        to it; None means this position is worth less than that to ``parent``.
        """
        fit = self.hands[p] & self.fitof[bd]
        if not fit:
            return self._mx_no_move(kb, u, bd, p, pos, parent, limit)
        key = kb << _KEY_LOW | bd << 8 | pos << 2 | p
        got = self.memo.get(key)
        if got is not None:
            return got
        # Likely best first: it sets the bar the children are pruned against.
        mv = self.moves(bd, fit, self.nxt[p], -1)
        best = self._mx_moves(kb, u, p, pos, mv, parent, limit)
        if best is None:
            return None
        if len(self.memo) >= self.vector_budget:
            raise _Overflow
        self.memo[key] = best
        return best

    def _mx_no_move(self, kb: int, u: int, bd: int, p: int, pos: int, parent: int,
                    limit: int) -> Outcome | None:
        """Seat ``p`` cannot play: it draws the stock's next tile, or passes."""
        if pos >= self.nstock:
            return self.mx(kb, u, bd, self.nxt[p], pos, parent, limit)
        hands, pips = self.hands, self.pips
        t = self.stock[pos]
        lb = 1 << t
        h = hands[p]
        hands[p] = h | lb
        pips[p] += PIPS[t]
        nu = u | lb
        vec: Outcome | None
        if pos + 1 == self.nstock and not nu & self.fitof[bd]:
            vec = self.block_vec(kb | lb << self.shift[p])
        else:
            vec = self.mx(kb | lb << self.shift[p], nu, bd, p, pos + 1, parent, limit)
        hands[p] = h
        pips[p] -= PIPS[t]
        return vec

    def _mx_child(self, kb: int, u: int, p: int, pos: int, code: int,
                  limit: int) -> Outcome | None:
        """The outcome after seat ``p`` plays ``code`` (None: pruned, see ``mx``)."""
        hands, pips = self.hands, self.pips
        t = code & 31
        lb = 1 << t
        h = hands[p]
        nh = h ^ lb
        nb = (code >> _TILE_BITS) & _BOARD_MASK
        pt = pips[p]
        hands[p] = nh
        pips[p] = pt - PIPS[t]
        nkb = kb ^ lb << self.shift[p]
        nu = u ^ lb
        vec: Outcome | None
        if not nh:
            pts = self.out_points(p)
            vec = tuple(pts if s == self.side[p] else 0 for s in range(self.sides))
        elif pos >= self.nstock and not nu & self.fitof[nb]:
            vec = self.block_vec(nkb)
        else:
            vec = self.mx(nkb, nu, nb, self.nxt[p], pos, p, limit)
        hands[p] = h
        pips[p] = pt
        return vec

    def _mx_moves(self, kb: int, u: int, p: int, pos: int, mv: list[int], parent: int,
                  limit: int) -> Outcome | None:
        """The outcome seat ``p`` picks among ``mv`` (None: pruned, see ``mx``)."""
        mine = self.side[p]
        single_winner = self.single_winner
        prune = single_winner and p != parent
        # The most this seat can still score: every other hand, and all of the stock.
        ceiling = sum(self.pips) - self.pips[p] + self.stock_rest[pos] if single_winner \
            else _INF
        best: Outcome | None = None
        best_key: tuple[int, ...] = ()
        child_limit = -_INF
        for code in mv:
            vec = self._mx_child(kb, u, p, pos, code, child_limit)
            if vec is None:
                continue  # worse for this seat than its best so far
            gain = code >> (_TILE_BITS + _BOARD_BITS)
            if gain:
                vec = tuple(v + gain if s == mine else v for s, v in enumerate(vec))
            k = self.pref(vec)[mine]
            if best is None or k > best_key:
                best, best_key = vec, k
                if single_winner:
                    own = best[mine]
                    # The parent's worth of this position is at most -own if this seat
                    # wins, else at most the winner's points so far.
                    if prune and (-own if own > 0 else max(best)) < limit:
                        return None
                    if 0 < own >= ceiling:
                        break  # it wins the most there is: nothing else is better
                    child_limit = own if own > 0 else -max(best)
        assert best is not None
        return best


# Searches kept for one-position solves (``shared``), by table and room: set up once,
# reset for each deal. One at a time: a solver made later takes it over.
_SHARED: dict[tuple[object, ...], _NativeSearch] = {}
_ROUND5 = tuple(round_to_five(x) for x in range(PIPS_TOTAL + 1))
_HIGH = tuple(t.high for t in ALL_TILES)
_LOW = tuple(t.low for t in ALL_TILES)


def _native_search(rules: Rules, slots: int, stock: tuple[int, ...],
                   block: Callable[..., Outcome], leader: int, shared: bool,
                   threads: int, fibers: int) -> _NativeSearch:
    """The C search for a deal of ``rules``: a new one, or the shared one reset."""
    key = (rules.preset, rules.seats, tuple(sorted(rules.options.items())), slots, threads,
           fibers)
    if shared and key in _SHARED:
        got = _SHARED[key]
        got.reset(stock, block, leader)
        return got
    seats = rules.seats
    got = _NativeSearch(
        side=tuple(rules.side_of(s) for s in range(seats)),
        losers=tuple(sum(1 << w for w in rules.losers_of(s)) for s in range(seats)),
        fives=rules.fives, high=_HIGH, low=_LOW, pips=PIPS, suits=tuple(SUIT_MASK[:7]),
        stock=stock, round5=_ROUND5, block=block, capacity=slots,
        counts_partner=rules.count_partner and seats > rules.sides,
        block_kind=_block_kind(rules), leader=leader, threads=threads, fibers=fibers)
    if shared:
        _SHARED[key] = got
    return got


# --- the fast path: two sides, two ends, no stock, no Fives -----------------------------

# Ends as ``low << 3 | high``: which end is left changes nothing. A position's key is
# ``held tiles | ends << 28 | seat << 34``.
_FIT8 = tuple(SUIT_MASK[e >> 3] | SUIT_MASK[e & 7] if e >> 3 < 7 and e & 7 < 7 else 0
              for e in range(64))


def _ends8(a: int, b: int) -> int:
    return a << 3 | b if a <= b else b << 3 | a


def _line_children(e: int, t: int) -> tuple[int, ...]:
    a, b = e >> 3, e & 7
    out = []
    if a < 7 and OTHER[t][a] >= 0:
        out.append(_ends8(OTHER[t][a], b))
    if b < 7 and a != b and OTHER[t][b] >= 0:
        out.append(_ends8(a, OTHER[t][b]))
    return tuple(out)


# _MOVES8[e << 5 | t]: tile t laid on ends e, once per distinct result, as codes
# ``new ends << 5 | t``.
_MOVES8 = tuple(tuple(ne << 5 | (i & 31) for ne in _line_children(i >> 5, i & 31))
                if i & 31 < 28 else () for i in range(64 * 32))


# Move order: heaviest tile first (shed pips), the first-tried move of a cut-off
# usually being the best one; a kept best move goes before them all.
_HEAVY_FIRST = [1024 - PIPS[i & 31] * 64 - (i >> 5) if i & 31 < 28 else 0
                for i in range(64 * 32)]


class _LineSearch:
    """The margin search specialised for pass tables (the hot path of every 4-seat deal).

    Same values as the general search. Tiles never change hands, so the tiles still
    held (``u``) key a position; every turn passes to the other side; ``spips`` holds
    each side's pips. ``block_vec`` must read the hands (it is called with them set).
    """

    def __init__(self, rules: Rules, hands: list[int], spips: list[int],
                 tt: dict[int, tuple[int, int, int]],
                 block_vec: Callable[[int], Outcome]) -> None:
        seats = rules.seats
        self.hands, self.spips, self.tt, self.block_vec = hands, spips, tt, block_vec
        self.side = side = tuple(rules.side_of(s) for s in range(seats))
        self.nxt = tuple((s + 1) % seats for s in range(seats))
        self.seat_key = tuple(s << 34 for s in range(seats))
        # The seats after p in turn, each with whether it plays for p's side: a seat that
        # cannot play passes, and the first that can is searched directly.
        self.chain = tuple(tuple(((p + k) % seats, side[(p + k) % seats] == side[p])
                                 for k in range(1, seats + 1)) for p in range(seats))
        self.counts_partner = rules.count_partner and seats > 2
        self.own = tuple(tuple(w for w in range(seats) if side[w] == side[s])
                         for s in range(seats))
        self.opp = tuple(tuple(w for w in range(seats) if side[w] != side[s])
                         for s in range(seats))
        # The moves of a seat on given ends, heaviest first, by (fitting tiles | ends << 28).
        self.move_lists: dict[int, tuple[int, ...]] = {}

    def moves(self, fit: int, e: int) -> tuple[int, ...]:
        got = self.move_lists.get(fit | e << 28)
        if got is None:
            mv: list[int] = []
            x = fit
            eb = e << 5
            while x:
                lb = x & -x
                x ^= lb
                mv += _MOVES8[eb | (lb.bit_length() - 1)]
            mv.sort(key=_HEAVY_FIRST.__getitem__)
            got = self.move_lists[fit | e << 28] = tuple(mv)
        return got

    def _bounds(self, p: int) -> tuple[int, int]:
        """The most seat ``p``'s side can still win (``up``) and lose (``down``)."""
        spips = self.spips
        if self.counts_partner:
            total = spips[0] + spips[1]
            hands = self.hands
            return (total - min(_mask_pips(hands[w]) for w in self.own[p]),
                    total - min(_mask_pips(hands[w]) for w in self.opp[p]))
        mine = self.side[p]
        return spips[1 - mine], spips[mine]

    def _ordered(self, mv: tuple[int, ...], p: int, first: int) -> tuple[int, ...]:
        """Moves that leave the next seat fewest tiles to answer with first; a kept best
        move (``first``) before them all."""
        hq = self.hands[self.nxt[p]]
        if len(mv) == 2:
            c0, c1 = mv
            if (hq & _FIT8[c1 >> 5]).bit_count() < (hq & _FIT8[c0 >> 5]).bit_count():
                mv = (c1, c0)
        else:
            mv = tuple(sorted(mv, key=lambda c: (hq & _FIT8[c >> 5]).bit_count()))
        if first >= 0 and mv[0] != first:
            mv = (first,) + tuple(c for c in mv if c != first)
        return mv

    def ab(self, u: int, e: int, p: int, alpha: int, beta: int) -> int:
        h = self.hands[p]
        fit = h & _FIT8[e]
        if not fit:
            return -self.ab(u, e, self.nxt[p], -beta, -alpha)
        up, down = self._bounds(p)
        if not self.counts_partner and not h & (h - 1):
            return up  # the last tile fits: going out now scores the most there is
        if up <= alpha:
            return up
        if -down >= beta:
            return -down
        alpha, beta = max(alpha, -down), min(beta, up)
        mv = self.move_lists.get(fit | e << 28) or self.moves(fit, e)
        if len(mv) == 1:  # a forced move is its child's value: nothing to keep
            return self._best(u, p, mv, alpha, beta)[0]
        key = u | e << 28 | self.seat_key[p]
        entry = self.tt.get(key, _NO_BOUNDS)
        done, a, b = _window(entry, alpha, beta)
        if done is not None:
            return done
        v, best = self._best(u, p, self._ordered(mv, p, entry[2]), a, b)
        self.tt[key] = _bounds_after(entry, v, a, b, best)
        return v

    def _best(self, u: int, p: int, mv: tuple[int, ...], alpha: int,
              beta: int) -> tuple[int, int]:
        """The best of seat ``p``'s moves ``mv``: its margin and its code."""
        hands, spips = self.hands, self.spips
        h = hands[p]
        mine = self.side[p]
        v = -_INF
        best = -1
        for code in mv:
            t = code & 31
            lb = 1 << t
            nh = h ^ lb
            w = PIPS[t]
            hands[p] = nh
            spips[mine] -= w
            if not nh:
                c = spips[0] + spips[1] if self.counts_partner else spips[1 - mine]
            else:
                c = self._after(u ^ lb, code >> 5, p, alpha, beta)
            hands[p] = h
            spips[mine] += w
            if c > v:
                v, best, alpha, cut = _better(c, code, alpha, beta)
                if cut:
                    break
        return v, best

    def _after(self, nu: int, ne: int, p: int, alpha: int, beta: int) -> int:
        """Seat ``p``'s margin once it has played, leaving ends ``ne`` and tiles ``nu``."""
        hands, spips = self.hands, self.spips
        mine = self.side[p]
        fm = _FIT8[ne]
        hq = hands[self.nxt[p]]
        if hq & fm:
            if hq & (hq - 1) or self.counts_partner:
                return -self.ab(nu, ne, self.nxt[p], -beta, -alpha)
            return -spips[mine]  # the next seat goes out with its last tile
        if not nu & fm:
            vec = self.block_vec(nu)
            return vec[mine] - vec[1 - mine]
        for q, same in self.chain[p]:
            if hands[q] & fm:
                return self.ab(nu, ne, q, alpha, beta) if same else -self.ab(
                    nu, ne, q, -beta, -alpha)
        raise AssertionError("a tile still held fits, so some seat can play")


# --- the fast path of max-n: three or four seats, two ends, no stock, no Fives ----------

# Without Fives only the deal's winner scores, so an outcome is one number:
# ``points << 3 | winner + 1`` (0: nobody scores).
_NOBODY = 0


def _win_code(winner: int | None, points: int) -> int:
    return 0 if winner is None or points == 0 else points << 3 | (winner + 1)


def _decode(code: int, sides: int) -> Outcome:
    vec = [0] * sides
    if code:
        vec[(code & 7) - 1] = code >> 3
    return tuple(vec)


def _preferences(seats: int) -> tuple[list[list[int]], list[list[int]]]:
    """Each seat's order of one-winner codes (``_LineMaxn``) and what each is worth to it."""
    top = 8 * (PIPS_TOTAL + 1)
    pref: list[list[int]] = []
    worth_of: list[list[int]] = []
    for s in range(seats):
        pr = [0] * top
        wo = [0] * top
        for code in range(8, top):
            w, pts = (code & 7) - 1, code >> 3
            if not 0 <= w < seats:
                continue
            pr[code] = pts << 4 if w == s else -(pts << 4) + w
            wo[code] = pts if w == s else -pts
        pref.append(pr)
        worth_of.append(wo)
    return pref, worth_of


class _LineMaxn:
    """Max-n specialised for pass tables each for himself (Sahrat Draw, Casual Arena, 4 seats).

    Same values and tie rule as the general max-n (``maxn_key``): on one-winner
    outcomes a seat's order is its own win (more is better), then nobody scoring,
    then another seat's win (fewer points better; at equal points the later seat).
    ``pref[s][code]`` is that order as a number, ``worth[s][code]`` the seat's own
    points or minus the winner's, which bounds what a parent can get ("shallow
    pruning", as in the general search). -1 is the answer "pruned".
    """

    def __init__(self, rules: Rules, hands: list[int], pips: list[int], memo: dict[int, int],
                 block_vec: Callable[[int], Outcome], budget: int) -> None:
        seats = rules.seats
        self.seats, self.hands, self.pips, self.memo = seats, hands, pips, memo
        self.block_vec, self.budget = block_vec, budget
        self.pref, self.worth_of = _preferences(seats)
        self.chain = tuple(tuple((p + k) % seats for k in range(1, seats + 1))
                           for p in range(seats))
        self.seat_key = tuple(s << 34 for s in range(seats))
        self.blocks: dict[int, int] = {}

    def block_code(self, u: int) -> int:
        got = self.blocks.get(u)
        if got is None:
            vec = self.block_vec(u)
            w = max(range(self.seats), key=vec.__getitem__)
            got = self.blocks[u] = _win_code(w, vec[w])
        return got

    def _moves(self, fit: int, e: int, p: int) -> list[int]:
        """Seat ``p``'s moves, likely best first: fewest answers for the next seat, then
        heaviest."""
        mv: list[int] = []
        x = fit
        eb = e << 5
        while x:
            lb = x & -x
            x ^= lb
            mv += _MOVES8[eb | (lb.bit_length() - 1)]
        if len(mv) > 1:
            hq = self.hands[self.chain[p][0]]
            heavy_first = _HEAVY_FIRST.__getitem__
            mv.sort(key=lambda c: ((hq & _FIT8[c >> 5]).bit_count() << 11) + heavy_first(c))
        return mv

    def mx(self, u: int, e: int, p: int, parent: int, limit: int) -> int:
        fit = self.hands[p] & _FIT8[e]
        if not fit:
            return self.mx(u, e, self.chain[p][0], parent, limit)
        key = u | e << 28 | self.seat_key[p]
        got = self.memo.get(key)
        if got is not None:
            return got
        best = self._best(u, p, self._moves(fit, e, p), parent, limit)
        if best < 0:
            return best
        if len(self.memo) >= self.budget:
            raise _Overflow
        self.memo[key] = best
        return best

    def _after(self, u: int, code: int, p: int, limit: int) -> int:
        """The code of the outcome after seat ``p`` plays ``code`` (-1: pruned)."""
        hands, pips = self.hands, self.pips
        t = code & 31
        lb = 1 << t
        h = hands[p]
        nh = h ^ lb
        pt = pips[p]
        hands[p] = nh
        pips[p] = pt - PIPS[t]
        if not nh:
            c = _win_code(p, sum(pips) + PIPS[t] - pt)
        else:
            nu = u ^ lb
            fm = _FIT8[code >> 5]
            c = -1
            if not nu & fm:
                c = self.block_code(nu)
            else:
                for q in self.chain[p]:
                    if hands[q] & fm:
                        c = self.mx(nu, code >> 5, q, p, limit)
                        break
        hands[p] = h
        pips[p] = pt
        return c

    def _best(self, u: int, p: int, mv: list[int], parent: int, limit: int) -> int:
        """The outcome code seat ``p`` picks among ``mv`` (-1: pruned, see the class)."""
        prune = p != parent
        mine_pref = self.pref[p]
        ceiling = sum(self.pips) - self.pips[p]  # the most this seat can still win
        best = -1
        best_pref = -_INF
        child_limit = -_INF
        for code in mv:
            c = self._after(u, code, p, child_limit)
            if c < 0:
                continue  # pruned: worse for this seat than its best so far
            k = mine_pref[c]
            if k > best_pref:
                best, best_pref = c, k
                if c and (c & 7) - 1 == p:
                    if prune and -(c >> 3) < limit:
                        return -1
                    if c >> 3 >= ceiling:
                        break  # it wins the most there is: nothing else is better
                elif prune and (c >> 3) < limit:
                    return -1
                child_limit = self.worth_of[p][c]
        return best


def _block_kind(rules: Rules) -> int:
    """Which of the C search's copies of the rules' block hooks this table's is (0: none,
    the C search calls the hook). Matched by the hook itself, so a table whose hook
    changes, or a new table, falls back to calling it."""
    hook = rules.block_winner
    if hook is single_lowest_or_tie:
        return 1
    if hook is domena_block:
        return 2 if rules.teams else 1
    if hook is partner_block:
        return 3
    if hook is arena_block:
        return 4
    if hook is selminha_block:
        return 5 if rules.teams else 6
    return 0


def _board_code(st: State) -> int:
    """A state's board as the C search packs it (3 bits per end, 7 closed; flags)."""
    code = 0
    for i, n in enumerate(st.ends):
        code |= (7 if n == CLOSED else n) << 3 * i
        if st.doubles[i]:
            code |= 1 << 12 + i
    return code | (7 if st.spinner == CLOSED else st.spinner) << 16 | st.arms << 19


def _split(m0: int) -> Outcome:
    """Two sides, no Fives: only the deal's winner scores, so the margin is the outcome."""
    return (m0, 0) if m0 > 0 else (0, -m0)


def _add(a: Outcome, b: Outcome) -> Outcome:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def _sub(a: Outcome, b: Outcome) -> Outcome:
    return tuple(x - y for x, y in zip(a, b, strict=True))


__all__ = ["MAX_POSITIONS", "DealSolver", "HandHidden", "NotAnalysable", "Option", "Outcome",
           "StockUnknown", "TooLarge", "final_outcome", "maxn_key", "worth"]
