"""Laying the line of tiles out for drawing: each arm's path turns before it runs into
another, in half-tile units (a tile is 2 long and 1 wide)."""

from __future__ import annotations

from ledger.replay.frames import Box, PlacedTile
from ledger.tiles import Tile

_DIR = {"right": (1, 0), "left": (-1, 0), "up": (0, -1), "down": (0, 1)}
ROW = 10.0       # how far from the centre a row may reach before it turns
INNER = 1.5      # rows coming back stop this far from the centre line (clear of up/down)
COLUMN = 5.0     # how far the spinner's up and down arms go before they turn
CONNECT = 2.0    # the length of the short leg between two rows
MIN_BOX = Box(-9.0, -4.0, 18.0, 8.0)
PAD = 0.5

# Each arm follows a path of legs: ("row"/"col", direction, bound) runs until a
# tile would pass ``bound`` on its axis; ("link", direction, 0) runs CONNECT long.
Leg = tuple[str, str, float]


def _zigzag(out: str, turn: str, back_bound: float, out_bound: float) -> list[Leg]:
    back = {"right": "left", "left": "right", "up": "down", "down": "up"}[out]
    return [("row", out, out_bound), ("link", turn, 0.0), ("row", back, back_bound),
            ("link", turn, 0.0)]


_PATHS: dict[str, list[Leg]] = {
    "right": _zigzag("right", "down", INNER, ROW),
    "left": _zigzag("left", "up", -INNER, -ROW),
    "up": [("col", "up", -COLUMN), *_zigzag("right", "up", INNER, ROW)],
    "down": [("col", "down", COLUMN), *_zigzag("left", "down", -INNER, -ROW)],
}


class _Arm:
    """One arm of the line: where the next tile goes and which way the line runs."""

    def __init__(self, name: str, x: float, y: float, half_width: float) -> None:
        self.name = name
        self.x, self.y = x, y
        self.leg = 0
        self.run = 0.0                 # length laid on the current leg
        self.half_width = half_width   # of the last tile, across the line

    def _legs(self, k: int) -> Leg:
        path = _PATHS[self.name]
        if k < len(path):
            return path[k]
        first = 1 if self.name in ("up", "down") else 0
        cycle = path[first:]
        return cycle[(k - first) % len(cycle)]

    def _fits(self, leg: Leg, length: float) -> bool:
        kind, direction, bound = leg
        if self.run == 0:
            return True  # every leg takes at least one tile
        if kind == "link":
            return self.run < CONNECT
        dx, dy = _DIR[direction]
        end = self.x + dx * length if dx else self.y + dy * length
        return end <= bound if (dx > 0 or dy > 0) else end >= bound

    def lay(self, tile: Tile, match: int, step: int) -> PlacedTile:
        length = 1.0 if tile.is_double else 2.0
        leg = self._legs(self.leg)
        if not self._fits(leg, length):
            dx, dy = _DIR[leg[1]]
            self.leg += 1
            leg = self._legs(self.leg)
            nx, ny = _DIR[leg[1]]
            # The corner: step back half a tile-width and out to the edge of the last
            # tile, so that the new tile's first half touches the last one's open half.
            self.x += -0.5 * dx + self.half_width * nx
            self.y += -0.5 * dy + self.half_width * ny
            self.run = 0.0
        dx, dy = _DIR[leg[1]]
        horizontal_line = dx != 0
        across = 2.0 if tile.is_double else 1.0
        along = length
        other = tile.other(match)
        if horizontal_line:
            x0 = self.x if dx > 0 else self.x - along
            y0 = self.y - across / 2
            vertical = tile.is_double
            first, second = (match, other) if dx > 0 else (other, match)
        else:
            x0 = self.x - across / 2
            y0 = self.y if dy > 0 else self.y - along
            vertical = not tile.is_double
            first, second = (match, other) if dy > 0 else (other, match)
        self.x += dx * along
        self.y += dy * along
        self.run += along
        self.half_width = across / 2
        return PlacedTile(str(tile), x0, y0, vertical, first, second, self.name, step)


class Layout:
    """The line of one deal, laid tile by tile as the plays come."""

    def __init__(self) -> None:
        self.tiles: list[PlacedTile] = []
        self.arms: dict[str, _Arm] = {}

    def open(self, tile: Tile, first: int, step: int) -> None:
        if tile.is_double:
            placed = PlacedTile(str(tile), -0.5, -1.0, True, first, first, "open", step)
            half_along, half_side = 0.5, 1.0
        else:
            placed = PlacedTile(str(tile), -1.0, -0.5, False, first, tile.other(first),
                                "open", step)
            half_along, half_side = 1.0, 0.5
        self.tiles.append(placed)
        self.arms = {
            "left": _Arm("left", -half_along, 0.0, half_side),
            "right": _Arm("right", half_along, 0.0, half_side),
            "up": _Arm("up", 0.0, -1.0, 0.5),
            "down": _Arm("down", 0.0, 1.0, 0.5),
        }

    def lay(self, tile: Tile, end: str, match: int, step: int) -> None:
        self.tiles.append(self.arms[end].lay(tile, match, step))

    def box(self) -> Box:
        """Around every tile, centred on them, and never smaller than ``MIN_BOX``."""
        if not self.tiles:
            return MIN_BOX
        x0 = min(t.x for t in self.tiles) - PAD
        y0 = min(t.y for t in self.tiles) - PAD
        x1 = max(t.x + t.width for t in self.tiles) + PAD
        y1 = max(t.y + t.height for t in self.tiles) + PAD
        w, h = max(x1 - x0, MIN_BOX.width), max(y1 - y0, MIN_BOX.height)
        return Box((x0 + x1 - w) / 2, (y0 + y1 - h) / 2, w, h)
