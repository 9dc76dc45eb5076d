"""Bidi-correct PDFs (issue 34, item 5): an Arabic sheet reads right to left with its names,
tiles ("6-4") and signed numbers ("-7.6") each whole and in their own order; an English
sheet keeps an Arabic name apart from its transliteration; no heading breaks inside a word;
the Arabic sheet's labels, result words, options and finding codes are in Arabic.

Read back with poppler: ``pdftotext -layout`` writes a right-to-left line in reading
order, with each left-to-right stretch it found as an embedding (LRE ... PDF) in the order
it is drawn: ``reading`` turns such a stretch's words around, so a line drawn right gives
its words in the order a reader takes them.
"""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ledger.exports.pdf_export import pdf_bytes
from ledger.exports.pdf_text import Group, Run, runs_of
from ledger.i18n import language
from ledger.scoresheet import ScoreSheet
from tests.exports.corpus import generated_match
from tests.exports.test_pdf_export import sheet_of

AR = language("ar")
LRE, RLE, POP = "\u202a", "\u202b", "\u202c"
poppler = pytest.mark.skipif(shutil.which("pdftotext") is None or
                             shutil.which("pdftoppm") is None,
                             reason="poppler-utils not installed")


def pieces(group: Group) -> list[tuple[str, bool]]:
    out: list[tuple[str, bool]] = []
    for item in group.items:
        out += [(item.text, item.rtl)] if isinstance(item, Run) else pieces(item)
    return out


def test_a_tile_and_a_signed_number_are_whole_pieces_of_an_arabic_line() -> None:
    text = AR.say("{a} {b}", a=AR.say("Final score: {scores}", scores="6-4"), b=-7.6)
    drawn = pieces(runs_of(text, rtl=True))
    assert ("6-4", False) in drawn and ("-7.6", False) in drawn
    # in reading order: the label first (drawn rightmost), the tile, then the number
    order = [t for t, _ in drawn if t.strip()]
    assert order.index("6-4") < order.index("-7.6")
    assert order[0].startswith("النتيجة")


def test_plain_text_splits_where_the_unicode_rules_would() -> None:
    # after Arabic letters each number is a piece of its own (read from the right); after
    # Latin letters it goes with them ("SHA-256")
    assert pieces(runs_of("الجولة 3 و6-4 5-5", rtl=True)) == [
        ("الجولة ", True), ("3", False), (" و", True), ("6-4", False), (" ", True),
        ("5-5", False)]
    assert pieces(runs_of("SHA-256 ملف", rtl=True)) == [("SHA-256", False), (" ملف", True)]
    assert pieces(runs_of("عَلي Ali", rtl=False)) == [("عَلي", True), (" Ali", False)]


def reading(line: str) -> list[str]:
    """A line of ``pdftotext -layout`` as the words a reader takes, in order."""
    words: list[str] = []
    rtl_line = line.lstrip().startswith(RLE)
    for part in re.split(f"({LRE}[^{POP}]*{POP})", line):
        inner = re.sub(f"[{LRE}{RLE}{POP}]", " ", part).split()
        words += inner[::-1] if part.startswith(LRE) and rtl_line else inner
    return words


def layout(tmp_path: Path, data: bytes) -> list[str]:
    pdf = tmp_path / "out.pdf"
    pdf.write_bytes(data)
    out = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True,
                         capture_output=True, text=True, timeout=60).stdout
    return out.splitlines()


def line_with(lines: list[str], word: str) -> list[str]:
    found = [reading(line) for line in lines if word in line]
    assert found, word
    return found[0]


def arabic_match() -> ScoreSheet:
    obj = copy.deepcopy(generated_match(("sahrat-fives", 4, {})))
    obj["seats"] = ["علي", "Youssef", "نور", "Tariq"]
    sheet, _ = sheet_of(obj)
    return sheet


@poppler
def test_the_arabic_sheet_reads_right_to_left_in_order(tmp_path: Path) -> None:
    sheet = arabic_match()
    lines = layout(tmp_path, pdf_bytes([sheet], AR))
    final = [w.strip(":") for w in line_with(lines, "النهائية") if w.strip(":")]
    expected: list[str] = ["النتيجة", "النهائية"]
    for side in sheet.sides:
        expected += [sheet.players[side.seats[0]], str(sheet.scores[side.index]), "·"]
    assert final == expected[:-1]
    players = line_with(lines, "(المقعد")
    numbers = [w.strip("()،") for w in players if w.strip("()،").isdigit()]
    names = [w.strip("()،") for w in players if w.strip("()،") in sheet.players]
    assert numbers == ["1", "2", "3", "4"] and names == list(sheet.players)


@poppler
def test_signed_numbers_keep_their_sign_on_the_arabic_review(tmp_path: Path) -> None:
    sheet = replace(arabic_match(), knowledge=_report(luck=-7.6, adjusted=-12.25))
    text = "\n".join(layout(tmp_path, pdf_bytes([sheet], AR)))
    assert "-7.6" in text and "-12.2" in text
    assert "7.6-" not in text and "12.2-" not in text


def _report(luck: float, adjusted: float) -> dict[str, Any]:
    player = {"player": "علي", "seat": 0, "decisions": 9, "forced": 2, "inaccuracies": 1,
              "mistakes": 0, "blunders": 0, "mean_knowledge_lost": 0.4, "luck": luck,
              "result": 3.0, "luck_adjusted": adjusted, "named": [], "unlucky": []}
    return {"samples": 8, "report": [player],
            "thresholds": {"inaccuracy": 2.0, "mistake": 5.0, "blunder": 10.0}}


@poppler
def test_the_english_sheet_keeps_an_arabic_name_apart(tmp_path: Path) -> None:
    obj = copy.deepcopy(generated_match(("domena", 2, {})))
    obj["seats"] = ["عَلي Ali", "Omar"]
    sheet, _ = sheet_of(obj)
    text = "\n".join(layout(tmp_path, pdf_bytes([sheet])))
    plain = re.sub(f"[{LRE}{RLE}{POP}]", "", text)
    assert "Ali" in plain.split() or "Ali" in re.split(r"[\s()]+", plain)
    assert "عَليAli" not in plain and "Aliعَلي" not in plain
    assert "عَلي" in plain


@poppler
@pytest.mark.parametrize("code", ["en", "ar", "pt", "es"])
def test_no_heading_word_is_split(tmp_path: Path, code: str) -> None:
    lang = language(code)
    sheet = replace(arabic_match(), knowledge=_report(luck=1.0, adjusted=2.0))
    pdf = tmp_path / "sheet.pdf"
    pdf.write_bytes(pdf_bytes([sheet], lang))
    html = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], check=True,
                          capture_output=True, text=True, timeout=60).stdout
    drawn = set(re.findall(r">([^<]+)</word>", html))
    words = drawn | {w[::-1] for w in drawn}  # -bbox gives Arabic words as drawn
    heads = ["Deal", "Led by", "Result", "Winner", "Points", "Fives", "Total", "Player",
             "Decisions", "Forced", "Inaccuracies", "Mistakes", "Blunders", "Mean loss",
             "Luck", "Luck-adjusted"]
    for head in heads:
        for word in lang.say(head).split():
            # lam-alef is one glyph that pdftotext maps to its two letters in reading
            # order, so a word drawn turned around has them the other way
            assert word in words or _lam_alef(word) in words, (code, head, word)


def _lam_alef(word: str) -> str:
    return re.sub("ل([اأإآ])", r"\1ل", word)


@poppler
def test_the_arabic_sheet_words_its_labels_codes_and_options(tmp_path: Path) -> None:
    obj = copy.deepcopy(generated_match(("domena", 2, {})))
    claim = next(e for e in obj["events"] if e["type"] == "deal_end" and e["winner"] is not None)
    claim["points"] += 3
    sheet, report = sheet_of(obj)
    text = "\n".join(layout(tmp_path, pdf_bytes([sheet], AR)))
    assert report.errors[0].code == "wrong-deal-end"
    assert "wrong-deal-end" not in text
    assert "نهاية جولة خاطئة" in text
    assert "target" not in text and "الهدف" in text
    assert "page" not in text and "صفحة" in text
    for english in ("out", "block", "Deal", "Winner", "Points"):
        assert not re.search(rf"\b{english}\b", text), english


@poppler
@pytest.mark.parametrize("code", ["en", "ar"])
def test_the_first_page_renders(tmp_path: Path, code: str) -> None:
    from PIL import Image

    pdf = tmp_path / "sheet.pdf"
    pdf.write_bytes(pdf_bytes([arabic_match()], language(code)))
    subprocess.run(["pdftoppm", "-png", "-r", "50", "-f", "1", "-l", "1", str(pdf),
                    str(tmp_path / "page")], check=True, capture_output=True, timeout=60)
    (png,) = tmp_path.glob("page*.png")
    with Image.open(png) as image:
        gray = image.convert("L")
        width = gray.size[0]
        # the title's ink: at the left on an English page, at the right on an Arabic one
        top = gray.crop((0, 0, width, 60))
        left = sum(top.crop((0, 0, width // 2, 60)).histogram()[:128])
        right = sum(top.crop((width // 2, 0, width, 60)).histogram()[:128])
        assert (right > left) == (code == "ar")
