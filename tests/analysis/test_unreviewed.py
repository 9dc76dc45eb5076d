"""Every decision or luck value the review by knowledge cannot give says why in words
(issue 30, item 6), per-deal luck reaches the JSON, and each mistake is told apart as an
error of play or bad luck (``ledger.analysis.unreviewed``, ``measures.kind_of``)."""

from __future__ import annotations

import json
import re

import pytest

from ledger.analysis.cli_knowledge import mistake_phrase
from ledger.analysis.measures import BAD_LUCK, ERROR_OF_PLAY, INACCURACY, kind_of
from ledger.analysis.unreviewed import REASONS, Why, counted
from ledger.cli import main
from ledger.i18n import language
from tests.exports.corpus import SAMPLES

ARABIC = re.compile("[\u0600-\u06ff]")
NO_STOCK = SAMPLES / "partial" / "sahrat-draw-2-seen-by-seat-0.json"
ARAB_BLOCK = SAMPLES / "arab-block-2.json"


def _lines(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    return [json.loads(x) for x in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize("code", sorted(REASONS))
def test_every_reason_is_worded_in_english_and_arabic(code: str) -> None:
    why = Why(code, 1_000_000 if code == "limit" else None)
    english = language("en").word(why.phrase())
    arabic = language("ar").word(why.phrase())
    assert english == why.text and "too deep" not in english
    assert ARABIC.search(arabic) and arabic != english
    if code == "limit":
        assert english == "limit reached after 1,000,000 positions"
        assert "1,000,000" in arabic
    assert Why.of_dict(why.to_dict()) == why


def test_reasons_are_counted_by_cause() -> None:
    got = counted([Why("limit", 1000), Why("stock", detail="x"), Why("limit", 1000)])
    assert got == [{"code": "limit", "positions": 1000, "count": 2,
                    "text": "limit reached after 1,000 positions"},
                   {"code": "stock", "count": 1, "text": REASONS["stock"]}]


def test_a_record_without_a_stock_says_so_for_each_decision_it_leaves(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(NO_STOCK), "--report", "--json", "--samples", "2"]) == 0
    (obj,) = _lines(capsys)
    left = [d for d in obj["judged"] if d["knowledge_lost"] is None]  # type: ignore[attr-defined]
    # Today's sampler cannot place the draws of a record without a stock (issue 30, item
    # 4, another change): whatever it leaves says so.
    for d in left:
        assert d["not_reviewed"]["code"] == "stock"
        assert d["not_reviewed"]["text"] == REASONS["stock"]
    assert main(["analyse", str(NO_STOCK), "--knowledge", "--json", "--samples", "2"]) == 0
    deals = _lines(capsys)
    for deal in deals:  # the decisions the hindsight review lists (none with hands hidden)
        for d in deal["decisions"]:  # type: ignore[attr-defined]
            if d.get("knowledge_lost", 0) is None:
                assert d["not_reviewed"] == REASONS["stock"]
                assert d["not_reviewed_why"]["code"] == "stock"
    # The luck per deal: what was not valued, and why.
    for deal in deals:
        luck = deal["luck"]
        assert isinstance(luck, list) and len(luck) == 2
        assert deal["luck_not_valued"] == sum(s["unvalued"] for s in luck)
        for s in luck:
            assert len(s["not_valued"]) == s["unvalued"]
            assert all(w["code"] == "stock" for w in s["not_valued"])
    # The report: counted per cause, worded in the reader's language.
    assert obj["not_reviewed"] == len(left)
    assert obj["luck_not_valued"] == sum(d["luck_not_valued"] for d in deals)
    assert obj["not_reviewed_why"] == ([{"code": "stock", "text": REASONS["stock"],
                                         "count": len(left)}] if left else [])
    assert main(["analyse", str(NO_STOCK), "--report", "--samples", "2"]) == 0
    text = capsys.readouterr().out
    assert "too deep" not in text
    assert ("decisions not reviewed: no stock known" in text) == bool(left)
    assert main(["analyse", str(NO_STOCK), "--report", "--samples", "2", "--lang", "ar"]) == 0
    said = language("ar").word(Why("stock").phrase())
    assert (said in capsys.readouterr().out) == bool(left)


def test_luck_per_deal_in_both_jsons(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(ARAB_BLOCK), "--knowledge", "--json", "--samples", "4"]) == 0
    deals = _lines(capsys)
    assert len(deals) > 3
    for deal in deals:
        luck = deal["luck"]
        assert isinstance(luck, list) and [s["seat"] for s in luck] == [0, 1]
        assert deal["luck_not_valued"] == 0
        for s in luck:
            assert s["unvalued"] == 0 and s["not_valued"] == [] and s["events"]
    assert main(["analyse", str(ARAB_BLOCK), "--report", "--json", "--samples", "4"]) == 0
    (obj,) = _lines(capsys)
    per_deal = obj["deals"]
    assert isinstance(per_deal, list)
    assert [d["deal"] for d in per_deal] == [d["deal"] for d in deals]
    assert [d["luck"] for d in per_deal] == [d["luck"] for d in deals]
    assert obj["luck_not_valued"] == 0
    for p in obj["report"]:  # type: ignore[attr-defined]
        summed = sum(s["luck"] for d in per_deal for s in d["luck"] if s["seat"] == p["seat"]
                     and s["result"] is not None)
        assert p["luck"] == pytest.approx(summed, abs=1e-2)


def test_an_error_of_play_and_bad_luck() -> None:
    assert kind_of(INACCURACY, 0) == ERROR_OF_PLAY
    assert kind_of(12.0, None) == ERROR_OF_PLAY
    assert kind_of(0.0, INACCURACY) == BAD_LUCK        # the best bet, lost in hindsight
    assert kind_of(INACCURACY - 0.1, 20) == BAD_LUCK
    assert kind_of(0.0, INACCURACY - 1) is None
    assert kind_of(None, 20) is None                   # not reviewed: neither


def test_the_report_labels_each_mistake(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(ARAB_BLOCK), "--report", "--json", "--samples", "8"]) == 0
    (obj,) = _lines(capsys)
    players = obj["report"]
    assert isinstance(players, list)
    named = [m for p in players for m in p["named"]]
    unlucky = [m for p in players for m in p["unlucky"]]
    assert named and unlucky  # this sample has both
    assert all(m["kind"] == ERROR_OF_PLAY and m["severity"] for m in named)
    assert all(m["kind"] == BAD_LUCK and m["severity"] is None
               and m["hindsight_lost"] >= INACCURACY for m in unlucky)
    assert all(p["bad_luck"] == len(p["unlucky"]) for p in players)
    judged = {j["event"]: j["kind"] for j in obj["judged"]}  # type: ignore[attr-defined]
    assert {m["event"] for m in unlucky} == {e for e, k in judged.items() if k == BAD_LUCK}
    assert main(["analyse", str(ARAB_BLOCK), "--report", "--samples", "8"]) == 0
    text = capsys.readouterr().out
    assert text.count(": error of play by ") == len(named)
    assert text.count(", the best bet by what the player knew: played ") == len(unlucky)
    assert text.count(": bad luck for ") == len(unlucky)
    arabic = language("ar")
    said = arabic.word(mistake_phrase(unlucky[0]))
    assert "سوء حظ" in said and "bad luck" not in said
    assert "خطأ في اللعب" in arabic.word(mistake_phrase(named[0]))


def test_a_deal_started_before_the_last_ended_says_why_its_luck_is_missing(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Whole deals cannot be drawn from the middle of an unfinished deal: before, the
    report stopped on an AssertionError of the solver; now that luck says why it is
    missing."""
    cut = SAMPLES / "faulty" / "deal-not-finished.json"
    assert main(["analyse", str(cut), "--report", "--json", "--samples", "2"]) == 1
    (obj,) = _lines(capsys)
    deals = obj["deals"]
    assert isinstance(deals, list) and len(deals) == 2
    assert deals[0]["luck_not_valued"] == 0
    assert deals[1]["luck_not_valued"] == 2 == obj["luck_not_valued"]
    for s in deals[1]["luck"]:
        assert [w["code"] for w in s["not_valued"]] == ["unfinished"]
        assert s["not_valued"][0]["text"] == "the deal before it never ended in the record"
