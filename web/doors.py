"""What a request's text may hold, checked once at the door, before any route reads it.

Every address, query parameter, form field and JSON body passes here (``Doors``, an ASGI
middleware; docs/security.md). Refused with a 422 and a sentence that names the place:

- a NUL character (or another C0 control) anywhere in the path, a query parameter or a
  form field: PostgreSQL's text cannot hold NUL, a file name cannot, and no name,
  preset or date of the ledger holds a control character;
- a path part longer than ``MAX_PART`` characters, a path longer than ``MAX_PATH``, a
  parameter or form field longer than ``MAX_TEXT`` (a player's name has at most 200,
  a key or token 200 in their links): nothing the ledger serves is found by more, and
  a longer text only costs the server work;
- a JSON body holding ``NaN``, ``Infinity``, ``-Infinity`` or a number too large for a
  double (Python's ``json`` reads them, but they are not JSON and no answer can echo
  them back), or a key written twice in one object (a reader keeps one of the two
  without a word; a match file's is a ``duplicate-key`` finding,
  ``ledger.formats.duplicates``). A NUL in a JSON string is refused by the match reader,
  which names the field (``ledger.formats.values``: 422 ``bad-name``, ``bad-format``).

Bodies are read here only when they are JSON or a plain form (small by nature; bounded by
``MAX_BODY``); a multipart upload goes on untouched (``web.routes.upload`` reads it).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ledger.i18n.phrases import N_, Worded, english

MAX_PART = 255   # characters of one part of a path (a file name's limit on Linux)
MAX_PATH = 2048  # characters of a whole path
MAX_TEXT = 256   # characters of a query parameter or a form field, its name or value
MAX_BODY = 1 << 20  # bytes of a JSON or form body read here (the live API's are < 1 KiB)
_CONTROL = re.compile("[\x00-\x1f\x7f]")


class Refusal(ValueError):
    """Why a request cannot be read: a phrase and its parameters, and the status."""

    def __init__(self, template: str, status: int = 422, /, **params: Any) -> None:
        super().__init__(english(template, params))
        self.template = template
        self.status = status
        self.params = params


def _char(found: re.Match[str]) -> str:
    return f"U+{ord(found.group()):04X}"


def check_path(path: str) -> None:
    if len(path) > MAX_PATH:
        raise Refusal(N_("the address is {length} characters long; it may have at most "
                         "{limit}"), length=len(path), limit=MAX_PATH)
    found = _CONTROL.search(path)
    if found is not None:
        raise Refusal(N_("the address holds the control character {char}, which no "
                         "address of the ledger holds"), char=_char(found))
    longest = max(path.split("/"), key=len)
    if len(longest) > MAX_PART:
        raise Refusal(N_("a part of the address is {length} characters long; a part may "
                         "have at most {limit}"), length=len(longest), limit=MAX_PART)


def check_fields(pairs: list[tuple[str, str]], kind: str) -> None:
    """Query parameters (``kind`` "parameter") or form fields ("form field")."""
    for name, value in pairs:
        shown = name[:40]
        for text in (name, value):
            if len(text) > MAX_TEXT:
                raise Refusal(N_("the {kind} {name} is {length} characters long; it may "
                                 "have at most {limit}"), kind=kind, name=repr(shown),
                              length=len(text), limit=MAX_TEXT)
            found = _CONTROL.search(text)
            if found is not None:
                raise Refusal(N_("the {kind} {name} holds the control character {char}, "
                                 "which it may not hold"), kind=kind, name=repr(shown),
                              char=_char(found))


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise Refusal(N_("the JSON body holds the number {number}, which a double cannot "
                         "hold"), number=text[:40])
    return value


def _not_json(name: str) -> float:
    raise Refusal(N_("the JSON body holds {value}, which is not a JSON number"), value=name)


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    got: dict[str, Any] = {}
    for key, value in pairs:
        if key in got:  # a reader would keep one of the two, silently
            raise Refusal(N_("the JSON body writes the key {key} twice in one object"),
                          key=json.dumps(key[:80]))
        got[key] = value
    return got


def check_json(body: bytes) -> None:
    """A JSON body's numbers are finite and no object writes a key twice (text that is not
    JSON at all is the route's to refuse, as FastAPI does: 422 ``json_invalid``; a NUL in
    a string is the match reader's, which names the field: ``ledger.formats.values``)."""
    try:
        json.loads(body, parse_constant=_not_json, parse_float=_finite,
                   object_pairs_hook=_once)
    except (ValueError, RecursionError) as exc:
        if isinstance(exc, Refusal):
            raise


def _content_type(scope: Scope) -> str:
    for name, value in scope.get("headers", ()):
        if name == b"content-type":
            return str(value.decode("latin-1")).split(";")[0].strip().lower()
    return ""


def _is_json(kind: str) -> bool:
    return kind == "application/json" or (kind.startswith("application/")
                                          and kind.endswith("+json"))


async def _body(receive: Receive) -> tuple[bytes, list[Message]]:
    """The whole body (refused beyond ``MAX_BODY``) and the messages that carried it."""
    messages: list[Message] = []
    size = 0
    parts: list[bytes] = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            raise Refusal(N_("the request's body is larger than {size} KiB"), 413,
                          size=MAX_BODY // 1024)
        parts.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(parts), messages


def _replay(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def replayed() -> Message:
        return pending.pop(0) if pending else await receive()

    return replayed


class Doors:
    """ASGI middleware: a request whose text the ledger cannot take is answered here."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            check_path(scope["path"])
            query = scope.get("query_string", b"").decode("latin-1")
            check_fields(parse_qsl(query, keep_blank_values=True, errors="replace"),
                         N_("parameter"))
            kind = _content_type(scope)
            if _is_json(kind) or kind == "application/x-www-form-urlencoded":
                body, messages = await _body(receive)
                receive = _replay(messages, receive)
                if _is_json(kind):
                    check_json(body)
                else:
                    check_fields(parse_qsl(body.decode("latin-1"), keep_blank_values=True,
                                           errors="replace"), N_("form field"))
        except Refusal as refused:
            await refusal(scope, refused)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def refusal(scope: Scope, refused: Refusal) -> Response:
    """The answer: JSON under /api, else a page in the reader's language."""
    from web.lang import request_language
    from web.templating import templates

    request = Request(scope)
    english = str(refused)
    path = scope["path"]
    if path.startswith("/api/") or path == "/openapi.json" or "json" in request.headers.get(
            "accept", "") and "html" not in request.headers.get("accept", ""):
        return JSONResponse({"error": {"code": "bad-request-text", "message": english}},
                            status_code=refused.status)
    lang = request_language(request)
    params = {k: Worded(lang.say(v)) if k == "kind" else v for k, v in refused.params.items()}
    message = lang.say(refused.template, **params)
    return templates.TemplateResponse(request, "error.html", {
        "nav": "", "status": refused.status, "title": lang.say("Something is not right"),
        "message": message[:1].upper() + message[1:],
        "links": [("/matches", lang.say("All matches"))]}, status_code=refused.status)
