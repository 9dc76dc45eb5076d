"""The replay's Analysis panel (issue 6): the deal's analysis as JSON, and the panel in Chromium.

What the route and the page show is checked against ``review_match`` run here on the
recorded events of the same sample file the ledger was filled from.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from webtest_support import Server

from ledger.analysis.knowledge import iter_knowledge
from ledger.analysis.review import DealReview, review_match
from ledger.analysis.swing import swing_figure
from ledger.formats.reader import parse_match
from ledger.rules import make_rules
from ledger.rules.base import Rules

SAMPLE = "domena-2.json"


def reviewed(obj: dict[str, Any]) -> tuple[Rules, list[Any], list[DealReview]]:
    rec = parse_match(obj)
    assert rec.header is not None
    rules = make_rules(rec.header.rules, len(rec.header.seats), rec.header.options)
    return rules, list(rec.events), review_match(rules, rec.events)


def with_mistake(reviews: list[DealReview]) -> DealReview:
    """A deal past the first (scores running) with a mistake (computed: not every deal has)."""
    return next(r for r in reviews[1:] if len(r.mistakes) > 1)


@pytest.fixture(scope="module")
def client(server: Server) -> Any:
    with httpx.Client(base_url=server.url, timeout=120) as c:
        yield c


def test_analysis_json_is_the_review_of_the_deal(client: Any, server: Server) -> None:
    obj = server.sample(SAMPLE)
    rules, events, reviews = reviewed(obj)
    review = with_mistake(reviews)
    deal = review.deal + 1
    res = client.get(f"/api/matches/{server.id_of(SAMPLE)}/analysis", params={"deal": deal})
    assert res.status_code == 200, res.text
    got = res.json()
    want = review.to_dict()
    assert {k: got[k] for k in want} == want
    assert set(got) >= {"best", "decisions", "steps", "mistakes", "swing", "knowledge"}
    assert got["swing"] == swing_figure(review, rules, obj["seats"])
    assert [m["step"] for m in got["mistakes"]] == [d.event + 1 for d in review.mistakes]
    assert [m["lost"] for m in got["mistakes"]] == [d.lost for d in review.mistakes]
    assert [s["step"] for s in got["steps"]] == [review.event + 1,
                                                 *(s.event + 1 for s in review.steps)]
    knowledge = [k.to_dict() for k in iter_knowledge(rules, events) if k.deal == review.deal]
    assert got["knowledge"] == knowledge
    # Asked again: the same answer, from the cache.
    assert client.get(f"/api/matches/{server.id_of(SAMPLE)}/analysis",
                      params={"deal": deal}).json() == got
    # A deal the match does not have, a match the ledger does not have.
    assert client.get(f"/api/matches/{server.id_of(SAMPLE)}/analysis",
                      params={"deal": 99}).status_code == 404
    assert client.get("/api/matches/999999/analysis", params={"deal": 1}).status_code == 404


@pytest.mark.browser
def test_panel_next_mistake_by_key(page: Any, shot: Any, server: Server) -> None:
    obj = server.sample(SAMPLE)
    _, _, reviews = reviewed(obj)
    review = with_mistake(reviews)
    first, second = review.mistakes[0], review.mistakes[1] if len(review.mistakes) > 1 else None
    start = review.event + 1   # the deal dealt, before its first move
    match_id = server.id_of(SAMPLE)
    page.goto(f"{server.url}/matches/{match_id}/replay?step={start}&seat={first.seat}")
    page.click("#analysis-panel > summary")
    page.wait_for_selector(f'#analysis-panel[data-ready="{start}"]')
    assert page.locator("#analysis-best").inner_text() != ""
    # What the viewing seat knew: one line per other seat, and seven unseen counts.
    assert page.locator("#analysis-lacks li").count() == len(obj["seats"]) - 1
    assert page.locator("#analysis-unseen tbody td").count() == 7
    page.keyboard.press("n")
    step = first.event + 1
    page.wait_for_selector(f'#replay[data-step="{step}"]')
    page.wait_for_selector(f'#analysis-panel[data-ready="{step}"]')
    assert page.url.endswith(f"/replay?step={step}&seat={first.seat}")
    move = page.locator("#analysis-move")
    assert move.get_attribute("data-lost") == str(first.lost)
    assert "?" in move.locator(".blunder").inner_text()
    assert str(first.lost) in move.inner_text()
    options = page.locator("#analysis-options tbody tr")
    assert options.count() == len(first.options)
    assert page.locator("#analysis-options tr.played").get_attribute("data-move") == first.played
    assert page.locator("#analysis-chart .main-svg").count() >= 1   # the swing chart drawn
    shot("first-mistake")
    if second is not None:
        page.click("#next-mistake")
        page.wait_for_selector(f'#replay[data-step="{second.event + 1}"]')
        page.keyboard.press("p")
        page.wait_for_selector(f'#replay[data-step="{step}"]')
