"""``domino-ledger analyse`` in the reader's language: the text output follows ``--lang``
(else the locale), as ``audit``'s does; ``--json`` stays as it is in every language."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ledger.analysis.review import move_phrase
from ledger.cli import main
from ledger.engine.moves import Move
from ledger.i18n import ENGLISH, language

SAMPLES = Path(__file__).resolve().parents[2] / "sample_matches"
# Deal 0 has mistakes and is cut by a new deal; deal 1 stops with the record.
CUT = str(SAMPLES / "faulty" / "deal-not-finished.json")
_ISOLATED = re.compile("[\u2066\u2067\u2068][^\u2069]*\u2069")


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    got = capsys.readouterr()
    return code, got.out, got.err


def test_text_in_arabic(capsys: pytest.CaptureFixture[str]) -> None:
    code, english, _ = run(["analyse", CUT, "--lang", "en"], capsys)
    assert code == 1  # the audit finds errors in this record
    assert "note: a new deal started before this one ended" in english
    assert "note: the record stops before the deal ended" in english
    assert "MISTAKE: lost" in english
    code_ar, arabic, _ = run(["analyse", CUT, "--lang", "ar"], capsys)
    assert code_ar == code
    lines = arabic.splitlines()
    assert len(lines) == len(english.splitlines())
    # Every line is Arabic once its values (names, numbers, tiles, the path) are set apart.
    for line in lines:
        bare = _ISOLATED.sub("", line)
        assert not re.search("[A-Za-z]", bare), line
    assert lines[0].endswith("يجد التدقيق أخطاء في هذا السجل")
    assert lines[1].startswith("  التوزيعة \u20660\u2069: أفضل لعب ")
    assert any("خطأ: خسر" in line for line in lines)
    assert "    ملاحظة: بدأت توزيعة جديدة قبل أن تنتهي هذه التوزيعة" in lines
    assert "    ملاحظة: ينتهي السجل قبل أن تنتهي التوزيعة" in lines
    # The numbers are the English output's: each mistake with its points.
    lost_en = re.findall(r"MISTAKE: lost (\d+)", english)
    lost_ar = re.findall("خطأ: خسر \u2066(\\d+)\u2069", arabic)
    assert lost_en and lost_ar == lost_en


def test_a_deal_not_analysed_in_arabic(capsys: pytest.CaptureFixture[str]) -> None:
    sample = str(SAMPLES / "partial" / "sahrat-draw-2-seen-by-seat-0.json")
    _, english, _ = run(["analyse", sample, "--deal", "1"], capsys)
    assert english.splitlines()[1] == \
        "  deal 1: not analysed: cannot be analysed: the order of the stock is not known"
    _, arabic, _ = run(["analyse", sample, "--deal", "1", "--lang", "ar"], capsys)
    assert arabic.splitlines()[1] == \
        "  التوزيعة \u20661\u2069: لم تُحلَّل: لا يمكن تحليلها: ترتيب البنك غير معروف"


def test_the_locale_is_honoured(monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    for key in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("LANG", "ar_EG.UTF-8")
    _, out, _ = run(["analyse", CUT], capsys)
    assert "ملاحظة: ينتهي السجل قبل أن تنتهي التوزيعة" in out
    _, _, err = run(["analyse", CUT, "--deal", "7"], capsys)
    assert "لا توجد توزيعة \u20667\u2069 لتحليلها" in err
    _, out, _ = run(["analyse", CUT, "--lang", "en"], capsys)  # --lang wins
    assert "note: the record stops before the deal ended" in out


def test_json_is_the_same_in_every_language(capsys: pytest.CaptureFixture[str]) -> None:
    _, english, _ = run(["analyse", CUT, "--json"], capsys)
    _, arabic, _ = run(["analyse", CUT, "--json", "--lang", "ar"], capsys)
    assert arabic == english
    deals = [json.loads(line) for line in english.splitlines()]
    assert [set(d) for d in deals] == [{"match", "deal", "best", "decisions", "note"}] * 2
    assert [d["note"] for d in deals] == ["a new deal started before this one ended",
                                          "the record stops before the deal ended"]


def test_moves_in_every_language() -> None:
    # One wording of moves for the text output and the web's Analysis panel: in English
    # the notation itself; in Arabic the end worded and the tile isolated.
    arabic = language("ar")
    for move, said in (("6-3 right", "\u20686-3\u2069 على اليمين"),
                       ("3-1 left", "\u20683-1\u2069 على اليسار"),
                       ("5-5 up", "\u20685-5\u2069 على الذراع العليا"),
                       ("4-4 down", "\u20684-4\u2069 على الذراع السفلى"),
                       ("6-6", "\u20686-6\u2069"), ("draw", "سحب"), ("pass", "باص")):
        assert ENGLISH.word(move_phrase(move)) == move
        assert str(move_phrase(Move.parse(move))) == move
        assert arabic.word(move_phrase(move)) == said
