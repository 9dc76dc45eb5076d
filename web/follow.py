"""Live follow (issue 33): a live match's pages told of each append and undo as it is
stored, over Server-Sent Events (``GET /matches/{id}/follow``, web/static/js/follow.js).

The server may run several processes, and a live append is stored by whichever one the
recorder reached, so every stream polls the match's head (its event count and last hash:
one primary-key look-up, ``ledger.store.read``'s versions) every ``POLL`` seconds; the
followers of a match in one process share one look-up a poll (``Heads``). When the head
moves, a replay's stream sends the new steps (``news``) exactly as the replay's own held
steps are made for the same request (``web.replay_frames.steps``: the frame
``web.access`` lets this reader see, in the page's block), so a seat's view stays that
seat's and a reader without the recorder key never gets a hand of a deal in play. The
match page's stream sends the head alone; the page reads itself again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial
from typing import Any

import anyio
import anyio.to_thread
import orjson
from fastapi import Request

from ledger.replay import SeatOutOfRange
from ledger.seatview import Viewer
from ledger.store.errors import database_errors
from ledger.store.handles import Connection, Engine
from ledger.store.read import EngineVersions, QuickVersions, StoredMatch, load_match
from web.deps import INT_MAX, page_work
from web.replay_chart import points_lost
from web.replay_frames import chunk, steps
from web.replay_marks import kept_marks

log = logging.getLogger(__name__)

POLL = 0.4       # seconds between looks at the head: an append shows within about half a second
FRESH = 0.2      # a head read this recently is shared by the match's other followers
RETRY_MS = 1000  # how soon a browser asks again when the stream breaks (EventSource's retry)

Head = tuple[int, str]   # the match's stored events and its last hash (hex)


class Heads:
    """Matches' heads as the followers in this process poll them: at most one read per
    match every ``FRESH`` seconds, on the event loop for a SQLite file (microseconds,
    ``QuickVersions``), else in a thread through the pool (``EngineVersions``)."""

    def __init__(self, engine: Engine, quick: QuickVersions | None) -> None:
        self._quick = quick
        self._versions = EngineVersions(engine)
        self._kept: dict[int, tuple[float, Head | None]] = {}

    async def of(self, match_id: int) -> Head | None:
        """The head of ``match_id``; None: not there, or not readable just now."""
        now = time.monotonic()
        kept = self._kept.get(match_id)
        if kept is not None and now - kept[0] < FRESH:
            return kept[1]
        try:
            if self._quick is not None:
                got = self._quick.match(match_id)
            else:
                got = await anyio.to_thread.run_sync(self._versions.match, match_id)
        except database_errors():
            got = None   # the database is away: the stream waits and looks again
        head = None if got is None else (got[0], got[1])
        if len(self._kept) > 4096:  # matches nobody follows any more are forgotten
            self._kept = {k: v for k, v in self._kept.items() if now - v[0] < 60}
        self._kept[match_id] = (time.monotonic(), head)
        return head


def heads(request: Request) -> Heads:
    """The app's ``Heads`` (made on first use)."""
    state = request.app.state
    got = getattr(state, "follow_heads", None)
    if not isinstance(got, Heads):
        got = Heads(state.engine, getattr(state, "quick_versions", None))
        state.follow_heads = got
    return got


@dataclass(frozen=True, slots=True)
class Where:
    """A live match as a follower last heard of it."""

    last_step: int
    status: str


def where(match: StoredMatch) -> dict[str, Any]:
    return {"match": match.id, "last_step": len(match.types), "status": match.status,
            "origin_live": match.origin == "live"}


def news(request: Request, conn: Connection, match_id: int, since: int | None,
         seat: str | None) -> tuple[Where, dict[str, Any]]:
    """The steps of match ``match_id`` a follower who saw up to step ``since`` has not
    seen (those of the deal in play; after an undo, the new last step), as ``seat`` may
    see them: the replay's own held steps (``web.replay_frames``) for this request."""
    asked = Viewer.parse(seat)
    match = load_match(conn, match_id, step=INT_MAX)  # the last deal's events
    seats = len(match.header.seats)
    if asked.seat is not None and not 0 <= asked.seat < seats:
        # Refused before the stream starts, even while every view is the table's.
        raise SeatOutOfRange(asked.seat, seats)
    last = len(match.types)
    held = chunk(match.types, last)
    first = last if since is None or since >= last else max(held.start, since + 1)
    assert match.rules is not None
    lost = points_lost(conn, match_id, match.rules) if match.analysed else {}
    body = {**where(match), "seat": seat or "",
            "live": match.origin == "live" and match.status == "recording",
            **steps(request, match, range(first, last + 1), seat, lost,
                    kept_marks(request, conn, match))}
    return Where(last, match.status), body


def head_of(conn: Connection, match_id: int) -> tuple[Where, dict[str, Any]]:
    """What the match page's stream sends: the match's last step and status."""
    match = load_match(conn, match_id)
    return Where(len(match.types), match.status), where(match)


def _event(name: str, body: dict[str, Any], last_step: int) -> dict[str, Any]:
    # The id is the last step the follower then holds: a browser that reconnects sends
    # it back (Last-Event-ID) and gets what it missed.
    return {"event": name, "id": str(last_step), "retry": RETRY_MS,
            "data": orjson.dumps(body).decode()}


class NotFollowed(ValueError):
    """The match is not recorded live here: nothing is ever added to it."""

    def __init__(self, match_id: int) -> None:
        super().__init__(f"match {match_id} was imported from a file: nothing is added to "
                         "it, so there is nothing to follow")
        self.match_id = match_id


def read(request: Request, match_id: int, seat: str | None, since: int | None,
         replay: bool) -> tuple[Where, dict[str, Any]]:
    """What a follower is sent now (in a page thread): ``news`` on a replay, else the head.
    ``NotFollowed`` for a match that was not recorded here; the store's errors as a page's."""
    engine: Engine = request.app.state.engine
    with engine.connect() as conn:
        at, body = (news(request, conn, match_id, since, seat) if replay
                    else head_of(conn, match_id))
    if not body.pop("origin_live"):
        raise NotFollowed(match_id)
    return at, body


async def stream(request: Request, match_id: int, seat: str | None, since: int | None,
                 replay: bool, opening: tuple[Where, dict[str, Any]]
                 ) -> AsyncIterator[dict[str, Any]]:
    """The events of one follower: ``head`` at once (``opening``: read by the route, so
    that a bad address is refused before the stream starts) and, on the match page, on
    every change; on a replay, ``steps`` whenever there are steps it has not seen."""
    polled = heads(request)
    known = await polled.of(match_id)
    at, body = opening
    yield _event("head", {k: body[k] for k in ("match", "last_step", "status")},
                 at.last_step)
    if replay and since != at.last_step:
        yield _event("steps", body, at.last_step)
    while True:
        while True:  # until the head moves
            await anyio.sleep(POLL)
            now = await polled.of(match_id)
            if now is not None and now != known:
                known = now
                break
        try:
            at, body = await page_work(request, partial(read, request, match_id, seat,
                                                        at.last_step, replay))
        except database_errors():
            log.warning("follow: match %s could not be read; looking again", match_id)
            known = None
            continue
        yield _event("steps" if replay else "head", body, at.last_step)
