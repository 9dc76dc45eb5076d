"""The replay's marks and its spoiler-free default (issue 34, items 1 and 2).

A ledger of its own holds two matches: one whose review by what each player knew is kept
(the report ``analyse --report`` works out, kept for the match's head as the worker keeps
it: tests/web/webtest_support.py ``expected_report``), and one without. What the page must
mark is derived here from the kept report's numbers and ``measures.THRESHOLDS`` alone:
"?!" from the inaccuracy threshold, "?" from the mistake one, "??" from the blunder one.

Checked: each severity's sign on the right moves, coloured with readable contrast and
named in its title; a click on a mark opens its step in the mover's view with the
Analysis panel open, the move played, the best bet by what he knew and its cost shown;
the analysis hidden on a first view, shown after the toggle and across a reload, hidden
again in another browser context; "n" goes nowhere while it is hidden; a seat's view
carries only its own marks, the table's view none until the deal's last move; no marks
without a kept review; the steps the browser holds carry the same marks as the pages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from webtest_support import (
    SAMPLES,
    SCREENSHOTS,
    analysed,
    expected_report,
    keep_local,
    ledger_with,
    serving,
)

from ledger.analysis.cli_knowledge import REPORT_VERSION
from ledger.analysis.measures import THRESHOLDS
from ledger.store import db
from ledger.store.imports.importer import import_file
from ledger.store.jobs import analyses, knowledge_reviews
from web.app import create_app

REVIEWED = "domena-2.json"       # two seats: its review takes a second
PLAIN = "casual-arena-2-one-round.json"  # no review kept
KEY = "domino-ledger:replay-analysis"
MOVES = ("play", "draw", "pass")


def sign(loss: float | None) -> str | None:
    """The sign a knowledge loss earns, from the report's thresholds alone."""
    if loss is None or loss < THRESHOLDS["inaccuracy"]:
        return None
    if loss >= THRESHOLDS["blunder"]:
        return "??"
    return "?" if loss >= THRESHOLDS["mistake"] else "?!"


@dataclass
class Site:
    url: str
    reviewed: int
    plain: int
    report: dict[str, Any]
    events: list[dict[str, Any]]   # the reviewed match's events, as recorded

    def deal(self, number: int) -> tuple[int, int]:
        """Event indexes [start, stop) of deal ``number`` (1-based) of the reviewed match."""
        starts = [i for i, e in enumerate(self.events) if e["type"] == "deal"]
        start = starts[number - 1]
        return start, starts[number] if number < len(starts) else len(self.events)

    def judged(self, number: int) -> list[dict[str, Any]]:
        start, stop = self.deal(number)
        return [d for d in self.report["judged"] if start <= d["event"] < stop]

    def last_move_step(self, number: int) -> int:
        start, stop = self.deal(number)
        return max(i for i in range(start, stop) if self.events[i]["type"] in MOVES) + 1

    def replay(self, step: int, seat: str = "", **more: str) -> str:
        query = f"?step={step}" + (f"&seat={seat}" if seat else "")
        query += "".join(f"&{k}={v}" for k, v in more.items())
        return f"{self.url}/matches/{self.reviewed}/replay{query}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder: Path = tmp_path_factory.mktemp("marks")
    url, reviewed = ledger_with(folder, REVIEWED)
    report = expected_report(REVIEWED)
    engine = db.open_db(url)
    try:
        with db.writing(engine) as s:
            (plain,) = import_file(s, str(SAMPLES / PLAIN))
        with db.writing(engine) as s:
            conn = db.write_connection(s)
            at = analyses.head(conn, reviewed)
            assert at is not None
            knowledge_reviews.put(conn, reviewed, at, report["samples"], REPORT_VERSION, report)
            s.commit()
    finally:
        engine.dispose()
    assert plain.id is not None
    events = json.loads((SAMPLES / REVIEWED).read_text(encoding="utf-8"))["events"]
    with serving(create_app(url)) as base:
        yield Site(base, reviewed, plain.id, report, events)


@pytest.fixture(scope="module")
def deal2(site: Site) -> int:
    """The second deal of the reviewed match (it has a mark of every severity), solved
    before any page opens it (the Analysis panel then reads a finished answer)."""
    signs = {sign(d["knowledge_lost"]) for d in site.judged(2)}
    assert {"?!", "?", "??"} <= signs, signs
    with httpx.Client(base_url=site.url, timeout=120) as client:
        res, _ = analysed(client, site.reviewed, 2)
        assert res.status_code == 200, res.text
    return 2


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    """A fresh browser context (its own storage: a first view), kept on this machine."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 950})
    outside: list[str] = []
    keep_local(ctx, outside)
    errors: list[str] = []
    ctx.on("weberror", lambda err: errors.append(str(err.error)))
    yield ctx
    ctx.close()
    assert not outside, outside
    assert not errors, errors


def new_page(ctx: Any) -> Any:
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    return page


def visible_marks(page: Any) -> list[tuple[int, int, str]]:
    """(step, seat, sign) of every mark the page shows."""
    out = []
    for a in page.locator(".replay-mark").all():
        if a.is_visible():
            out.append((int(a.get_attribute("data-step")), int(a.get_attribute("data-seat")),
                        a.inner_text()))
    return out


def marked(judged: list[dict[str, Any]]) -> list[tuple[int, int, str]]:
    return [(d["event"] + 1, d["seat"], s) for d in judged
            if (s := sign(d["knowledge_lost"])) is not None]


def contrast(fg: str, bg: str) -> float:
    """WCAG's contrast ratio of two CSS rgb()/rgba() colours."""
    def lum(css: str) -> float:
        r, g, b = (int(x) / 255 for x in re.findall(r"[\d.]+", css)[:3])
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((lum(fg), lum(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


# --- the markup, over HTTP ---------------------------------------------------------------


def marks_in(html: str) -> list[tuple[int, int, str]]:
    return [(int(step), int(seat), text) for step, seat, text in re.findall(
        r'<a class="replay-mark[^"]*"[^>]*data-step="(\d+)" data-seat="(\d+)"[^>]*>([^<]+)</a>',
        html)]


def test_each_view_carries_only_the_marks_it_may_see(site: Site) -> None:
    start, _ = site.deal(2)
    last = site.last_move_step(2)
    judged = site.judged(2)
    mid = (start + last) // 2
    with httpx.Client(timeout=60) as c:
        # All hands open: every move of the deal the review named, at any step of it.
        assert marks_in(c.get(site.replay(start + 1)).text) == marked(judged)
        for seat in (0, 1):
            for step in (mid, last):
                got = marks_in(c.get(site.replay(step, str(seat))).text)
                # Only the seat's own moves, and those made by the step.
                assert got == marked([d for d in judged
                                      if d["seat"] == seat and d["event"] < step]), (seat, step)
                assert got, (seat, step)
        # The table saw no hand: no mark until the deal's last move, then every one.
        assert marks_in(c.get(site.replay(last - 1, "table")).text) == []
        assert marks_in(c.get(site.replay(last, "table")).text) == marked(judged)
        # No review kept: no mark, no strip.
        plain = c.get(f"{site.url}/matches/{site.plain}/replay?step=5").text
        assert 'class="replay-mark' not in plain and 'id="loss-strip"' not in plain


def test_the_strip_has_a_bar_per_decision_the_view_sees(site: Site) -> None:
    start, _ = site.deal(2)
    judged = site.judged(2)
    with httpx.Client(timeout=60) as c:
        html = c.get(site.replay(start + 1)).text
        bars = re.findall(r'<a class="strip-bar sev-([a-z]+)[^"]*"\s+href="[^"]*" tabindex="-1" '
                          r'data-to-analysis data-step="(\d+)" data-seat="(\d+)"', html)
        assert [(int(s), int(seat)) for _, s, seat in bars] == [
            (d["event"] + 1, d["seat"]) for d in judged]
        words = {None: "none", "?!": "inaccuracy", "?": "mistake", "??": "blunder"}
        assert [sev for sev, _, _ in bars] == [
            "unreviewed" if d["knowledge_lost"] is None else words[sign(d["knowledge_lost"])]
            for d in judged]
        html = c.get(site.replay(site.last_move_step(2), "1")).text
        assert {int(seat) for seat in re.findall(r'class="strip-bar[^"]*"\s+href="[^"]*" '
                                                 r'tabindex="-1" data-to-analysis '
                                                 r'data-step="\d+" data-seat="(\d+)"', html)
                } == {1}


def test_the_held_steps_carry_the_pages_marks(site: Site) -> None:
    start, _ = site.deal(2)
    with httpx.Client(timeout=60) as c:
        for seat in ("", "0", "table"):
            got = c.get(f"{site.url}/matches/{site.reviewed}/replay/frames",
                        params={"step": start + 2, "seat": seat}).json()
            for f in got["frames"][::4] + got["frames"][-1:]:
                page = c.get(site.replay(f["step"], seat)).text
                assert marks_in(f["html"]) == marks_in(page), (seat, f["step"])


def test_the_analysis_answer_names_the_best_bet_by_knowledge(site: Site, deal2: int) -> None:
    # The best bet of every decision the review names: a mistake, or bad luck (the move
    # was the best bet, yet lost in hindsight), as ``replay_marks.marks_of`` reads them.
    named = {m["event"]: m for p in site.report["report"]
             for m in (*p["named"], *p["unlucky"])}
    with httpx.Client(base_url=site.url, timeout=120) as c:
        whole = c.get(f"/api/matches/{site.reviewed}/analysis", params={"deal": deal2}).json()
        for d in whole["decisions"]:
            want = named.get(d["event"])
            assert d["knowledge_best"] == (want["best"] if want else None), d["event"]
        plain, _ = analysed(c, site.plain, 1)
        assert all("knowledge_best" not in d for d in plain.json()["decisions"])


# --- in Chromium ---------------------------------------------------------------------------


@pytest.mark.browser
def test_spoiler_free_by_default_and_remembered(browser: Any, context: Any, site: Site,
                                                deal2: int) -> None:
    start, _ = site.deal(deal2)
    page = new_page(context)
    page.goto(site.replay(start + 1))
    toggle = page.locator("#analysis-toggle")
    assert toggle.inner_text() == "Show analysis"
    box = toggle.bounding_box()
    assert box is not None and box["width"] >= 44 and box["height"] >= 44
    # A first view: the marks are in the page but none shows, nor the strip, nor the panel.
    assert page.locator(".replay-mark").count() == len(marked(site.judged(deal2))) > 0
    assert visible_marks(page) == []
    assert not page.locator("#loss-strip").is_visible()
    assert not page.evaluate("document.getElementById('analysis-panel').open")
    # "n" goes nowhere while the analysis is hidden.
    page.keyboard.press("n")
    page.wait_for_timeout(500)
    assert page.get_attribute("#replay", "data-step") == str(start + 1)
    assert not page.evaluate("document.getElementById('analysis-panel').open")
    toggle.click()
    assert toggle.inner_text() == "Hide analysis"
    assert visible_marks(page) == marked(site.judged(deal2))
    assert page.locator("#loss-strip").is_visible()
    # Kept across a reload (this browser's choice) and a step.
    page.reload()
    assert page.locator("#analysis-toggle").inner_text() == "Hide analysis"
    assert visible_marks(page) == marked(site.judged(deal2))
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(f'#replay[data-step="{start + 2}"]')
    assert page.locator("#analysis-toggle").inner_text() == "Hide analysis"
    assert visible_marks(page) == marked(site.judged(deal2))
    # Another browser (a new context): hidden again.
    other = browser.new_context()
    try:
        fresh = new_page(other)
        fresh.goto(site.replay(start + 1))
        assert visible_marks(fresh) == []
        assert fresh.locator("#analysis-toggle").inner_text() == "Show analysis"
        # ?analysis=1 opens the panel and shows the analysis, without keeping the choice.
        fresh.goto(site.replay(start + 1, analysis="1"))
        fresh.wait_for_function("document.getElementById('analysis-panel').open")
        assert visible_marks(fresh) == marked(site.judged(deal2))
        assert fresh.evaluate(f"localStorage.getItem('{KEY}')") is None
    finally:
        other.close()
    # Hidden again: marks go, the panel closes, and a reload keeps it hidden.
    page.locator("#analysis-toggle").click()
    assert visible_marks(page) == []
    page.reload()
    assert visible_marks(page) == []


BARS = ("Array.from(document.getElementById('match-chart').data || [])"
        ".filter((t) => t.type === 'bar').map((t) => t.visible !== false)")


@pytest.mark.browser
def test_the_match_charts_hindsight_bars_hide_with_the_analysis(context: Any, site: Site,
                                                                deal2: int) -> None:
    # Deal 2's analysis is kept (deal2): the whole-match chart has its points-lost bars.
    page = new_page(context)
    page.goto(site.replay(site.last_move_step(deal2)))
    page.click("#match-chart-section > summary")
    page.wait_for_selector("#match-chart svg.main-svg")
    page.wait_for_function(f"({BARS}).length > 0")
    assert page.evaluate(BARS) == [False] * len(page.evaluate(BARS))   # a first view
    page.locator("#analysis-toggle").click()
    page.wait_for_function(f"({BARS}).every((v) => v)")
    page.locator("#analysis-toggle").click()
    page.wait_for_function(f"({BARS}).every((v) => !v)")


@pytest.mark.browser
def test_marks_are_signed_coloured_and_named(context: Any, site: Site, deal2: int) -> None:
    start, _ = site.deal(deal2)
    page = new_page(context)
    page.goto(site.replay(start + 1))
    page.click("#analysis-toggle")
    seen: dict[str, tuple[str, str]] = {}
    for d in site.judged(deal2):
        want = sign(d["knowledge_lost"])
        mark = page.locator(f'#ev-{d["event"]} .replay-mark')
        if want is None:
            assert mark.count() == 0, d
            continue
        assert mark.inner_text() == want
        title = mark.get_attribute("title") or ""
        assert f"lost {d['knowledge_lost']:.1f} points" in title
        assert title.endswith({"?!": "inaccuracy", "?": "mistake", "??": "blunder"}[want])
        assert mark.get_attribute("aria-label") == title
        fg, bg = mark.evaluate("a => [getComputedStyle(a).color, "
                               "getComputedStyle(a).backgroundColor]")
        assert contrast(fg, bg) >= 4.5, (want, fg, bg)
        seen[want] = (fg, bg)
    assert len(set(seen.values())) == 3, seen   # each severity its own colours
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "replay-marks-list.png"))
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    assert not [v["id"] for v in found if v["impact"] in ("serious", "critical")]


@pytest.mark.browser
def test_a_click_on_a_mark_opens_the_movers_view_with_the_panel(context: Any, site: Site,
                                                                deal2: int) -> None:
    start, _ = site.deal(deal2)
    named = {m["event"]: m for p in site.report["report"] for m in p["named"]}
    blunder = next(d for d in site.judged(deal2) if sign(d["knowledge_lost"]) == "??")
    best = named[blunder["event"]]["best"]
    step, seat = blunder["event"] + 1, blunder["seat"]
    page = new_page(context)
    page.goto(site.replay(start + 1))
    page.click("#analysis-toggle")
    page.click(f'#ev-{blunder["event"]} .replay-mark')
    page.wait_for_selector(f'#replay[data-step="{step}"][data-seat="{seat}"]')
    page.wait_for_function("document.getElementById('analysis-panel').open")
    page.wait_for_selector(f'#analysis-panel[data-ready="{step}"]')
    assert f"step={step}&seat={seat}" in page.url and "analysis=1" in page.url
    box = page.locator("#analysis-knowledge-move")
    assert box.get_attribute("data-severity") == "blunder"
    assert box.get_attribute("data-best") == " | ".join(best)
    played = box.locator(".km-played").inner_text()
    assert blunder["played"].split()[0] in played
    assert all(b.split()[0] in box.locator(".km-best").inner_text() for b in best)
    assert f"{blunder['knowledge_lost']:.1f} points" in box.locator(".km-cost").inner_text()
    assert "??" in box.locator(".km-cost").inner_text()
    # Side by side: the three cells on one line.
    tops = [c.bounding_box()["y"] for c in box.locator(":scope > div").all()]
    assert len(tops) == 3 and max(tops) - min(tops) < 2
    # In the mover's view only the mover's marks show.
    assert {s for _, s, _ in visible_marks(page)} == {seat}
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "replay-marks-click.png"), full_page=True)


@pytest.mark.browser
def test_n_goes_from_mark_to_mark_once_shown(context: Any, site: Site, deal2: int) -> None:
    start, _ = site.deal(deal2)
    first = min(e for e, _, _ in marked(site.judged(deal2)))
    page = new_page(context)
    page.goto(site.replay(start + 1))
    page.click("#analysis-toggle")
    page.keyboard.press("n")
    page.wait_for_selector(f'#replay[data-step="{first}"]')


@pytest.mark.browser
def test_arabic_marks_read_left_to_right(context: Any, site: Site, deal2: int) -> None:
    start, _ = site.deal(deal2)
    page = new_page(context)
    page.goto(site.replay(start + 1, lang="ar"))
    assert page.locator("#analysis-toggle").inner_text() == "إظهار التحليل"
    page.click("#analysis-toggle")
    assert page.locator("#analysis-toggle").inner_text() == "إخفاء التحليل"
    mark = page.locator(".replay-mark.sev-inaccuracy").first
    assert mark.inner_text() == "?!"
    assert mark.evaluate("a => getComputedStyle(a).direction") == "ltr"
