"""Tables of a PDF page drawn with the runs of ``pdf_text`` (issue 34): every cell's text
keeps its tiles, numbers and names whole, an Arabic table runs from the right, and a
heading never breaks inside a word: its type shrinks until its widest word fits its
column, and it wraps only at spaces.

Cells are given in reading order (the first column is the right-most on an Arabic page)
and aligned by "start", "end" or "center" of the reading direction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ledger.exports.pdf_text import Group, place, runs_of, widest_word, wrap

if TYPE_CHECKING:
    from fpdf import FPDF

MIN_SIZE = 5.0     # a heading's type shrinks no further (its words still whole)
PAD_X, PAD_Y = 1.2, 0.8
_FILL = (230, 230, 230)


@dataclass(frozen=True, slots=True)
class Cell:
    text: str
    colspan: int = 1
    rowspan: int = 1
    align: str = "start"    # "start", "end" or "center" of the reading direction
    bold: bool = False


@dataclass(frozen=True, slots=True)
class Style:
    family: str
    size: float = 9.0
    line_height: float = 4.5
    borders: bool = True
    heading_rows: int = 0   # the first rows: bold on grey, repeated on each new page
    pad_x: float = PAD_X
    pad_y: float = PAD_Y


@dataclass(slots=True)
class _Placed:
    cell: Cell
    row: int
    col: int
    size: float
    lines: list[Group]


def fitted_size(pdf: FPDF, text: str, bold: bool, size: float, room: float, style: Style,
                rtl: bool) -> float:
    """The largest type (from ``size`` down, by half points) at which the widest word of
    ``text`` fits ``room``: a heading or a cell shrinks rather than break a word."""
    while True:
        pdf.set_font(style.family, "B" if bold else "", size)
        if size <= MIN_SIZE or widest_word(pdf, text, rtl) <= room:
            return size
        size -= 0.5


def _grid(rows: Sequence[Sequence[Cell]]) -> list[list[int]]:
    """The first column of each cell, rows spanned from above taken into account."""
    taken: dict[tuple[int, int], bool] = {}
    out: list[list[int]] = []
    for r, row in enumerate(rows):
        col = 0
        cols: list[int] = []
        for cell in row:
            while taken.get((r, col)):
                col += 1
            cols.append(col)
            for dr in range(cell.rowspan):
                for dc in range(cell.colspan):
                    taken[(r + dr, col + dc)] = True
            col += cell.colspan
        out.append(cols)
    return out


def table(pdf: FPDF, rows: Sequence[Sequence[Cell]], widths: Sequence[float], style: Style,
          rtl: bool) -> None:
    """``rows`` drawn from the current line down, the columns ``widths`` wide (reading
    order), a new page (headings repeated) when a row would cross the bottom margin."""
    grid = _grid(rows)
    placed: list[list[_Placed]] = []
    for r, row in enumerate(rows):
        line: list[_Placed] = []
        for cell, col in zip(row, grid[r], strict=True):
            w = sum(widths[col:col + cell.colspan]) - 2 * style.pad_x
            bold = cell.bold or r < style.heading_rows
            size = fitted_size(pdf, cell.text, bold, style.size, w, style, rtl)
            line.append(_Placed(cell, r, col, size, wrap(pdf, runs_of(cell.text, rtl), w)))
        placed.append(line)
    heights = _heights(placed, style, len(rows))
    _draw(pdf, placed, heights, widths, style, rtl)


def _heights(placed: list[list[_Placed]], style: Style, count: int) -> list[float]:
    def need(p: _Placed) -> float:
        return len(p.lines) * style.line_height * p.size / style.size + 2 * style.pad_y

    heights = [style.line_height + 2 * style.pad_y] * count
    for line in placed:
        for p in line:
            if p.cell.rowspan == 1:
                heights[p.row] = max(heights[p.row], need(p))
    for line in placed:
        for p in line:
            if p.cell.rowspan > 1:
                span = range(p.row, min(p.row + p.cell.rowspan, count))
                missing = need(p) - sum(heights[i] for i in span)
                if missing > 0:
                    heights[span[-1]] += missing
    return heights


def _draw(pdf: FPDF, placed: list[list[_Placed]], heights: list[float],
          widths: Sequence[float], style: Style, rtl: bool) -> None:
    left = pdf.l_margin
    total = sum(widths)
    heads = style.heading_rows
    head_height = sum(heights[:heads])

    def x_of(col: int, span: int) -> float:
        start = sum(widths[:col])
        w = sum(widths[col:col + span])
        return left + (total - start - w if rtl else start)

    def row(r: int, y: float) -> None:
        for p in placed[r]:
            h = sum(heights[p.row:p.row + p.cell.rowspan])
            w = sum(widths[p.col:p.col + p.cell.colspan])
            x = x_of(p.col, p.cell.colspan)
            if style.borders or r < heads:
                if r < heads:
                    pdf.set_fill_color(*_FILL)
                pdf.rect(x, y, w, h, style=("DF" if style.borders else "F") if r < heads
                         else "D")
            bold = p.cell.bold or r < heads
            pdf.set_font(style.family, "B" if bold else "", p.size)
            lh = style.line_height * p.size / style.size
            align = _physical(p.cell.align, rtl)
            for i, text_line in enumerate(p.lines):
                place(pdf, text_line, x + style.pad_x, x + w - style.pad_x,
                      y + style.pad_y + i * lh, lh, align)

    y = pdf.y
    for r in range(heads):
        row(r, y + sum(heights[:r]))
    y += head_height
    for r in range(heads, len(placed)):
        if y + heights[r] > pdf.page_break_trigger and y > pdf.t_margin + head_height + 0.1:
            pdf.add_page()
            y = pdf.y
            for h in range(heads):
                row(h, y + sum(heights[:h]))
            y += head_height
        row(r, y)
        y += heights[r]
    pdf.set_xy(left, y)


def _physical(align: str, rtl: bool) -> str:
    if align == "center":
        return "C"
    start = align == "start"
    return "R" if start == rtl else "L"


__all__ = ["Cell", "Style", "fitted_size", "table"]
