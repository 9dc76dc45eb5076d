"""Score sheets as a printable PDF: one sheet per match, A4.

fpdf2 lays the pages out and HarfBuzz (uharfbuzz) shapes the text, so an
Arabic name joins its letters and reads right to left inside a left-to-right
sheet. The font is the DejaVu Sans subset shipped in ``fonts/`` (Latin and
Arabic): the sheet never depends on the fonts a machine happens to have.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from pathlib import Path

from fpdf import FPDF
from fpdf.enums import TableBordersLayout
from fpdf.fonts import FontFace

from ledger.scoresheet import ScoreSheet, Side

FAMILY = "DejaVuSans"
MAX_FINDINGS = 12  # the rest: run `domino-ledger audit` for the full list
_GREY = (90, 90, 90)
FONTS = Path(__file__).parent / "fonts"


def font_path(bold: bool = False) -> Path:
    return FONTS / ("DejaVuSans-Bold-Subset.ttf" if bold else "DejaVuSans-Subset.ttf")


class _SheetPDF(FPDF):
    def footer(self) -> None:
        self.set_y(-12)
        self.set_font(FAMILY, size=8)
        self.set_text_color(*_GREY)
        self.cell(0, 5, f"domino-ledger score sheet · page {self.page_no()}/{{nb}}",
                  align="C")
        self.set_text_color(0, 0, 0)


def _rtl(text: str) -> bool:
    return any(unicodedata.bidirectional(c) in ("R", "AL") for c in text)


def isolate(text: str) -> str:
    """A right-to-left name set apart (first-strong isolate ... pop directional isolate) so
    that the numbers and commas around it keep their place: an Arabic name followed by
    "50" would otherwise show the number on its left (Unicode bidi rule W2)."""
    return f"\u2068{text}\u2069" if _rtl(text) else text


def side_name(sheet: ScoreSheet, side: Side) -> str:
    """A side's name for a line of text: each partner's name isolated."""
    return " & ".join(isolate(sheet.players[s]) for s in side.seats)


def _new_pdf() -> _SheetPDF:
    pdf = _SheetPDF(orientation="portrait", unit="mm", format="A4")
    pdf.set_margins(15, 15, 15)
    pdf.set_auto_page_break(auto=True, margin=18)
    pdf.add_font(FAMILY, "", str(font_path()))
    pdf.add_font(FAMILY, "B", str(font_path(bold=True)))
    # The sheet reads left to right even when a line starts with an Arabic name.
    pdf.set_text_shaping(True, direction="ltr")
    pdf.set_title("Score sheets")
    pdf.set_creator("domino-ledger")
    return pdf


def _line(pdf: FPDF, text: str, size: float = 10, bold: bool = False, height: float = 5.5,
          grey: bool = False) -> None:
    pdf.set_font(FAMILY, "B" if bold else "", size)
    if grey:
        pdf.set_text_color(*_GREY)
    pdf.multi_cell(0, height, text, new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(0, 0, 0)


def _facts(pdf: FPDF, facts: list[tuple[str, str]]) -> None:
    pdf.set_font(FAMILY, size=10)
    with pdf.table(col_widths=(28, 152), width=180, align="LEFT", first_row_as_headings=False,
                   borders_layout=TableBordersLayout.NONE, text_align="LEFT",
                   line_height=5.5, padding=(0.5, 1, 0.5, 0)) as table:
        for key, value in facts:
            row = table.row()
            row.cell(key, style=FontFace(emphasis="BOLD"))
            row.cell(value)


def _deals(pdf: FPDF, sheet: ScoreSheet) -> None:
    sides = sheet.sides
    fixed = ("Deal", "Led by", "Result", "Winner", "Points")
    per = 2 if sheet.fives else 1
    wide = per * len(sides) > 4
    widths = [10.0, 26.0, 13.0, 26.0, 13.0] if wide else [11.0, 30.0, 15.0, 30.0, 14.0]
    widths += [(180 - sum(widths)) / (per * len(sides))] * (per * len(sides))
    numeric = {0, 4} | set(range(len(fixed), len(widths)))
    labels = [*fixed, *(["Fives", "Total"] * len(sides) if sheet.fives else [])]
    size = 9.0
    # Narrow columns (four players in Fives): a smaller type, not broken words.
    while size > 6.5:
        pdf.set_font(FAMILY, "B", size)
        if all(pdf.get_string_width(t) + 2.8 <= w for t, w in zip(labels, widths, strict=False)):
            break
        size -= 0.5
    pdf.set_font(FAMILY, size=size)
    with pdf.table(col_widths=tuple(widths), width=180, align="LEFT", line_height=5,
                   text_align="LEFT", num_heading_rows=2, repeat_headings=1,
                   headings_style=FontFace(emphasis="BOLD", fill_color=(230, 230, 230)),
                   padding=(0.8, 1.2, 0.8, 1.2)) as table:
        top = table.row()
        for i, text in enumerate(fixed):
            top.cell(text, rowspan=2, align="RIGHT" if i in numeric else "LEFT")
        if sheet.fives:
            for side in sides:
                top.cell(side_name(sheet, side), colspan=2, align="CENTER")
            sub = table.row()
            for _ in sides:
                sub.cell("Fives", align="RIGHT")
                sub.cell("Total", align="RIGHT")
        else:
            top.cell("Running totals", colspan=len(sides), align="CENTER")
            sub = table.row()
            for side in sides:
                sub.cell(side_name(sheet, side), align="RIGHT")
        for d in sheet.deals:
            cells = [str(d.deal), d.leader_name or "", d.result, d.winner_name or "—",
                     str(d.points)]
            for i in range(len(sides)):
                if sheet.fives:
                    cells.append(str(d.fives[i]))
                cells.append(str(d.totals[i]))
            row = table.row()
            for i, text in enumerate(cells):
                row.cell(text, align="RIGHT" if i in numeric else "LEFT")


def _sheet(pdf: FPDF, sheet: ScoreSheet) -> None:
    pdf.add_page()
    _line(pdf, "Score sheet", size=17, bold=True, height=8)
    _line(pdf, sheet.table_label, size=12, height=6.5)
    pdf.ln(2)
    facts = []
    if sheet.match_id:
        facts.append(("Match", sheet.match_id))
    facts.append(("Rules", sheet.preset))
    if sheet.options_label:
        facts.append(("Options", sheet.options_label))
    facts.append(("Players", ", ".join(f"{s}: {isolate(name)}"
                                       for s, name in enumerate(sheet.players))))
    if sheet.teams:
        facts.append(("Teams", " against ".join(side_name(sheet, s) for s in sheet.sides)))
    if sheet.started_at:
        facts.append(("Started", sheet.started_at))
    if sheet.source_label:
        facts.append(("Source", sheet.source_label))
    _facts(pdf, facts)
    pdf.ln(3)
    if sheet.deals:
        _deals(pdf, sheet)
    else:
        _line(pdf, "No deal was played out.", grey=True)
    pdf.ln(3)
    winner = sheet.winner_name
    if winner is not None:
        side = sheet.winner_side
        name = side_name(sheet, side) if side is not None else isolate(winner)
        _line(pdf, f"Winner: {name}", size=13, bold=True, height=7)
    else:
        _line(pdf, "No winner yet" if not sheet.complete else "No winner", size=13, bold=True,
              height=7)
    final = "  ·  ".join(f"{side_name(sheet, s)} {sheet.scores[s.index]}" for s in sheet.sides
                         if s.index < len(sheet.scores))
    _line(pdf, f"Final score: {final}")
    _line(pdf, f"Match end: {sheet.end_phrase}")
    pdf.ln(2)
    audit = sheet.audit
    status = f"Audit: {audit.label}"
    if audit.warnings:
        status += f", {audit.warnings} warning{'s' if audit.warnings != 1 else ''}"
    _line(pdf, status, bold=True)
    errors = [f for f in audit.findings if f.severity == "error"]
    for f in errors[:MAX_FINDINGS]:
        at = "match" if f.event is None else f"event {f.event}"
        _line(pdf, f"{at} [{f.code}] {f.message}", size=8.5, height=4.5)
    if len(errors) > MAX_FINDINGS:
        _line(pdf, f"… and {len(errors) - MAX_FINDINGS} more errors", size=8.5, height=4.5)
    pdf.ln(2)
    if sheet.ledger_hash:
        _line(pdf, f"Ledger hash (SHA-256): {sheet.ledger_hash}", size=8, grey=True)


def pdf_bytes(sheets: Iterable[ScoreSheet]) -> bytes:
    """A PDF with one score sheet per match (at least one page even for none)."""
    pdf = _new_pdf()
    count = 0
    for sheet in sheets:
        _sheet(pdf, sheet)
        count += 1
    if count == 0:
        pdf.add_page()
        _line(pdf, "No match was selected.", grey=True)
    return bytes(pdf.output())
