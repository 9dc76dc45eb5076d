"""The analysis of one deal as JSON, for the replay page's Analysis panel (issue 6).

``GET /api/matches/{id}/analysis?deal=N`` (N 1-based, as the replay numbers deals)
answers at once: 200 with the deal's analysis (web.deal_analysis says what it
holds; its swing chart worded in the page's language) when it is known, else 202
with ``{"status": "queued" | "running", "done": k, "total": n}`` while a worker
process works it out (web.analysis_jobs): ask again until it is 200.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from web.analysis_jobs import Pending
from web.deal_analysis import worded
from web.deps import DbInt, Jobs, MatchId, ReadSession
from web.lang import request_language

router = APIRouter(tags=["analysis"])

DealQuery = Annotated[DbInt, Query(ge=1, description="the deal, 1-based as the replay numbers it")]

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
                        "(what every seat knew at each step). Worked out off the request and "
                        "kept: 202 with the progress until it is ready. A deal not solved "
                        "within the server's time limit has its positions left out and a "
                        "`note` that says so. A `note` (why a deal is not, or not fully, "
                        "analysed) is English; `note_phrases` holds its parts as phrases "
                        "(`{\"phrase\", \"params\"}`) and `note_worded` says it in the "
                        "page's language. Moves (`played`, `move`) are in their English "
                        "notation; `played_worded` and `move_worded` beside them say them in "
                        "the page's language, and an error answer's `message_worded` its "
                        "`message`.",
            responses={202: _PENDING})
def analysis_api(match_id: MatchId, session: ReadSession, jobs: Jobs, request: Request,
                 deal: DealQuery) -> Any:
    got = jobs.ask(session.connection(), match_id, deal - 1)
    if isinstance(got, Pending):
        return JSONResponse(got.to_dict(), status_code=202,
                            headers={"Cache-Control": "no-store"})
    return worded(got, request_language(request))
