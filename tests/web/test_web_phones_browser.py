"""Every page on a phone (issue 16): 360, 390 and 414 px wide, English and Arabic.

For each width and language one browser page visits every page of the app (the list,
a match, its replay with all hands open and as one seat saw it, the recorder's form and
a live match's recorder, the import, the players, the glossary and a table's words,
what-if) and checks, on each:

- nothing scrolls sideways: ``document.documentElement.scrollWidth`` is at most the
  viewport's width;
- axe-core (``axe-playwright-python``, which ships axe's script: nothing is fetched)
  finds no serious or critical violation.

A screenshot of each page (the first screen, as a phone shows it) is kept in
artifacts/screenshots/phones/.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from webtest_support import SCREENSHOTS, Server

pytestmark = pytest.mark.browser

WIDTHS = (360, 390, 414)
LANGS = ("en", "ar")
# Portuguese and Spanish run longer words than English: the narrowest phone is enough to
# show that nothing they say pushes a page sideways.
CASES = [(width, lang) for lang in LANGS for width in WIDTHS] + [(360, "pt"), (360, "es")]
SERIOUS = ("serious", "critical")


def _live_match(page: Any, server: Server) -> int:
    """A match being recorded at the table (an Arabic and an English name), its id."""
    form = urlencode([("preset", "sahrat-draw"), ("seats", "2"), ("name", "علي"),
                      ("name", "Omar")])
    got = page.request.post(f"{server.url}/record", max_redirects=0, data=form, headers={
        "Content-Type": "application/x-www-form-urlencoded"})
    assert got.status == 303, got.text()
    return int(got.headers["location"].split("/")[2])


def _pages(server: Server, live: int) -> dict[str, str]:
    four = server.id_of("domena-4.json")
    fives = server.id_of("sahrat-fives-2.json")
    return {
        "list": "/matches",
        "match": f"/matches/{four}",
        "replay": f"/matches/{four}/replay?step=30",
        "replay-seat": f"/matches/{four}/replay?step=30&seat=1",
        "record": "/record",
        "record-live": f"/matches/{live}/record",
        "import": "/import",
        "players": "/players",
        "glossary": "/glossary",
        "glossary-table": "/glossary/sahrat-fives",
        "whatif": f"/matches/{fives}/whatif?rules=domena",
    }


def _serious(page: Any) -> list[tuple[str, str, list[Any]]]:
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [(v["id"], v["help"], [n["target"] for n in v["nodes"]][:4])
            for v in found if v["impact"] in SERIOUS]


@pytest.mark.parametrize(("width", "lang"), CASES)
def test_every_page_fits_a_phone_and_passes_axe(page: Any, server: Server, width: int,
                                                 lang: str) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    page.set_default_timeout(60_000)  # eleven pages and axe, on a machine others share
    folder = SCREENSHOTS / "phones"
    folder.mkdir(parents=True, exist_ok=True)
    wide: dict[str, int] = {}
    violations: dict[str, Any] = {}
    for name, path in _pages(server, _live_match(page, server)).items():
        got = page.goto(f"{server.url}{path}{'&' if '?' in path else '?'}lang={lang}")
        assert got is not None and got.ok, (name, got and got.status)
        page.wait_for_load_state("networkidle")
        assert page.evaluate("document.documentElement.dir") == ("rtl" if lang == "ar" else "ltr")
        scroll = int(page.evaluate("document.documentElement.scrollWidth"))
        if scroll > width:
            wide[name] = scroll
        bad = _serious(page)
        if bad:
            violations[name] = bad
        page.screenshot(path=str(folder / f"{lang}-{width}-{name}.png"))
    assert not wide, f"wider than {width} px: {wide}"
    assert not violations, f"axe-core, serious or critical: {violations}"


def test_the_menu_opens_on_a_phone_and_stays_open_on_a_wide_screen(page: Any,
                                                                    server: Server) -> None:
    page.set_viewport_size({"width": 390, "height": 800})
    page.goto(f"{server.url}/matches?lang=en")
    players = page.locator("#nav-players")
    assert not players.is_visible()
    page.locator("#site-menu > summary").click()
    assert players.is_visible()
    box = players.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    page.screenshot(path=str(SCREENSHOTS / "phones" / "en-390-menu-open.png"))
    page.set_viewport_size({"width": 1200, "height": 800})
    page.goto(f"{server.url}/matches?lang=en")
    assert players.is_visible()
    assert not page.locator("#site-menu > summary").is_visible()
