"""The match page's review by what each player knew, in Chromium on a 390 px phone: the
button asks for it, the page shows the job's progress and then the report by itself
(web/static/js/knowledge.js), the severity filter lists one kind, a mistake opens the
replay at its step, and nothing scrolls sideways, in English and in Arabic."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from webtest_support import SCREENSHOTS, keep_local, ledger_with, serving

from web.app import create_app

pytestmark = pytest.mark.browser

QUICK = "domena-2.json"
WIDTH = 390


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    url, mid = ledger_with(tmp_path_factory.mktemp("knowledge-browser"), QUICK)
    with serving(create_app(url)) as base:
        yield base, mid


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": WIDTH, "height": 800})
    outside: list[str] = []
    keep_local(context, outside)
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    context.close()
    assert not outside, outside


def _serious(page: Any) -> list[tuple[str, str, list[Any]]]:
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [(v["id"], v["help"], [n["target"] for n in v["nodes"]][:4])
            for v in found if v["impact"] in ("serious", "critical")]


def _fits(page: Any) -> None:
    assert int(page.evaluate("document.documentElement.scrollWidth")) <= WIDTH


def test_ask_watch_filter_and_open_a_mistake(phone: Any, site: tuple[str, int]) -> None:
    base, mid = site
    phone.goto(f"{base}/matches/{mid}")
    _fits(phone)
    phone.click("#ask-review button")
    # The progress line, then (the script asks until it is kept) the report itself.
    phone.wait_for_selector("#review-players", timeout=600_000)
    _fits(phone)
    assert not _serious(phone)
    folder = SCREENSHOTS / "knowledge"
    folder.mkdir(parents=True, exist_ok=True)
    phone.locator("#knowledge-review").screenshot(path=str(folder / "en-390-review.png"))
    counts = {}
    for s in ("inaccuracy", "mistake", "blunder"):
        label = phone.locator(f'#review-filter a[data-severity="{s}"]').inner_text()
        got = re.search(r"\((\d+)\)", label)
        assert got is not None
        counts[s] = int(got.group(1))
    kind = max(counts, key=lambda s: counts[s])
    assert counts[kind] > 0  # the sample has something to filter
    phone.click(f'#review-filter a[data-severity="{kind}"]')
    phone.wait_for_url(re.compile(rf"review={kind}"))
    items = phone.locator("#review-mistakes li")
    assert items.count() == counts[kind]
    assert set(items.evaluate_all("els => els.map(e => e.dataset.severity)")) == {kind}
    event = int(items.first.get_attribute("data-event"))
    items.first.locator("a.where").click()
    phone.wait_for_url(re.compile(r"/replay\?"))
    query = parse_qs(urlparse(phone.url).query)
    assert urlparse(phone.url).path == f"/matches/{mid}/replay"
    assert query["step"] == [str(event + 1)]


def test_the_report_in_arabic_fits_the_phone(phone: Any, site: tuple[str, int]) -> None:
    base, mid = site
    phone.goto(f"{base}/matches/{mid}?lang=ar")
    if phone.locator("#ask-review").count():  # this test run alone: ask for it first
        phone.click("#ask-review button")
    phone.wait_for_selector("#review-players", timeout=600_000)
    assert phone.evaluate("document.documentElement.dir") == "rtl"
    _fits(phone)
    text = phone.locator("#knowledge-review").inner_text()
    assert "مراجعة بحسب ما عرفه اللاعب" in text
    assert "Review by" not in text
    assert not _serious(phone)
    folder = SCREENSHOTS / "knowledge"
    folder.mkdir(parents=True, exist_ok=True)
    phone.locator("#knowledge-review").screenshot(path=str(folder / "ar-390-review.png"))
