"""Moves: what the seat to move may do, with one canonical text form.

``str(Move)`` and ``Move.parse`` round-trip: "6-3 right", "6-6" (an opening
tile), "draw", "pass".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ledger.engine.state import CLOSED, END_NAMES, State
from ledger.events import Drew, End, Event, Passed, Played
from ledger.tiles import Tile, TileError, tiles_of

Kind = Literal["play", "draw", "pass"]


class MoveError(ValueError):
    """The text cannot be read as a move."""


@dataclass(frozen=True, slots=True)
class Move:
    kind: Kind
    tile: Tile | None = None
    end: End | None = None

    def __str__(self) -> str:
        if self.kind != "play":
            return self.kind
        return f"{self.tile} {self.end}" if self.end else str(self.tile)

    @staticmethod
    def parse(text: str) -> Move:
        words = text.split()
        if words in (["draw"], ["pass"]):
            return Move(words[0])  # type: ignore[arg-type]
        if not 1 <= len(words) <= 2:
            raise MoveError(f"{text!r} is not a move (\"6-3 right\", \"draw\", \"pass\")")
        try:
            tile = Tile.parse(words[0])
        except TileError as exc:
            raise MoveError(str(exc)) from None
        if len(words) == 2 and words[1] not in END_NAMES:
            raise MoveError(f"{words[1]!r} is not an end (left, right, up, down)")
        return Move("play", tile, words[1] if len(words) == 2 else None)  # type: ignore[arg-type]

    def event(self, seat: int, stock_tile: Tile | None = None) -> Event:
        if self.kind == "play":
            assert self.tile is not None
            return Played(seat=seat, tile=self.tile, end=self.end)
        if self.kind == "draw":
            return Drew(seat=seat, tile=stock_tile)
        return Passed(seat=seat)


def legal_moves(st: State) -> list[Move]:
    """Every move the seat to move may make; empty when nobody is to move."""
    if st.phase != "playing" or st.to_move is None or st.redeal_due:
        return []  # a hand of 4+ doubles: only a new deal is legal (seed 002)
    seat = st.to_move
    if st.table == 0:
        if st.must_open is not None:
            return [Move("play", st.must_open)]
        return [Move("play", t) for t in tiles_of(st.hands[seat])]
    moves = []
    for tile in tiles_of(st.hands[seat] & st.fit_mask()):
        for i, n in enumerate(st.ends):
            if n != CLOSED and tile.has(n):
                moves.append(Move("play", tile, END_NAMES[i]))  # type: ignore[arg-type]
    if moves:
        return moves
    if st.rules.draws and st.stock_left > 0:
        return [Move("draw")]
    return [Move("pass")]
