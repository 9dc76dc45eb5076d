"""The replay's controls (issue 16), in Chromium: steps out of range, autoplay, the link to
the step on screen, the Analysis panel's state in the address, the whole-match chart and a
click on its points, Plotly's toolbar clear of the legends; one numbering of the steps."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from webtest_support import Server, analysed, serving

pytestmark = pytest.mark.browser

STEP = "() => Number(document.getElementById('replay').dataset.step)"
LAST = "() => Number(document.getElementById('replay').dataset.last)"


def test_a_step_out_of_range_opens_the_first_or_the_last(page: Any, server: Server) -> None:
    match = server.id_of("domena-2.json")
    res = page.goto(f"{server.url}/matches/{match}/replay?step=9999&seat=1")
    assert res is not None and res.status == 200
    last = page.evaluate(LAST)
    assert page.evaluate(STEP) == last > 0
    assert page.url.endswith(f"?step={last}&seat=1")
    res = page.goto(f"{server.url}/matches/{match}/replay?step=-3")
    assert res is not None and res.status == 200
    assert page.evaluate(STEP) == 0 and page.url.endswith("?step=0")


def test_one_numbering_the_event_list_counts_steps(page: Any, server: Server) -> None:
    match = server.id_of("domena-2.json")
    page.goto(f"{server.url}/matches/{match}/replay?step=12")
    assert page.locator(".now-event .ev-no").inner_text() == "12"
    current = page.locator('.ev[aria-current="step"]')
    assert current.locator(".ev-no").inner_text() == "12"
    for li in page.locator(".deal-group.current .ev").all()[:10]:
        assert li.locator(".ev-no").inner_text() == li.get_attribute("data-step")


def test_autoplay_steps_forward_at_its_speed_and_pauses(page: Any, server: Server,
                                                        shot: Any) -> None:
    match = server.id_of("domena-2.json")
    page.goto(f"{server.url}/matches/{match}/replay?step=3")
    page.select_option("#autoplay-speed", "400")
    page.click("#autoplay")
    assert page.get_attribute("#autoplay", "aria-pressed") == "true"
    page.wait_for_function("() => Number(document.getElementById('replay').dataset.step) >= 6",
                           timeout=10_000)
    assert re.search(r"[?&]step=([6-9]|\d\d)", page.url)  # each step has its address
    shot("playing")
    page.click("#autoplay")
    assert page.get_attribute("#autoplay", "aria-pressed") == "false"
    stopped = page.evaluate(STEP)
    page.wait_for_timeout(1_200)
    assert page.evaluate(STEP) == stopped


def test_copy_link_names_the_step_and_the_seat(page: Any, server: Server) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    match = server.id_of("domena-4.json")
    page.goto(f"{server.url}/matches/{match}/replay?step=17&seat=2")
    page.click("#go-next")
    page.wait_for_function("() => document.getElementById('replay').dataset.step === '18'")
    page.click("#copy-link")
    page.wait_for_function("() => document.getElementById('copy-status').textContent !== ''")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == f"{server.url}/matches/{match}/replay?step=18&seat=2"


def test_the_analysis_panel_stays_open_in_the_address(page: Any, server: Server) -> None:
    match = server.id_of("domena-2.json")
    page.goto(f"{server.url}/matches/{match}/replay?step=5")
    page.click("#analysis-panel > summary")
    page.wait_for_function("() => location.search.includes('analysis=1')")
    page.click("#go-next")  # a step further keeps it
    page.wait_for_function("() => document.getElementById('replay').dataset.step === '6'")
    page.wait_for_function("() => location.search.includes('analysis=1')")
    page.reload()
    assert page.evaluate("document.getElementById('analysis-panel').open")
    page.click("#analysis-panel > summary")
    page.wait_for_function("() => !location.search.includes('analysis')")


def _overlap(page: Any, chart: str) -> bool:
    return bool(page.evaluate("""(sel) => {
      const box = (q) => document.querySelector(sel + ' ' + q)?.getBoundingClientRect();
      const a = box('.modebar'), b = box('.legend');
      if (!a || !b) throw new Error('no toolbar or no legend in ' + sel);
      return !(a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top);
    }""", chart))


def test_the_whole_match_chart_opens_a_step_when_clicked(page: Any, server: Server,
                                                         shot: Any) -> None:
    match = server.id_of("domena-4.json")
    page.goto(f"{server.url}/matches/{match}/replay?step=0")
    page.click("#match-chart-section > summary")
    page.wait_for_selector("#match-chart .scatterlayer .trace .point")
    page.hover("#match-chart")  # the toolbar shows
    assert not _overlap(page, "#match-chart")
    # the third point of the first side: the step at which deal 2 ends
    want = page.evaluate("document.getElementById('match-chart').data[0].customdata[2]")
    point = page.locator("#match-chart .scatterlayer .trace").first.locator(".point").nth(2)
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function(f"() => document.getElementById('replay').dataset.step === '{want}'")
    assert f"step={want}" in page.url
    shot()


def test_the_score_race_keeps_its_legend_clear_of_the_toolbar(page: Any,
                                                               server: Server) -> None:
    match = server.id_of("domena-4.json")
    page.goto(f"{server.url}/matches/{match}")
    page.wait_for_selector("#score-race .legend")
    page.hover("#score-race")
    assert not _overlap(page, "#score-race")


@pytest.fixture
def own_jobs(server: Server) -> Iterator[Server]:
    """A second app over the same ledger with analysis workers of its own: the deals other
    tests asked the shared server to analyse (a 4-seat deal takes minutes on a loaded
    machine) never queue ahead of this one's."""
    from web.app import create_app

    app = create_app(server.db_url)
    with serving(app) as url:
        yield dataclasses.replace(server, url=url, app=app)


def test_a_point_of_the_analysis_chart_opens_its_move(page: Any, own_jobs: Server) -> None:
    """Point k of the Analysis panel's chart is the k-th move of the deal on the table."""
    match = own_jobs.id_of("domena-2.json")
    with httpx.Client(base_url=own_jobs.url, timeout=60) as client:
        ready, _ = analysed(client, match, 1, seconds=180)  # before the page asks
    assert ready.status_code == 200, ready.text
    said = []
    for _ in range(3):  # the chart is drawn from the kept analysis; a reload asks again
        page.goto(f"{own_jobs.url}/matches/{match}/replay?step=3&analysis=1")
        try:
            page.wait_for_selector("#analysis-chart .scatterlayer .trace .point",
                                   timeout=30_000)
            break
        except PlaywrightTimeout:
            said.append(page.inner_text("#analysis-status"))
    else:
        raise AssertionError(f"the analysis chart was never drawn; the panel said {said}")
    moves = page.evaluate("""() => [...document.querySelectorAll('.deal-group.current .ev')]
        .filter(li => /\\bev-(play|draw|pass)\\b/.test(li.className))
        .map(li => Number(li.dataset.step))""")
    assert len(moves) > 4
    point = page.locator("#analysis-chart .scatterlayer .trace").first.locator(".point").nth(4)
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function(
        f"() => document.getElementById('replay').dataset.step === '{moves[3]}'")


def test_the_analysis_button_opens_the_panel_and_brings_it_into_view(page: Any,
                                                                     server: Server) -> None:
    match = server.id_of("domena-2.json")
    page.set_viewport_size({"width": 390, "height": 800})
    page.goto(f"{server.url}/matches/{match}/replay?step=5")
    page.click("#open-analysis")
    page.wait_for_function("() => location.search.includes('analysis=1')")
    page.wait_for_function("""() => { const r = document.getElementById('analysis-panel')
                                        .getBoundingClientRect();
                                      return r.top >= -1 && r.top < innerHeight; }""")
