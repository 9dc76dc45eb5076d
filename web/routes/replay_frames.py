"""The replay's held steps, one deal at a time, for replay.js to draw (web.replay_frames)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from web.deps import DbInt, MatchId, ReadSession
from web.replay_frames import frames
from web.routes.replay import SeatQuery

router = APIRouter(tags=["replay"])


@router.get("/matches/{match_id}/replay/frames", include_in_schema=False)
def replay_frames(request: Request, match_id: MatchId, session: ReadSession,
                  step: DbInt = 0, seat: SeatQuery = None) -> dict[str, Any]:
    return frames(request, session.connection(), match_id, step, seat)
