"""The line of tiles: open ends, where a tile fits, and the Fives count.

Four end slots (left, right, up, down); ``up`` and ``down`` open only on a
Fives spinner once both its sides are covered (seed 001, "The opening double
has a bonus").
"""

from __future__ import annotations

from ledger.engine.state import CLOSED, DOWN, LEFT, RIGHT, UP, State
from ledger.tiles import Tile

SPINNER_SIDES = (1 << LEFT) | (1 << RIGHT)


def opening_rank(tile: Tile) -> tuple[int, int, int]:
    """Who opens a deal: the highest double, else the heaviest tile."""
    return (1, tile.high, 0) if tile.is_double else (0, tile.pips, tile.high)


def open_board(st: State, tile: Tile, first: int) -> None:
    """Lay the opening tile; ``first`` is the number written first (the left end)."""
    second = tile.other(first)
    st.ends[:] = [first, second, CLOSED, CLOSED]
    st.doubles[:] = [tile.is_double, tile.is_double, False, False]
    st.arms = 0
    st.spinner = tile.high if (st.rules.fives and tile.is_double) else CLOSED
    st.table |= tile.bit


def fitting_ends(st: State, tile: Tile) -> list[int]:
    return [i for i, n in enumerate(st.ends) if n != CLOSED and tile.has(n)]


def place(st: State, tile: Tile, end: int) -> None:
    n = st.ends[end]
    st.ends[end] = tile.low if n == tile.high else tile.high  # tile.other(n), inlined
    st.doubles[end] = tile.is_double
    st.table |= tile.bit
    if st.spinner != CLOSED:
        st.arms |= 1 << end
        if end in (LEFT, RIGHT) and st.arms & SPINNER_SIDES == SPINNER_SIDES \
                and st.ends[UP] == CLOSED and not st.arms & ((1 << UP) | (1 << DOWN)):
            st.ends[UP] = st.ends[DOWN] = st.spinner
            st.doubles[UP] = st.doubles[DOWN] = False


def fives_count(st: State) -> int:
    """The open ends added up (seed 001 and rules-decisions, Fives)."""
    total = 0
    if st.spinner != CLOSED:
        if st.arms & SPINNER_SIDES != SPINNER_SIDES:
            # The spinner is itself an end: both halves, once.
            total += 2 * st.spinner
        for i in (LEFT, RIGHT, UP, DOWN):
            if st.arms & (1 << i):
                total += 2 * st.ends[i] if st.doubles[i] else st.ends[i]
        return total
    for i in (LEFT, RIGHT):
        total += 2 * st.ends[i] if st.doubles[i] else st.ends[i]
    return total


def outcome_key(st: State, tile: Tile, end: int) -> tuple[object, ...]:
    """What a play leaves: the open numbers (as a multiset) and, in Fives, the count.

    Two ends with the same key are the same choice, so a record may leave ``end`` out.
    """
    trial = st.copy()
    place(trial, tile, end)
    # Not whether a double lies at an end: the contract compares only the numbers (and
    # the Fives count, which is where a double at an end makes a difference).
    opened = sorted(n for n in trial.ends if n != CLOSED)
    return (tuple(opened), fives_count(trial) if st.rules.fives else 0)
