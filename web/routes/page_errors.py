"""Errors answered with a page a person can read, in the reader's language; under /api
the same errors keep their JSON (``web.errors``, the API's handler, answers those).

The pages' own errors (a step or seat out of range, a match that cannot be replayed),
the ledger's, a request that does not validate and an address with no page."""

from __future__ import annotations

import re
from typing import Any

from fastapi import Request
from fastapi.exception_handlers import (
    http_exception_handler,
    request_validation_exception_handler,
)
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ledger.findings import IllegalEvent
from ledger.i18n import Language
from ledger.i18n.phrases import N_, Worded
from ledger.replay import SeatOutOfRange, StepOutOfRange
from ledger.store.errors import MatchNotFound, StoreError
from ledger.store.read import ReplayUnavailable
from web import errors
from web.lang import request_language
from web.templating import templates

# What the page handler answers (web.routes.pages.install adds it for each).
HANDLED = (StoreError, IllegalEvent, StepOutOfRange, SeatOutOfRange, ReplayUnavailable,
           StarletteHTTPException, RequestValidationError)

_TITLES = {MatchNotFound: N_("No such match"), StepOutOfRange: N_("No such step"),
           SeatOutOfRange: N_("No such seat"),
           ReplayUnavailable: N_("This match cannot be replayed")}


def _own_error(exc: Exception) -> tuple[int, str, str] | None:
    """Status, code and message of the errors the pages raise themselves."""
    if isinstance(exc, StepOutOfRange):
        return 404, "step-out-of-range", str(exc)
    if isinstance(exc, SeatOutOfRange):
        return 404, "seat-out-of-range", str(exc)
    if isinstance(exc, ReplayUnavailable):
        return 422, "replay-unavailable", str(exc)
    return None


def _worded_error(exc: Exception, lang: Language) -> str | None:
    """The message of a page's error in the reader's language (None: as it was raised)."""
    if isinstance(exc, MatchNotFound):
        return lang.say("there is no match {match} in the ledger", match=exc.match_id)
    if isinstance(exc, StepOutOfRange):
        return lang.say("step {step} does not exist: this match has steps 0 to {last}",
                        step=exc.step, last=exc.last)
    if isinstance(exc, SeatOutOfRange):
        return lang.say("seat {index} does not exist: this match has seats 0 to {last}",
                        index=exc.seat, last=exc.seats - 1)
    if isinstance(exc, ReplayUnavailable):
        return lang.say("match {match} is played at a table the ledger does not know "
                        "({preset}), so it cannot be replayed", match=exc.match_id,
                        preset=repr(exc.preset))
    if isinstance(exc, IllegalEvent):
        f = exc.finding
        return lang.say("event {event}: {message} [{code}]", event=f.event,
                        message=Worded(lang.finding(f)), code=f.code)
    return None


async def page_error(request: Request, exc: Exception) -> Response:
    api_call = request.url.path.startswith("/api/") or request.url.path == "/openapi.json"
    own = _own_error(exc)
    lang = request_language(request)
    if isinstance(exc, (StoreError, IllegalEvent)):
        answer = await errors.domain_error(request, exc)
        if api_call:
            return answer
        status = answer.status_code
        message = exc.message if isinstance(exc, StoreError) else str(exc)
    elif own is not None:
        status, code, message = own
        if api_call:
            return JSONResponse({"error": {"code": code, "message": message}}, status)
    elif isinstance(exc, RequestValidationError):
        if api_call:
            return await request_validation_exception_handler(request, exc)
        status = 422
        message = "; ".join(_validation_text(e, lang) for e in exc.errors())
    elif isinstance(exc, StarletteHTTPException):
        if api_call:
            return await http_exception_handler(request, exc)
        status = exc.status_code
        message = (lang.say("There is no page at this address.") if status == 404
                   else str(exc.detail))
    else:
        raise exc
    message = _worded_error(exc, lang) or message
    title = lang.say(next((t for cls, t in _TITLES.items() if isinstance(exc, cls)),
                          N_("Page not found") if status == 404
                          else N_("Something is not right")))
    links = [("/matches", lang.say("All matches")), ("/import", lang.say("Import a file"))]
    _watch_links(request.url.path, status, lang, links)
    found = re.match(r"/matches/(\d+)/replay", request.url.path)
    if found and not isinstance(exc, MatchNotFound):
        links.insert(0, (f"/matches/{found.group(1)}/replay?step=0",
                         lang.say("The replay's first step")))
        links.insert(0, (f"/matches/{found.group(1)}",
                         lang.say("Match {match}", match=int(found.group(1)))))
    return templates.TemplateResponse(request, "error.html", {
        "nav": "", "status": status, "title": title,
        "message": message[:1].upper() + message[1:], "links": links}, status_code=status)


def _watch_links(path: str, status: int, lang: Language, links: list[tuple[str, str]]
                 ) -> None:
    """The recorder's address opened without its key (a spectator given the link): the
    way to watch the match instead, live (web.follow), and its page."""
    found = re.match(r"/matches/(\d+)/record(?:/|$)", path)
    if found is None or status not in (401, 403):
        return
    match_id = int(found.group(1))
    links.insert(0, (f"/matches/{match_id}", lang.say("Match {match}", match=match_id)))
    links.insert(0, (f"/matches/{match_id}/watch", lang.say("Watch this match live")))


# What a field of a page's address or form got wrong, by pydantic's error type: worded in
# the page's language (pydantic's own messages are English only). The API keeps pydantic's.
_WRONG = {
    "missing": N_("{field}: it is missing"),
    "int_parsing": N_("{field}: a whole number is needed"),
    "int_from_float": N_("{field}: a whole number is needed"),
    "float_parsing": N_("{field}: a number is needed"),
    "bool_parsing": N_("{field}: yes or no (true or false) is needed"),
    "greater_than_equal": N_("{field}: {limit} or more"),
    "greater_than": N_("{field}: more than {limit}"),
    "less_than_equal": N_("{field}: {limit} or less"),
    "less_than": N_("{field}: less than {limit}"),
    "string_too_long": N_("{field}: at most {limit} characters"),
}
_LIMITS = {"greater_than_equal": "ge", "greater_than": "gt", "less_than_equal": "le",
           "less_than": "lt", "string_too_long": "max_length"}


def _validation_text(err: Any, lang: Language) -> str:
    field = ".".join(str(p) for p in err.get("loc", ())[1:]) or "?"
    kind = str(err.get("type", ""))
    template = _WRONG.get(kind)
    if template is None:
        return lang.say("{field}: this value is not allowed", field=lang.isolate(field))
    limit = (err.get("ctx") or {}).get(_LIMITS.get(kind, ""), "")
    return lang.say(template, field=lang.isolate(field), limit=limit)
