"""A database that cannot be used (read-only, full, gone) answers 503 with a sentence.

The ledger's own errors are web.errors'; these are the database's, as
``ledger.store.errors.fault_cause`` tells them apart (read-only, full, gone, a connection
lost under a statement, a server that cannot be reached). The answer says which in the
reader's language (a page for pages, ``{"error": {"code": "database-unavailable",
"cause", "message"}}`` for /api), never the driver's or SQLAlchemy's text ("Can't
reconnect until invalid transaction is rolled back"); the server's log keeps that.
Nothing is half-written: every write of the store is one transaction, rolled back when
the database refuses it.

A read (GET, HEAD) whose connection was lost is done once more before that answer
(``RetryReads``): the lost connection is dropped from the pool, which pings each one it
lends, so the second try gets a live one when the database is back. A write is never
done again by the server: whether it was stored is for the client to read (a live
append's ``expected_seq`` makes a retry safe there).
"""

from __future__ import annotations

import logging

from fastapi import Request
from fastapi.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ledger.i18n.phrases import N_
from ledger.store.errors import database_faults, fault_cause
from web.lang import request_language
from web.templating import templates

log = logging.getLogger(__name__)

CAUSES = {
    "read-only": N_("The ledger's database is read-only just now: nothing can be stored "
                    "until it can be written again. Pages that only read still work."),
    "disk-full": N_("The ledger's disk is full: nothing can be stored until there is room "
                    "again. Nothing was half-written."),
    "missing": N_("The ledger's database cannot be found, or its tables are gone. Whoever "
                  "runs this server can restore it."),
    "unavailable": N_("The ledger's database is not answering as it should just now. "
                      "Try again in a moment."),
    "connection-lost": N_("The ledger lost its connection to the database: nothing was "
                          "half-written. Try again in a moment."),
}
RETRIED = "db_read_retried"   # scope["state"]: this request is the second try
LOST = "db_connection_lost"   # scope["state"]: its first try lost the connection


async def database_fault(request: Request, exc: Exception) -> Response:
    found = fault_cause(exc)
    if found is None:
        raise exc  # a programming error of ours: the server's 500 and its log
    log.error("database fault (%s) on %s %s: %s", found, request.method, request.url.path,
              " ".join(str(getattr(exc, "orig", exc)).split()))
    if found == "connection-lost" and not getattr(request.state, RETRIED, False):
        setattr(request.state, LOST, True)  # RetryReads tries once more
    lang = request_language(request)
    message = lang.say(CAUSES[found])
    headers = {"Retry-After": "60", "Cache-Control": "no-store"}
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": {"code": "database-unavailable", "cause": found,
                                       "message": str(CAUSES[found]),
                                       "message_worded": message}},
                            status_code=503, headers=headers)
    return templates.TemplateResponse(request, "error.html", {
        "nav": "", "status": 503, "title": lang.say("The ledger is not available"),
        "message": message, "links": [("/matches", lang.say("All matches"))]},
        status_code=503, headers=headers)


FAULTS = database_faults()


class RetryReads:
    """ASGI middleware: a GET or HEAD whose connection to the database was lost is served
    once more, on a new connection, before its 503 goes out (the module's text)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        first = {**scope, "state": dict(scope.get("state") or {})}
        held: list[Message] = []

        async def holding(message: Message) -> None:
            if held or (message["type"] == "http.response.start"
                        and first["state"].get(LOST)):
                held.append(message)  # the 503 of a lost connection: kept back
                return
            await send(message)

        await self.app(first, receive, holding)
        if not held:
            return
        log.warning("%s %s: the database connection was lost; read again", scope["method"],
                    scope["path"])
        again = {**scope, "state": {**dict(scope.get("state") or {}), RETRIED: True}}

        async def no_body() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        await self.app(again, no_body, send)
