"""Best play from any position, one at a time or many at once: the solver's public entry.

``solve`` values one position of any table: a position reached in a recorded deal (a
prefix of it), or one whose hidden hands (and, on tables that draw, the stock's order)
the caller supplies, as the knowledge review does with sampled hands. Its set-up is a
new ``DealSolver`` with a small table (``SMALL_SLOTS``): the knowledge review calls it
thousands of times, so no call may cost more than a small endgame's search before it
starts. ``solve_many`` solves a batch of independent positions on every core, in one
call (forked workers, each solving a share of the batch).

Every value is exact. A finished position is its result, and a position blocked at the
root (nobody can play, nothing left to draw) the rules' block scoring, both without a
search. A position that cannot be solved (a hand still hidden, the stock's order unknown,
more than ``max_nodes`` positions to visit) gets no value and says why in ``note``, and
which of those it is in ``why`` (``WHY``): nothing is guessed.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from dataclasses import dataclass

from ledger.analysis.solver import (
    MAX_NODES,
    DealSolver,
    HandHidden,
    NotAnalysable,
    Option,
    Outcome,
    StockUnknown,
    TooLarge,
    final_outcome,
    worth,
)
from ledger.engine.moves import Move, legal_moves
from ledger.engine.state import State
from ledger.tiles import Tile

# Table room of a one-position solve (16 bytes a position): small enough that setting it
# up costs next to nothing; a larger position searches some positions again, never
# answers differently. ``slots=`` gives more.
SMALL_SLOTS = 1 << 15
# Max-n with Fives keeps exact values of nearly every position below the one asked: its
# room doubles with each tile held past 17, up to 64 MiB. A table is cleared for each
# deal, and one larger than that costs more to clear and touch than it saves (measured
# after the 8th play, 20 tiles held: 4 MiB solves about 1.7 times as many per second as
# 64 MiB and 2.5 times as many as 512 KiB).
MAXN_SLOTS_MOST = 1 << 22


def slots_for(st: State) -> int:
    """The table room ``solve`` gives a position by default."""
    if not st.rules.fives or st.rules.sides == 2:
        return SMALL_SLOTS
    held = sum(h.bit_count() for h in st.hands)
    return max(SMALL_SLOTS, min(MAXN_SLOTS_MOST, 1 << (held - 2)))


@dataclass(frozen=True, slots=True)
class Solved:
    """One position's best-play value: ``outcome`` (points per side at the end of the
    deal, in-deal scores included) and, when asked, every legal move's; or ``note``,
    why it has none."""

    outcome: Outcome | None
    options: tuple[Option, ...] = ()
    note: str | None = None
    why: str | None = None            # the kind of ``note``: one of ``WHY``

    def best_moves(self, st: State) -> tuple[Move, ...]:
        """The options worth the most to the seat to move at ``st``."""
        if not self.options or st.to_move is None:
            return ()
        side = st.rules.side_of(st.to_move)
        top = max(worth(st.rules, o.outcome, side) for o in self.options)
        return tuple(o.move for o in self.options if worth(st.rules, o.outcome, side) == top)


def with_hands(st: State, hands: Sequence[int], stock: Sequence[Tile] | None = None) -> State:
    """``st`` with every hand given (bit masks, one per seat) and, if given, the stock's
    whole order (the tiles already drawn first): a position the solver can value."""
    if len(hands) != st.rules.seats:
        raise ValueError(f"{len(hands)} hands given for {st.rules.seats} seats")
    out = st.copy()
    out.hands = list(hands)
    out.hidden = [0] * st.rules.seats
    if stock is not None:
        out.stock = tuple(stock)
    return out


def solve(st: State, hands: Sequence[int] | None = None, *, stock: Sequence[Tile] | None = None,
          options: bool = False, max_nodes: int = MAX_NODES, slots: int | None = None) -> Solved:
    """Best play from ``st`` (with ``hands`` and ``stock`` in place of its own if given).

    ``options``: also every legal move's outcome. ``max_nodes``: the most positions one
    search may visit; beyond it the position gets no value (``note`` says so).
    ``slots``: the table's room (default ``slots_for``).
    """
    if hands is not None or stock is not None:
        st = with_hands(st, hands if hands is not None else st.hands, stock)
    got = _solve_raw(st, options, max_nodes, slots)
    return _dress(st, got)


def solve_many(positions: Sequence[State], *, options: bool = False,
               max_nodes: int = MAX_NODES, slots: int | None = None,
               workers: int | None = None) -> list[Solved]:
    """``solve`` of every position, in order, shared among ``workers`` processes (default:
    one per core; 1 solves them here). Positions are independent: any mix of tables."""
    n = workers or os.cpu_count() or 1
    ctx = _fork_context()
    if n <= 1 or ctx is None or len(positions) < 2 * n:
        return [_dress(st, _solve_raw(st, options, max_nodes, slots)) for st in positions]
    global _BATCH
    _BATCH = (positions, options, max_nodes, slots)
    try:
        # Small shares, handed out as workers free up: positions differ a lot in size.
        size = max(1, len(positions) // (n * 8))
        shares = [range(k, min(k + size, len(positions))) for k in range(0, len(positions), size)]
        with ctx.Pool(n) as pool:
            raw = [got for part in pool.imap(_solve_share, shares) for got in part]
    finally:
        _BATCH = None
    return [_dress(st, got) for st, got in zip(positions, raw, strict=True)]


# --- inside ---------------------------------------------------------------------------

# Why a position has no value: more than ``max_nodes`` positions to visit, a hand hidden,
# the stock's order unknown, who moves unknown.
WHY = ("limit", "hidden", "stock", "who")
# What a worker sends back: the outcome, each legal move's (in legal-move order), a note,
# its kind.
_Raw = tuple[Outcome | None, tuple[Outcome, ...], str | None, str | None]
# The batch a forked worker reads (set just before the fork: nothing is pickled to it).
_BATCH: tuple[Sequence[State], bool, int, int | None] | None = None


def _fork_context() -> multiprocessing.context.BaseContext | None:
    if "fork" not in multiprocessing.get_all_start_methods():
        return None
    return multiprocessing.get_context("fork")


def _solve_share(share: range) -> list[_Raw]:
    assert _BATCH is not None
    positions, options, max_nodes, slots = _BATCH
    return [_solve_raw(positions[k], options, max_nodes, slots) for k in share]


def _solve_raw(st: State, options: bool, max_nodes: int, slots: int | None) -> _Raw:
    if st.phase != "playing":  # over: its result, whatever is hidden (no search to set up)
        return final_outcome(st), (), None, None
    try:
        solver = DealSolver(st, max_nodes=max_nodes, native_slots=slots or slots_for(st),
                            shared=True,
                            threads=1)
        if st.phase == "playing" and st.to_move is None:
            raise NotAnalysable("who moves is not known")
        if not options or st.phase != "playing":
            return solver.outcome(st, fresh=False), (), None, None
        found = solver.options(st)
        # On an empty table the position's value is its best option's (``outcome`` would
        # ask for them again).
        best = solver.best_of(st, found) if st.table == 0 else solver.outcome(st, fresh=False)
        return best, tuple(o.outcome for o in found), None, None
    except NotAnalysable as exc:  # no value, the reason
        return None, (), str(exc), _why(exc)


def _why(exc: NotAnalysable) -> str:
    if isinstance(exc, TooLarge):
        return "limit"
    if isinstance(exc, HandHidden):
        return "hidden"
    return "stock" if isinstance(exc, StockUnknown) else "who"


def _dress(st: State, got: _Raw) -> Solved:
    outcome, opts, note, why = got
    moves = legal_moves(st) if opts else []
    return Solved(outcome, tuple(Option(m, o) for m, o in zip(moves, opts, strict=True)), note,
                  why)


__all__ = ["SMALL_SLOTS", "WHY", "Solved", "slots_for", "solve", "solve_many", "with_hands"]
