"""A real server for the web tests: uvicorn on a free localhost port, a temp SQLite ledger.

The ledger holds the sample matches (sample_matches/, the faulty ones included),
imported through the store before the server starts. Browser tests drive
Debian's chromium with Playwright; every request the page makes that would
leave the machine is refused and fails the test.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from webtest_support import (
    SAMPLES,
    SCREENSHOTS,
    Server,
    keep_local,
    sample_files,
    serving,
)


def _import_samples(db_url: str, root: Path) -> dict[str, int]:
    from ledger.store.db import open_db, writing
    from ledger.store.imports.importer import import_file

    engine = open_db(db_url)
    ids: dict[str, int] = {}
    try:
        for path in sample_files(root):
            with writing(engine) as session:
                for got in import_file(session, str(path)):
                    if got.id is not None and got.match == 0:
                        ids[path.name] = got.id
    finally:
        engine.dispose()
    return ids


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    from web.app import create_app

    db_url = f"sqlite:///{tmp_path_factory.mktemp('ledger') / 'ledger.db'}"
    # A copy: the tests compare pages with the files as they were imported.
    samples = tmp_path_factory.mktemp("samples") / "sample_matches"
    shutil.copytree(SAMPLES, samples)
    ids = _import_samples(db_url, samples)
    app = create_app(db_url)
    with serving(app) as url:
        yield Server(url, db_url, samples, ids, app)


# --- the browser -----------------------------------------------------------------------


# `browser` (one Playwright session for the whole run) is in tests/conftest.py.


@dataclass
class Shot:
    """Saves a test's screenshot as an artifact (artifacts/screenshots/, gitignored)."""

    page: Any
    name: str
    taken: list[Path] = field(default_factory=list)

    def __call__(self, suffix: str = "", full_page: bool = True) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{self.name}{'-' + suffix if suffix else ''}.png"
        self.page.screenshot(path=str(path), full_page=full_page)
        self.taken.append(path)
        return path


@pytest.fixture
def page(browser: Any, server: Server) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 950})
    outside: list[str] = []
    keep_local(context, outside)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.set_default_timeout(15_000)
    try:
        yield pg
    finally:
        context.close()
    assert not outside, f"the page asked for something outside this machine: {outside}"
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def shot(page: Any, request: pytest.FixtureRequest) -> Iterator[Shot]:
    """Every browser test keeps at least one screenshot: the page as it ended, if no other."""
    taker = Shot(page, request.node.name.replace("[", "-").replace("]", ""))
    yield taker
    if not taker.taken and not page.is_closed():
        taker("end")
