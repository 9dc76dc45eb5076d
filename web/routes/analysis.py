"""The analysis of one deal as JSON, for the replay page's Analysis panel (issue 6).

``GET /api/matches/{id}/analysis?deal=N`` (N 1-based, as the replay numbers deals)
answers at once: 200 with the deal's analysis (ledger.jobs.deal_analysis says what it
holds; its swing chart worded in the page's language) when it is known, else 202
with ``{"status": "queued" | "running", "done": k, "total": n}`` while a worker
process works it out (ledger.jobs.service): ask again until it is 200.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import JSONResponse

from ledger.jobs.deal_analysis import seen_by, with_judged, worded
from ledger.jobs.knowledge_report import VERSION as KNOWLEDGE_VERSION
from ledger.jobs.service import Pending
from ledger.replay import deal_span, deals
from ledger.seatview import Viewer, sight
from ledger.store.read import knowledge_report
from web.access import Refused, deal_finished, holds_key
from web.deps import DbInt, Jobs, MatchId, ReadSession
from web.lang import request_language
from web.matchdata import StoredMatch, load_match
from web.replay_marks import past_last_move, with_best

router = APIRouter(tags=["analysis"])

DealQuery = Annotated[DbInt, Query(ge=1, description="the deal, 1-based as the replay numbers it")]
ViewQuery = Annotated[str | None, Query(
    max_length=8, pattern=r"^(\d{1,3}|table)?$",
    description="whose view, as the replay's `seat`: a seat or `table` (then `step` is "
                "needed); left out: all hands open")]
AtQuery = Annotated[int | None, Query(ge=0, le=2**31, description="the replay step the view "
                                      "is at: nothing after it is shown")]

_PENDING = {"description": "Being worked out: `done` of `total` positions solved (0 of 0: "
                           "waiting for a worker); ask again.",
            "content": {"application/json": {"example": {"status": "running", "done": 5,
                                                         "total": 14}}}}


@router.get("/api/matches/{match_id}/analysis",
            summary="The analysis of one deal of a match",
            description="The deal's review under best play (`best`, `decisions` with every "
                        "option's outcome and the points the move played `lost`, as "
                        "`DealReview.to_dict()`), plus `steps` (the best-play outcome at each "
                        "replay step of the deal), `mistakes` (with the step to show each at), "
                        "`swing` (a Plotly figure, in the page's language) and `knowledge` "
                        "(what every seat knew at each step). Each decision has both measures "
                        "(ledger.analysis.measures): `hindsight_lost` (as `lost`, every hand "
                        "open) and, from the review by what each player knew kept for the "
                        "match, `knowledge_lost` and `severity` (null without one), and "
                        "`knowledge_best`: the best bet by what the mover knew where that "
                        "review named one (its moves, `knowledge_best_worded` in the page's "
                        "language; null where it named none, left out without a review); "
                        "`mistakes` are the decisions that review named (none without it: "
                        "`knowledge_review` false), `hindsight_losses` the moves that lost "
                        "points in hindsight. Worked out off the request and "
                        "kept: 202 with the progress until it is ready. A deal not solved "
                        "within the server's time limit has its positions left out and a "
                        "`note` that says so. A `note` (why a deal is not, or not fully, "
                        "analysed) is English; `note_phrases` holds its parts as phrases "
                        "(`{\"phrase\", \"params\"}`) and `note_worded` says it in the "
                        "page's language. With `seat` (and `step`) the answer is cut to what "
                        "that seat saw by that step: the moves made so far, its own decisions, "
                        "mistakes and knowledge only; and until the deal's last move is made, "
                        "none of what is worked out with every hand open (`hindsight` "
                        "false: `best` null, no step's `best` or `lost`, no option's "
                        "`outcome`, no decision's `lost`, no mistakes, an empty `swing`). "
                        "Moves (`played`, `move`) are in their "
                        "English notation; `played_worded` and `move_worded` beside them say "
                        "them in the page's language, and an error answer's `message_worded` its "
                        "`message`.",
            responses={202: _PENDING})
def analysis_api(match_id: MatchId, session: ReadSession, jobs: Jobs, request: Request,
                 deal: DealQuery, seat: ViewQuery = None, step: AtQuery = None) -> Any:
    conn = session.connection()
    viewer = Viewer.parse(seat)
    match = load_match(conn, match_id, step=step)
    first = _first_step(match, deal)
    at = first if step is None else step
    if not deal_finished(match, at) and not holds_key(request, request.app.state.engine,
                                                      match_id):
        # Best play is worked out with every hand open: none of it while the deal is played.
        raise Refused(request, 403, f"deal {deal} of match {match_id} is being recorded: its "
                      "analysis opens when the deal is over")
    if not viewer.everyone and step is None:
        raise HTTPException(422, "a seat's or the table's view of the analysis needs the "
                            "step it is at (`step`)")
    got = jobs.ask(conn, match_id, deal - 1)
    if isinstance(got, Pending):
        return JSONResponse(got.to_dict(), status_code=202,
                            headers={"Cache-Control": "no-store"})
    # Both measures of every move, the knowledge one from the kept review (issue 29).
    report = knowledge_report(conn, match_id, KNOWLEDGE_VERSION)
    got = with_judged(got, report)
    if not viewer.everyone and match.replay is not None:
        start, stop = deal_span(match.types, max(at, 1))
        got = seen_by(got, sight(viewer, at, match.replay.events, start),
                      over=past_last_move(match.types, start, stop, at))
    lang = request_language(request)
    # The best bet by what the mover knew, beside the move he made (the view's own
    # decisions only: seen_by has cut the others).
    return with_best(worded(got, lang), report, lang)


def _first_step(match: StoredMatch, deal: int) -> int:
    """The step just after the (first) deal event of deal ``deal`` (1-based)."""
    if match.replay is None:
        return 1
    for line in deals(match.replay):
        if line.deal == deal:
            return line.first_step
    return max(1, match.replay.last_step)
