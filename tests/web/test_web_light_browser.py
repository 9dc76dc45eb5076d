"""A light page (issue 33, item 5): Plotly's basic partial bundle draws every chart, the
page's script stays under 600 KB gzipped, the toolbar is off on a phone, and a chart on
the Arabic page speaks Arabic (axis titles, hover texts, the toolbar's titles)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from webtest_support import Server, analysed, keep_local

pytestmark = pytest.mark.browser

LIMIT = 600 * 1024  # the goal: page JavaScript <= 600 KB gzipped
SAMPLE = "domena-4.json"
ARABIC = re.compile(r"[\u0600-\u06ff]")


@pytest.fixture
def opened(browser: Any) -> Iterator[Any]:
    """A new browser page of its own size (``opened(width)``); the scripts it was sent, by
    address and gzipped size, in ``page.scripts``."""
    contexts: list[Any] = []
    outside: list[str] = []
    errors: list[str] = []

    def open_page(width: int = 1280, height: int = 900) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height})
        keep_local(context, outside)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.scripts = {}

        def note(res: Any) -> None:
            if res.request.resource_type == "script":
                page.scripts[res.url] = int(res.headers.get("content-length", "0"))

        page.on("response", note)
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert not outside, f"the page asked for something outside this machine: {outside}"
    assert not errors, f"JavaScript errors on the page: {errors}"


def _plotly_loaded(page: Any) -> list[str]:
    return [url for url in page.scripts if "plotly" in url]


def test_the_match_page_draws_its_chart_with_the_partial_bundle_under_600_kb(
        opened: Any, server: Server) -> None:
    page = opened()
    page.goto(f"{server.url}/matches/{server.id_of(SAMPLE)}")
    page.wait_for_selector("#score-race svg.main-svg")
    assert [u.rsplit("/", 1)[1] for u in _plotly_loaded(page)] == ["plotly-basic.min.js"]
    sent = sum(page.scripts.values())
    assert 0 < sent <= LIMIT, page.scripts
    # Every script was sent gzipped: none near its own size.
    assert page.scripts[_plotly_loaded(page)[0]] < 500_000


def test_the_replay_draws_both_charts_with_the_partial_bundle(opened: Any,
                                                              server: Server) -> None:
    match_id = server.id_of(SAMPLE)
    # The deal is solved first, off the page: on a busy two-core run its analysis alone can
    # take more than a minute, and this test is about which bundle draws, not how fast.
    with httpx.Client(base_url=server.url, timeout=60) as client:
        deal = client.get(f"/api/matches/{match_id}/replay", params={"step": 30}).json()["deal"]
        answer, _ = analysed(client, match_id, deal)
        assert answer.status_code == 200, answer.text
    page = opened()
    page.goto(f"{server.url}/matches/{match_id}/replay?step=30&analysis=1")
    page.click("#match-chart-section > summary")
    page.wait_for_selector("#match-chart svg.main-svg")
    page.wait_for_selector("#analysis-chart svg.main-svg", timeout=60_000)
    assert [u.rsplit("/", 1)[1] for u in _plotly_loaded(page)] == ["plotly-basic.min.js"]
    # the whole-match chart's bars (points lost, once analysed) are a trace of the bundle too
    assert page.evaluate("Object.keys(Plotly.PlotSchema.get().traces).sort().join()") \
        == "bar,pie,scatter"
    assert sum(page.scripts.values()) <= LIMIT, page.scripts


def test_the_players_page_sends_no_plotly(opened: Any, server: Server) -> None:
    page = opened()
    page.goto(f"{server.url}/players", wait_until="load")
    assert page.locator("table").count() >= 1
    assert not _plotly_loaded(page) and sum(page.scripts.values()) <= LIMIT


def test_the_arabic_chart_speaks_arabic(opened: Any, server: Server) -> None:
    page = opened()
    page.goto(f"{server.url}/matches/{server.id_of(SAMPLE)}?lang=ar")
    page.wait_for_selector("#score-race svg.main-svg")
    titles = page.locator("#score-race .g-xtitle text, #score-race .g-ytitle text")
    assert titles.count() == 2
    for text in titles.all_text_contents():
        assert ARABIC.search(text) and not re.search(r"[A-Za-z]", text), text
    # A point's hover text: the deal, its winner and result, the points, in Arabic.
    point = page.locator("#score-race .scatterlayer .trace").first.locator(".point").nth(1)
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2 - 6, box["y"] + box["height"] / 2, steps=3)
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=3)
    hover = page.locator("#score-race .hoverlayer .hovertext")
    hover.first.wait_for()
    said = " ".join(hover.all_text_contents())
    names = page.evaluate("document.getElementById('score-race').data.map(t => t.name)")
    for name in names:
        said = said.replace(name, "")
    assert ARABIC.search(said), said
    assert not re.search(r"\b(?:Deal|points?|wins|out|block|Start)\b", said), said
    # Plotly's toolbar: its buttons' titles from the catalogs.
    page.hover("#score-race")
    titles = page.locator("#score-race .modebar-btn").evaluate_all(
        "bs => bs.map(b => b.getAttribute('data-title'))")
    assert titles and all(ARABIC.search(t) for t in titles), titles


def test_the_english_chart_keeps_plotly_words(opened: Any, server: Server) -> None:
    page = opened()
    page.goto(f"{server.url}/matches/{server.id_of(SAMPLE)}?lang=en")
    page.wait_for_selector("#score-race svg.main-svg")
    page.hover("#score-race")
    titles = page.locator("#score-race .modebar-btn").evaluate_all(
        "bs => bs.map(b => b.getAttribute('data-title'))")
    assert "Zoom in" in titles and "Download plot as a PNG" in titles
    assert "Share chart..." not in titles  # Plotly 4's button that sends the chart to its cloud


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_no_toolbar_on_a_phone(opened: Any, server: Server, lang: str) -> None:
    match = server.id_of(SAMPLE)
    wide = opened(1280)
    wide.goto(f"{server.url}/matches/{match}?lang={lang}")
    wide.wait_for_selector("#score-race svg.main-svg")
    wide.hover("#score-race")
    assert wide.locator("#score-race .modebar-btn").first.is_visible()  # the check can fail
    phone = opened(360, 780)
    phone.goto(f"{server.url}/matches/{match}?lang={lang}")
    phone.wait_for_selector("#score-race svg.main-svg")
    phone.hover("#score-race")
    assert phone.locator("#score-race .modebar-btn").count() == 0
    phone.goto(f"{server.url}/matches/{match}/replay?step=30&lang={lang}")
    phone.click("#match-chart-section > summary")
    phone.wait_for_selector("#match-chart svg.main-svg")
    phone.hover("#match-chart")
    assert phone.locator("#match-chart .modebar-btn").count() == 0
