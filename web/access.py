"""Who may read and write (docs/security.md): the server's mode, the owner token, the
recorder keys, cross-site posts and trusted hosts, in one place.

Modes: ``open`` (who reaches the server may write: on a loopback address, by default,
anyone on this machine, and a request a proxy forwarded is this machine's only from a
trusted proxy, ``serve --trusted-proxy``, for a loopback address; with ``serve --open``,
anyone), ``keys`` (the default on any other address: imports and
new matches need the owner token, a live match's appends and undos its recorder key)
and ``private`` (``serve --private``: reading needs the owner token or, for its own
match, a recorder key too).

A credential comes as ``Authorization: Bearer <key>``, or as a cookie the browser got
from a link: ``?token=`` (the owner token, any page) and ``?key=`` (a recorder key, a
page under ``/matches/{id}``) set it and lead on to the same address without it.
Keys are compared in constant time; refusals are logged (never the key).
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import logging
import os
import re
import secrets
import socket
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Annotated
from urllib.parse import urlencode, urlsplit

from fastapi import Depends, FastAPI, Request
from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.responses import PlainTextResponse, RedirectResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ledger.replay import deal_span
from ledger.seatview import SPECTATOR, Viewer
from ledger.store import read
from ledger.store.handles import Engine
from web.matchdata import StoredMatch

log = logging.getLogger("domino_ledger.access")

TOKEN_ENV = "DOMINO_LEDGER_TOKEN"
PROXY_ENV = "DOMINO_LEDGER_TRUSTED_PROXY"  # addresses, comma-separated (serve --trusted-proxy)
TOKEN_FILE = "owner-token"
OWNER_COOKIE = "dl_owner"
KEY_COOKIE = "dl_key_{match}"
COOKIE_AGE = 60 * 60 * 24 * 90
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")
TEST_HOST = "testserver"   # what Starlette's TestClient sends; only the default app takes it
_MATCH_PATH = re.compile(r"^/(?:api/)?matches/(\d{1,18})(?:/|$)")


class Mode(StrEnum):
    OPEN = "open"
    KEYS = "keys"
    PRIVATE = "private"


@dataclass(frozen=True, slots=True)
class Access:
    """The app's access setting (``create_app(access=...)``)."""

    mode: Mode = Mode.OPEN
    owner_token: str | None = None
    hosts: tuple[str, ...] = (*LOOPBACK_NAMES, TEST_HOST)
    secure_cookies: bool = False
    # Proxies whose forwarded addresses are believed (``serve --trusted-proxy``): addresses
    # or networks. Open on loopback means open to this machine: a request a proxy forwards
    # from elsewhere is not (``forwarded``, below).
    trusted_proxies: tuple[str, ...] = ()
    open_to_all: bool = False  # ``serve --open``: writes open whoever sends them
    _digest: bytes = field(default=b"", repr=False)
    _proxies: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = field(
        default=(), repr=False)

    def __post_init__(self) -> None:
        if self.mode != Mode.OPEN and not self.owner_token:
            raise ValueError(f"the {self.mode} mode needs an owner token")
        if self.owner_token:
            object.__setattr__(self, "_digest", read.key_digest(self.owner_token))
        object.__setattr__(self, "_proxies", tuple(
            ipaddress.ip_network(p.strip("[]"), strict=False) for p in self.trusted_proxies))

    @property
    def writes_open(self) -> bool:
        """The server's mode is open (to this machine, or to all with ``--open``); whether
        one request is served as open is ``open_to(request)``."""
        return self.mode == Mode.OPEN

    def trusts(self, address: str) -> bool:
        ip = _ip(address)
        return ip is not None and any(ip in net for net in self._proxies)

    def is_owner_token(self, token: str | None) -> bool:
        if not token or not self._digest:
            return False
        return hmac.compare_digest(self._digest, read.key_digest(token))


def _ip(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(address.strip().strip('"').strip("[]"))
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def owner_token(folder: Path) -> str:
    """``$DOMINO_LEDGER_TOKEN``, else the token kept in ``folder`` (made on first start)."""
    env = os.environ.get(TOKEN_ENV, "").strip()
    if env:
        return env
    path = folder / TOKEN_FILE
    if path.is_file():
        kept = path.read_text(encoding="utf-8").strip()
        if kept:
            return kept
    folder.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(token + "\n")
    return token


def served_hosts(host: str, extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The Host names a server on ``host`` answers: loopback, the address, the machine."""
    names = [*LOOPBACK_NAMES, *extra]
    if host not in ("0.0.0.0", "::", ""):
        names.append(host)
    else:  # every address: the machine's names and addresses
        name = socket.gethostname()
        names += [name, socket.getfqdn()]
        with contextlib.suppress(OSError):
            names += [str(info[4][0]) for info in socket.getaddrinfo(name, None)]
    return tuple(dict.fromkeys(n for n in names if n))


def setting(request: Request) -> Access:
    got = getattr(request.app.state, "access", None)
    return got if isinstance(got, Access) else Access()


# --- credentials ---------------------------------------------------------------------


def _bearer(headers: Headers) -> str | None:
    auth = headers.get("authorization", "")
    scheme, _, value = auth.partition(" ")
    return value.strip() or None if scheme.lower() == "bearer" else None


# --- forwarded requests ------------------------------------------------------------------

FORWARD_HEADERS = ("forwarded", "x-forwarded-for", "x-real-ip")
_FOR = re.compile(r'for=("\[[^\]]*\](?::\d+)?"|"[^"]*"|[^;,\s]+)', re.IGNORECASE)
_warned = threading.Event()  # forwarded headers from a proxy not trusted: said once


def forwarded_chain(headers: Headers) -> list[str] | None:
    """The addresses a request was forwarded for, first (the client) to last; None when it
    carries no forwarding header. ``Forwarded`` first, then ``X-Forwarded-For``,
    ``X-Real-IP``."""
    if "forwarded" in headers:
        found = _FOR.findall(", ".join(headers.getlist("forwarded")))
        return [_bare(f) for f in found]
    if "x-forwarded-for" in headers:
        return [a.strip() for a in ", ".join(headers.getlist("x-forwarded-for")).split(",")]
    if "x-real-ip" in headers:
        return [headers["x-real-ip"].strip()]
    return None


def _bare(value: str) -> str:
    """``"[2001:db8::1]:4711"`` → ``2001:db8::1``; ``192.0.2.1:80`` → ``192.0.2.1``."""
    value = value.strip('"')
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def forwarded_client(access: Access, peer: str, headers: Headers) -> str | None:
    """Who a forwarded request comes from: the last address of its chain that is not a
    trusted proxy (None: not forwarded, or forwarded by a peer that is not trusted, whose
    word is worth nothing)."""
    chain = forwarded_chain(headers)
    if chain is None or not access.trusts(peer):
        return None
    for address in reversed(chain):
        if not access.trusts(address):
            return address
    return chain[0] if chain else None


def client_address(request: Request) -> str:
    """Who sent ``request``: the address a trusted proxy forwarded it for, else its peer's
    (per-client shares, the log)."""
    peer = request.client.host if request.client else ""
    return forwarded_client(setting(request), peer, request.headers) or peer


def open_to(request: Request) -> bool:
    """Whether ``request`` may write without a credential: the server is open, and (unless
    ``--open``) the request is this machine's. A request a proxy forwarded is this
    machine's only when the proxy is trusted and the address it forwarded for is loopback;
    a forwarding header from a peer not trusted makes it another machine's (and is said
    once in the log: ``serve --trusted-proxy`` is how to trust one)."""
    access = setting(request)
    if not access.writes_open:
        return False
    if access.open_to_all:
        return True
    chain = forwarded_chain(request.headers)
    if chain is None:
        return True
    peer = request.client.host if request.client else ""
    if not access.trusts(peer):
        if not _warned.is_set():
            _warned.set()
            log.warning("a request from %s carries forwarding headers (%s) but no trusted "
                        "proxy is set: such requests are served as another machine's (writes "
                        "need the owner token); run `domino-ledger serve --trusted-proxy "
                        "ADDRESS` (or set $%s) to believe a proxy on this machine", peer or "?",
                        ", ".join(h for h in FORWARD_HEADERS if h in request.headers),
                        PROXY_ENV)
        return False
    client = forwarded_client(access, peer, request.headers)
    return client is not None and is_loopback(client)


def is_owner(request: Request) -> bool:
    access = setting(request)
    if open_to(request):
        return True
    return (access.is_owner_token(_bearer(request.headers))
            or access.is_owner_token(request.cookies.get(OWNER_COOKIE)))


def _key_of(request: Request, match_id: int) -> list[str]:
    got = [request.cookies.get(KEY_COOKIE.format(match=match_id)),
           request.headers.get("x-recorder-key"), _bearer(request.headers)]
    return [k for k in got if k]


def holds_key(request: Request, engine: Engine, match_id: int) -> bool:
    """Whether the request may write to (and see every hand of) live match ``match_id``."""
    if open_to(request):
        return True
    given = _key_of(request, match_id)
    if not given:
        return False
    with engine.connect() as conn:
        return any(read.key_holds(conn, match_id, k) for k in given)


class Refused(HTTPException):
    """A write (or, in the private mode, a read) without the credential it needs."""

    def __init__(self, request: Request, status: int, message: str) -> None:
        super().__init__(status, message)
        client = client_address(request) or "?"
        log.warning("refused %s %s from %s: %s", request.method, request.url.path, client,
                    message)


def _engine(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


def require_owner(request: Request) -> None:
    """Imports and new matches: the owner token, unless writes are open."""
    if is_owner(request):
        return
    has = _bearer(request.headers) or request.cookies.get(OWNER_COOKIE)
    raise Refused(request, 403 if has else 401,
                  "this server takes imports and new matches only with its owner token "
                  "(the one `domino-ledger serve` printed): send it as "
                  "'Authorization: Bearer <token>', or open a page once with ?token=<token>")


def require_key(request: Request, match_id: int) -> None:
    """Appends and undos: the match's recorder key, unless writes are open."""
    if holds_key(request, _engine(request), match_id):
        return
    has = bool(_key_of(request, match_id))
    raise Refused(request, 403 if has else 401,
                  f"match {match_id} takes events only with its recorder key (the link shown "
                  "when it was started): send it as 'Authorization: Bearer <key>', or open "
                  "the recorder's link once")


OwnerOnly = Annotated[None, Depends(require_owner)]
RecorderOnly = Annotated[None, Depends(require_key)]


# --- live privacy -----------------------------------------------------------------------


def deal_finished(match: StoredMatch, step: int) -> bool:
    """Whether the deal on the table at ``step`` is over for good (another deal follows,
    or the match is no longer being recorded)."""
    if match.origin != "live" or match.status != "recording":
        return True
    _, stop = deal_span(match.types, max(step, 1))
    return stop < len(match.types)


def allowed_view(request: Request, match: StoredMatch, step: int, asked: Viewer) -> Viewer:
    """``asked``, or the spectator's view while the deal is being recorded and the request
    holds no recorder key for it: nobody else sees a hand of a deal in play."""
    if asked.spectator or deal_finished(match, step):
        return asked
    if holds_key(request, _engine(request), match.id):
        return asked
    return SPECTATOR


def sees_live_hands(request: Request, match_id: int, origin: str, status: str) -> bool:
    if origin != "live" or status != "recording":
        return True
    return holds_key(request, _engine(request), match_id)


# --- middleware ---------------------------------------------------------------------------


def _origin_of(url: str) -> tuple[str, str] | None:
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return None
    return parts.scheme.lower(), parts.netloc.lower()


class SameOrigin:
    """ASGI middleware: a post (any unsafe method) from another site is refused.

    Browsers name the page a request comes from in ``Origin`` (else ``Referer``); it must
    be this server as the request addresses it. A request naming neither is a program's
    (curl, the API's clients), which a browser on another site cannot make.
    """

    SAFE = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in self.SAFE:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        said = headers.get("origin") or headers.get("referer")
        if said is not None:
            here = (str(scope.get("scheme", "http")), headers.get("host", "").lower())
            if _origin_of(said) != here:
                client = scope.get("client")
                log.warning("refused a cross-site %s %s from %s (origin %r)", scope["method"],
                            scope.get("path"), client[0] if client else "?", said[:200])
                response = PlainTextResponse(
                    "refused: this form was sent from another site", status_code=403)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class KeyLinks:
    """ASGI middleware: ``?token=`` and ``?key=`` on a page become cookies, and the browser
    goes on to the same address without them (so they leave no trace in its history)."""

    def __init__(self, app: ASGIApp, secure: bool = False) -> None:
        self.app = app
        self.secure = secure

    def _cookie(self, name: str, value: str, path: str = "/") -> str:
        flags = "; Secure" if self.secure else ""
        return (f"{name}={value}; Path={path}; Max-Age={COOKIE_AGE}; HttpOnly; "
                f"SameSite=Strict{flags}")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        params = request.query_params
        token, key = params.get("token"), params.get("key")
        found = _MATCH_PATH.match(scope["path"])
        if not token and not (key and found):
            await self.app(scope, receive, send)
            return
        rest = [(k, v) for k, v in params.multi_items() if k not in ("token", "key")]
        response = RedirectResponse(scope["path"] + ("?" + urlencode(rest) if rest else ""),
                                    status_code=303)
        if token and _safe_value(token):
            response.headers.append("set-cookie", self._cookie(OWNER_COOKIE, token))
        if key and found and _safe_value(key):
            response.headers.append("set-cookie", self._cookie(
                KEY_COOKIE.format(match=found.group(1)), key))
        response.headers["cache-control"] = "no-store"
        response.headers["referrer-policy"] = "no-referrer"
        await response(scope, receive, send)


def _safe_value(value: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z0-9_\-]{1,200}", value))


class PrivateReads:
    """ASGI middleware (``private`` mode): every page and answer needs the owner token, or
    the match's recorder key for that match's own pages."""

    OPEN_PATHS = ("/static/",)

    def __init__(self, app: ASGIApp, access: Access, engine: Engine) -> None:
        self.app = app
        self.access = access
        self.engine = engine

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(self.OPEN_PATHS):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        if self.access.is_owner_token(_bearer(request.headers)) or \
                self.access.is_owner_token(request.cookies.get(OWNER_COOKIE)):
            await self.app(scope, receive, send)
            return
        found = _MATCH_PATH.match(scope["path"])
        if found:
            match_id = int(found.group(1))
            given = _key_of(request, match_id)
            if given:
                with self.engine.connect() as conn:
                    if any(read.key_holds(conn, match_id, k) for k in given):
                        await self.app(scope, receive, send)
                        return
        client = scope.get("client")
        log.warning("refused a private read of %s from %s", scope["path"],
                    client[0] if client else "?")
        response = PlainTextResponse(
            "this ledger is private: open it with the owner token's link "
            "(?token=...) or a match's recorder link", status_code=401,
            headers={"www-authenticate": "Bearer"})
        await response(scope, receive, send)


class NoStoreForKeys:
    """ASGI middleware: an answer given to a key holder is never kept by a shared cache."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message).append("vary", "Cookie, Authorization")
            await send(message)

        await self.app(scope, receive, sending)


def install(app: FastAPI, access: Access, engine: Engine) -> None:
    """The access setting and its middleware (the last added runs first: hosts, then the
    rest)."""
    app.state.access = access
    app.add_middleware(NoStoreForKeys)
    if access.mode == Mode.PRIVATE:
        app.add_middleware(PrivateReads, access=access, engine=engine)
    app.add_middleware(KeyLinks, secure=access.secure_cookies)
    app.add_middleware(SameOrigin)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(access.hosts))


def trusted_proxies(given: Sequence[str] = ()) -> tuple[str, ...]:
    """``--trusted-proxy`` addresses, else those of $DOMINO_LEDGER_TRUSTED_PROXY; each
    checked (a ValueError names one that is not an address or a network)."""
    names = list(given) or [p for p in os.environ.get(PROXY_ENV, "").split(",") if p.strip()]
    out = []
    for name in names:
        try:
            ipaddress.ip_network(name.strip().strip("[]"), strict=False)
        except ValueError:
            raise ValueError(f"--trusted-proxy {name!r} is not an IP address or network "
                             "(for example 127.0.0.1 or 10.0.0.0/8)") from None
        out.append(name.strip())
    return tuple(out)


def serving(host: str, open_writes: bool, private: bool, folder: Path,
            extra_hosts: Sequence[str] = (), proxies: Sequence[str] = ()) -> Access:
    """The setting ``serve`` runs with: open on loopback (to this machine: a request a
    proxy forwards from elsewhere needs the owner token) or with ``--open`` (to all),
    else keys."""
    hosts = served_hosts(host, extra_hosts)
    trusted = trusted_proxies(proxies)
    if private:
        return Access(Mode.PRIVATE, owner_token(folder), hosts, trusted_proxies=trusted)
    if open_writes:
        return Access(Mode.OPEN, None, hosts, trusted_proxies=trusted, open_to_all=True)
    if is_loopback(host):
        try:  # for requests a proxy forwards from elsewhere (none: they cannot write)
            token: str | None = owner_token(folder)
        except OSError:
            token = None
        return Access(Mode.OPEN, token, hosts, trusted_proxies=trusted)
    return Access(Mode.KEYS, owner_token(folder), hosts, trusted_proxies=trusted)


__all__ = ["Access", "Mode", "OwnerOnly", "RecorderOnly", "Refused", "allowed_view",
           "client_address", "deal_finished", "forwarded_chain", "forwarded_client",
           "holds_key", "install", "is_loopback", "is_owner", "open_to", "owner_token",
           "require_key", "require_owner", "sees_live_hands", "served_hosts", "serving",
           "setting", "trusted_proxies"]
