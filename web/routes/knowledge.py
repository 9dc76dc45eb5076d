"""A match's review by what each player knew (issue 14): its part of the match page, the
post that asks for it, and its JSON with the job's progress.

The report is worked out off the request (``Jobs.ask_knowledge``: a job of kind
``knowledge`` in the analyses backend) and kept in the ledger by the match's head; the
page shows the kept one for the head as stored now. Asking is a write (it fills the
ledger's cache): the owner's, or the recorder's for its own live match
(web.access). While a live deal is being recorded, nobody without its recorder key
sees the report: its mistakes and expected values come from the hands in play, as the
replay's Analysis panel keeps them until the deal is over.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from ledger.analysis.measures import BAD_LUCK, ERROR_OF_PLAY, KIND_LABELS, SEVERITIES
from ledger.analysis.review import move_phrase
from ledger.analysis.unreviewed import Why
from ledger.i18n import review_phrases as said
from ledger.i18n import seat_named
from ledger.jobs.knowledge_report import VERSION, shown
from ledger.jobs.service import AnalysisError, Pending
from ledger.store.handles import Connection
from ledger.store.read import knowledge_report
from web.access import Refused, holds_key, is_owner, sees_live_hands
from web.deps import Jobs, MatchId, ReadSession
from web.lang import request_language
from web.matchdata import StoredMatch, load_match
from web.page_cache import forget

router = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api", tags=["analysis"])



def _may_see(request: Request, match: StoredMatch) -> bool:
    return sees_live_hands(request, match.id, match.origin, match.status)


def _require_writer(request: Request, match_id: int) -> None:
    if is_owner(request) or holds_key(request, request.app.state.engine, match_id):
        return
    raise Refused(request, 401, f"the review of match {match_id} is asked for only with the "
                  "owner token (or, for a live match, its recorder key)")


def page_part(request: Request, conn: Connection, match: StoredMatch, jobs: Jobs,
              severity: str | None) -> dict[str, Any]:
    """What the match page's section "Review by what the player knew" shows."""
    return {"review_hidden": False, "review": None, "review_pending": None,
            "review_failed": None, "review_nothing": False,
            **_part(request, conn, match, jobs, severity)}


def _part(request: Request, conn: Connection, match: StoredMatch, jobs: Jobs,
          severity: str | None) -> dict[str, Any]:
    if not _may_see(request, match):
        return {"review_hidden": True}
    if "deal" not in match.types:  # a match started, not dealt yet: no move to judge
        return {"review_nothing": True}
    lang = request_language(request)
    try:
        got = _kept_or_standing(conn, match.id, jobs)
    except AnalysisError as exc:
        return {"review_failed": lang.word(exc.said)}
    if not isinstance(got, dict):
        return {"review_pending": got}
    review = shown(got, match.id)
    for m in review["mistakes"]:
        m["played_worded"] = lang.word(move_phrase(m["played"]))
        m["best_worded"] = [lang.word(move_phrase(b)) for b in m["best"]]
        m["kind_worded"] = lang.say(KIND_LABELS.get(m["kind"], KIND_LABELS[ERROR_OF_PLAY]))
        # "Karim (seat 1): played 5-4, best 6-4, cost 2.7 points (knowledge) / 3.0
        # (hindsight)": the CLI report's and the PDF's words (review_phrases).
        m["cost_worded"] = lang.say("{player}: {cost}", player=seat_named(
            m["seat"], m["player"]), cost=said.cost_phrase(
            move_phrase(m["played"]), [move_phrase(b) for b in m["best"]],
            m["knowledge_lost"], m["hindsight_lost"], said.measured(m)))
    for p in review["players"]:
        exact = bool(p.get("luck_exact"))
        p["named_worded"] = lang.word(seat_named(p["seat"], p["player"]))
        p["luck_worded"] = lang.word(said.luck_phrase(p["luck"], p.get("luck_stderr"), exact))
        p["adjusted_worded"] = lang.word(said.luck_phrase(p["luck_adjusted"],
                                                          p.get("luck_stderr"), exact))
    review["luck_legend"] = [lang.word(x) for x in said.luck_legend(review["samples"])]
    review["how_judged"] = lang.word(said.how_judged(review["samples"]))
    for w in review["not_reviewed_why"]:
        w["worded"] = lang.word(Why.of_dict(w).phrase())
    wanted = severity if severity in (*SEVERITIES, BAD_LUCK) else None
    review["filter"] = wanted
    review["listed"] = [m for m in review["mistakes"]
                        if wanted is None or wanted in (m["severity"], m["kind"])]
    return {"review": review}


@router.post("/matches/{match_id}/knowledge")
def ask_review(request: Request, match_id: MatchId, session: ReadSession,
               jobs: Jobs) -> Response:
    """Ask for the match's report (a job, off the request); back to the match page, which
    shows its progress and then the report. A script (Accept: application/json) gets the
    answer of ``GET /api/matches/{id}/knowledge`` instead."""
    conn = session.connection()
    match = load_match(conn, match_id, step=0)
    _require_writer(request, match_id)
    if not _may_see(request, match):
        raise Refused(request, 403, f"match {match_id} is being recorded")
    got = jobs.ask_knowledge(conn, match_id)
    forget(request.app.state, f"/matches/{match_id}")  # its page now shows the progress
    if "application/json" in request.headers.get("accept", ""):
        return _answer(got)
    return RedirectResponse(f"/matches/{match_id}#knowledge-review", status_code=303)


@api.get("/matches/{match_id}/knowledge", summary="A match's report by what each player knew",
         description="The report `domino-ledger analyse MATCH --report --json` gives (per "
                     "player decisions, forced moves, inaccuracies, mistakes, blunders, "
                     "mean knowledge loss, luck, luck-adjusted result, the named mistakes), "
                     "as kept for the match's events as stored now: 200. While its job runs "
                     "(asked by a POST to /matches/{id}/knowledge): 202 with `done` of "
                     "`total` deals. 404 when none is kept or running.")
def review_api(request: Request, match_id: MatchId, session: ReadSession,
               jobs: Jobs) -> Response:
    conn = session.connection()
    match = load_match(conn, match_id, step=0)
    if not _may_see(request, match):
        raise Refused(request, 403, f"match {match_id} is being recorded: its review opens "
                      "when the deal is over")
    return _answer(_kept_or_standing(conn, match_id, jobs))


def _kept_or_standing(conn: Connection, match_id: int, jobs: Jobs
                      ) -> dict[str, Any] | Pending | None:
    """The kept report, or how far its job is; None: neither. A worker keeps the report
    and ends its job in one transaction, but on PostgreSQL each of our reads sees what
    was committed before it: when the job has ended since the first read, the report is
    read again rather than answered as "none"."""
    report = knowledge_report(conn, match_id, VERSION)
    if report is not None:
        return report
    got = jobs.ask_knowledge(conn, match_id, start=False)
    return got if got is not None else knowledge_report(conn, match_id, VERSION)


def _answer(got: dict[str, Any] | Pending | None) -> Response:
    headers = {"Cache-Control": "no-store"}
    if isinstance(got, Pending):
        return JSONResponse(got.to_dict(), status_code=202, headers=headers)
    if got is None:
        return JSONResponse({"status": "none"}, status_code=404, headers=headers)
    return JSONResponse(got, headers=headers)
