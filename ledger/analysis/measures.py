"""What a mistake is, said once for every page that counts or shows one (issue 29).

A decision (a move made with a choice) has two measures:

- its **knowledge loss** (``knowledge_review``): the expected value of the best option
  less the played one's, by what the mover knew. This alone judges a move: a decision is
  *named* once its knowledge loss reaches ``INACCURACY`` points, with its severity
  (inaccuracy, mistake, blunder) by ``THRESHOLDS``;
- its **hindsight loss** (``review``): the points the move lost under best play with
  every hand open. It never names a mistake; it is shown beside the knowledge loss and
  labelled "hindsight" wherever it is shown.

Each decision that lost points is also told apart by its **kind** (``kind_of``):

- an **error of play**: its knowledge loss names it (the best move by what the player
  knew was another, by ``INACCURACY`` points or more): every named mistake is one;
- **bad luck**: the move was the best bet by what the player knew (its knowledge loss
  names nothing: below ``INACCURACY``), yet it lost ``INACCURACY`` points or more in
  hindsight: only the hidden hands made it lose. Never counted as a mistake.

The report ``analyse --report`` keeps (``cli_knowledge.report_object``) carries both for
every decision (``judged``), and the Analysis panel, the match page's review table,
/players, ``stats``, the PDF and the report's text all read them from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ledger.i18n.phrases import N_

INACCURACY, MISTAKE, BLUNDER = 2.0, 5.0, 10.0
SEVERITIES = ("inaccuracy", "mistake", "blunder")
THRESHOLDS = {"inaccuracy": INACCURACY, "mistake": MISTAKE, "blunder": BLUNDER}
# A decision's kind (``kind_of``), and how pages call it.
ERROR_OF_PLAY, BAD_LUCK = "error_of_play", "bad_luck"
KINDS = (ERROR_OF_PLAY, BAD_LUCK)
KIND_LABELS = {ERROR_OF_PLAY: N_("error of play"), BAD_LUCK: N_("bad luck")}
# Each severity as a word (the PDF's review page and the hand records).
SEVERITY_LABELS = {"inaccuracy": N_("inaccuracy"), "mistake": N_("mistake"),
                   "blunder": N_("blunder")}
# The signs of chess annotation each severity is marked with (lichess's game report): the
# replay's move list and the printed hand record show the same.
SYMBOLS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
# The report's per-player count of each severity.
COUNTS = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


def severity(knowledge_lost: float | None) -> str | None:
    """How bad a knowledge loss is (None: not worth naming, or not valued)."""
    if knowledge_lost is None or knowledge_lost < INACCURACY:
        return None
    if knowledge_lost < MISTAKE:
        return "inaccuracy"
    return "mistake" if knowledge_lost < BLUNDER else "blunder"


def symbol(knowledge_lost: float | None) -> str | None:
    """The mark of a knowledge loss ("?!", "?", "??"; None: nothing to mark)."""
    said = severity(knowledge_lost)
    return None if said is None else SYMBOLS[said]


def kind_of(knowledge_lost: float | None, hindsight_lost: float | None) -> str | None:
    """An error of play (knowledge loss names it) or bad luck (the best bet by knowledge,
    lost in hindsight); None: neither, or not valued."""
    if severity(knowledge_lost) is not None:
        return ERROR_OF_PLAY
    if knowledge_lost is not None and hindsight_lost is not None \
            and hindsight_lost >= INACCURACY:
        return BAD_LUCK
    return None


@dataclass(frozen=True, slots=True)
class Judged:
    """One decision under both measures."""

    deal: int
    event: int
    seat: int
    played: str
    knowledge_lost: float | None     # None: not reviewed (``not_reviewed`` says why)
    hindsight_lost: int | None       # None: the deal's best play was not worked out
    not_reviewed: Mapping[str, Any] | None = None   # ``unreviewed.Why.to_dict``

    @property
    def severity(self) -> str | None:
        return severity(self.knowledge_lost)

    @property
    def kind(self) -> str | None:
        return kind_of(self.knowledge_lost, self.hindsight_lost)

    def to_dict(self) -> dict[str, Any]:
        out = {"deal": self.deal, "event": self.event, "seat": self.seat,
               "played": self.played, "knowledge_lost": self.knowledge_lost,
               "hindsight_lost": self.hindsight_lost, "severity": self.severity,
               "kind": self.kind}
        if self.not_reviewed is not None:
            out["not_reviewed"] = dict(self.not_reviewed)
        return out


def hindsight_losses(reviews: Iterable[Any]) -> dict[int, int]:
    """Per decision's event: what the move lost in hindsight (``DealReview``s)."""
    return {d.event: d.lost for r in reviews for d in r.decisions}


def hindsight_of(rules: Any, events: Any, deals: Any = None) -> dict[int, int]:
    """Per decision's event of the record: what the move lost in hindsight (the review
    of ``review.review_match``), for a report to show beside the knowledge loss."""
    from ledger.analysis.review import review_match

    return hindsight_losses(review_match(rules, events, deals))


def judged_of(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A kept report's decisions under both measures (``Judged.to_dict``), in event order."""
    return sorted(report.get("judged", ()), key=lambda d: d["event"])


def seat_counts(report: Mapping[str, Any]) -> dict[int, dict[str, int]]:
    """Per seat of a kept report: how many decisions of each severity it named."""
    out: dict[int, dict[str, int]] = {}
    for p in report.get("report", ()):
        out[int(p["seat"])] = {s: int(p[COUNTS[s]]) for s in SEVERITIES}
    return out


__all__ = ["BAD_LUCK", "BLUNDER", "COUNTS", "ERROR_OF_PLAY", "INACCURACY", "KINDS", "KIND_LABELS",
           "MISTAKE", "SEVERITIES", "SEVERITY_LABELS", "SYMBOLS", "THRESHOLDS", "Judged",
           "hindsight_losses", "hindsight_of", "judged_of", "kind_of", "seat_counts", "severity",
           "symbol"]
