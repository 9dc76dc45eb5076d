"""The PDF score sheet's page of the review by what each player knew (issue 14): per player
the report's numbers, the thresholds, and every named mistake with its replay step.

Printed after a match's sheet when the sheet carries the report the ledger keeps for the
match's events (``ScoreSheet.knowledge``: ``cli_knowledge.report_object``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.analysis.measures import BAD_LUCK, ERROR_OF_PLAY, KIND_LABELS, SEVERITY_LABELS
from ledger.analysis.unreviewed import Why
from ledger.exports.pdf_page import FAMILY, Document, line, shortened
from ledger.exports.pdf_table import Cell, Style, table
from ledger.i18n import Phrase, review_phrases, seat_named

MAX_MISTAKES = 60  # the rest: the match page lists them all


def _num(x: float | None) -> str:
    return "–" if x is None else f"{x:.1f}"


def _luck(p: Mapping[str, Any], value: float | None) -> Phrase:
    """A luck value with its standard error, or "(exact)" (review_phrases.luck_phrase)."""
    return review_phrases.luck_phrase(value, p.get("luck_stderr"), bool(p.get("luck_exact")))


def review_page(pdf: Document, report: Mapping[str, Any]) -> None:
    """A page with the report: a table per player, the legend and the mistakes."""
    lang = pdf.words
    pdf.add_page()
    line(pdf, lang.say("Review by what the player knew"), size=15, bold=True, height=7.5)
    line(pdf, lang.say("{sampled}; lower loss is better",
                        sampled=review_phrases.sampled(report["samples"])), size=9, grey=True)
    for w in report.get("not_reviewed_why", ()):
        line(pdf, lang.say("{said} (counted, never valued).", said=review_phrases.not_reviewed(
            w["count"], Why.of_dict(w).phrase())), size=9, grey=True)
    pdf.ln(2)
    heads = [lang.say("Player"), lang.say("Decisions"), lang.say("Forced"),
             lang.say("Inaccuracies"), lang.say("Mistakes"), lang.say("Blunders"),
             lang.say("Mean loss"), lang.say("Luck"), lang.say("Result"),
             lang.say("Luck-adjusted")]
    rows = [heads] + [[lang.word(seat_named(p["seat"], shortened(p["player"], 20))),
                       str(p["decisions"]), str(p["forced"]),
                       str(p["inaccuracies"]), str(p["mistakes"]), str(p["blunders"]),
                       _num(p["mean_knowledge_lost"]), _num(p["luck"]), _num(p["result"]),
                       _num(p["luck_adjusted"])] for p in report["report"]]
    # The widths in reading order (an Arabic page puts the first at the right); a
    # heading's type shrinks until its longest word fits ("Inaccuracies" stays whole).
    table(pdf, [[Cell(text) for text in r] for r in rows], [36.0] + [16.0] * 9,
          Style(FAMILY, size=7.5, line_height=4.5, heading_rows=1), lang.rtl)
    pdf.ln(2)
    t = report["thresholds"]
    line(pdf, lang.say("Points lost by what the player knew: an inaccuracy from {a}, a "
                        "mistake from {b}, a blunder from {c}.", a=f"{t['inaccuracy']:g}",
                        b=f"{t['mistake']:g}", c=f"{t['blunder']:g}"), size=9)
    for legend in review_phrases.luck_legend(report["samples"]):
        line(pdf, lang.word(legend), size=9)
    for p in report["report"]:  # each luck with its standard error, beside the table's
        line(pdf, lang.say("{player}: luck {luck}, result {total}, luck-adjusted {adjusted}",
                            player=seat_named(p["seat"], shortened(p["player"], 24)),
                            luck=_luck(p, p["luck"]), total=_num(p["result"]),
                            adjusted=_luck(p, p["luck_adjusted"])), size=9)
    line(pdf, lang.say("Error of play: the best move by what the player knew was another. "
                        "Bad luck: the move was the best bet by what the player knew; only "
                        "the hidden hands made it lose (in hindsight)."), size=9)
    pdf.ln(2)
    _mistakes(pdf, report)


def _mistakes(pdf: Document, report: Mapping[str, Any]) -> None:
    from ledger.analysis.review import move_phrase

    lang = pdf.words
    named = sorted(((m, p["seat"], p["player"]) for p in report["report"]
                    for m in [*p["named"], *p.get("unlucky", ())]),
                   key=lambda mp: mp[0]["event"])
    if not named:
        line(pdf, lang.say("No move lost {a} points or more by what its player knew.",
                            a=f"{report['thresholds']['inaccuracy']:g}"), size=9, grey=True)
        return
    for m, seat, player in named[:MAX_MISTAKES]:
        kind = m.get("kind") or ERROR_OF_PLAY
        said = Phrase(KIND_LABELS[kind]) if kind == BAD_LUCK else Phrase(
            "{kind}, {severity}", kind=Phrase(KIND_LABELS[kind]),
            severity=Phrase(SEVERITY_LABELS[m["severity"]]))
        cost = review_phrases.cost_phrase(
            move_phrase(m["played"]), [move_phrase(b) for b in m["best"]],
            m["knowledge_lost"], m.get("hindsight_lost"), review_phrases.measured(m))
        line(pdf, lang.say("step {step}, deal {deal}: {severity}: {player}: {cost}",
                            step=m["event"] + 1, deal=m["deal"] + 1, severity=said,
                            player=seat_named(seat, shortened(player, 24)), cost=cost),
              size=8.5, height=4.5)
    if len(named) > MAX_MISTAKES:
        line(pdf, lang.say("More on the match page: {count}", count=len(named) - MAX_MISTAKES),
              size=8.5, height=4.5)
