"""A database that cannot be used (read-only, full, gone) answers 503 with a sentence.

The ledger's own errors are web.errors'; these are the database's: SQLite's
"attempt to write a readonly database", "database or disk is full", "no such table",
"unable to open database file", PostgreSQL's read-only transactions (25006), full disk
(53100), a dropped schema or table (42P01, 3F000) or database (3D000) and a server that
cannot be reached. The answer says which in the reader's language (a page for pages,
``{"error": {"code": "database-unavailable", "cause", "message"}}`` for /api), never
the driver's text; the server's log keeps that. Nothing is half-written: every write
of the store is one transaction, rolled back when the database refuses it.
"""

from __future__ import annotations

import logging

from fastapi import Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import DBAPIError, InternalError, OperationalError, ProgrammingError

from ledger.i18n.phrases import N_
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
}
_PG_CAUSES = {"25006": "read-only", "53100": "disk-full", "42P01": "missing",
              "3F000": "missing", "3D000": "missing"}
_SQLITE_CAUSES = (("readonly", "read-only"), ("read-only", "read-only"),
                  ("disk is full", "disk-full"), ("no such table", "missing"),
                  ("unable to open", "missing"))


def cause(exc: DBAPIError) -> str | None:
    """Which of ``CAUSES`` the error is (None: not a fault of the database itself)."""
    code = getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None)
    if code in _PG_CAUSES:
        return _PG_CAUSES[code]
    text = str(exc.orig).lower()
    for part, name in _SQLITE_CAUSES:
        if part in text:
            return name
    return "unavailable" if isinstance(exc, OperationalError) else None


async def database_fault(request: Request, exc: Exception) -> Response:
    found = cause(exc) if isinstance(exc, DBAPIError) else None
    if found is None:
        raise exc  # a programming error of ours: the server's 500 and its log
    log.error("database fault (%s) on %s %s: %s", found, request.method, request.url.path,
              " ".join(str(getattr(exc, "orig", exc)).split()))
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


FAULTS = (OperationalError, ProgrammingError, InternalError)
