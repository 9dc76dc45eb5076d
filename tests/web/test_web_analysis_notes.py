"""The analysis notes on the web: the route keeps ``note`` English and adds its phrases and
its wording in the page's language; the replay's Analysis panel shows the worded note.

The deal is one a player's own record cannot have analysed: ``partial/`` holds one
player's view of a Sahrat Draw match, with the other hand and the stock order unknown.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from webtest_support import Server, analysed

from ledger.analysis.review import review_match
from ledger.formats.reader import parse_match
from ledger.i18n import language
from ledger.i18n.phrases import clauses, phrase_from_json
from ledger.rules import make_rules

PARTIAL = "sahrat-draw-2-seen-by-seat-0.json"
ENGLISH_NOTE = "cannot be analysed: the order of the stock is not known"
ARABIC_NOTE = "لا يمكن تحليلها: ترتيب البنك غير معروف"


@pytest.fixture(scope="module")
def client(server: Server) -> Any:
    with httpx.Client(base_url=server.url, timeout=120) as c:
        yield c


def _deal(server: Server) -> tuple[int, int]:
    """The match id and the (0-based) deal to look at, and the step of its deal event."""
    obj = server.sample(f"partial/{PARTIAL}")
    record = parse_match(obj)
    assert record.header is not None
    rules = make_rules(record.header.preset, len(record.header.seats), record.header.options)
    (review,) = review_match(rules, record.events, deals=[1])
    assert review.note == ENGLISH_NOTE
    return server.id_of(PARTIAL), review.event


def test_the_note_in_both_languages(client: Any, server: Server) -> None:
    match_id, _ = _deal(server)
    res, _ = analysed(client, match_id, 2)
    assert res.status_code == 200, res.text
    english = res.json()
    assert english["best"] is None
    assert english["note"] == english["note_worded"] == ENGLISH_NOTE
    phrases = [phrase_from_json(p) for p in english["note_phrases"]]
    assert [p.template for p in phrases if p is not None] == ["cannot be analysed: {reason}"]
    res, _ = analysed(client, match_id, 2, lang="ar")
    arabic = res.json()
    assert arabic["note"] == ENGLISH_NOTE  # the public shape: English in every language
    assert arabic["note_phrases"] == english["note_phrases"]
    assert arabic["note_worded"] == ARABIC_NOTE
    said = clauses([p for p in phrases if p is not None])
    assert said is not None and language("ar").word(said) == ARABIC_NOTE
    # The swing chart of a deal not analysed is titled with the note, worded too.
    assert english["swing"]["layout"]["title"]["text"] == ENGLISH_NOTE
    assert arabic["swing"]["layout"]["title"]["text"] == ARABIC_NOTE


@pytest.mark.browser
def test_panel_shows_the_note_in_arabic(page: Any, shot: Any, server: Server) -> None:
    match_id, event = _deal(server)
    start = event + 1  # the deal dealt
    page.goto(f"{server.url}/matches/{match_id}/replay?step={start}&lang=ar")
    page.click("#analysis-panel > summary")
    page.wait_for_selector(f'#analysis-panel[data-ready="{start}"]')
    note = page.locator("#analysis-note")
    assert note.inner_text() == ARABIC_NOTE
    # Written right to left with the page, not set apart as English text.
    assert note.evaluate("(el) => getComputedStyle(el).direction") == "rtl"
    assert page.locator("#analysis-note bdi").count() == 0
    shot("arabic-note")
    page.goto(f"{server.url}/matches/{match_id}/replay?step={start}&lang=en")
    page.click("#analysis-panel > summary")
    page.wait_for_selector(f'#analysis-panel[data-ready="{start}"]')
    assert page.locator("#analysis-note").inner_text() == ENGLISH_NOTE
