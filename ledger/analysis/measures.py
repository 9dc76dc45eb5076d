"""What a mistake is, said once for every page that counts or shows one (issue 29).

A decision (a move made with a choice) has two measures:

- its **knowledge loss** (``knowledge_review``): the expected value of the best option
  less the played one's, by what the mover knew. This alone judges a move: a decision is
  *named* once its knowledge loss reaches ``INACCURACY`` points, with its severity
  (inaccuracy, mistake, blunder) by ``THRESHOLDS``;
- its **hindsight loss** (``review``): the points the move lost under best play with
  every hand open. It never names a mistake; it is shown beside the knowledge loss and
  labelled "hindsight" wherever it is shown.

The report ``analyse --report`` keeps (``cli_knowledge.report_object``) carries both for
every decision (``judged``), and the Analysis panel, the match page's review table,
/players, ``stats``, the PDF and the report's text all read them from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

INACCURACY, MISTAKE, BLUNDER = 2.0, 5.0, 10.0
SEVERITIES = ("inaccuracy", "mistake", "blunder")
THRESHOLDS = {"inaccuracy": INACCURACY, "mistake": MISTAKE, "blunder": BLUNDER}
# The report's per-player count of each severity.
COUNTS = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


def severity(knowledge_lost: float | None) -> str | None:
    """How bad a knowledge loss is (None: not worth naming, or not valued)."""
    if knowledge_lost is None or knowledge_lost < INACCURACY:
        return None
    if knowledge_lost < MISTAKE:
        return "inaccuracy"
    return "mistake" if knowledge_lost < BLUNDER else "blunder"


@dataclass(frozen=True, slots=True)
class Judged:
    """One decision under both measures."""

    deal: int
    event: int
    seat: int
    played: str
    knowledge_lost: float | None     # None: not reviewed (too deep to solve in time)
    hindsight_lost: int | None       # None: the deal's best play was not worked out

    @property
    def severity(self) -> str | None:
        return severity(self.knowledge_lost)

    def to_dict(self) -> dict[str, Any]:
        return {"deal": self.deal, "event": self.event, "seat": self.seat,
                "played": self.played, "knowledge_lost": self.knowledge_lost,
                "hindsight_lost": self.hindsight_lost, "severity": self.severity}


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


__all__ = ["BLUNDER", "COUNTS", "INACCURACY", "MISTAKE", "SEVERITIES", "THRESHOLDS", "Judged",
           "hindsight_losses", "hindsight_of", "judged_of", "seat_counts", "severity"]
