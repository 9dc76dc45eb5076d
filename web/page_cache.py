"""Whole answers kept while the ledger holds the same: the matches list, the API's list
and a match's page.

A list depends on its query, the page's language and what the ledger holds. The
ledger only ever grows (the store's triggers refuse every update and delete of matches
and events), so the largest match id and the largest event id change whenever a list
could: a match stored, an event appended, by this process or any other. Reading them is
two index look-ups (well under a millisecond) instead of the list's queries and its
template (30 ms for 50 rows). A match's page (``/matches/N``: its header, events,
findings and score sheet, the same for every reader) changes only with its head (event
count and last hash: one primary-key look-up), so an append elsewhere keeps it. A read
model rebuilt in place (``domino-ledger rebuild``) moves neither, so an answer is also
kept at most ``TTL`` seconds.

An ASGI middleware inside ``LanguageCookie`` (which adds its headers to kept answers
too) and outside ``GZipMiddleware``: an answer is kept as sent, compressed when the
request takes gzip (so a kept answer is never compressed again), one per encoding. Only
GETs of ``PATHS`` and match pages answered 200 without a cookie of their own are kept,
``SIZE`` of them, the least recently used dropped first. Pages that depend on who asks
(the replay: hands of a deal in play need its key) are never kept.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ledger.store.errors import database_errors
from ledger.store.handles import Engine
from ledger.store.read import EngineVersions, QuickVersions, Version
from web.access import KEY_COOKIE, OWNER_COOKIE
from web.lang import request_language

PATHS = frozenset({"/matches", "/api/matches"})
MATCH_PAGE = re.compile(r"/matches/([1-9][0-9]{0,8})")
SIZE = 1024
TTL = 10.0

KEY_PREFIX = KEY_COOKIE.split("{", 1)[0]
Key = tuple[str, str, str, bool, Version, int]


def _version(versions: QuickVersions | EngineVersions, path: str) -> Version | None:
    """What the answer at ``path`` is kept by; None: it is not kept."""
    if path in PATHS:
        return versions.ledger()
    page = MATCH_PAGE.fullmatch(path)
    return versions.match(int(page.group(1))) if page else None


class PageCache:
    """ASGI middleware keeping the answers of ``PATHS`` per query, language and version."""

    def __init__(self, app: ASGIApp, size: int = SIZE, ttl: float = TTL) -> None:
        self.app = app
        self.size = size
        self.ttl = ttl
        self._kept: OrderedDict[Key, tuple[float, list[Message]]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope["path"] if scope["type"] == "http" else ""
        if scope["type"] != "http" or scope["method"] != "GET" or not (
                path in PATHS or MATCH_PAGE.fullmatch(path)):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        if _credentialed(request):  # what it may see can differ: never kept, never served
            await self.app(scope, receive, send)
            return
        quick: QuickVersions | None = getattr(request.app.state, "quick_versions", None)
        try:
            if quick is not None:  # a SQLite file: read here, in microseconds
                version = _version(quick, path)
            else:
                # In a thread: waiting for a pooled connection must never hold up the event
                # loop (the requests that would give theirs back need it to finish).
                engine: Engine = request.app.state.engine
                version = await run_in_threadpool(_version, EngineVersions(engine), path)
        except database_errors():  # the app's own reads meet it too, and answer it (a 503)
            version = None
        if version is None:  # a match that is not there: the app says so
            await self.app(scope, receive, send)
            return
        generation = getattr(request.app.state, "page_generations", {}).get(path, 0)
        key = (path, scope.get("query_string", b"").decode("latin-1"),
               request_language(request).code,
               "gzip" in request.headers.get("accept-encoding", ""), version, generation)
        kept = self._get(key)
        if kept is not None:
            for message in kept:
                await send(message)
            return
        messages: list[Message] = []

        async def keep(message: Message) -> None:
            if message["type"].startswith("http.response.") and \
                    message["type"] != "http.response.debug":  # the test client's extra
                messages.append(_copy(message))  # as the app said it, before outer middleware
            await send(message)

        await self.app(scope, receive, keep)
        if _keepable(messages):
            self._put(key, messages)

    def _get(self, key: Key) -> list[Message] | None:
        with self._lock:
            found = self._kept.get(key)
            if found is None:
                return None
            if time.monotonic() - found[0] > self.ttl:
                del self._kept[key]
                return None
            self._kept.move_to_end(key)
            self.hits += 1
            return [_copy(m) for m in found[1]]

    def _put(self, key: Key, messages: list[Message]) -> None:
        with self._lock:
            self._kept[key] = (time.monotonic(), messages)
            self._kept.move_to_end(key)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)


def _credentialed(request: Request) -> bool:
    """Whether the request carries the owner token or a recorder key (web.access): a live
    match's page shows its holder what others do not see."""
    headers = request.headers
    return ("authorization" in headers or "x-recorder-key" in headers
            or any(name == OWNER_COOKIE or name.startswith(KEY_PREFIX)
                   for name in request.cookies))


def _keepable(messages: list[Message]) -> bool:
    if not messages or messages[0]["type"] != "http.response.start":
        return False
    start = messages[0]
    if start["status"] != 200:
        return False
    headers = start.get("headers", [])
    # A page that depends on its reader or on a running job says so: no-store.
    return not any(name.lower() == b"set-cookie" or
                   (name.lower() == b"cache-control" and b"no-store" in value.lower())
                   for name, value in headers)


def forget(app_state: Any, path: str) -> None:
    """Drop what this process keeps for ``path`` (a write the version does not see, such as
    asking for a match's review, changes its page)."""
    generations: dict[str, int] = app_state.__dict__.setdefault("page_generations", {})
    generations[path] = generations.get(path, 0) + 1


def _copy(message: Message) -> dict[str, Any]:
    # Later middleware may add headers to the start message: each answer gets its own.
    out = dict(message)
    if "headers" in out:
        out["headers"] = list(out["headers"])
    return out
