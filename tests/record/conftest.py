"""A real server for the recording tests: uvicorn on a free localhost port, a temp SQLite ledger.

Browser tests drive Debian's chromium through Playwright (never a downloaded
build); a request that would leave the machine is refused and fails the test,
and so does a JavaScript error on any page.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import uvicorn

# The store suite's fixtures: ``engine`` is a fresh ledger on SQLite and on PostgreSQL.
from tests.store.conftest import backend, engine, schemas, url  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}  # a common phone, in CSS pixels


@dataclass(frozen=True)
class Server:
    url: str
    db_url: str


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    from web.app import create_app

    db_url = f"sqlite:///{tmp_path_factory.mktemp('record') / 'ledger.db'}"
    port = _free_port()
    config = uvicorn.Config(create_app(db_url), host="127.0.0.1", port=port,
                            log_level="warning", lifespan="on")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    try:
        yield Server(f"http://127.0.0.1:{port}", db_url)
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


# `browser` (one Playwright session for the whole run) is in tests/conftest.py.


@dataclass
class Pages:
    """Browser pages for one test, each in its own context (its own device)."""

    browser: Any
    name: str
    contexts: list[Any] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    shots: list[Path] = field(default_factory=list)

    def open(self, viewport: dict[str, int] = LAPTOP, touch: bool = False) -> Any:
        ctx = self.browser.new_context(viewport=viewport, has_touch=touch,
                                       is_mobile=touch, device_scale_factor=2 if touch else 1)

        def guard(route: Any) -> None:
            host = urlparse(route.request.url).hostname
            if route.request.url.startswith(("data:", "blob:")) or host in ("127.0.0.1",
                                                                             "localhost"):
                route.continue_()
            else:
                self.outside.append(route.request.url)
                route.abort()

        ctx.route("**/*", guard)
        self.contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.set_default_timeout(15_000)
        return page

    def shot(self, page: Any, suffix: str = "", full_page: bool = True) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{self.name}{'-' + suffix if suffix else ''}.png"
        page.screenshot(path=str(path), full_page=full_page)
        self.shots.append(path)
        return path


@pytest.fixture
def pages(browser: Any, request: pytest.FixtureRequest) -> Iterator[Pages]:
    got = Pages(browser, request.node.name.replace("[", "-").replace("]", ""))
    try:
        yield got
        if not got.shots:  # every browser test keeps a screenshot: the page as it ended
            open_pages = [p for ctx in got.contexts for p in ctx.pages]
            for i, p in enumerate(open_pages):
                got.shot(p, f"end{i or ''}")
    finally:
        for ctx in got.contexts:
            ctx.close()
    assert not got.outside, f"a page asked for something outside this machine: {got.outside}"
    assert not got.errors, f"JavaScript errors on the page: {got.errors}"


@pytest.fixture
def api(server: Server) -> Iterator[Callable[..., Any]]:
    """JSON calls to the test server (httpx), for setting up and for forged requests."""
    import httpx

    with httpx.Client(base_url=server.url, timeout=30) as client:
        def call(method: str, path: str, **kw: Any) -> Any:
            return client.request(method, path, **kw)

        yield call
