"""A database that cannot be used (read-only, full, gone) answers 503 with a sentence.

The ledger's own errors are web.errors'; these are the database's, as
``ledger.store.errors.fault_cause`` tells them apart (read-only, full, gone, a server
that cannot be reached). The answer says which in the reader's language (a page for pages,
``{"error": {"code": "database-unavailable", "cause", "message"}}`` for /api), never
the driver's text; the server's log keeps that. Nothing is half-written: every write
of the store is one transaction, rolled back when the database refuses it.
"""

from __future__ import annotations

import logging

from fastapi import Request
from fastapi.responses import JSONResponse, Response

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
}


async def database_fault(request: Request, exc: Exception) -> Response:
    found = fault_cause(exc)
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


FAULTS = database_faults()
