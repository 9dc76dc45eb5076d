"""A line of a PDF page as runs, ordered by this module, not by fpdf2's bidi (issue 34).

fpdf2's own bidi algorithm reorders what it should keep: a tile inside a Unicode isolate
prints "4-6" for "6-4", a signed number after an Arabic word prints "7.6-". So a line is
split here into runs that are each drawn whole, in one direction:

- Arabic text (a run of right-to-left letters and the spaces and punctuation between
  them), shaped right to left by HarfBuzz;
- everything else (a Latin name, a tile "6-4", a signed number "-7.6", a score "3–2"),
  drawn left to right;
- an isolate (LRI / RLI / FSI ... PDI: what ``Language.say`` puts around each parameter
  of an Arabic sentence, and around an Arabic name in an English one) is one piece of
  its own, laid out inside by its own direction.

A line's pieces are placed by the page's direction: on an Arabic page the first piece
at the right edge and each next one to its left, on an English page from the left. No
piece is ever reversed or split: only whole pieces move.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ledger.i18n.phrases import FSI, LRI, PDI, RLI

if TYPE_CHECKING:
    from fpdf import FPDF

_OPENERS = {LRI: False, RLI: True}
# Number-like atoms: a signed number, a decimal, a tile "6-4", a score "3–2–1", a time.
_NUMBER = re.compile(r"[+\-−]?\d+(?:[.,:/\-–]\d+)*%?")
_SPACE = re.compile(r"\S+\s*|\s+")


def strong(c: str) -> str | None:
    """ "R" for a right-to-left letter, "L" for a left-to-right one, None for the rest."""
    kind = unicodedata.bidirectional(c)
    if kind in ("R", "AL"):
        return "R"
    return "L" if kind == "L" else None


def first_strong_rtl(text: str, default: bool = False) -> bool:
    """Whether the first strong letter of ``text`` outside nested isolates (Unicode rule
    P2) is right to left; ``default`` when there is none."""
    depth = 0
    for c in text:
        if c in (LRI, RLI, FSI):
            depth += 1
        elif c == PDI:
            if depth == 0:
                break
            depth -= 1
        elif depth == 0:
            kind = strong(c)
            if kind is not None:
                return kind == "R"
    return default


@dataclass(frozen=True, slots=True)
class Run:
    """Text drawn whole in one direction (``rtl``: shaped right to left)."""

    text: str
    rtl: bool


@dataclass(frozen=True, slots=True)
class Group:
    """Pieces in logical order, laid out in ``rtl``'s direction (a line, or an isolate)."""

    items: tuple[Run | Group, ...]
    rtl: bool

    @property
    def text(self) -> str:
        return "".join(i.text for i in self.items)


Piece = Run | Group


# --- splitting text into runs ---------------------------------------------------------------


def runs_of(text: str, rtl: bool) -> Group:
    """``text`` (isolates and all) as a line of pieces on a page whose direction is ``rtl``.
    Other invisible format characters (marks, joiners outside words) are dropped."""
    group, _ = _parse(text, 0, rtl)
    return group


def _parse(text: str, at: int, rtl: bool) -> tuple[Group, int]:
    items: list[Piece] = []
    plain: list[str] = []
    i = at
    while i < len(text):
        c = text[i]
        if c in (LRI, RLI, FSI):
            items += _split("".join(plain), rtl)
            plain = []
            inner_rtl = _OPENERS[c] if c in _OPENERS else first_strong_rtl(text[i + 1:], rtl)
            inner, i = _parse(text, i + 1, inner_rtl)
            if inner.items:
                items.append(inner)
            continue
        if c == PDI:
            if at > 0:
                items += _split("".join(plain), rtl)
                return Group(tuple(items), rtl), i + 1
        elif unicodedata.category(c) != "Cf" or c in ("\u200c", "\u200d"):
            plain.append(c)
        i += 1
    items += _split("".join(plain), rtl)
    return Group(tuple(items), rtl), i


def _segments(text: str) -> Iterator[tuple[str, str]]:
    """(kind, text): "R" Arabic letters, "L" Latin letters, "N" a number, "O" the rest."""
    i = 0
    while i < len(text):
        number = _NUMBER.match(text, i)
        if number is not None and (text[i].isdigit() or i == 0 or not text[i - 1].isalnum()):
            yield "N", number.group()
            i = number.end()
            continue
        c = text[i]
        kind = strong(c)
        if kind is None and unicodedata.combining(c) and i > 0:
            kind = strong(text[i - 1]) or "O"  # a vowel mark goes with its letter
        yield kind or "O", c
        i += 1


def _split(text: str, rtl: bool) -> list[Piece]:
    """Plain text (no isolates) as runs: Arabic letters with the neutrals between them one
    right-to-left run; Latin words and numbers with the neutrals between them one
    left-to-right run; the neutrals at a change of direction take the page's."""
    if not text:
        return []
    segs = list(_segments(text))
    # A number after Latin letters (or first on a left-to-right page) reads with them
    # ("SHA-256"); after Arabic letters (or first on an Arabic page) it is a piece of
    # its own, and the neutrals beside it go as they would beside an Arabic word (the
    # Unicode rules W7 and N1), so "6-4 5-5" on an Arabic page reads from the right.
    kinds: list[str | None] = []
    last = "R" if rtl else "L"
    for seg, _ in segs:
        if seg in ("R", "L"):
            last = seg
            kinds.append(seg)
        else:
            kinds.append(None if seg == "O" else "L" if last == "L" else "NR")
    sides = [None if k is None else "R" if k == "NR" else k for k in kinds]
    resolved: list[bool] = []
    for i, side in enumerate(sides):
        if side is not None:
            resolved.append(kinds[i] == "R")
            continue
        before = next((k for k in reversed(sides[:i]) if k is not None), None)
        after = next((k for k in sides[i + 1:] if k is not None), None)
        resolved.append(before == "R" if before is not None and before == after else rtl)
    out: list[Piece] = []
    for (_, chunk), kind, r in zip(segs, kinds, resolved, strict=True):
        if kind == "NR":
            out.append(Run(chunk, False))
            out.append(Group((), False))  # nothing joins a number of its own
        elif out and isinstance(out[-1], Run) and out[-1].rtl == r:
            out[-1] = Run(out[-1].text + chunk, r)
        else:
            out.append(Run(chunk, r))
    return [p for p in out if not (isinstance(p, Group) and not p.items)]


# --- measuring and drawing --------------------------------------------------------------


_WIDTHS: dict[tuple[str, str, float, str, bool], float] = {}


def _set_direction(pdf: FPDF, rtl: bool) -> None:
    pdf.set_text_shaping(True, direction="rtl" if rtl else "ltr")


def run_width(pdf: FPDF, run: Run) -> float:
    key = (pdf.font_family, pdf.font_style, pdf.font_size_pt, run.text, run.rtl)
    width = _WIDTHS.get(key)
    if width is None:
        _set_direction(pdf, run.rtl)
        width = pdf.get_string_width(run.text)
        if len(_WIDTHS) > 20_000:
            _WIDTHS.clear()
        _WIDTHS[key] = width
    return width


def width(pdf: FPDF, piece: Piece) -> float:
    if isinstance(piece, Run):
        return run_width(pdf, piece)
    return sum(width(pdf, i) for i in piece.items)


def draw(pdf: FPDF, piece: Piece, x: float, y: float, height: float) -> float:
    """``piece`` drawn from ``x`` (its left edge) on the line at ``y``; its width."""
    if isinstance(piece, Run):
        w = run_width(pdf, piece)
        if piece.text.strip():
            _set_direction(pdf, piece.rtl)
            pdf.set_xy(x, y)
            pdf.cell(w, height, piece.text)
        return w
    order = reversed(piece.items) if piece.rtl else iter(piece.items)
    at = x
    for item in order:
        at += draw(pdf, item, at, y, height)
    return at - x


# --- wrapping ---------------------------------------------------------------------------


def _chunks(piece: Piece, rtl: bool) -> list[Piece]:
    """The pieces a line may break between: a run's words (a space after each), an
    isolate whole."""
    if isinstance(piece, Group):
        return [piece]
    return [Run(w, piece.rtl) for w in _SPACE.findall(piece.text)]


def _trimmed(pieces: list[Piece], rtl: bool) -> Group:
    """A line of chunks, spaces at its ends dropped, the chunks of one run joined again."""
    out: list[Piece] = []
    for p in pieces:
        if out and isinstance(p, Run) and isinstance(out[-1], Run) and out[-1].rtl == p.rtl:
            out[-1] = Run(out[-1].text + p.text, p.rtl)
        else:
            out.append(p)
    if out and isinstance(out[0], Run):
        out[0] = Run(out[0].text.lstrip(), out[0].rtl)
    if out and isinstance(out[-1], Run):
        out[-1] = Run(out[-1].text.rstrip(), out[-1].rtl)
    return Group(tuple(p for p in out if not isinstance(p, Run) or p.text), rtl)


def wrap(pdf: FPDF, line: Group, limit: float) -> list[Group]:
    """``line`` broken at spaces into lines no wider than ``limit`` (a word wider than
    that stays whole on a line of its own: never broken inside)."""
    chunks = [c for item in line.items for c in _chunks(item, line.rtl)]
    lines: list[Group] = []
    current: list[Piece] = []
    used = 0.0
    for chunk in chunks:
        w = width(pdf, chunk)
        starts_space = isinstance(chunk, Run) and chunk.text[:1].isspace()
        breakable = starts_space or not current or _ends_space(current[-1])
        if current and used + w - _trailing_space(pdf, chunk) > limit and breakable:
            lines.append(_trimmed(current, line.rtl))
            current, used = [], 0.0
            if starts_space:
                continue
        current.append(chunk)
        used += w
    if current or not lines:
        lines.append(_trimmed(current, line.rtl))
    return lines


def _ends_space(piece: Piece) -> bool:
    return isinstance(piece, Run) and piece.text[-1:].isspace()


def _trailing_space(pdf: FPDF, chunk: Piece) -> float:
    if isinstance(chunk, Run) and chunk.text != chunk.text.rstrip():
        return run_width(pdf, chunk) - run_width(pdf, Run(chunk.text.rstrip(), chunk.rtl))
    return 0.0


def widest_word(pdf: FPDF, text: str, rtl: bool) -> float:
    """The widest piece of ``text`` no line break may split (a header must fit it)."""
    line = runs_of(text, rtl)
    chunks = [c for item in line.items for c in _chunks(item, line.rtl)]
    return max((width(pdf, _trimmed([c], rtl)) for c in chunks), default=0.0)


def place(pdf: FPDF, line: Group, left: float, right: float, y: float, height: float,
          align: str) -> None:
    """One line drawn between ``left`` and ``right``: ``align`` "L", "R" or "C"."""
    w = width(pdf, line)
    x = left if align == "L" else right - w if align == "R" else (left + right - w) / 2
    saved = pdf.c_margin
    pdf.c_margin = 0
    draw(pdf, line, x, y, height)
    pdf.c_margin = saved


def start_align(rtl: bool) -> str:
    return "R" if rtl else "L"


def paragraph(pdf: FPDF, text: str, rtl: bool, height: float,
              align: str | None = None, breaks: bool = True) -> None:
    """``text`` written from the current line down across the page's width, wrapped at
    spaces (with ``breaks``, a new page when the bottom margin is reached)."""
    left, right = pdf.l_margin, pdf.w - pdf.r_margin
    for line in wrap(pdf, runs_of(text, rtl), right - left):
        if breaks and pdf.y + height > pdf.page_break_trigger:
            pdf.add_page()
        place(pdf, line, left, right, pdf.y, height, align or start_align(rtl))
        pdf.set_xy(left, pdf.y + height)


def text_of(lines: Sequence[Group]) -> list[str]:
    """The lines' text in logical order (for tests and debugging)."""
    return [g.text for g in lines]


__all__ = ["Group", "Piece", "Run", "draw", "first_strong_rtl", "paragraph", "place",
           "run_width", "runs_of", "start_align", "text_of", "widest_word", "width", "wrap"]
