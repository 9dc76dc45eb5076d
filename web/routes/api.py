"""The JSON API of the ledger: start a live match, append to it, list and read matches.

Thin: each route hands its input to ledger.store and returns what it says;
domain errors go to web.errors.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response, status
from pydantic import BaseModel, Field

from ledger.store import live, queries
from web.deps import DbInt, MatchId, ReadSession, WriteSession

router = APIRouter(prefix="/api", tags=["matches"])


class TableIn(BaseModel):
    rules: str = Field(description="a rules preset id, e.g. domena")
    options: dict[str, Any] = Field(default_factory=dict)


class MatchIn(BaseModel):
    """A domino-match/1 header without events."""

    table: TableIn
    seats: list[str] = Field(description="player names in play order")
    source: dict[str, Any] | None = None
    started_at: str | None = None


class EventIn(BaseModel):
    expected_seq: int = Field(description="the sequence number this event takes: the "
                              "match's next_seq as you last saw it")
    event: dict[str, Any] = Field(description="one domino-match/1 event object")


@router.post("/matches", status_code=status.HTTP_201_CREATED,
             summary="Start a live match")
def start_match(body: MatchIn, session: WriteSession, response: Response) -> dict[str, Any]:
    match_id = live.start_match(session, body.model_dump(exclude_none=True))
    response.headers["Location"] = f"/api/matches/{match_id}"
    return {"id": match_id, "next_seq": 0}


@router.post("/matches/{match_id}/events", status_code=status.HTTP_201_CREATED,
             summary="Append one event to a live match",
             responses={409: {"description": "someone appended first: re-read and retry"},
                        422: {"description": "the event breaks a rule or cannot be read"},
                        404: {"description": "no such match"}})
def append_event(match_id: MatchId, body: EventIn, session: WriteSession) -> dict[str, Any]:
    got = live.append(session, match_id, body.event, body.expected_seq)
    return {"id": match_id, "seq": got.seq, "event": got.index, "next_seq": got.next_seq,
            "recorded": got.event, "derived": list(got.derived),
            "warnings": [f.to_dict() for f in got.findings], "status": got.status}


@router.get("/matches", summary="List matches, newest first")
def list_matches(session: ReadSession, preset: str | None = None,
                 player: str | None = None, status: str | None = None,
                 ok: bool | None = None, origin: str | None = None,
                 limit: Annotated[int, Query(ge=1, le=queries.MAX_PAGE)] = 50,
                 offset: Annotated[DbInt, Query(ge=0)] = 0) -> dict[str, Any]:
    page = queries.list_matches(session.connection(), preset=preset, player=player,
                                status=status, ok=ok, origin=origin, limit=limit,
                                offset=offset)
    return page.to_dict()


@router.get("/matches/{match_id}", summary="One match: summary, score sheet, findings")
def get_match(match_id: MatchId, session: ReadSession) -> dict[str, Any]:
    return queries.get_match(session.connection(), match_id)


@router.get("/matches/{match_id}/events", summary="A match's events, hash chain included")
def match_events(match_id: MatchId, session: ReadSession,
                 after: Annotated[DbInt, Query(ge=-1)] = -1,
                 limit: Annotated[int | None, Query(ge=1, le=10_000)] = None
                 ) -> list[dict[str, Any]]:
    return queries.events_of(session.connection(), match_id, after, limit)
