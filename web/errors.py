"""The API's exception handler: domain errors become JSON answers (pages answer the same
errors with a page: ``web.routes.page_errors``, which hands /api requests to this one).

An event that breaks a rule is 422 with the finding's code and sentence; a
value that cannot be read is 422 with the reader's code; a writer that lost
the race (or a match that takes no events) is 409; a missing match is 404; a
deal's analysis that cannot be given says why (``ledger.jobs.service.AnalysisError``); a
match another table cannot seat is 422 (``ledger.analysis.whatif.WhatIfError``).
Every answer has the same shape: ``{"error": {"code", "message", ...}}``, ``message``
in English. The analysis route's errors are shown by the replay's Analysis panel, so they
also carry ``message_worded``, the message in the request's language (as its notes do).
A database that cannot be used (read-only, full, dropped) is 503 (``web.db_faults``).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ledger.analysis.whatif import WhatIfError
from ledger.findings import IllegalEvent
from ledger.jobs.service import AnalysisError
from ledger.store.errors import BadInput, Conflict, MatchNotFound, SchemaOutOfDate, StoreError
from web.lang import request_language


def _answer(exc: Exception) -> tuple[int, dict[str, Any]]:
    if isinstance(exc, IllegalEvent):
        f = exc.finding
        return 422, {"code": f.code, "message": f.message, "event": f.event}
    if isinstance(exc, BadInput):
        return 422, {"code": exc.code, "message": exc.message}
    if isinstance(exc, Conflict):
        return 409, {"code": exc.code, "message": exc.message, "next_seq": exc.next_seq}
    if isinstance(exc, MatchNotFound):
        return 404, {"code": exc.code, "message": exc.message}
    if isinstance(exc, SchemaOutOfDate):
        return 503, {"code": exc.code, "message": exc.message}
    if isinstance(exc, StoreError):
        return 400, {"code": exc.code, "message": exc.message}
    if isinstance(exc, AnalysisError):
        return exc.status, {"code": exc.code, "message": exc.message}
    if isinstance(exc, WhatIfError):
        return 422, {"code": exc.code, "message": exc.message}
    raise exc


async def domain_error(request: Request, exc: Exception) -> JSONResponse:
    status, body = _answer(exc)
    if isinstance(exc, AnalysisError):
        body["message_worded"] = request_language(request).word(exc.said)
    return JSONResponse({"error": body}, status_code=status)


def install(app: FastAPI) -> None:
    from web.db_faults import FAULTS, database_fault  # the database's own faults: 503

    for cls in (IllegalEvent, StoreError, AnalysisError, WhatIfError):
        app.add_exception_handler(cls, domain_error)
    for fault in FAULTS:
        app.add_exception_handler(fault, database_fault)
