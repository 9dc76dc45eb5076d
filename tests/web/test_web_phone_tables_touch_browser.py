"""Tables, touch targets and the replay on a phone (issue 33), 360 and 390 px, English and
Arabic, in Chromium:

- every table fits its box, or scrolls inside a labelled, focusable region (role=region,
  aria-label, tabindex=0) whose first column stays in view when scrolled to the far end;
- the matches list, whose column heads a phone hides, is ordered through its own choice;
- every control is 24 by 24 CSS pixels at least (WCAG 2.2, 2.5.8), the primary ones (the
  replay's step buttons, the recorder's plays and Undo) 44;
- the replay at 390 by 844: the board, the hand of the seat to play and the step controls
  in view together, the controls still there at the foot of the page, board tiles 24 px
  wide; a swipe (touch events, as a finger makes them) steps it;
- the recorder with five plays or more: Undo on screen at 360 px.

Plotly's own toolbar (the score chart) is not counted here: the chart is another piece
of work (issue 33, item 5). Screenshots go to artifacts/screenshots/phones/.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from webtest_support import SCREENSHOTS, Server, keep_local, ledger_with, serving

from tests.record.helpers import CHOICE, need, start_match, tap

pytestmark = pytest.mark.browser

WIDTHS = (360, 390)
LANGS = ("en", "ar")
PHONE = {"width": 390, "height": 844}

# Each visible table: whether it fits its box; if not, what its scroll region says of itself
# and where its first column's cells are once scrolled to the far end.
TABLES = """() => [...document.querySelectorAll("table")].filter((t) => {
  const r = t.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}).map((t) => {
  const box = t.parentElement;
  const out = { table: t.id || t.className, width: Math.round(t.scrollWidth),
                box: box.clientWidth, fits: box.scrollWidth <= box.clientWidth + 1 };
  if (out.fits) return out;
  out.role = box.getAttribute("role");
  out.label = (box.getAttribute("aria-label") || "").trim();
  out.tabindex = box.getAttribute("tabindex");
  out.overflow = getComputedStyle(box).overflowX;
  const firsts = [...t.querySelectorAll(":scope > thead > tr, :scope > tbody > tr")]
    .map((row) => row.cells[0]).filter(Boolean);
  out.sticky = firsts.every((c) => getComputedStyle(c).position === "sticky");
  // To the far end (in Arabic the far end is to the left: a negative scrollLeft).
  const rtl = getComputedStyle(box).direction === "rtl";
  box.scrollLeft = rtl ? -box.scrollWidth : box.scrollWidth;
  const frame = box.getBoundingClientRect();
  out.scrolled = Math.abs(box.scrollLeft) > 0;
  out.firstInView = firsts.every((c) => {
    const r = c.getBoundingClientRect();
    return r.left >= frame.left - 1 && r.right <= frame.right + 1;
  });
  box.scrollLeft = 0;
  return out;
})"""

# Every control on the page that a finger can reach and is smaller than ``min`` (either
# side). Not counted: what is not drawn, what only a screen reader reads (clipped to a
# pixel, as the matches list's column heads on a phone) and Plotly's own chart toolbar.
SMALL = """([min, selector]) => {
  const shown = (e) => {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(e).visibility === "hidden") return false;
    for (let a = e; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.clipPath !== "none" || a.matches(".visually-hidden, .sr-only")) return false;
    }
    return !e.closest(".js-plotly-plot");
  };
  return [...document.querySelectorAll(selector)].filter(shown).map((e) => {
    // An input drawn as its label (the recorder's choices): the label is the target.
    const target = getComputedStyle(e).opacity === "0" && e.closest("label") || e;
    const r = target.getBoundingClientRect();
    return [e.outerHTML.slice(0, 90), Math.round(r.width), Math.round(r.height), r.width, r.height];
  }).filter(([, , , w, h]) => w < min - 0.01 || h < min - 0.01);
}"""
CONTROLS = ("a[href], button, input:not([type=hidden]), select, textarea, summary, "
            "[tabindex]:not([tabindex='-1'])")


def _shoot(page: Any, name: str) -> None:
    folder = SCREENSHOTS / "phones"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"))


def _bad_tables(page: Any) -> list[dict[str, Any]]:
    bad = []
    for t in page.evaluate(TABLES):
        if t["fits"]:
            continue
        if not (t["role"] == "region" and t["label"] and t["tabindex"] == "0"
                and t["overflow"] in ("auto", "scroll") and t["sticky"] and t["scrolled"]
                and t["firstInView"]):
            bad.append(t)
    return bad


def _small(page: Any, size: int, selector: str = CONTROLS) -> list[Any]:
    return list(page.evaluate(SMALL, [size, selector]))


def _visit(page: Any, url: str, lang: str) -> None:
    got = page.goto(f"{url}{'&' if '?' in url else '?'}lang={lang}")
    assert got is not None and got.ok, (url, got and got.status)
    page.wait_for_load_state("networkidle")


def _pages(server: Server) -> dict[str, str]:
    four = server.id_of("domena-4.json")
    fives = server.id_of("sahrat-fives-2.json")
    faulty = server.id_of("bad-deal.json")  # sample_matches/faulty/: audit findings
    return {
        "list": "/matches",
        "match": f"/matches/{four}",
        "match-fives": f"/matches/{fives}",
        "match-faulty": f"/matches/{faulty}",
        "replay": f"/matches/{four}/replay?step=30",
        "replay-seat": f"/matches/{fives}/replay?step=20&seat=1",
        "players": "/players",
        "whatif": f"/matches/{fives}/whatif?rules=domena",
        "glossary-table": "/glossary/sahrat-fives",
        "record": "/record",
        "import": "/import",
    }


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", WIDTHS)
def test_every_table_fits_or_scrolls_in_a_labelled_region_and_targets_are_big_enough(
        page: Any, server: Server, width: int, lang: str) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    page.set_default_timeout(60_000)
    tables: dict[str, Any] = {}
    small: dict[str, Any] = {}
    regions = 0
    for name, path in _pages(server).items():
        _visit(page, f"{server.url}{path}", lang)
        bad = _bad_tables(page)
        if bad:
            tables[name] = bad
        regions += sum(not t["fits"] for t in page.evaluate(TABLES))
        few = _small(page, 24)
        if few:
            small[name] = few[:6]
        if name == "replay":
            few = _small(page, 44, ".controls a.btn")
            if few:
                small["replay-step-buttons"] = few
    assert not tables, f"a table cut off at {width} px without its scroll region: {tables}"
    assert not small, f"targets under 24 px (step buttons under 44) at {width} px: {small}"
    # The test saw tables that do scroll (the score sheets, the players), not only small ones.
    assert regions >= 4


@pytest.mark.parametrize("lang", LANGS)
def test_targets_are_big_enough_on_a_wide_screen_too(page: Any, server: Server,
                                                     lang: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    page.set_default_timeout(60_000)
    small = {}
    for name, path in _pages(server).items():
        _visit(page, f"{server.url}{path}", lang)
        few = _small(page, 24)
        if few:
            small[name] = few[:6]
        assert not _bad_tables(page), name
    assert not small, f"targets under 24 px at 1280 px: {small}"


def test_a_scrolled_table_keeps_its_first_column_on_screen(page: Any, server: Server) -> None:
    page.set_viewport_size({"width": 360, "height": 800})
    _visit(page, f"{server.url}/players", "ar")
    wrap = page.locator(".table-wrap:has(> #player-stats)")
    wrap.focus()  # the region takes the focus: the keyboard scrolls it
    assert page.evaluate("document.activeElement.getAttribute('role')") == "region"
    page.keyboard.press("End")
    page.evaluate("""() => { const w = document.querySelector('.table-wrap:has(> #player-stats)');
                              w.scrollLeft = -w.scrollWidth; }""")
    cell = page.locator("#player-stats tbody tr").first.locator("td").first
    frame, box = wrap.bounding_box(), cell.bounding_box()
    assert frame is not None and box is not None
    assert frame["x"] - 1 <= box["x"] and box["x"] + box["width"] <= frame["x"] + frame["width"] + 1
    # The column after it went out of the frame: the table did scroll under the first one.
    second = page.locator("#player-stats tbody tr").first.locator("td").nth(2).bounding_box()
    assert second is not None and second["x"] > frame["x"] + frame["width"]
    _shoot(page, "ar-360-players-scrolled")


@pytest.mark.parametrize("lang", LANGS)
def test_the_match_list_is_ordered_on_a_phone(page: Any, server: Server, lang: str) -> None:
    page.set_viewport_size({"width": 360, "height": 800})
    _visit(page, f"{server.url}/matches", lang)
    head = page.locator("#matches thead").bounding_box()
    assert head is not None and head["height"] <= 1  # the column heads: a screen reader's
    page.select_option("#sort-by", "deals")
    page.select_option("#sort-order", "asc")
    page.locator("#filters button[type=submit]").click()
    page.wait_for_url("**/matches?**sort=deals**")
    assert "order=asc" in page.url
    deals = page.locator("#matches tbody .c-deals").evaluate_all(
        "cells => cells.map(c => Number(c.textContent.trim().split(/\\s+/).pop()))")
    assert len(deals) > 3 and deals == sorted(deals)
    assert page.locator("#sort-by").input_value() == "deals"
    assert page.locator("#sort-order").input_value() == "asc"
    _shoot(page, f"{lang}-360-list-sorted")
    # A wide screen orders by its column heads; the choice is not shown there.
    page.set_viewport_size({"width": 1200, "height": 800})
    assert not page.locator("#sort-by").is_visible()
    assert page.locator("#matches thead th[aria-sort='ascending'] a.sort").is_visible()


# --- the replay on one screen ----------------------------------------------------------

ONE_SCREEN = """() => {
  const rect = (e) => { const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; };
  const tiles = [...document.querySelectorAll(".board-svg .tile")].map((t) => {
    const r = t.getBoundingClientRect(); return Math.min(r.width, r.height); });
  const hand = document.querySelector(".seat.to-move svg.hand-tiles");
  return { board: rect(document.querySelector(".board-view")),
           hand: hand && rect(hand),
           controls: rect(document.querySelector(".controls")),
           tile: Math.min(...tiles), tiles: tiles.length,
           width: innerWidth, height: innerHeight };
}"""


def _in_view(box: dict[str, float], width: float, height: float) -> bool:
    return (box["top"] >= -0.5 and box["left"] >= -0.5 and box["bottom"] <= height + 0.5
            and box["right"] <= width + 0.5)


def _controls_usable(page: Any) -> None:
    """The step controls in the viewport, each button 44 px and not covered."""
    got = page.evaluate("""() => [...document.querySelectorAll('.controls a.btn')].map((b) => {
      const r = b.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return [b.id, r.width, r.height, r.top, r.bottom, Boolean(hit && b.contains(hit))]; })""")
    assert len(got) == 6
    for name, w, h, top, bottom, hit in got:
        assert w >= 44 and h >= 44, (name, w, h)
        assert top >= 0 and bottom <= PHONE["height"] and hit, (name, top, bottom, hit)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("sample,step,seat", [("domena-4.json", 30, ""),
                                              ("sahrat-fives-2.json", 20, "1")])
def test_the_replay_fits_one_phone_screen(page: Any, server: Server, lang: str, sample: str,
                                         step: int, seat: str) -> None:
    page.set_viewport_size(PHONE)
    mid = server.id_of(sample)
    _visit(page, f"{server.url}/matches/{mid}/replay?step={step}"
                 f"{'&seat=' + seat if seat else ''}", lang)
    page.evaluate("document.querySelector('.table-area').scrollIntoView({block: 'start'})")
    got = page.evaluate(ONE_SCREEN)
    w, h = PHONE["width"], PHONE["height"]
    assert got["hand"] is not None, "no seat to play at this step"
    for part in ("board", "hand", "controls"):
        assert _in_view(got[part], w, h), (part, got)
    # Neither the board nor the hand lies under the controls fixed at the screen's foot.
    assert got["board"]["bottom"] <= got["controls"]["top"] + 0.5, got
    assert got["hand"]["bottom"] <= got["controls"]["top"] + 0.5, got
    assert got["tiles"] > 0 and got["tile"] >= 24, got
    _controls_usable(page)
    _shoot(page, f"{lang}-390-replay-one-screen-{mid}")
    # Scrolled to the events and on to the foot of the page: the controls are still there.
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    _controls_usable(page)
    page.locator("#go-next").click()
    page.wait_for_selector(f'#replay[data-step="{step + 1}"]')
    _shoot(page, f"{lang}-390-replay-foot-{mid}")


@pytest.fixture
def touch_page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True,
                                  device_scale_factor=2)
    outside: list[str] = []
    errors: list[str] = []
    keep_local(context, outside)
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(15_000)
    try:
        yield page
    finally:
        context.close()
    assert not outside and not errors, (outside, errors)


def _drag(page: Any, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A finger on the screen from ``start`` to ``end`` (Chromium's own touch input)."""
    cdp = page.context.new_cdp_session(page)
    (x0, y0), (x1, y1) = start, end
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart",
                                          "touchPoints": [{"x": x0, "y": y0}]})
    for i in range(1, 9):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [
            {"x": x0 + (x1 - x0) * i / 8, "y": y0 + (y1 - y0) * i / 8}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


@pytest.mark.parametrize("lang", LANGS)
def test_a_swipe_steps_the_replay(touch_page: Any, server: Server, lang: str) -> None:
    page = touch_page
    mid = server.id_of("domena-4.json")
    _visit(page, f"{server.url}/matches/{mid}/replay?step=30", lang)
    page.evaluate("document.querySelector('.table-area').scrollIntoView({block: 'start'})")
    seat = page.locator(".seat.pos-top").bounding_box()
    assert seat is not None
    y = seat["y"] + seat["height"] / 2
    _drag(page, (300, y), (80, y))  # to the left: one step on
    page.wait_for_selector('#replay[data-step="31"]')
    assert "step=31" in page.url
    _drag(page, (80, y), (300, y))  # to the right: one step back
    page.wait_for_selector('#replay[data-step="30"]')
    _drag(page, (80, y), (300, y))
    page.wait_for_selector('#replay[data-step="29"]')
    # Up the screen is a scroll, not a step.
    _drag(page, (200, y + 200), (200, y - 100))
    page.wait_for_timeout(300)
    assert page.locator("#replay").get_attribute("data-step") == "29"
    # On the board (wider than the screen) a sideways finger moves the board, not the step.
    page.evaluate("document.querySelector('.table-area').scrollIntoView({block: 'start'})")
    view = page.locator(".board-view")
    before = view.evaluate("v => v.scrollLeft")
    assert view.evaluate("v => v.scrollWidth > v.clientWidth")
    box = view.bounding_box()
    assert box is not None
    by = box["y"] + box["height"] / 2
    _drag(page, (box["x"] + box["width"] - 30, by), (box["x"] + 30, by))
    page.wait_for_timeout(300)
    assert page.locator("#replay").get_attribute("data-step") == "29"
    assert view.evaluate("v => v.scrollLeft") != before
    _shoot(page, f"{lang}-390-replay-swiped")


def test_a_tablet_gets_step_buttons_a_finger_can_take(browser: Any, server: Server) -> None:
    # A touch screen wider than a phone (820 px: the phone layout is off): the step buttons
    # are 44 px all the same, where a mouse gets smaller ones.
    sizes = {}
    for touch in (True, False):
        context = browser.new_context(viewport={"width": 820, "height": 1180}, has_touch=touch,
                                      is_mobile=touch)
        try:
            page = context.new_page()
            _visit(page, f"{server.url}/matches/{server.id_of('domena-4.json')}/replay?step=30",
                   "en")
            sizes[touch] = page.locator(".controls a.btn").evaluate_all(
                "bs => bs.map(b => { const r = b.getBoundingClientRect();"
                " return Math.min(r.width, r.height); })")
            if touch:  # a swipe on the board (not a scroller at this width) steps too
                box = page.locator(".board-view").bounding_box()
                assert box is not None
                y = box["y"] + box["height"] / 2
                _drag(page, (box["x"] + box["width"] - 20, y), (box["x"] + 20, y))
                page.wait_for_selector('#replay[data-step="31"]')
        finally:
            context.close()
    assert len(sizes[True]) == 6 and min(sizes[True]) >= 44, sizes
    assert min(sizes[False]) < 44, sizes  # else this test tells nothing of the touch rule


# --- the recorder ----------------------------------------------------------------------


def test_the_recorder_keeps_undo_on_screen_with_five_plays(page: Any, server: Server) -> None:
    page.set_viewport_size({"width": 360, "height": 640})
    page.set_default_timeout(60_000)
    start_match(page, server.url, "domena", 2, ["Ali", "عمر"], seed="match-c")
    for _ in range(300):  # on to a turn with five plays or more, a deal's sheet behind it
        if (page.locator(".rec-now button.choice.play").count() >= 5
                and page.locator("#rec-sheet tbody tr").count()):
            break
        tap(page, "#deal-random" if need(page) in ("deal", "redeal") else CHOICE)
    else:
        raise AssertionError("no turn with five plays")
    address = page.url.split("?")[0]
    for width in WIDTHS:
        for lang in LANGS:
            page.set_viewport_size({"width": width, "height": 640})
            _visit(page, address, lang)
            page.wait_for_selector("#recorder[data-ready]")
            assert page.locator(".rec-now button.choice.play").count() >= 5
            undo = page.locator("#undo").bounding_box()
            assert undo is not None
            assert undo["y"] >= 0 and undo["y"] + undo["height"] <= 640, (width, lang, undo)
            assert undo["height"] >= 44 and undo["width"] >= 44
            hit = page.evaluate("""() => { const u = document.querySelector('#undo');
              const r = u.getBoundingClientRect();
              return u.contains(document.elementFromPoint(r.left + r.width / 2,
                                                          r.top + r.height / 2)); }""")
            assert hit, "Undo is covered"
            _shoot(page, f"{lang}-{width}-record-undo")
            assert not _small(page, 44, ".rec-now button.choice, #undo")
            assert not _small(page, 24)
            assert not _bad_tables(page)


# --- the review by what each player knew (its own ledger: a review is kept) -------------


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    from web.app import create_app

    url, mid = ledger_with(tmp_path_factory.mktemp("phone-review"), "domena-2.json")
    with serving(create_app(url)) as base:
        yield base, mid


def test_the_review_table_scrolls_in_its_region(browser: Any,
                                                reviewed: tuple[str, int]) -> None:
    import time

    base, mid = reviewed
    context = browser.new_context(viewport={"width": 360, "height": 800})
    outside: list[str] = []
    keep_local(context, outside)
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        asked = page.request.post(f"{base}/matches/{mid}/knowledge",
                                  headers={"Accept": "application/json"})
        assert asked.status in (200, 202), asked.text()
        deadline = time.monotonic() + 600
        while page.request.get(f"{base}/api/matches/{mid}/knowledge").status != 200:
            assert time.monotonic() < deadline, "the review was not kept"
            time.sleep(0.3)
        for width in WIDTHS:
            for lang in LANGS:
                page.set_viewport_size({"width": width, "height": 800})
                _visit(page, f"{base}/matches/{mid}", lang)
                assert page.locator("#review-players").is_visible()
                assert not _bad_tables(page), (width, lang)
                assert not [t for t in page.evaluate(TABLES)
                            if t["table"] == "review-players" and t["fits"]], \
                    "the review's table fits a phone: this test no longer sees a scroll"
                assert not _small(page, 24), (width, lang)
        page.locator("#knowledge-review").scroll_into_view_if_needed()
        _shoot(page, "ar-390-review")
    finally:
        context.close()
    assert not outside, outside
