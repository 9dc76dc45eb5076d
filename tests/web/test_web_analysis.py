"""The replay's Analysis panel (issue 6): the deal's analysis as JSON, and the panel in Chromium.

What the route and the page show is checked against ``review_match`` run here on the
recorded events of the same sample file the ledger was filled from.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from webtest_support import Server, analysed, without_worded

from ledger.analysis.knowledge import iter_knowledge
from ledger.analysis.review import DealReview, review_match
from ledger.analysis.swing import swing_figure
from ledger.formats.reader import parse_match
from ledger.i18n import language
from ledger.rules import make_rules
from ledger.rules.base import Rules

SAMPLE = "domena-2.json"


def reviewed(obj: dict[str, Any]) -> tuple[Rules, list[Any], list[DealReview]]:
    rec = parse_match(obj)
    assert rec.header is not None
    rules = make_rules(rec.header.preset, len(rec.header.seats), rec.header.options)
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
    res, _ = analysed(client, server.id_of(SAMPLE), deal)
    assert res.status_code == 200, res.text
    got = res.json()
    want = review.to_dict()
    shown = {k: without_worded(got[k]) for k in want}
    # Each decision under both measures (issue 29): no knowledge review is kept here.
    both = ("hindsight_lost", "knowledge_lost", "severity")
    assert all((d["hindsight_lost"], d["knowledge_lost"], d["severity"]) == (d["lost"], None, None)
               for d in shown["decisions"])
    shown["decisions"] = [{k: v for k, v in d.items() if k not in both}
                          for d in shown["decisions"]]
    assert shown == want
    assert set(got) >= {"best", "decisions", "steps", "mistakes", "swing", "knowledge"}
    assert got["swing"] == swing_figure(review, rules, obj["seats"])
    # No review by what the player knew is kept: no mistake named (issue 29); the moves
    # that lost points in hindsight are marks of their own.
    assert got["mistakes"] == [] and got["knowledge_review"] is False
    assert [m["step"] for m in got["hindsight_losses"]] == [d.event + 1
                                                             for d in review.mistakes]
    assert [m["lost"] for m in got["hindsight_losses"]] == [d.lost for d in review.mistakes]
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


SOLVED = 120_000  # ms: a deal's analysis, worked out off the request on a busy machine


@pytest.mark.browser
def test_panel_next_mistake_by_key(page: Any, shot: Any, server: Server) -> None:
    obj = server.sample(SAMPLE)
    _, _, reviews = reviewed(obj)
    review = with_mistake(reviews)
    first, second = review.mistakes[0], review.mistakes[1] if len(review.mistakes) > 1 else None
    start = review.event + 1   # the deal dealt, before its first move
    match_id = server.id_of(SAMPLE)
    # The deal is solved before the page opens: on the whole suite's two busy cores its
    # analysis alone can outlast a browser wait; the panel then reads a finished answer.
    with httpx.Client(base_url=server.url, timeout=60) as client:
        answer, _ = analysed(client, match_id, review.deal + 1)
        assert answer.status_code == 200, answer.text
    page.goto(f"{server.url}/matches/{match_id}/replay?step={start}&seat={first.seat}")
    page.click("#analysis-panel > summary")
    # The panel is ready once its deal is worked out, off the request: seconds on a busy
    # machine (the whole suite on two cores), longer than the page's default wait.
    page.wait_for_selector(f'#analysis-panel[data-ready="{start}"]', timeout=SOLVED)
    # A seat's view of the deal in play: no best play, it needs every hand (issue 29).
    assert page.locator("#analysis-best").count() == 0
    assert page.locator("#analysis-hindsight").count() == 1
    # What the viewing seat knew: one line per other seat, and seven unseen counts.
    assert page.locator("#analysis-lacks li").count() == len(obj["seats"]) - 1
    assert page.locator("#analysis-unseen tbody td").count() == 7
    # All hands open: best play, labelled hindsight.
    page.goto(f"{server.url}/matches/{match_id}/replay?step={start}&analysis=1")
    page.wait_for_selector(f'#analysis-panel[data-ready="{start}"]', timeout=SOLVED)
    assert "hindsight" in page.locator("#analysis-best").inner_text()
    page.keyboard.press("n")
    step = first.event + 1
    page.wait_for_selector(f'#replay[data-step="{step}"]')
    page.wait_for_selector(f'#analysis-panel[data-ready="{step}"]', timeout=SOLVED)
    # the open panel stays in the address (issue 16)
    assert page.url.endswith(f"/replay?step={step}&analysis=1")
    move = page.locator("#analysis-move")
    assert move.get_attribute("data-lost") == str(first.lost)
    # No review by what the player knew is kept: no mistake named, the hindsight loss shown.
    assert move.get_attribute("data-severity") == ""
    assert f"lost {first.lost} points in hindsight" in move.locator(".hindsight").inner_text()
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


@pytest.mark.browser
def test_a_seat_is_not_led_to_hindsight_losses(page: Any, server: Server) -> None:
    # Where a move lost points with every hand open is hindsight too (issue 29): a seat's
    # view goes from mistake to mistake only through its own, named by what it knew (no
    # such review is kept here), never through the hindsight losses.
    obj = server.sample(SAMPLE)
    _, _, reviews = reviewed(obj)
    review = with_mistake(reviews)
    first = review.mistakes[0]
    start = review.event + 1
    match_id = server.id_of(SAMPLE)
    page.goto(f"{server.url}/matches/{match_id}/replay?step={start}&seat={first.seat}"
              "&analysis=1")
    page.wait_for_selector(f'#analysis-panel[data-ready="{start}"]')
    page.keyboard.press("n")
    page.wait_for_function("document.getElementById('analysis-status').textContent"
                           " === 'No later mistake.'", timeout=120_000)
    assert page.get_attribute("#replay", "data-step") == str(start)


# What the panel says and what the server answers, as the page saw them: every text of
# the status line, and every answer of the analysis route (its status and body).
WATCH = """
window.__said = [];
window.__answers = [];
const fetched = window.fetch.bind(window);
window.fetch = async (...args) => {
  const res = await fetched(...args);
  if (String(args[0]).includes("/analysis?")) {
    const body = await res.clone().json().catch(() => null);
    window.__answers.push({ url: String(args[0]), status: res.status, body });
  }
  return res;
};
document.addEventListener("DOMContentLoaded", () => {
  const status = document.getElementById("analysis-status");
  if (!status) return;
  new MutationObserver(() => window.__said.push(status.textContent))
    .observe(status, { childList: true, characterData: true, subtree: true });
});
"""

BIGGER = "selminha-3.json"  # three sides each for himself: seconds of solving a deal


def hindsight_said(count: int) -> str:
    """The panel's status without a kept review by what the player knew (issue 29)."""
    return (f"Moves that lost points in hindsight: {count} (mistakes are named by the review "
            "by what the player knew, on the match page)")


def first_deal_with_mistakes(obj: dict[str, Any]) -> tuple[Rules, DealReview]:
    rec = parse_match(obj)
    assert rec.header is not None
    rules = make_rules(rec.header.preset, len(rec.header.seats), rec.header.options)
    for deal in range(20):
        found = review_match(rules, rec.events, deals=[deal])
        if found and found[0].mistakes:
            return rules, found[0]
    raise AssertionError("no deal with a mistake")


def progress_line(pending: dict[str, Any]) -> str:
    if pending["status"] == "queued":
        return "Waiting for the analysis of another deal…"
    if not pending["total"]:
        return "Solving this deal…"
    return f"Solving this deal: {pending['done']} of {pending['total']} positions…"


@pytest.mark.browser
def test_panel_shows_progress_then_the_analysis(page: Any, shot: Any, server: Server) -> None:
    obj = server.sample(BIGGER)
    _, review = first_deal_with_mistakes(obj)
    start = review.event + 1
    match_id = server.id_of(BIGGER)
    page.add_init_script(WATCH)
    page.goto(f"{server.url}/matches/{match_id}/replay?step={start}")
    page.click("#analysis-panel > summary")
    # However long the server takes (it answers by its time limit at the latest).
    page.wait_for_selector(f'#analysis-panel[data-ready="{start}"]', timeout=300_000)
    said: list[str] = page.evaluate("window.__said")
    answers: list[dict[str, Any]] = page.evaluate("window.__answers")
    mine = [a for a in answers if f"deal={review.deal + 1}" in a["url"]]
    assert mine[-1]["status"] == 200 and all(a["status"] == 202 for a in mine[:-1])
    # What the server said while the panel waited was shown (a quick server may have said
    # nothing: the analysis at once), and the analysis took the line's place once it came.
    for a in mine[:-1]:
        assert progress_line(a["body"]) in said
    assert said[-1] == hindsight_said(len(review.mistakes))
    assert page.locator("#analysis-best").inner_text() != ""
    assert page.locator("#analysis-chart .main-svg").count() >= 1
    shot("analysed")
    page.keyboard.press("n")
    step = review.mistakes[0].event + 1
    page.wait_for_selector(f'#replay[data-step="{step}"]')
    page.wait_for_selector(f'#analysis-panel[data-ready="{step}"]')
    assert page.locator("#analysis-move").get_attribute("data-lost") == \
        str(review.mistakes[0].lost)
    # PageDown still goes to the next deal, and the panel follows it.
    page.keyboard.press("PageDown")
    page.wait_for_function(f"Number(document.getElementById('replay').dataset.deal) > "
                           f"{review.deal + 1}")


@pytest.mark.browser
def test_arabic_chart_texts(page: Any, shot: Any, server: Server) -> None:
    obj = server.sample(SAMPLE)
    rules, _, reviews = reviewed(obj)
    review = with_mistake(reviews)
    start = review.event + 1
    page.goto(f"{server.url}/matches/{server.id_of(SAMPLE)}/replay?step={start}&lang=ar")
    page.click("#analysis-panel > summary")
    page.wait_for_selector(f'#analysis-panel[data-ready="{start}"]')
    page.wait_for_selector("#analysis-chart .main-svg")
    drawn = page.evaluate("""() => {
      const c = document.getElementById("analysis-chart");
      return { title: c.layout.title.text, x: c.layout.xaxis.title.text,
               y: c.layout.yaxis.title.text,
               traces: c.data.map((t) => ({ name: t.name, text: t.text,
                                            customdata: t.customdata })) };
    }""")
    want = swing_figure(review, rules, obj["seats"], language("ar"))
    assert drawn["title"] == want["layout"]["title"]["text"]
    assert drawn["x"] == want["layout"]["xaxis"]["title"]["text"] == "النقلة"
    assert drawn["y"] == want["layout"]["yaxis"]["title"]["text"]
    assert [t["text"] for t in drawn["traces"]] == [t["text"] for t in want["data"]]
    assert [t["customdata"] for t in drawn["traces"]] == [t["customdata"] for t in want["data"]]
    assert "التوزيعة" in drawn["title"] and "أفضل لعب" in drawn["title"]
    marks = drawn["traces"][-1]
    assert marks["name"] == "خسارة بأثر رجعي"  # "lost in hindsight": it names no mistake
    assert all("بأثر رجعي" in text for text in marks["text"])
    assert all(text.startswith("الأفضل") for text in marks["customdata"])
    shot("arabic-chart")


@pytest.mark.browser
def test_switching_deal_while_one_is_solved_shows_only_the_new_one(
        page: Any, shot: Any, server: Server) -> None:
    match_id = server.id_of(BIGGER)
    page.add_init_script(WATCH)
    page.goto(f"{server.url}/matches/{match_id}/replay?step=1")
    page.click("#analysis-panel > summary")
    first = int(page.get_attribute("#replay", "data-deal"))
    page.keyboard.press("PageDown")  # to the next deal at once, whatever the server is at
    page.wait_for_function(f"Number(document.getElementById('replay').dataset.deal) > {first}")
    step = int(page.get_attribute("#replay", "data-step"))
    second = int(page.get_attribute("#replay", "data-deal"))
    # Both deals' answers come (the first one's job goes on: it is kept for later)...
    page.wait_for_function(
        """([a, b]) => [a, b].every((d) => window.__answers.some(
             (x) => x.url.includes(`deal=${d}`) && x.status === 200))""",
        arg=[first, second], timeout=300_000)
    page.wait_for_selector(f'#analysis-panel[data-ready="{step}"]')
    # ...and the panel shows the deal on the table, never the first one.
    answers = page.evaluate("window.__answers")
    body = next(a["body"] for a in answers
                if f"deal={second}" in a["url"] and a["status"] == 200)
    assert page.get_attribute("#analysis-panel", "data-deal") == str(second)
    assert page.inner_text("#analysis-status") == \
        hindsight_said(len(body["hindsight_losses"]))
    title = page.evaluate("document.getElementById('analysis-chart').layout.title.text")
    assert title == f"Deal {second}: best play after each move"
    said = page.evaluate("window.__said")
    assert said[-1] == hindsight_said(len(body["hindsight_losses"]))
    shot("switched")
