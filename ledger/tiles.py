"""The Tile value type and the notations of the match format.

A tile is one of the 28 of a double-six set. Instances are interned: there is
exactly one object per tile, so parsing is a dictionary lookup and the engine
can work with small integers (``tile.index``, ``tile.bit``) on its hot path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from ledger.i18n.phrases import english

MAX_PIP: Final = 6


class TileError(ValueError):
    """The text or value cannot be read as a tile of a double-six set (``template`` and
    ``params`` word it in any language)."""

    def __init__(self, template: str, /, **params: object) -> None:
        super().__init__(english(template, params))
        self.template = template
        self.params = params


class Tile:
    """One domino. ``str(tile)`` is the canonical form, high number first."""

    __slots__ = ("high", "low", "index", "bit", "pips", "is_double", "_text")

    high: int
    low: int
    index: int
    bit: int
    pips: int
    is_double: bool
    _text: str

    def __new__(cls, a: int, b: int) -> Tile:
        return _pair(a, b, f"{a}-{b}")

    @staticmethod
    def parse(value: object) -> Tile:
        """Read any notation of the match format: "6-3", "63", "3-6", "6|3", "[6:3]", [6, 3]."""
        if isinstance(value, Tile):
            return value
        if isinstance(value, str):
            tile = _BY_TEXT.get(value)
            if tile is not None:
                return tile
            match = _TEXT_RE.fullmatch(value.strip())
            if match is None:
                raise TileError("{value} is not a tile (write it as \"6-3\")", value=repr(value))
            return _pair(int(match.group(1)), int(match.group(2)), value)
        if isinstance(value, (list, tuple)) and len(value) == 2:
            a, b = value
            if type(a) is int and type(b) is int:
                return _pair(a, b, value)
        raise TileError("{value} is not a tile (write it as \"6-3\")", value=repr(value))

    @staticmethod
    def from_index(index: int) -> Tile:
        return ALL_TILES[index]

    def has(self, number: int) -> bool:
        return number == self.high or number == self.low

    def other(self, number: int) -> int:
        """The half left open when this tile joins an end showing ``number``."""
        return self.low if number == self.high else self.high

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Tile({self._text!r})"

    def __reduce__(self) -> tuple[object, tuple[int, int]]:
        return (Tile, (self.high, self.low))

    def __lt__(self, other: Tile) -> bool:
        return self.index < other.index

    def weight(self) -> tuple[int, int]:
        """Order of "heaviest tile": pip total, then the higher number (6-1 > 5-2 > 4-3)."""
        return (self.pips, self.high)


def _pair(a: int, b: int, raw: object) -> Tile:
    if not (0 <= a <= MAX_PIP and 0 <= b <= MAX_PIP):
        raise TileError("{value} is not a double-six tile: numbers run from 0 to 6",
                        value=repr(raw))
    return _BY_PAIR[(a, b)]


# ASCII digits only: "６-６" (full-width) is no tile, though Python's \d would take it.
_TEXT_RE = re.compile(r"\[?\s*([0-9])\s*[-|:]?\s*([0-9])\s*\]?", re.ASCII)
_BY_PAIR: dict[tuple[int, int], Tile] = {}
_BY_TEXT: dict[str, Tile] = {}


def _build() -> tuple[Tile, ...]:
    tiles: list[Tile] = []
    for high in range(MAX_PIP + 1):
        for low in range(high + 1):
            tile = object.__new__(Tile)
            tile.high, tile.low = high, low
            tile.index = len(tiles)
            tile.bit = 1 << tile.index
            tile.pips = high + low
            tile.is_double = high == low
            tile._text = f"{high}-{low}"
            tiles.append(tile)
    for tile in tiles:
        _BY_PAIR[(tile.high, tile.low)] = tile
        _BY_PAIR[(tile.low, tile.high)] = tile
        h, lo = tile.high, tile.low
        for text in (f"{h}-{lo}", f"{lo}-{h}", f"{h}{lo}", f"{lo}{h}", f"{h}|{lo}", f"{lo}|{h}",
                     f"[{h}:{lo}]", f"[{lo}:{h}]"):
            _BY_TEXT[text] = tile
    return tuple(tiles)


ALL_TILES: Final[tuple[Tile, ...]] = _build()
FULL_SET: Final = (1 << len(ALL_TILES)) - 1

# Every exact notation of every tile ("6-3", "36", "[3:6]", ...): what ``Tile.parse``
# finds first for a string, for readers that look up many tiles at once.
TILE_BY_TEXT: Final[dict[str, Tile]] = _BY_TEXT

# Per number, the bitmask of the seven tiles that show it: the engine's fit test.
SUIT_MASK: Final[tuple[int, ...]] = tuple(
    sum(t.bit for t in ALL_TILES if t.has(n)) for n in range(MAX_PIP + 1)
)


def mask_of(tiles: Iterable[Tile]) -> int:
    mask = 0
    for tile in tiles:
        mask |= tile.bit
    return mask


def tiles_of(mask: int) -> list[Tile]:
    """The tiles of a bitmask, in index order (0-0 first)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(ALL_TILES[low.bit_length() - 1])
        mask ^= low
    return out


# The pips of every 7-bit slice of a mask (tiles 0-6, 7-13, ...): four lookups add up a
# hand, where walking its tiles would build a list (scoring does this after every deal).
_PIPS_BY_SLICE: Final = tuple(
    tuple(sum(ALL_TILES[7 * k + b].pips for b in range(7) if v >> b & 1) for v in range(128))
    for k in range(len(ALL_TILES) // 7)
)


def pips_of(mask: int) -> int:
    """The pips of the tiles of a bitmask (the sum of ``tile.pips`` over ``tiles_of``)."""
    p0, p1, p2, p3 = _PIPS_BY_SLICE
    return p0[mask & 127] + p1[mask >> 7 & 127] + p2[mask >> 14 & 127] + p3[mask >> 21 & 127]
