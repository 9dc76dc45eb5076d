"""Score sheets as a printable PDF: one sheet per match, A4.

fpdf2 lays the pages out and HarfBuzz (uharfbuzz) shapes the text, so an
Arabic name joins its letters and reads right to left inside a left-to-right
sheet. The font is the DejaVu Sans subset shipped in ``fonts/`` (Latin and
Arabic): the sheet never depends on the fonts a machine happens to have.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from fpdf import FPDF
from fpdf.enums import TableBordersLayout
from fpdf.fonts import FontFace

from ledger.i18n import ENGLISH, Language
from ledger.i18n.phrases import FSI, LRI, PDI
from ledger.scoresheet import ScoreSheet, Side

FAMILY = "DejaVuSans"
MAX_FINDINGS = 12  # the rest: run `domino-ledger audit` for the full list
MAX_NAME = 48      # characters of a name or source printed; the rest is cut with "…"
_GREY = (90, 90, 90)
FONTS = Path(__file__).parent / "fonts"


def font_path(bold: bool = False) -> Path:
    return FONTS / ("DejaVuSans-Bold-Subset.ttf" if bold else "DejaVuSans-Subset.ttf")


class _SheetPDF(FPDF):
    words: Language = ENGLISH  # the language of the sheet's headings and labels

    def footer(self) -> None:
        self.set_y(-12)
        self.set_font(FAMILY, size=8)
        self.set_text_color(*_GREY)
        self.cell(0, 5, _plain(self.words, self.words.say(
            "domino-ledger score sheet · page {page}/{pages}", page=self.page_no(),
            pages="{nb}")), align="C")
        self.set_text_color(0, 0, 0)


_ISOLATED = re.compile(f"[{LRI}{FSI}]([^{PDI}]*){PDI}")
_LRM = "\u200e"


def _plain(lang: Language, text: str) -> str:
    """Text for an RTL page: fpdf2's bidi does not keep a tile's order inside Unicode
    isolates ("6-3" prints "3-6"), and after an Arabic word a bare "2-0" reads as Arabic
    numbers ("0-2", rule W2). Left-to-right marks around each isolated tile, number or
    Latin text (the font has them, unlike the isolates) keep it as written."""
    if not lang.rtl:
        return text

    def mark(match: re.Match[str]) -> str:
        inner = match.group(1)
        return inner if _rtl(inner) else f"{_LRM}{inner}{_LRM}"

    return _ISOLATED.sub(mark, text).replace(LRI, "").replace(FSI, "").replace(PDI, "")


def _rtl(text: str) -> bool:
    return any(unicodedata.bidirectional(c) in ("R", "AL") for c in text)


def isolate(text: str) -> str:
    """A right-to-left name set apart (first-strong isolate ... pop directional isolate) so
    that the numbers and commas around it keep their place: an Arabic name followed by
    "50" would otherwise show the number on its left (Unicode bidi rule W2)."""
    return f"\u2068{text}\u2069" if _rtl(text) else text


def shortened(text: str, limit: int = MAX_NAME) -> str:
    """``text`` cut to ``limit`` characters: a table cell must fit on one page (fpdf2
    refuses a row taller than a page, and a 10,000-character name would be one)."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _fitted(sheet: ScoreSheet) -> ScoreSheet:
    """The sheet with every player's, side's and source's text short enough to print."""
    def cut(name: str | None) -> str | None:
        return None if name is None else shortened(name)

    source = sheet.source and {k: shortened(str(v)) for k, v in sheet.source.items()}
    return replace(
        sheet, players=tuple(shortened(p) for p in sheet.players),
        sides=tuple(replace(s, name=shortened(s.name)) for s in sheet.sides),
        deals=tuple(replace(d, leader_name=cut(d.leader_name), winner_name=cut(d.winner_name))
                    for d in sheet.deals),
        source=source, started_at=cut(sheet.started_at))


def side_name(sheet: ScoreSheet, side: Side, lang: Language = ENGLISH) -> str:
    """A side's name for a line of text: each partner's name isolated (on an LTR sheet)."""
    if lang.rtl:
        return " & ".join(sheet.players[s] for s in side.seats)
    return " & ".join(isolate(sheet.players[s]) for s in side.seats)


def _new_pdf(lang: Language = ENGLISH) -> _SheetPDF:
    pdf = _SheetPDF(orientation="portrait", unit="mm", format="A4")
    pdf.words = lang
    pdf.set_lang(lang.code)
    pdf.set_margins(15, 15, 15)
    pdf.set_auto_page_break(auto=True, margin=18)
    pdf.add_font(FAMILY, "", str(font_path()))
    pdf.add_font(FAMILY, "B", str(font_path(bold=True)))
    # An English sheet reads left to right even when a line starts with an Arabic name;
    # an Arabic one right to left, with its tiles and numbers as written.
    pdf.set_text_shaping(True, direction=lang.dir)
    pdf.set_title(lang.say("Score sheets"))
    pdf.set_creator("domino-ledger")
    return pdf


def _line(pdf: _SheetPDF, text: str, size: float = 10, bold: bool = False,
          height: float = 5.5, grey: bool = False) -> None:
    pdf.set_font(FAMILY, "B" if bold else "", size)
    if grey:
        pdf.set_text_color(*_GREY)
    rtl = pdf.words.rtl
    pdf.multi_cell(0, height, _plain(pdf.words, text), new_x="LMARGIN", new_y="NEXT",
                   align="R" if rtl else "L")
    pdf.set_text_color(0, 0, 0)


def _facts(pdf: _SheetPDF, facts: list[tuple[str, str]]) -> None:
    pdf.set_font(FAMILY, size=10)
    rtl = pdf.words.rtl
    with pdf.table(col_widths=(152, 28) if rtl else (28, 152), width=180, align="LEFT",
                   first_row_as_headings=False, borders_layout=TableBordersLayout.NONE,
                   text_align="RIGHT" if rtl else "LEFT", line_height=5.5,
                   padding=(0.5, 1, 0.5, 0)) as table:
        for key, value in facts:
            row = table.row()
            cells = [(key, FontFace(emphasis="BOLD")), (value, None)]
            for text, style in reversed(cells) if rtl else cells:
                row.cell(_plain(pdf.words, text), style=style)


def _deals(pdf: _SheetPDF, sheet: ScoreSheet) -> None:
    lang = pdf.words
    sides = sheet.sides
    fixed = (lang.say("Deal"), lang.say("Led by"), lang.say("Result"), lang.say("Winner"),
             lang.say("Points"))
    fives, total = lang.say("Fives"), lang.say("Total")
    per = 2 if sheet.fives else 1
    wide = per * len(sides) > 4
    widths = [10.0, 26.0, 13.0, 26.0, 13.0] if wide else [11.0, 30.0, 15.0, 30.0, 14.0]
    if lang.rtl:  # "جولة" is wider than "Deal"
        widths[0] += 3.0
        widths[1] -= 3.0
    widths += [(180 - sum(widths)) / (per * len(sides))] * (per * len(sides))
    numeric = {0, 4} | set(range(len(fixed), len(widths)))
    labels = [*fixed, *([fives, total] * len(sides) if sheet.fives else [])]
    size = 9.0
    # Narrow columns (four players in Fives): a smaller type, not broken words.
    while size > 6.5:
        pdf.set_font(FAMILY, "B", size)
        if all(pdf.get_string_width(t) + 2.8 <= w for t, w in zip(labels, widths, strict=False)):
            break
        size -= 0.5
    pdf.set_font(FAMILY, size=size)
    # Rows as (text, column span, row span, alignment); an RTL sheet lays them out mirrored.
    Cell = tuple[str, int, int, str]
    top: list[Cell] = [(text, 1, 2, "RIGHT" if i in numeric else "LEFT")
                       for i, text in enumerate(fixed)]
    sub: list[Cell] = []
    if sheet.fives:
        top += [(side_name(sheet, side, lang), 2, 1, "CENTER") for side in sides]
        for _ in sides:
            sub += [(fives, 1, 1, "RIGHT"), (total, 1, 1, "RIGHT")]
    else:
        top.append((lang.say("Running totals"), len(sides), 1, "CENTER"))
        sub += [(side_name(sheet, side, lang), 1, 1, "RIGHT") for side in sides]
    rows: list[list[Cell]] = [top, sub]
    for d in sheet.deals:
        result = lang.translations.pgettext("result", d.result)
        cells = [str(d.deal), d.leader_name or "", result, d.winner_name or "—", str(d.points)]
        for i in range(len(sides)):
            if sheet.fives:
                cells.append(str(d.fives[i]))
            cells.append(str(d.totals[i]))
        rows.append([(text, 1, 1, "RIGHT" if i in numeric else "LEFT")
                     for i, text in enumerate(cells)])
    if lang.rtl:
        widths.reverse()
        rows = [[(text, cs, rs, "RIGHT" if align == "LEFT" else align)
                 for text, cs, rs, align in row[::-1]] for row in rows]
    with pdf.table(col_widths=tuple(widths), width=180, align="LEFT", line_height=5,
                   text_align="LEFT", num_heading_rows=2, repeat_headings=1,
                   headings_style=FontFace(emphasis="BOLD", fill_color=(230, 230, 230)),
                   padding=(0.8, 1.2, 0.8, 1.2)) as table:
        for line in rows:
            row = table.row()
            for text, colspan, rowspan, align in line:
                row.cell(_plain(lang, text), colspan=colspan, rowspan=rowspan, align=align)


def _sheet(pdf: _SheetPDF, sheet: ScoreSheet) -> None:
    lang = pdf.words
    sheet = _fitted(sheet)
    pdf.add_page()
    _line(pdf, lang.say("Score sheet"), size=17, bold=True, height=8)
    _line(pdf, sheet.table_text(lang), size=12, height=6.5)
    pdf.ln(2)
    facts = []
    if sheet.match_id:
        facts.append((lang.say("Match"), sheet.match_id))
    facts.append((lang.say("Rules"), sheet.preset))
    if sheet.options:
        facts.append((lang.say("Options"), sheet.options_text(lang)))
    name = (lambda text: text) if lang.rtl else isolate
    facts.append((lang.say("Players"), lang.join(
        [lang.say("{seat}: {name}", seat=s, name=name(player))
         for s, player in enumerate(sheet.players)])))
    if sheet.teams:
        facts.append((lang.say("Teams"), lang.say("{a} against {b}", a=side_name(
            sheet, sheet.sides[0], lang), b=side_name(sheet, sheet.sides[1], lang))
            if len(sheet.sides) == 2 else lang.join([side_name(sheet, s, lang)
                                                     for s in sheet.sides])))
    if sheet.started_at:
        facts.append((lang.say("Started"), sheet.started_at))
    if sheet.source_label:
        facts.append((lang.say("Source"), sheet.source_label))
    _facts(pdf, facts)
    pdf.ln(3)
    if sheet.deals:
        _deals(pdf, sheet)
    else:
        _line(pdf, lang.say("No deal was played out."), grey=True)
    pdf.ln(3)
    winner = sheet.winner_name
    if winner is not None:
        side = sheet.winner_side
        won = side_name(sheet, side, lang) if side is not None else name(winner)
        _line(pdf, lang.say("Winner: {name}", name=won), size=13, bold=True, height=7)
    else:
        _line(pdf, lang.say("No winner yet") if not sheet.complete else lang.say("No winner"),
              size=13, bold=True, height=7)
    final = "  ·  ".join(lang.say("{name} {score}", name=side_name(sheet, s, lang),
                                  score=sheet.scores[s.index])
                         for s in sheet.sides if s.index < len(sheet.scores))
    _line(pdf, lang.say("Final score: {scores}", scores=final))
    _line(pdf, lang.say("Match end: {how}", how=sheet.end_text(lang)))
    pdf.ln(2)
    audit = sheet.audit
    if audit.warnings:
        status = lang.say("Audit: {status}, {warnings}", status=audit.text(lang),
                          warnings=lang.say_n("{count} warning", "{count} warnings",
                                              audit.warnings))
    else:
        status = lang.say("Audit: {status}", status=audit.text(lang))
    _line(pdf, status, bold=True)
    errors = [f for f in audit.findings if f.severity == "error"]
    for f in errors[:MAX_FINDINGS]:
        at = lang.say("match") if f.event is None else lang.say("event {event}", event=f.event)
        _line(pdf, lang.say("{at} [{code}] {message}", at=at, code=f.code,
                            message=lang.finding(f, seats=sheet.players)), size=8.5, height=4.5)
    if len(errors) > MAX_FINDINGS:
        _line(pdf, lang.say_n("… and {count} more errors", "… and {count} more errors",
                              len(errors) - MAX_FINDINGS), size=8.5, height=4.5)
    pdf.ln(2)
    if sheet.ledger_hash:
        _line(pdf, lang.say("Ledger hash (SHA-256): {hash}", hash=sheet.ledger_hash), size=8,
              grey=True)
    if sheet.knowledge is not None:
        from ledger.exports.pdf_review import review_page

        review_page(pdf, sheet.knowledge, _line, _plain)


def pdf_bytes(sheets: Iterable[ScoreSheet], lang: Language = ENGLISH) -> bytes:
    """A PDF with one score sheet per match (at least one page even for none), its headings
    and labels in ``lang`` (an Arabic sheet is laid out right to left)."""
    pdf = _new_pdf(lang)
    count = 0
    for sheet in sheets:
        _sheet(pdf, sheet)
        count += 1
    if count == 0:
        pdf.add_page()
        _line(pdf, lang.say("No match was selected."), grey=True)
    return bytes(pdf.output())
