"""Score sheets as a printable PDF: one sheet per match, A4.

fpdf2 lays the pages out and HarfBuzz (uharfbuzz) shapes the text; the order of what a
line holds is ``pdf_text``'s: an Arabic sheet reads right to left with its names, tiles
("6-4") and signed numbers ("-7.6") each whole and in their own order, an English one
left to right with an Arabic name kept apart from the words around it (issue 34). The
font is the DejaVu Sans subset shipped in ``fonts/`` (Latin and Arabic): the sheet never
depends on the fonts a machine happens to have.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ledger.exports.finding_codes import code_word
from ledger.exports.pdf_page import (
    FAMILY,
    Document,
    font_path,
    isolate,
    line,
    new_document,
    shortened,
)
from ledger.exports.pdf_table import Cell, Style, table
from ledger.i18n import ENGLISH, Language, seat_named
from ledger.i18n.phrases import Worded
from ledger.scoresheet import ScoreSheet, Side

MAX_FINDINGS = 12  # the rest: run `domino-ledger audit` for the full list
MAX_NAME = 48      # characters of a name or source printed; the rest is cut with "…"


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
    """A side's name for a line of text: each partner's name a piece of its own."""
    return " & ".join(isolate(sheet.players[s]) for s in side.seats)


def _facts(pdf: Document, facts: list[tuple[str, str]]) -> None:
    rows = [[Cell(key, bold=True), Cell(value)] for key, value in facts]
    table(pdf, rows, (30.0, 150.0), Style(FAMILY, size=10, line_height=5.5, borders=False,
                                          pad_x=0.5, pad_y=0.3), pdf.words.rtl)


def _deal_rows(sheet: ScoreSheet, lang: Language) -> list[list[Cell]]:
    sides = sheet.sides
    fixed = (lang.say("Deal"), lang.say("Led by"), lang.say("Result"), lang.say("Winner"),
             lang.say("Points"))
    numeric = {0, 4}
    top = [Cell(text, rowspan=2, align="end" if i in numeric else "start")
           for i, text in enumerate(fixed)]
    sub: list[Cell] = []
    if sheet.fives:
        fives, total = lang.say("Fives"), lang.say("Total")
        top += [Cell(side_name(sheet, side, lang), colspan=2, align="center")
                for side in sides]
        for _ in sides:
            sub += [Cell(fives, align="end"), Cell(total, align="end")]
    else:
        top.append(Cell(lang.say("Running totals"), colspan=len(sides), align="center"))
        sub += [Cell(side_name(sheet, side, lang), align="end") for side in sides]
    rows = [top, sub]
    for d in sheet.deals:
        cells = [Cell(str(d.deal), align="end"), Cell(isolate(d.leader_name or "")),
                 Cell(lang.translations.pgettext("result", d.result)),
                 Cell(isolate(d.winner_name) if d.winner_name else "—"),
                 Cell(str(d.points), align="end")]
        for i in range(len(sides)):
            if sheet.fives:
                cells.append(Cell(str(d.fives[i]), align="end"))
            cells.append(Cell(str(d.totals[i]), align="end"))
        rows.append(cells)
    return rows


def _deals(pdf: Document, sheet: ScoreSheet) -> None:
    per = 2 if sheet.fives else 1
    columns = per * len(sheet.sides)
    widths = [12.0, 30.0, 15.0, 30.0, 14.0] if columns <= 4 else [12.0, 25.0, 13.0, 25.0, 13.0]
    widths += [(180 - sum(widths)) / columns] * columns
    table(pdf, _deal_rows(sheet, pdf.words), widths,
          Style(FAMILY, size=9, line_height=4.5, heading_rows=2), pdf.words.rtl)


def _players(sheet: ScoreSheet, lang: Language) -> str:
    return lang.join([lang.word(seat_named(s, Worded(isolate(player))))
                      for s, player in enumerate(sheet.players)])


def _head(pdf: Document, sheet: ScoreSheet) -> None:
    lang = pdf.words
    line(pdf, lang.say("Score sheet"), size=17, bold=True, height=8)
    line(pdf, sheet.table_text(lang), size=12, height=6.5)
    pdf.ln(2)
    facts = []
    if sheet.match_id:
        facts.append((lang.say("Match"), isolate(sheet.match_id)))
    facts.append((lang.say("Rules"), isolate(sheet.preset)))
    if sheet.options:
        facts.append((lang.say("Options"), sheet.options_text(lang)))
    facts.append((lang.say("Players"), _players(sheet, lang)))
    if sheet.teams:
        names = [side_name(sheet, s, lang) for s in sheet.sides]
        facts.append((lang.say("Teams"), lang.say("{a} against {b}", a=Worded(names[0]),
                                                  b=Worded(names[1]))
                       if len(names) == 2 else lang.join([Worded(n) for n in names])))
    if sheet.started_at:
        facts.append((lang.say("Started"), isolate(sheet.started_at)))
    if sheet.source_label:
        facts.append((lang.say("Source"), isolate(sheet.source_label)))
    _facts(pdf, facts)


def _result(pdf: Document, sheet: ScoreSheet) -> None:
    lang = pdf.words
    winner = sheet.winner_name
    if winner is not None:
        side = sheet.winner_side
        won = side_name(sheet, side, lang) if side is not None else isolate(winner)
        line(pdf, lang.say("Winner: {name}", name=Worded(won)), size=13, bold=True,
              height=7)
    else:
        line(pdf, lang.say("No winner yet") if not sheet.complete else lang.say("No winner"),
              size=13, bold=True, height=7)
    final = "  ·  ".join(lang.say("{name} {score}", name=Worded(side_name(sheet, s, lang)),
                                  score=sheet.scores[s.index])
                         for s in sheet.sides if s.index < len(sheet.scores))
    line(pdf, lang.say("Final score: {scores}", scores=Worded(final)))
    line(pdf, lang.say("Match end: {how}", how=sheet.end_text(lang)))


def _audit(pdf: Document, sheet: ScoreSheet) -> None:
    lang = pdf.words
    audit = sheet.audit
    if audit.warnings:
        status = lang.say("Audit: {status}, {warnings}", status=audit.text(lang),
                          warnings=lang.say_n("{count} warning", "{count} warnings",
                                              audit.warnings))
    else:
        status = lang.say("Audit: {status}", status=audit.text(lang))
    line(pdf, status, bold=True)
    errors = [f for f in audit.findings if f.severity == "error"]
    for f in errors[:MAX_FINDINGS]:
        at = lang.say("match") if f.event is None else lang.say("event {event}", event=f.event)
        line(pdf, lang.say("{at} [{code}] {message}", at=Worded(at),
                            code=code_word(lang, f.code),
                            message=lang.finding(f, seats=sheet.players)),
              size=8.5, height=4.5)
    if len(errors) > MAX_FINDINGS:
        line(pdf, lang.say_n("… and {count} more errors", "… and {count} more errors",
                              len(errors) - MAX_FINDINGS), size=8.5, height=4.5)


def _sheet(pdf: Document, sheet: ScoreSheet) -> None:
    lang = pdf.words
    sheet = _fitted(sheet)
    pdf.add_page()
    _head(pdf, sheet)
    pdf.ln(3)
    if sheet.deals:
        _deals(pdf, sheet)
    else:
        line(pdf, lang.say("No deal was played out."), grey=True)
    pdf.ln(3)
    _result(pdf, sheet)
    pdf.ln(2)
    _audit(pdf, sheet)
    pdf.ln(2)
    if sheet.ledger_hash:
        line(pdf, lang.say("Ledger hash (SHA-256): {hash}", hash=sheet.ledger_hash), size=8,
              grey=True)
    if sheet.knowledge is not None:
        from ledger.exports.pdf_review import review_page

        review_page(pdf, sheet.knowledge)


def pdf_bytes(sheets: Iterable[ScoreSheet], lang: Language = ENGLISH) -> bytes:
    """A PDF with one score sheet per match (at least one page even for none), its headings
    and labels in ``lang`` (an Arabic sheet is laid out right to left)."""
    pdf = new_document(lang, lang.say("Score sheets"), lang.say("domino-ledger score sheet"))
    count = 0
    for sheet in sheets:
        _sheet(pdf, sheet)
        count += 1
    if count == 0:
        pdf.add_page()
        line(pdf, lang.say("No match was selected."), grey=True)
    return bytes(pdf.output())


__all__ = ["FAMILY", "MAX_FINDINGS", "MAX_NAME", "font_path", "isolate", "pdf_bytes",
           "shortened", "side_name"]
