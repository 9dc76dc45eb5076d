"""The match page's review says why each decision left out was not reviewed, one line per
cause, and labels each listed move an error of play or bad luck, in English and Arabic
(issue 30). The report is the one ``analyse --report`` works out, kept in the ledger for
the match's head as the worker would keep it, with a low limit so that some decisions are
left out ("limit reached after N positions")."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from webtest_support import ledger_with, serving

from ledger.analysis.cli_knowledge import REPORT_VERSION, report_object
from ledger.analysis.knowledge_review import iter_knowledge_reviews
from ledger.analysis.measures import hindsight_of
from ledger.formats.canonical import match_hash
from ledger.formats.reader import read_matches
from ledger.rules import make_rules
from ledger.store import db
from ledger.store.jobs import analyses, knowledge_reviews
from tests.exports.corpus import SAMPLES
from web.app import create_app

SAMPLE = "arab-block-2.json"
LIMIT = 300   # positions a sample may visit: some first decisions of a deal are left out


def _report() -> dict[str, Any]:
    (record,) = read_matches(SAMPLES / SAMPLE)
    h = record.header
    assert h is not None
    rules = make_rules(h.preset, len(h.seats), dict(h.options))
    seed = match_hash(h, [e for e in record.events if e is not None])
    deals = list(iter_knowledge_reviews(rules, record.events, seed, 8, luck=True, workers=1,
                                        sample_limit=LIMIT))
    return report_object(rules, h.seats, deals, 8, seed, hindsight_of(rules, record.events))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, dict[str, Any]]]:
    url, mid = ledger_with(tmp_path_factory.mktemp("reasons"), SAMPLE)
    report = _report()
    engine = db.open_db(url)
    try:
        with db.writing(engine) as s:
            conn = db.write_connection(s)
            at = analyses.head(conn, mid)
            assert at is not None
            knowledge_reviews.put(conn, mid, at, 8, REPORT_VERSION, report)
            s.commit()
    finally:
        engine.dispose()
    with serving(create_app(url)) as base:
        yield base, mid, report


def test_the_page_says_why_and_labels_each_move(
        site: tuple[str, int, dict[str, Any]]) -> None:
    base, mid, report = site
    html = httpx.get(f"{base}/matches/{mid}", timeout=60).text
    (why,) = report["not_reviewed_why"]
    assert why["code"] == "limit" and why["count"] > 0
    assert (f'<li data-why="limit">{why["count"]} decisions not reviewed: limit reached '
            f'after {LIMIT} positions (counted, never valued).</li>') in html
    assert "too deep" not in html
    kinds = re.findall(r'<span class="review-kind">([^<]+)</span>', html)
    named = sum(len(p["named"]) for p in report["report"])
    unlucky = sum(len(p["unlucky"]) for p in report["report"])
    assert named and unlucky
    assert kinds.count("error of play") == named and kinds.count("bad luck") == unlucky


def test_the_arabic_page_words_the_reason_and_the_labels(
        site: tuple[str, int, dict[str, Any]]) -> None:
    base, mid, report = site
    html = httpx.get(f"{base}/matches/{mid}", params={"lang": "ar"}, timeout=60).text
    reason = re.search(r'<li data-why="limit">([^<]+)</li>', html)
    assert reason is not None and "بلغ البحث حدّه" in reason.group(1)
    assert "limit reached" not in html
    kinds = set(re.findall(r'<span class="review-kind">([^<]+)</span>', html))
    assert kinds == {"خطأ في اللعب", "سوء حظ"}
