"""Moves in the Analysis panel in the page's language: the route keeps ``played`` and
``move`` in their English notation and adds each one worded beside it (``played_worded``,
``move_worded``), worded as ``domino-ledger analyse`` words them; the stored analysis
stays language-neutral; the panel shows the worded moves, tiles isolated.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from webtest_support import Server, analysed, without_worded

from ledger.analysis.review import DealReview, move_phrase, review_match
from ledger.cli import main
from ledger.formats.reader import parse_match
from ledger.i18n import ENGLISH, language
from ledger.i18n.phrases import FSI, LRI, PDI
from ledger.jobs.deal_analysis import VERSION
from ledger.rules import make_rules
from ledger.store import db
from ledger.store.jobs import analyses

SAMPLE = "domena-2.json"
ARABIC = language("ar")
# An Arabic play: its tile set apart by isolates, then the end it went on (none: an opening).
ARABIC_PLAY = re.compile(f"{FSI}[0-6]-[0-6]{PDI}"
                         "( على (اليمين|اليسار|الذراع العليا|الذراع السفلى))?")
ENGLISH_WORDS = re.compile("left|right|up|down|draw|pass")

# Every tile in the text of the elements matched: does it read left to right on screen?
TILES_READ_LTR = """(selector) => {
  const found = [];
  for (const el of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/[0-6]-[0-6]/g)) {
        const xs = [];
        for (let i = m.index; i < m.index + m[0].length; i++) {
          const r = document.createRange();
          r.setStart(node, i); r.setEnd(node, i + 1);
          xs.push(r.getBoundingClientRect().x);
        }
        found.push([m[0], xs.every((x, i) => i === 0 || x > xs[i - 1])]);
      }
    }
  }
  return found;
}"""


@pytest.fixture(scope="module")
def client(server: Server) -> Any:
    with httpx.Client(base_url=server.url, timeout=120) as c:
        yield c


def _review(server: Server) -> DealReview:
    """A deal past the first with mistakes (so its decisions have options to show)."""
    rec = parse_match(server.sample(SAMPLE))
    assert rec.header is not None
    rules = make_rules(rec.header.preset, len(rec.header.seats), rec.header.options)
    return next(r for r in review_match(rules, rec.events)[1:] if len(r.mistakes) > 1)


def _moves(body: dict[str, Any]) -> list[tuple[str, str]]:
    """Every (English, worded) move pair of a served body."""
    pairs = []
    for d in body["decisions"]:
        pairs.append((d["played"], d["played_worded"]))
        pairs += [(o["move"], o["move_worded"]) for o in d["options"]]
    pairs += [(m["played"], m["played_worded"])
              for m in body["mistakes"] + body["hindsight_losses"]]
    pairs += [(s["move"], s["move_worded"]) for s in body["steps"] if s["move"] is not None]
    return pairs


def test_the_moves_in_both_languages(client: Any, server: Server) -> None:
    review = _review(server)
    match_id, deal = server.id_of(SAMPLE), review.deal + 1
    res, _ = analysed(client, match_id, deal)
    assert res.status_code == 200, res.text
    english = res.json()
    res, _ = analysed(client, match_id, deal, lang="ar")
    assert res.status_code == 200, res.text
    arabic = res.json()
    # The English fields are the review's in every language.
    for body in (english, arabic):
        both = ("hindsight_lost", "knowledge_lost", "severity")  # issue 29's measures
        assert [{k: v for k, v in d.items() if k not in both}
                for d in without_worded(body["decisions"])] == review.to_dict()["decisions"]
        assert without_worded(body["steps"]) == without_worded(english["steps"])
        assert without_worded(body["mistakes"]) == without_worded(english["mistakes"])
    assert english["steps"][0]["move_worded"] is None  # the deal's start: no move
    # English: each worded move is its notation.
    en_moves = _moves(english)
    assert en_moves and all(worded == move for move, worded in en_moves)
    # Arabic: each worded as the CLI words it, its tile isolated, no English word left.
    ar_moves = _moves(arabic)
    assert [m for m, _ in ar_moves] == [m for m, _ in en_moves]
    kinds = set()
    for move, worded in ar_moves:
        assert worded == ARABIC.word(move_phrase(move)), move
        assert not ENGLISH_WORDS.search(worded), worded
        if move == "draw":
            assert worded == "سحب"
        elif move == "pass":
            assert worded == "باص"
        else:
            assert ARABIC_PLAY.fullmatch(worded), worded
            assert worded.startswith(f"{FSI}{move.split()[0]}{PDI}")
        kinds.add(move.split()[-1] if " " in move else move)
    assert {"right", "left", "draw"} <= kinds  # the deal has plays on both ends and draws
    right = next(m for m, _ in ar_moves if m.endswith(" right"))
    assert ARABIC.word(move_phrase(right)) == f"{FSI}{right.split()[0]}{PDI} على اليمين"


def test_the_stored_analysis_stays_language_neutral(client: Any, server: Server) -> None:
    review = _review(server)
    match_id = server.id_of(SAMPLE)
    res, _ = analysed(client, match_id, review.deal + 1, lang="ar")
    assert res.status_code == 200, res.text
    engine = db.open_db(server.db_url)
    try:
        with engine.connect() as conn:
            at = analyses.head(conn, match_id)
            assert at is not None
            kept = analyses.get(conn, match_id, review.deal, at, VERSION)
    finally:
        engine.dispose()
    assert kept is not None
    assert without_worded(kept) == kept  # nothing worded in it: each request words it


def test_the_cli_words_moves_as_the_panel_does(client: Any, server: Server,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    review = _review(server)
    res, _ = analysed(client, server.id_of(SAMPLE), review.deal + 1, lang="ar")
    body = res.json()
    assert main(["analyse", str(server.samples / SAMPLE), "--deal", str(review.deal),
                 "--lang", "ar"]) == 0
    text = capsys.readouterr().out
    lines = [line for line in text.splitlines() if line.startswith("    الحدث ")]
    assert len(lines) == len(body["decisions"])
    for line, d in zip(lines, body["decisions"], strict=True):
        assert d["played_worded"] in line, (line, d["played_worded"])


@pytest.mark.browser
def test_panel_shows_moves_in_arabic(page: Any, shot: Any, server: Server) -> None:
    review = _review(server)
    # A mistake on a named end (not an opening tile): its end is worded in Arabic.
    first = next(d for d in review.mistakes if " " in d.played)
    step = first.event + 1  # the mistake just made
    match_id = server.id_of(SAMPLE)
    page.goto(f"{server.url}/matches/{match_id}/replay?step={step}&lang=ar")
    page.click("#analysis-panel > summary")
    page.wait_for_selector(f'#analysis-panel[data-ready="{step}"]')
    played = ARABIC.word(move_phrase(first.played))
    line = page.locator("#analysis-move").inner_text()
    assert played in line and first.played not in line, line
    assert not ENGLISH_WORDS.search(line), line
    rows = page.locator("#analysis-options tbody tr")
    assert rows.count() == len(first.options)
    cells = rows.locator("td:first-child").all_inner_texts()
    assert cells == [ARABIC.word(move_phrase(o.move)) for o in first.options]
    assert all(ARABIC_PLAY.fullmatch(c) for c in cells), cells
    # The rows are still marked by the English notation; the played one is the move made.
    assert rows.evaluate_all("(rs) => rs.map((r) => r.dataset.move)") == \
        [str(o.move) for o in first.options]
    assert page.locator("#analysis-options tr.played").get_attribute("data-move") == first.played
    # Written right to left with the page; each tile still reads left to right.
    for sel in ("#analysis-move", "#analysis-options td:first-child"):
        assert page.evaluate("(s) => getComputedStyle(document.querySelector(s)).direction",
                             sel) == "rtl"
    read = [tuple(r) for r in page.evaluate(TILES_READ_LTR,
                                            "#analysis-move, #analysis-options tbody")]
    assert len(read) > len(first.options) and all(ok for _, ok in read), read
    shot("arabic-moves")
    # The English page as it was: the notation, set apart left to right, no isolates.
    page.goto(f"{server.url}/matches/{match_id}/replay?step={step}&lang=en")
    page.click("#analysis-panel > summary")
    page.wait_for_selector(f'#analysis-panel[data-ready="{step}"]')
    line = page.locator("#analysis-move").inner_text()
    assert f"played {first.played}" in line
    cells = page.locator("#analysis-options tbody td:first-child").all_inner_texts()
    assert cells == [str(o.move) for o in first.options]
    assert page.locator("#analysis-options tbody td:first-child bdi[dir=ltr]").count() == \
        len(first.options)
    assert not any(c in "".join(cells) + line for c in (FSI, LRI, PDI))
    assert ENGLISH.word(move_phrase(first.played)) == first.played
