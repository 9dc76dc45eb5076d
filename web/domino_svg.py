"""Domino tiles drawn in SVG: a tile on the table, a hand, one half for a chip.

Drawn in Python rather than as Jinja macros: a replay step draws up to 28 hand tiles and
as many on the table, and a macro call per tile was about a tenth of the page's time. The
markup of a tile depends on a few small values only, so each one is made once and kept.
The pip symbols the tiles point to (``#fu6``, ``#fl3``) are ``defs()``, drawn once per page.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from markupsafe import Markup, escape

from ledger.replay.frames import PlacedTile

# Pip centres on a unit square: upright halves (a tile standing up) and lying halves
# (a tile on its side: the rows of a six run across, the diagonals of 2 and 3 mirror).
_UPRIGHT: dict[int, tuple[tuple[float, float], ...]] = {
    0: (),
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.27, 0.27), (0.5, 0.5), (0.73, 0.73)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)),
    6: ((0.28, 0.22), (0.28, 0.5), (0.28, 0.78), (0.72, 0.22), (0.72, 0.5), (0.72, 0.78)),
}
PIPS: dict[str, dict[int, tuple[tuple[float, float], ...]]] = {
    "u": _UPRIGHT,
    "l": {n: tuple((1 - y, x) if n in (2, 3, 6) else (x, y) for x, y in pts)
          for n, pts in _UPRIGHT.items()},
}


@lru_cache(maxsize=1)
def defs() -> Markup:
    """The pip symbols every drawn tile points to (``#fu6``: an upright six, ``#fl3``: a
    lying three), once per page."""
    symbols = "".join(
        f'    <symbol id="f{kind}{n}" viewBox="0 0 1 1">\n'
        + "".join(f'<circle cx="{x}" cy="{y}" r="0.1"/>' for x, y in pts)
        + "    </symbol>\n"
        for kind, faces in PIPS.items() for n, pts in faces.items())
    return Markup('<svg class="defs" width="0" height="0" aria-hidden="true" focusable="false">'
                  f"\n  <defs>\n{symbols}  </defs>\n</svg>\n")


def svg_num(value: Any) -> str:
    """A number as SVG writes it: no trailing ".0"."""
    f = float(value)
    return str(int(f)) if f.is_integer() else f"{f:g}"


def board_tile(t: PlacedTile, step: int) -> Markup:
    """A tile on the table (x, y in half-tile units), marked if laid at ``step``."""
    return Markup(_board_tile(t.tile, t.x, t.y, t.vertical, t.first, t.second, t.arm,
                              t.step == step))


@lru_cache(maxsize=8192)
def _board_tile(tile: str, x: float, y: float, vertical: bool, first: int, second: int,
                arm: str, laid: bool) -> str:
    w, h, kind = (1, 2, "u") if vertical else (2, 1, "l")
    split, second_at = (('x1="0.16" y1="1" x2="0.84" y2="1"', 'x="0" y="1"') if vertical
                        else ('x1="1" y1="0.16" x2="1" y2="0.84"', 'x="1" y="0"'))
    marks = (" just-laid" if laid else "") + (" opening" if arm == "open" else "")
    return (f'<g class="tile{marks}"\n'
            f'   data-tile="{escape(tile)}" data-arm="{escape(arm)}" '
            f'transform="translate({svg_num(x)} {svg_num(y)})">\n'
            f'  <rect class="body" x="0.04" y="0.04" width="{w - 0.08}" height="{h - 0.08}" '
            'rx="0.14"/>\n'
            f'  <line class="split" {split}/>\n'
            f'  <use href="#f{kind}{escape(first)}" x="0" y="0" width="1" height="1"/>\n'
            f'  <use href="#f{kind}{escape(second)}" {second_at} width="1" height="1"/>\n'
            '</g>\n')


def hand(tiles: Sequence[str], hidden: int = 0, label: str = "") -> Markup:
    """A row of upright tiles ("6-3" strings), then ``hidden`` tiles face down."""
    count = len(tiles) + hidden
    width = svg_num(round(max(count, 1) * 1.2 - 0.2, 2))
    parts = [f'<svg class="hand-tiles" viewBox="0 0 {width} 2" style="aspect-ratio: {width} / 2"'
             f'\n     role="img" aria-label="{escape(label)}">\n']
    parts += [_hand_tile(tile, i) for i, tile in enumerate(tiles)]
    parts += [_face_down(i) for i in range(len(tiles), count)]
    parts.append("</svg>\n")
    return Markup("".join(parts))


@lru_cache(maxsize=1024)
def _hand_tile(tile: str, index: int) -> str:
    a, b = tile.split("-")
    return (f'  <g class="tile in-hand" data-tile="{escape(tile)}" '
            f'transform="translate({svg_num(round(index * 1.2, 2))} 0)">\n'
            '    <rect class="body" x="0.03" y="0.03" width="0.94" height="1.94" rx="0.12"/>\n'
            '    <line class="split" x1="0.16" y1="1" x2="0.84" y2="1"/>\n'
            f'    <use href="#fu{escape(a)}" x="0" y="0" width="1" height="1"/>\n'
            f'    <use href="#fu{escape(b)}" x="0" y="1" width="1" height="1"/>\n'
            '  </g>\n')


@lru_cache(maxsize=64)
def _face_down(index: int) -> str:
    return (f'  <g class="tile face-down" transform="translate({svg_num(round(index * 1.2, 2))}'
            ' 0)">\n'
            '    <rect class="back" x="0.03" y="0.03" width="0.94" height="1.94" rx="0.12"/>\n'
            '    <rect class="back-mark" x="0.3" y="0.3" width="0.4" height="1.4" rx="0.08"/>\n'
            '  </g>\n')


def half(n: int | str) -> Markup:
    """One small face for a chip: an open end's number."""
    return Markup('<svg class="half" viewBox="0 0 1 1" aria-hidden="true"><rect class="body" '
                  'x="0.04" y="0.04" width="0.92" height="0.92" rx="0.14"/><use href="#fu{}" '
                  'x="0" y="0" width="1" height="1"/></svg>\n').format(n)
