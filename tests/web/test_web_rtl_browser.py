"""Arabic pages in a real browser (Debian's chromium via Playwright): right to left.

The page is laid out right to left (the computed ``direction`` of the document
is ``rtl``, the header and the columns are mirrored), while the table of the
replay, its board and the step controls stay left to right, and every tile,
score and number inside an Arabic sentence still reads left to right. Each test
keeps its screenshots in artifacts/screenshots/.
"""

from __future__ import annotations

from typing import Any

import pytest
from webtest_support import Server

from ledger.audit import audit_record
from ledger.formats.reader import parse_match
from ledger.i18n import language
from ledger.i18n.phrases import FSI, LRI, PDI

pytestmark = pytest.mark.browser

ARABIC = {"Accept-Language": "ar-EG,ar;q=0.9,en;q=0.5"}

# For every tile ("6-3"), signed number ("+20") and score line ("0–10–5") in the text
# of the elements matched: does it read left to right on the screen? (Where each of its
# characters is drawn, from the layout's own boxes.)
READS_LTR = """(selector) => {
  const found = [];
  const pattern = /[0-6]-[0-6]|[+][0-9]+|[0-9]+(?:–[0-9]+)+/g;
  for (const el of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(pattern)) {
        const xs = [];
        for (let i = m.index; i < m.index + m[0].length; i++) {
          const r = document.createRange();
          r.setStart(node, i); r.setEnd(node, i + 1);
          const box = r.getBoundingClientRect();
          if (box.width === 0) continue;
          xs.push([box.x, box.y]);
        }
        if (xs.length < 2) continue;
        // on each line (a long score may wrap), each character right of the one before
        const ltr = xs.every(([x, y], i) => i === 0 || Math.abs(y - xs[i - 1][1]) > 3
                                                      || x > xs[i - 1][0]);
        found.push([m[0], ltr]);
      }
    }
  }
  return found;
}"""

DIRECTION = "(sel) => getComputedStyle(document.querySelector(sel)).direction"
BOX = "(sel) => { const r = document.querySelector(sel).getBoundingClientRect(); " \
      "return [r.left, r.right, r.top, r.bottom]; }"


LAYOUT = """() => {
  const area = document.querySelector('.table-area').getBoundingClientRect();
  return {
    board: [...document.querySelectorAll('.board-svg .tile')].map(
      t => [t.dataset.tile, t.getAttribute('transform')]),
    seats: [...document.querySelectorAll('.seat')].map(s => {
      const r = s.getBoundingClientRect();
      return [s.dataset.seat, s.dataset.tiles, Math.round(r.x - area.x), Math.round(r.y - area.y)];
    }),
  };
}"""


def arabic(page: Any) -> None:
    page.context.set_extra_http_headers(ARABIC)


def plain(text: str) -> str:
    """Text as the reader sees it: without the invisible isolates."""
    return text.replace(FSI, "").replace(LRI, "").replace(PDI, "")


def test_arabic_match_page_is_right_to_left(page: Any, shot: Any, server: Server) -> None:
    arabic(page)
    name = "illegal-pass.json"
    report = audit_record(parse_match(server.sample(f"faulty/{name}")))
    page.goto(f"{server.url}/matches/{server.id_of(name)}")
    assert page.evaluate("getComputedStyle(document.documentElement).direction") == "rtl"
    assert page.evaluate("document.documentElement.lang") == "ar"
    # mirrored: the brand at the right of the header, the language switch at its left,
    # the page title against the right edge, the findings' links at their left ends
    brand, switch = page.evaluate(BOX, ".brand"), page.evaluate(BOX, "#lang-switch")
    assert brand[0] > switch[1]
    h1, main = page.evaluate(BOX, "h1"), page.evaluate(BOX, "main")
    assert main[1] - h1[1] < 40 < h1[0] - main[0]
    where, item = page.evaluate(BOX, "#findings li .where"), page.evaluate(BOX, "#findings li")
    assert where[0] - item[0] < 20 < item[1] - where[1]
    # the sentence is Arabic, the code is the English page's
    codes = page.locator("#findings .finding-code").all_inner_texts()
    texts = page.locator("#findings .finding-text").all_inner_texts()
    assert codes == [f.code for f in report.findings]
    # each seat said by its player's name, as everywhere a person reads it
    record = parse_match(server.sample(f"faulty/{name}"))
    said = [language("ar").finding(f, seats=record.header.seats) for f in report.findings]
    assert [plain(t) for t in texts] == [plain(s) for s in said]
    assert "علي (المقعد 1)" in plain(texts[0])
    # the tile "2-0" of "seat 0 passed holding 2-0" reads 2 then 0, left to right
    read = [tuple(r) for r in page.evaluate(READS_LTR, "#findings .finding-text")]
    assert ("2-0", True) in read and all(ok for _, ok in read), read
    assert page.evaluate(DIRECTION, "#score-race") == "ltr"
    shot("ar")


def test_arabic_replay_keeps_the_table_left_to_right(page: Any, shot: Any,
                                                     server: Server) -> None:
    name = "sahrat-fives-4.json"
    url = f"{server.url}/matches/{server.id_of(name)}/replay?step=30"
    page.goto(url)  # English first: the table as it is drawn in any language
    english = page.evaluate(LAYOUT)
    arabic(page)
    page.goto(url)
    assert page.evaluate("getComputedStyle(document.documentElement).direction") == "rtl"
    for sel in (".table-area", ".board", ".board-svg", ".controls"):
        assert page.evaluate(DIRECTION, sel) == "ltr", sel
    for sel in (".seat-foot", ".table-status", ".now", ".events"):
        assert page.evaluate(DIRECTION, sel) == "rtl", sel
    # the same tiles in the same places, and each seat where it sits at the English table
    same = page.evaluate(LAYOUT)
    assert same["board"] == english["board"]
    for (seat, tiles, x, y), (seat_en, tiles_en, x_en, y_en) in zip(
            same["seats"], english["seats"], strict=True):
        assert (seat, tiles) == (seat_en, tiles_en)
        assert abs(x - x_en) <= 2 and abs(y - y_en) <= 40, (seat, x, x_en, y, y_en)
    table, side = page.evaluate(BOX, ".table-area"), page.evaluate(BOX, ".side")
    assert side[1] <= table[0]  # the page's columns are mirrored: the side panel is left
    # tiles, gains and scores inside the Arabic lines read left to right
    read = [tuple(r) for r in page.evaluate(READS_LTR, ".now, .events, .table-status, .scores")]
    assert len(read) > 10 and all(ok for _, ok in read), [r for r in read if not r[1]]
    assert "الخطوة" in page.locator("#step-label").inner_text()
    shot("ar")
    # the controls are a timeline in every language: the right arrow steps forward
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.getElementById('replay').dataset.step === '31'")
    assert page.evaluate("getComputedStyle(document.documentElement).direction") == "rtl"
    assert page.evaluate(DIRECTION, ".board") == "ltr"


def test_switching_language_on_the_page(page: Any, shot: Any, server: Server) -> None:
    page.goto(f"{server.url}/matches")
    assert page.evaluate("document.documentElement.dir") == "ltr"
    page.click('#lang-switch a[data-lang="ar"]')
    page.wait_for_function("document.documentElement.dir === 'rtl'")
    assert page.locator("h1").inner_text() == "المباريات"
    # remembered: the next page is Arabic without asking again
    page.click("#nav-glossary")
    page.wait_for_selector("#glossary-title")
    assert page.evaluate("document.documentElement.dir") == "rtl"
    page.click('.glossary-tables a[data-preset="sahrat-fives"]')
    page.wait_for_selector("#glossary-terms")
    terms = page.locator("#glossary-terms th.term").all_inner_texts()
    assert {"البنك", "قفلت", "باص", "دومينو!"} <= set(terms)
    shot("glossary-ar")
    page.click('#lang-switch a[data-lang="en"]')
    page.wait_for_function("document.documentElement.dir === 'ltr'")
    assert "stock" in page.locator("#glossary-terms").inner_text()
    page.goto(f"{server.url}/import")
    assert page.evaluate("document.documentElement.lang") == "en"


def test_arabic_import_report(page: Any, shot: Any, server: Server) -> None:
    arabic(page)
    name = "tile-not-in-hand.json"
    record = parse_match(server.sample(f"faulty/{name}"))
    report = audit_record(record)
    page.goto(f"{server.url}/import")
    assert page.evaluate("getComputedStyle(document.documentElement).direction") == "rtl"
    page.set_input_files("#file-input", str(server.samples / "faulty" / name))
    page.click("#import-submit")
    page.wait_for_selector("#import-report")
    result = page.locator(".import-result").first
    assert result.locator(".finding-code").all_inner_texts() == [f.code for f in report.findings]
    texts = result.locator(".finding-text").all_inner_texts()
    assert plain(texts[0]) == plain(language("ar").finding(report.findings[0],
                                                           seats=record.header.seats))
    read = [tuple(r) for r in page.evaluate(READS_LTR, ".import-result .finding-text")]
    assert read and all(ok for _, ok in read), read
    shot("ar")
