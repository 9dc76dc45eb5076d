"""The JSON API of the ledger: start a live match, append to it, list and read matches.

Thin: each route hands its input to ledger.store and returns what it says;
domain errors go to web.errors.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response, status
from pydantic import BaseModel, Field

from ledger.store import read, write
from web.access import OwnerOnly, RecorderOnly, is_owner, require_key, sees_live_hands
from web.deps import DbInt, MatchId, ReadSession, Writes, WriteSession, page_work
from web.redact import redact_live, table_findings

router = APIRouter(prefix="/api", tags=["matches"])
log = logging.getLogger("domino_ledger.access")


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


_REFUSED: dict[int | str, dict[str, Any]] = {
    401: {"description": "no credential: see docs/security.md"},
    403: {"description": "a credential that does not grant this"}}


@router.post("/matches", status_code=status.HTTP_201_CREATED,
             summary="Start a live match", responses=_REFUSED,
             description="Off loopback the server wants its owner token (`Authorization: "
                         "Bearer <token>`). The answer holds the match's `recorder_key`, "
                         "shown this once: every append and undo needs it.")
def start_match(_: OwnerOnly, body: MatchIn, writer: Writes,
                response: Response) -> dict[str, Any]:
    header = body.model_dump(exclude_none=True)
    got = writer.run(lambda session: write.start_keyed(session, header, commit=False))
    log.info("match %s started; its recorder key issued", got.match_id)
    response.headers["Location"] = f"/api/matches/{got.match_id}"
    response.headers["Cache-Control"] = "no-store"
    return {"id": got.match_id, "next_seq": 0, "recorder_key": got.key,
            "recorder_link": f"/matches/{got.match_id}/record?key={got.key}"}


@router.post("/matches/{match_id}/key", summary="A new recorder key for a live match",
             responses=_REFUSED,
             description="With the match's recorder key or the owner token: a new key, "
                         "shown this once; the old one is refused from now on.")
def rotate_key(request: Request, match_id: MatchId, session: WriteSession,
               response: Response) -> dict[str, Any]:
    if not is_owner(request):
        require_key(request, match_id)
    key = write.rotate_key(session, match_id)
    log.info("match %s: recorder key rotated", match_id)
    response.headers["Cache-Control"] = "no-store"
    return {"id": match_id, "recorder_key": key,
            "recorder_link": f"/matches/{match_id}/record?key={key}"}


@router.post("/matches/{match_id}/events", status_code=status.HTTP_201_CREATED,
             summary="Append one event to a live match",
             responses={409: {"description": "someone appended first: re-read and retry"},
                        422: {"description": "the event breaks a rule or cannot be read"},
                        404: {"description": "no such match"}, **_REFUSED})
def append_event(_: RecorderOnly, match_id: MatchId, body: EventIn,
                 writer: Writes) -> dict[str, Any]:
    got = writer.run(lambda session: write.append(session, match_id, body.event,
                                                  body.expected_seq, commit=False))
    return {"id": match_id, "seq": got.seq, "event": got.index, "next_seq": got.next_seq,
            "recorded": got.event, "derived": list(got.derived),
            "warnings": [f.to_dict() for f in got.findings], "status": got.status}


@router.get("/matches", summary="List matches, newest first",
            response_model=dict[str, Any])
async def list_matches(request: Request, session: ReadSession, preset: str | None = None,
                       player: str | None = None, status: str | None = None,
                       ok: bool | None = None, origin: str | None = None,
                       limit: Annotated[int, Query(ge=1, le=read.MAX_PAGE)] = 50,
                       offset: Annotated[DbInt, Query(ge=0)] = 0) -> Response:
    return await page_work(request, lambda: Response(read.list_matches_json(
        session.connection(), preset=preset, player=player, status=status, ok=ok,
        origin=origin, limit=limit, offset=offset), media_type="application/json"))


@router.get("/matches/{match_id}", summary="One match: summary, score sheet, findings")
def get_match(request: Request, match_id: MatchId, session: ReadSession) -> dict[str, Any]:
    conn = session.connection()
    m = read.get_match(conn, match_id)
    if not sees_live_hands(request, match_id, m["origin"], m["status"]):
        m["findings"] = table_findings(m["findings"], read.events_of(conn, match_id),
                                       lambda f: (f["event"], f["message"]))
    return m


@router.get("/matches/{match_id}/events", summary="A match's events, hash chain included",
            description="While a live match is being recorded, a reader without its "
                        "recorder key gets the deal in play as the table sees it: its deal "
                        "event's hands and stock and the tiles drawn left out "
                        "(`\"redacted\": true`; their hashes still chain).")
def match_events(request: Request, match_id: MatchId, session: ReadSession,
                 after: Annotated[DbInt, Query(ge=-1)] = -1,
                 limit: Annotated[int | None, Query(ge=1, le=10_000)] = None
                 ) -> list[dict[str, Any]]:
    conn = session.connection()
    rows = read.events_of(conn, match_id, after, limit)
    m = read.get_match(conn, match_id)
    if sees_live_hands(request, match_id, m["origin"], m["status"]):
        return rows
    return redact_live(rows, read.events_of(conn, match_id))
