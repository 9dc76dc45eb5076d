"""The match page's review by what each player knew (issue 14, points 4 and 5): asked by a
post (a write: web/access.py), worked out off the request as a job of kind ``knowledge``
with its progress, kept in the ledger by the match's head, then shown on the match page
(per player, every named mistake with a severity filter opening the replay at its step)
and over all reviewed matches on /players.

Each module serves an app of its own over a ledger of its own (uvicorn on a free port).
The report the server keeps is checked against the one ``analyse --report`` works out
from the same file (``cli_knowledge.report_object``, same seed and samples).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from webtest_support import expected_report, ledger_with, serving

from ledger.analysis.cli_knowledge import REPORT_VERSION
from ledger.store import db
from ledger.store.jobs import analyses, knowledge_reviews
from web.access import Access, Mode
from web.app import create_app

QUICK = "domena-2.json"  # two sides: its knowledge review takes seconds


def _reviewed(client: httpx.Client, match_id: int) -> tuple[httpx.Response, list[Any]]:
    """Ask for the review until it is no longer 202: the last answer, the 202 bodies."""
    pending = []
    guard = time.monotonic() + 600
    while True:
        res = client.get(f"/api/matches/{match_id}/knowledge")
        if res.status_code != 202:
            return res, pending
        pending.append(res.json())
        assert time.monotonic() < guard, "the review is still being worked out"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, int]]:
    url, mid = ledger_with(tmp_path_factory.mktemp("knowledge"), QUICK)
    with serving(create_app(url)) as base:
        yield base, url, mid


@pytest.fixture(scope="module")
def reviewed(site: tuple[str, str, int]) -> dict[str, Any]:
    """The sample's review asked by the page's form, with what was seen on the way."""
    base, _url, mid = site
    with httpx.Client(base_url=base, timeout=60) as c:
        before = c.get(f"/matches/{mid}").text
        asked = c.post(f"/matches/{mid}/knowledge", follow_redirects=False)
        during = c.get(f"/matches/{mid}").text
        last, pending = _reviewed(c, mid)
    return {"before": before, "asked": asked, "during": during, "last": last,
            "pending": pending}


def test_the_page_offers_the_review_and_the_post_leads_back_to_it(
        site: tuple[str, str, int], reviewed: dict[str, Any]) -> None:
    _base, _url, mid = site
    assert 'id="ask-review"' in reviewed["before"]
    assert f'action="/matches/{mid}/knowledge"' in reviewed["before"]
    assert 'id="review-players"' not in reviewed["before"]
    assert reviewed["asked"].status_code == 303
    assert reviewed["asked"].headers["location"] == f"/matches/{mid}#knowledge-review"


def test_progress_counts_deals_then_the_report_is_the_commands(
        site: tuple[str, str, int], reviewed: dict[str, Any]) -> None:
    last = reviewed["last"]
    assert last.status_code == 200, last.text
    assert last.json() == expected_report(QUICK)
    for p in reviewed["pending"]:
        assert p["status"] in ("queued", "running")
        assert 0 <= p["done"] <= p["total"]
    totals = {p["total"] for p in reviewed["pending"] if p["total"]}
    assert len(totals) <= 1, totals  # one count of deals throughout
    # The page while it ran showed the progress line (or already the report).
    during = reviewed["during"]
    assert 'id="review-progress"' in during or 'id="review-players"' in during


def test_the_report_is_kept_in_the_ledger_for_the_head(site: tuple[str, str, int],
                                                      reviewed: dict[str, Any]) -> None:
    _base, url, mid = site
    assert reviewed["last"].status_code == 200
    engine = db.open_db(url)
    try:
        with db.read_session(engine) as s:
            conn = s.connection()
            at = analyses.head(conn, mid)
            assert at is not None
            body = reviewed["last"].json()
            kept = knowledge_reviews.get(conn, mid, at, body["samples"], REPORT_VERSION)
    finally:
        engine.dispose()
    assert kept == body


def test_the_match_page_shows_players_mistakes_and_the_legend(
        site: tuple[str, str, int], reviewed: dict[str, Any]) -> None:
    base, _url, mid = site
    report = reviewed["last"].json()
    html = httpx.get(f"{base}/matches/{mid}").text
    assert 'id="review-players"' in html and 'id="ask-review"' not in html
    rows = re.findall(r'<tr data-seat="(\d+)">', html)
    assert rows == [str(p["seat"]) for p in report["report"]]
    # each player "Name (seat N)" in the page's direction, the name alone isolated: a
    # <bdi> around it all would lay "(seat N)" out in an Arabic name's direction
    cells = re.findall(r'<tr data-seat="\d+">\s*<td>(.*?)</td>', html, re.S)
    assert cells == [f"\u2068{p['player']}\u2069 (seat {p['seat'] + 1})"
                     for p in report["report"]]
    assert "from 2, a mistake from 5, a blunder from 10" in html
    # the review's cap and its sequential stop, as the CLI and the PDF say them
    how = re.search(r'<p class="muted" id="review-how">(.*?)</p>', html, re.S)
    assert how is not None
    assert f"up to {report['samples']} deals sampled per decision, stopping once its " \
        "label is settled at 95%" in how.group(1)
    named = sorted((m["event"], p["seat"]) for p in report["report"]
                   for m in [*p["named"], *p["unlucky"]])
    links = re.findall(r'data-event="(\d+)">\s*<a class="where" href="([^"]+)"', html)
    assert [int(e) for e, _ in links] == [e for e, _ in named]
    # Each is labelled: an error of play (a named mistake) or bad luck.
    kinds = re.findall(r'data-kind="(\w+)" data-event', html)
    assert kinds.count("error_of_play") == sum(len(p["named"]) for p in report["report"])
    assert kinds.count("bad_luck") == sum(len(p["unlucky"]) for p in report["report"])
    assert html.count('<span class="review-kind">error of play</span>') == \
        kinds.count("error_of_play")
    assert html.count('<span class="review-kind">bad luck</span>') == kinds.count("bad_luck")
    assert 'id="review-kinds"' in html
    for event, href in links:
        assert href == f"/matches/{mid}/replay?step={int(event) + 1}"


@pytest.mark.parametrize("severity", ["inaccuracy", "mistake", "blunder"])
def test_the_severity_filter_lists_only_that_kind(site: tuple[str, str, int],
                                                  reviewed: dict[str, Any],
                                                  severity: str) -> None:
    base, _url, mid = site
    report = reviewed["last"].json()
    html = httpx.get(f"{base}/matches/{mid}", params={"review": severity}).text
    listed = re.findall(r'<li class="\w+" data-severity="(\w*)" data-kind', html)
    want = sum(1 for p in report["report"] for m in p["named"] if m["severity"] == severity)
    assert listed == [severity] * want
    if not want:
        assert 'id="review-none"' in html


def test_the_bad_luck_filter_lists_only_bad_luck(site: tuple[str, str, int],
                                                reviewed: dict[str, Any]) -> None:
    base, _url, mid = site
    report = reviewed["last"].json()
    html = httpx.get(f"{base}/matches/{mid}", params={"review": "bad_luck"}).text
    listed = re.findall(r'data-kind="(\w+)" data-event', html)
    want = sum(len(p["unlucky"]) for p in report["report"])
    assert listed == ["bad_luck"] * want
    assert all(m["kind"] == "bad_luck" and m["severity"] is None
               for p in report["report"] for m in p["unlucky"])


def test_the_page_in_arabic_has_the_review(site: tuple[str, str, int],
                                          reviewed: dict[str, Any]) -> None:
    base, _url, mid = site
    assert reviewed["last"].status_code == 200
    html = httpx.get(f"{base}/matches/{mid}", params={"lang": "ar"}).text
    assert 'id="review-players"' in html
    assert "Review by what the player knew" not in html
    assert "ويتوقف السحب متى ثبت تصنيفه بثقة 95%" in html
    assert "Points lost by what the player knew" not in html
    # Every tile of a named mistake is kept whole, left to right: a line that broke
    # "3-1" at its hyphen would read "-3 1" in a right-to-left sentence.
    texts = re.findall(r'<div class="finding-text">(.*?)</div>', html, re.S)
    assert texts
    for text in texts:
        bare = re.sub(r'<bdi dir="ltr">\d-\d</bdi>|\u2068\d-\d\u2069', "", text)
        assert not re.search(r"\d-\d", bare), text


def test_asking_is_a_write_the_owner_token_opens(tmp_path: Path) -> None:
    url, mid = ledger_with(tmp_path, QUICK)
    app = create_app(url, access=Access(mode=Mode.KEYS, owner_token="sesame-1234567890"))
    with serving(app) as base, httpx.Client(base_url=base, timeout=60) as c:
        refused = c.post(f"/matches/{mid}/knowledge", headers={"Accept": "application/json"})
        assert refused.status_code == 401
        assert c.get(f"/api/matches/{mid}/knowledge").status_code == 404  # none started
        ok = c.post(f"/matches/{mid}/knowledge",
                    headers={"Accept": "application/json",
                             "Authorization": "Bearer sesame-1234567890"})
        assert ok.status_code in (200, 202), ok.text


# a signed number isolated left to right (issue 34: "-7.6", never "7.6-")
_NUM = r'(?:<bdi dir="ltr">)?([^<]*)(?:</bdi>)?'


def test_players_shows_mean_loss_and_luck_of_the_reviewed_matches(
        site: tuple[str, str, int], reviewed: dict[str, Any]) -> None:
    base, _url, _mid = site
    report = reviewed["last"].json()
    html = httpx.get(f"{base}/players").text
    for p in report["report"]:
        row = re.search(rf'<tr data-player="{re.escape(p["player"])}" data-preset="all"'
                        rf'.*?<td class="num mean-loss">{_NUM}</td>\s*'
                        rf'<td class="num luck">{_NUM}</td>',
                        html, re.S)
        assert row is not None, p["player"]
        mean = p["mean_knowledge_lost"]
        assert row.group(1) == ("–" if mean is None else f"{mean:.2f}")
        assert row.group(2) == f"{p['luck']:.1f}"


@pytest.mark.parametrize("order", ["asc", "desc"])
def test_players_sort_by_mean_loss_and_luck(site: tuple[str, str, int],
                                            reviewed: dict[str, Any], order: str) -> None:
    base, _url, _mid = site
    report = reviewed["last"].json()
    for key, field in (("mean_knowledge_lost", "mean_knowledge_lost"), ("luck", "luck")):
        html = httpx.get(f"{base}/players", params={"sort": key, "order": order}).text
        shown = re.findall(r'<tr data-player="([^"]+)" data-preset="all"', html)
        values = {p["player"]: p[field] for p in report["report"]}
        got = [values[n] for n in shown if n in values]
        assert got == sorted(got, reverse=order == "desc"), (key, got)
        assert f'aria-sort="{"ascending" if order == "asc" else "descending"}"' in html


def test_the_pdf_sheet_has_the_review_page(site: tuple[str, str, int],
                                           reviewed: dict[str, Any]) -> None:
    import io

    from pypdf import PdfReader

    base, _url, mid = site
    report = reviewed["last"].json()
    data = httpx.get(f"{base}/matches/{mid}/sheet.pdf").content
    pages = [p.extract_text() for p in PdfReader(io.BytesIO(data)).pages]
    (at,) = [i for i, p in enumerate(pages) if p.startswith("Review by what the player knew")]
    page = "\n".join(pages[at:])  # its list may run onto the next page
    for p in report["report"]:
        assert p["player"] in page
    named = sum(len(p["named"]) for p in report["report"])
    unlucky = sum(len(p["unlucky"]) for p in report["report"])
    assert named > 0  # the sample has mistakes to list: the list below is not empty
    assert page.count("(hindsight)") == named + unlucky  # review_phrases.cost_phrase
    assert page.count("error of play") == named and page.count("bad luck") == unlucky


def test_a_live_deal_hides_the_review_from_all_but_its_recorder(tmp_path: Path) -> None:
    # As the replay's Analysis panel: the review comes from the hands in play.
    from fastapi.testclient import TestClient

    from tests.seat.test_keys_http import HOSTS, TOKEN, _live

    app = create_app(f"sqlite:///{tmp_path / 'l.db'}", access=Access(Mode.KEYS, TOKEN, HOSTS))
    with TestClient(app) as c:
        mid, key, _match = _live(c, 12)
        page = c.get(f"/matches/{mid}").text
        assert 'id="review-hidden"' in page and 'id="ask-review"' not in page
        assert c.get(f"/api/matches/{mid}/knowledge").status_code == 403
        assert c.post(f"/matches/{mid}/knowledge").status_code == 401
        owner = {"Authorization": f"Bearer {TOKEN}"}
        assert c.post(f"/matches/{mid}/knowledge", headers=owner).status_code == 403
        mine = {"Authorization": f"Bearer {key}"}
        assert 'id="ask-review"' in c.get(f"/matches/{mid}", headers=mine).text
        assert c.get(f"/api/matches/{mid}/knowledge", headers=mine).status_code == 404
