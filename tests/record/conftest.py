"""A real server for the recording tests: uvicorn on a free localhost port, a temp SQLite ledger.

Browser tests drive Debian's chromium through Playwright (never a downloaded
build); a request that would leave the machine is refused and fails the test,
and so does a JavaScript error on any page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

# The store suite's fixtures: ``engine`` is a fresh ledger on SQLite and on PostgreSQL.
from tests.store.conftest import backend, engine, schemas, url  # noqa: F401
from tests.web.webtest_support import SCREENSHOTS, keep_local, serving

LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}  # a common phone, in CSS pixels


@dataclass(frozen=True)
class Server:
    url: str
    db_url: str



@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    from web.app import create_app

    db_url = f"sqlite:///{tmp_path_factory.mktemp('record') / 'ledger.db'}"
    with serving(create_app(db_url)) as address:
        yield Server(address, db_url)


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
        keep_local(ctx, self.outside)
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
