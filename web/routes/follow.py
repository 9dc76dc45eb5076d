"""Following a live match (web.follow): its stream of events, and the watch link a
spectator is offered (the recorder's address without its key: web.routes.page_errors)."""

from __future__ import annotations

from functools import partial
from typing import Annotated

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import RedirectResponse
from sse_starlette import EventSourceResponse
from starlette.exceptions import HTTPException

from web.deps import DbInt, MatchId, ReadSession, page_work
from web.follow import NotFollowed, read, stream
from web.matchdata import load_match
from web.routes.replay import SeatQuery

router = APIRouter(include_in_schema=False)

SEND_TIMEOUT = 30  # seconds: a follower that takes nothing for this long is let go
PING = 15          # seconds between keep-alive comments (proxies close quiet connections)


@router.get("/matches/{match_id}/follow")
async def follow(request: Request, match_id: MatchId,
                 seat: SeatQuery = None,
                 since: Annotated[DbInt | None, Query(ge=0)] = None,
                 replay: bool = False,
                 last_event_id: Annotated[str | None, Header(max_length=12)] = None
                 ) -> EventSourceResponse:
    """``text/event-stream``: ``head`` ({match, last_step, status}) at once and whenever
    the match changes; with ``replay=1``, ``steps`` (the replay's held steps of the deal
    in play after ``since``, as ``seat`` may see them) whenever it grew or was undone."""
    if last_event_id is not None and last_event_id.isdigit():
        since = min(int(last_event_id), 2**31 - 1)  # the browser reconnecting: what it holds
    try:
        opening = await page_work(request, partial(read, request, match_id, seat, since,
                                                   replay))
    except NotFollowed as exc:
        raise HTTPException(409, str(exc)) from None
    return EventSourceResponse(stream(request, match_id, seat, since, replay, opening),
                               ping=PING, send_timeout=SEND_TIMEOUT)


@router.get("/matches/{match_id}/watch")
def watch(match_id: MatchId, session: ReadSession) -> RedirectResponse:
    """A match's replay at its latest step (the link a spectator is offered)."""
    last = len(load_match(session.connection(), match_id).types)
    return RedirectResponse(f"/matches/{match_id}/replay?step={last}", status_code=303)
