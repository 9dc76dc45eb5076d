"""The PDF score sheet's page of the review by what each player knew (issue 14): per player
the report's numbers, the thresholds, and every named mistake with its replay step.

Printed after a match's sheet when the sheet carries the report the ledger keeps for the
match's events (``ScoreSheet.knowledge``: ``cli_knowledge.report_object``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ledger.analysis.measures import BAD_LUCK, ERROR_OF_PLAY, KIND_LABELS
from ledger.analysis.unreviewed import Why
from ledger.exports.pdf_page import FAMILY
from ledger.exports.pdf_table import Cell, Style, table
from ledger.i18n import Phrase
from ledger.i18n.phrases import N_

if TYPE_CHECKING:
    from ledger.exports.pdf_page import Document as _SheetPDF

MAX_MISTAKES = 60  # the rest: the match page lists them all
_SEVERITY = {"inaccuracy": N_("inaccuracy"), "mistake": N_("mistake"),
             "blunder": N_("blunder")}


def _num(x: float | None) -> str:
    return "–" if x is None else f"{x:.1f}"


def _hindsight(x: int | None) -> str:
    return "?" if x is None else str(x)


Line = Callable[..., None]            # pdf_export._line: a paragraph of the sheet
Plain = Callable[[Any, str], str]     # pdf_export._plain: text as an RTL page prints it


def shortened(text: str, limit: int = 24) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def review_page(pdf: _SheetPDF, report: Mapping[str, Any], _line: Line, _plain: Plain) -> None:
    """A page with the report: a table per player, the legend and the mistakes (``_line``
    and ``_plain``: the sheet's own, handed over so this module does not import it back)."""
    lang = pdf.words
    pdf.add_page()
    _line(pdf, lang.say("Review by what the player knew"), size=15, bold=True, height=7.5)
    _line(pdf, lang.say("{samples} deals sampled per decision; lower loss is better",
                        samples=report["samples"]), size=9, grey=True)
    for w in report.get("not_reviewed_why", ()):
        _line(pdf, lang.say("{count} decisions not reviewed: {why} (counted, never valued).",
                            count=w["count"], why=Why.of_dict(w).phrase()), size=9, grey=True)
    pdf.ln(2)
    heads = [lang.say("Player"), lang.say("Decisions"), lang.say("Forced"),
             lang.say("Inaccuracies"), lang.say("Mistakes"), lang.say("Blunders"),
             lang.say("Mean loss"), lang.say("Luck"), lang.say("Result"),
             lang.say("Luck-adjusted")]
    rows = [heads] + [[shortened(p["player"], 24), str(p["decisions"]), str(p["forced"]),
                       str(p["inaccuracies"]), str(p["mistakes"]), str(p["blunders"]),
                       _num(p["mean_knowledge_lost"]), _num(p["luck"]), _num(p["result"]),
                       _num(p["luck_adjusted"])] for p in report["report"]]
    # The widths in reading order (an Arabic page puts the first at the right); a
    # heading's type shrinks until its longest word fits ("Inaccuracies" stays whole).
    table(pdf, [[Cell(text) for text in r] for r in rows], [36.0] + [16.0] * 9,
          Style(FAMILY, size=7.5, line_height=4.5, heading_rows=1), lang.rtl)
    pdf.ln(2)
    t = report["thresholds"]
    _line(pdf, lang.say("Points lost by what the player knew: an inaccuracy from {a}, a "
                        "mistake from {b}, a blunder from {c}.", a=f"{t['inaccuracy']:g}",
                        b=f"{t['mistake']:g}", c=f"{t['blunder']:g}"), size=9)
    _line(pdf, lang.say("Error of play: the best move by what the player knew was another. "
                        "Bad luck: the move was the best bet by what the player knew; only "
                        "the hidden hands made it lose (in hindsight)."), size=9)
    pdf.ln(2)
    _mistakes(pdf, report, _line)


def _mistakes(pdf: _SheetPDF, report: Mapping[str, Any], _line: Line) -> None:
    from ledger.analysis.review import move_phrase

    lang = pdf.words
    named = sorted(((m, p["player"]) for p in report["report"]
                    for m in [*p["named"], *p.get("unlucky", ())]),
                   key=lambda mp: mp[0]["event"])
    if not named:
        _line(pdf, lang.say("No move lost {a} points or more by what its player knew.",
                            a=f"{report['thresholds']['inaccuracy']:g}"), size=9, grey=True)
        return
    for m, player in named[:MAX_MISTAKES]:
        best = lang.join([lang.word(move_phrase(b)) for b in m["best"]])
        kind = m.get("kind") or ERROR_OF_PLAY
        said = Phrase(KIND_LABELS[kind]) if kind == BAD_LUCK else Phrase(
            "{kind}, {severity}", kind=Phrase(KIND_LABELS[kind]),
            severity=Phrase(_SEVERITY[m["severity"]]))
        _line(pdf, lang.say("step {step}, deal {deal}: {severity}: {player} played {played}; "
                            "best bet {best}; lost {lost} (hindsight {hindsight})",
                            hindsight=_hindsight(m.get("hindsight_lost")), step=m["event"] + 1,
                            deal=m["deal"] + 1, severity=said,
                            player=shortened(player, 24), played=lang.word(
                                move_phrase(m["played"])), best=best,
                            lost=_num(m["knowledge_lost"])), size=8.5, height=4.5)
    if len(named) > MAX_MISTAKES:
        _line(pdf, lang.say("More on the match page: {count}", count=len(named) - MAX_MISTAKES),
              size=8.5, height=4.5)
