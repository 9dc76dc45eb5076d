"""The replay's marks (issue 34): each move the kept review by what the player knew judged,
as the event list marks it ("?!", "?", "??" by its knowledge loss, the report's thresholds:
``ledger.analysis.measures``), the strip of the deal's losses above the list, and the best
move by what the mover knew for the Analysis panel.

Only the knowledge review names a mark: a move that lost points in hindsight (every hand
open) is never marked (issue 29). Where no review is kept for the match's head, nothing is.

What a view may see of them (hidden information): a decision's knowledge loss is worked out
from the mover's own hand and what he had seen, so

- all hands open: every mark;
- a seat's view: only the seat's own moves, made by the step (another seat's loss would
  tell which tiles it held: a better option it had);
- the table (spectator's) view: every seat's marks, but only once the deal's last move is
  made by the step. Until then a mark on another seat's move says it held a better tile,
  which the table never saw; afterwards the deal is over and any view of it may be opened
  (web.access refuses only a deal still being recorded), so the marks tell no more than a
  click on "All hands open" would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fastapi import Request

from ledger.analysis.measures import BLUNDER, SYMBOLS, judged_of, severity, symbol
from ledger.analysis.review import move_phrase
from ledger.i18n import Language
from ledger.jobs.knowledge_report import VERSION
from ledger.seatview import Viewer
from ledger.store.handles import Connection
from ledger.store.read import knowledge_report
from web.access import sees_live_hands
from web.matchdata import StoredMatch

# The strip's bars grow up to this loss (points); a larger one is drawn full height.
STRIP_TOP = 1.5 * BLUNDER
MOVES = ("play", "draw", "pass")


@dataclass(frozen=True, slots=True)
class Mark:
    """One decision of the kept review by what the player knew."""

    event: int
    seat: int
    played: str
    knowledge_lost: float | None     # None: not reviewed
    best: tuple[str, ...] = ()       # the best bets by what the mover knew (named moves)

    @property
    def step(self) -> int:
        """The replay step that shows the table after the move."""
        return self.event + 1

    @property
    def severity(self) -> str | None:
        return severity(self.knowledge_lost)

    @property
    def symbol(self) -> str | None:
        return symbol(self.knowledge_lost)

    @property
    def height(self) -> float:
        """The bar's height in the strip, in percent of its own."""
        lost = max(self.knowledge_lost or 0.0, 0.0)
        return round(100 * min(lost, STRIP_TOP) / STRIP_TOP, 1)


def marks_of(report: Mapping[str, Any] | None) -> dict[int, Mark]:
    """Every decision of a kept review (``cli_knowledge.report_object``) by its event; none
    without one."""
    if report is None:
        return {}
    best = {m["event"]: tuple(m.get("best") or ())
            for p in report.get("report", ())
            for m in (*p.get("named", ()), *p.get("unlucky", ()))}
    return {d["event"]: Mark(int(d["event"]), int(d["seat"]), str(d["played"]),
                             d.get("knowledge_lost"), best.get(d["event"], ()))
            for d in judged_of(report)}


def kept_marks(request: Request, conn: Connection, match: StoredMatch) -> dict[int, Mark]:
    """The marks of the review kept for the match's head; none while a deal is being
    recorded, to those without its recorder key (as the match page keeps the review)."""
    if not sees_live_hands(request, match.id, match.origin, match.status):
        return {}
    return marks_of(knowledge_report(conn, match.id, VERSION))


def past_last_move(types: Sequence[str], start: int, stop: int, step: int) -> bool:
    """Whether the deal dealt at ``start`` has had its last move by ``step`` (its moves are
    the play, draw and pass events before ``stop``)."""
    moves = [i for i in range(start, stop) if types[i] in MOVES]
    return step >= (moves[-1] + 1 if moves else stop)


def shown_to(marks: Mapping[int, Mark], viewer: Viewer, step: int, over: bool
             ) -> dict[int, Mark]:
    """The marks ``viewer`` may see at ``step`` (``over``: the deal on the table has had its
    last move by then); the module's docstring says why."""
    if viewer.everyone:
        return dict(marks)
    if viewer.seat is not None:
        return {e: m for e, m in marks.items() if m.seat == viewer.seat and e < step}
    return {e: m for e, m in marks.items() if e < step} if over else {}


def strip(marks: Mapping[int, Mark], start: int, stop: int) -> list[Mark]:
    """The decisions of the deal whose events are ``[start, stop)``, in the order played."""
    return [marks[e] for e in sorted(marks) if start <= e < stop]


def with_best(body: Mapping[str, Any], report: Mapping[str, Any] | None,
              lang: Language) -> dict[str, Any]:
    """An analysis body (web/routes/analysis.py) whose decisions carry, where the kept review
    named the best bet by what the mover knew, ``knowledge_best`` (its moves, in their
    English notation) and ``knowledge_best_worded`` (in ``lang``); both null for a decision
    it named none for, and left out where no review is kept."""
    if report is None:
        return dict(body)
    marks = marks_of(report)
    decisions = []
    for d in body.get("decisions", ()):
        m = marks.get(d["event"])
        best = list(m.best) if m is not None and m.best else None
        decisions.append({**d, "knowledge_best": best, "knowledge_best_worded": None
                          if best is None else [lang.word(move_phrase(b)) for b in best]})
    return {**body, "decisions": decisions}


__all__ = ["STRIP_TOP", "SYMBOLS", "Mark", "kept_marks", "marks_of", "past_last_move",
           "shown_to", "strip", "with_best"]
