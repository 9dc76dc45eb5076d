"""Printable hand records (issue 34, item 7; BBO's hand records): one page per deal with the
hands as dealt, the play in order (each event in words), how the deal ended and, where the
ledger keeps a review by what the players knew, each judged move's mark (?!, ?, ??: the
thresholds of ``ledger.analysis.measures``).

Every hand is printed: a hand record is for a finished deal or a whole match, never for
a deal in play (while one is, the web gives a reader without the recorder's key the
deals over for good before it, and refuses the file when there is none:
``web/routes/sheets.py``). ``export --hand-record`` and the web's download
both come here, so the same match gives the same file (its generation time aside).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ledger.analysis.measures import SEVERITY_LABELS, SYMBOLS, THRESHOLDS, judged_of, severity
from ledger.events import Dealt
from ledger.exports.pdf_page import FAMILY, Document, isolate, line, new_document, shortened
from ledger.exports.pdf_table import Cell, Style, table
from ledger.i18n import ENGLISH, Language, seat_named
from ledger.i18n.phrases import Worded
from ledger.replay import EventLabel, ReplayMatch, labels

if TYPE_CHECKING:
    from ledger.exports.selection import Selected

MAX_NAME = 48


@dataclass(frozen=True, slots=True)
class DealRecord:
    """One deal as its hand record prints it."""

    number: int                                   # 1-based
    hands: tuple[tuple[str, ...] | None, ...]     # per seat as dealt (None: not known)
    stock: int | None                             # tiles left in the stock
    events: tuple[EventLabel, ...]                # the deal's events, its deal event on
    finished: bool


def deal_records(match: ReplayMatch) -> list[DealRecord]:
    """The match's deals as printed: a redeal's events stay with its deal, whose hands
    are the last ones dealt."""
    out: list[DealRecord] = []
    by_deal: dict[int, list[EventLabel]] = {}
    for label in labels(match):
        if label.deal > 0:
            by_deal.setdefault(label.deal, []).append(label)
    for number, events in sorted(by_deal.items()):
        dealt = [match.events[e.index] for e in events if e.type == "deal"]
        last = dealt[-1] if dealt else None
        hands: tuple[tuple[str, ...] | None, ...] = ()
        stock = None
        if isinstance(last, Dealt):
            hands = tuple(None if h is None else tuple(str(t) for t in h) for h in last.hands)
            stock = None if last.stock is None else len(last.stock)
        finished = any(e.result_phrase is not None for e in events)
        out.append(DealRecord(number, hands, stock, tuple(events), finished))
    return out


def _marks(report: Mapping[str, Any] | None) -> dict[int, float | None]:
    """Per judged decision's event: its knowledge loss (the kept review's)."""
    if report is None:
        return {}
    return {int(d["event"]): d.get("knowledge_lost") for d in judged_of(report)}


def _mark_text(lang: Language, lost: float | None) -> str:
    said = severity(lost)
    if said is None or lost is None:
        return ""
    return lang.say("{symbol} {severity} ({lost})", symbol=Worded(SYMBOLS[said]),
                    severity=lang.say(SEVERITY_LABELS[said]), lost=f"{lost:.1f}")


def _hands(pdf: Document, match: ReplayMatch, deal: DealRecord) -> None:
    lang = pdf.words
    rows = [[Cell(lang.say("Seat")), Cell(lang.say("Hand as dealt"))]]
    for seat, name in enumerate(match.seats):
        hand = deal.hands[seat] if seat < len(deal.hands) else None
        tiles = lang.say("hidden") if hand is None else "  ".join(isolate(t) for t in hand)
        rows.append([Cell(lang.word(seat_named(seat, Worded(isolate(shortened(name, MAX_NAME)))))),
                     Cell(tiles)])
    table(pdf, rows, (50.0, 130.0), Style(FAMILY, size=10, line_height=5.5, heading_rows=1),
          lang.rtl)
    if deal.stock is not None:
        line(pdf, lang.say("In the stock: {count}", count=deal.stock), size=9, grey=True)


def _play(pdf: Document, deal: DealRecord, marks: Mapping[int, float | None]) -> None:
    lang = pdf.words
    rows = [[Cell(lang.say("Step"), align="end"), Cell(lang.say("Play")),
             Cell(lang.say("Mark"))]]
    for e in deal.events:
        said = lang.word(e.phrase)
        notes = [lang.word(n) for n in e.note_phrases]
        if notes:
            said = lang.say("{event}: {notes}", event=Worded(said),
                            notes=Worded(lang.join([Worded(n) for n in notes])))
        rows.append([Cell(str(e.step), align="end"), Cell(said),
                     Cell(_mark_text(lang, marks.get(e.index)), bold=True)])
    table(pdf, rows, (14.0, 126.0, 40.0), Style(FAMILY, size=8.5, line_height=4.2,
                                                 heading_rows=1), lang.rtl)


def _deal_page(pdf: Document, selected: Selected, match: ReplayMatch, deal: DealRecord,
               marks: Mapping[int, float | None]) -> None:
    lang = pdf.words
    sheet = selected.sheet()
    pdf.add_page()
    line(pdf, lang.say("Hand record: deal {deal}", deal=deal.number), size=16, bold=True,
         height=8)
    line(pdf, lang.say("{table} · match {match}", table=Worded(sheet.table_text(lang)),
                       match=selected.match_id), size=10, height=5.5, grey=True)
    pdf.ln(2)
    _hands(pdf, match, deal)
    pdf.ln(3)
    _play(pdf, deal, marks)
    pdf.ln(3)
    results = [e.result_phrase for e in deal.events if e.result_phrase is not None]
    result = lang.word(results[-1]) if results else lang.say("not finished")
    line(pdf, lang.say("Result: {result}", result=Worded(result)), size=11, bold=True,
         height=6.5)


def _legend(pdf: Document, reviewed: bool) -> None:
    lang = pdf.words
    pdf.ln(2)
    if not reviewed:
        line(pdf, lang.say("No review by what the players knew is kept for this match: "
                           "no move is marked."), size=8.5, height=4.5, grey=True)
        return
    line(pdf, lang.say("Marks by what the player knew: ?! an inaccuracy (from {a} points "
                       "lost), ? a mistake (from {b}), ?? a blunder (from {c}).",
                       a=f"{THRESHOLDS['inaccuracy']:g}", b=f"{THRESHOLDS['mistake']:g}",
                       c=f"{THRESHOLDS['blunder']:g}"), size=8.5, height=4.5, grey=True)


def _match_pages(pdf: Document, selected: Selected, before: int | None) -> int:
    lang = pdf.words
    report = selected.report
    if report.rules is None:
        pdf.add_page()
        line(pdf, lang.say("Match {match}: its table cannot be set up, so its deals cannot "
                           "be printed.", match=selected.match_id), grey=True)
        return 1
    match = ReplayMatch.of(report.rules, selected.header.seats, selected.events,
                           report.findings, report.derived)
    review = selected.sheet().knowledge
    marks = _marks(review)
    deals = deal_records(match)
    if before is not None:  # a deal with any event from ``before`` on is left out whole
        deals = [d for d in deals if all(e.index < before for e in d.events)]
    for deal in deals:
        _deal_page(pdf, selected, match, deal, marks)
        _legend(pdf, review is not None)
    return len(deals)


def hand_record_bytes(selected: Sequence[Selected], lang: Language = ENGLISH,
                      before: int | None = None) -> bytes:
    """The hand records of ``selected`` as one PDF: a page per deal, in ``lang``;
    ``before``: only the deals whose every event comes before that index (the deals over
    for good while a live deal is in play, for a reader who may not see its hands)."""
    pdf = new_document(lang, lang.say("Hand records"), lang.say("domino-ledger hand records"))
    pages = sum(_match_pages(pdf, s, before) for s in selected)
    if pages == 0:
        pdf.add_page()
        line(pdf, lang.say("No deal was played out."), grey=True)
    return bytes(pdf.output())


__all__ = ["DealRecord", "deal_records", "hand_record_bytes"]
