"""The PDF's review page labels each listed move an error of play or bad luck, and says why
each decision left out was not reviewed (issue 30), in English and Arabic: read back from
the PDF with pdftotext (poppler), not from what was written."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from ledger.analysis.cli_knowledge import report_object
from ledger.analysis.knowledge_review import iter_knowledge_reviews
from ledger.analysis.measures import hindsight_of
from ledger.audit import audit_record
from ledger.exports.pdf_export import pdf_bytes
from ledger.formats.canonical import match_hash
from ledger.formats.reader import read_matches
from ledger.i18n import language
from ledger.rules import make_rules
from ledger.scoresheet import ScoreSheet, sheet_from_report
from tests.exports.corpus import SAMPLES

pytestmark = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="no pdftotext")
LIMIT = 300   # positions a sample may visit: the first decisions of a deal are left out


@cache
def _reviewed() -> tuple[ScoreSheet, dict[str, Any]]:
    (record,) = read_matches(SAMPLES / "arab-block-2.json")
    h = record.header
    assert h is not None
    rules = make_rules(h.preset, len(h.seats), dict(h.options))
    seed = match_hash(h, [e for e in record.events if e is not None])
    deals = list(iter_knowledge_reviews(rules, record.events, seed, 8, luck=True, workers=1,
                                        sample_limit=LIMIT))
    sheet = sheet_from_report(audit_record(record), h, match_id="7")
    return sheet, report_object(rules, h.seats, deals, 8, seed,
                                hindsight_of(rules, record.events))


def _text(data: bytes, tmp_path: Path) -> str:
    pdf = tmp_path / "sheet.pdf"
    pdf.write_bytes(data)
    out = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True,
                         capture_output=True, text=True).stdout
    return out[out.index("Review by what the player knew"):] if "Review by" in out else out


def test_the_pdf_labels_errors_of_play_and_bad_luck(tmp_path: Path) -> None:
    sheet, report = _reviewed()
    named = sum(len(p["named"]) for p in report["report"])
    unlucky = sum(len(p["unlucky"]) for p in report["report"])
    assert named and unlucky
    text = _text(pdf_bytes([replace(sheet, knowledge=report)]), tmp_path)
    assert text.count("error of play,") == named
    assert text.count(": bad luck:") == unlucky
    assert "Error of play: the best move by what the player knew was another." in \
        " ".join(text.split())


def test_the_pdf_says_why_decisions_were_not_reviewed(tmp_path: Path) -> None:
    sheet, report = _reviewed()
    (why,) = report["not_reviewed_why"]
    assert why["code"] == "limit" and why["count"] == report["not_reviewed"] > 0
    text = " ".join(_text(pdf_bytes([replace(sheet, knowledge=report)]), tmp_path).split())
    assert (f"{why['count']} decisions not reviewed: limit reached after {LIMIT:,} positions "
            "(counted, never valued).") in text
    assert "too deep" not in text


def test_the_arabic_pdf_words_the_labels_and_the_reason(tmp_path: Path) -> None:
    sheet, report = _reviewed()
    text = _text(pdf_bytes([replace(sheet, knowledge=report)], language("ar")), tmp_path)
    assert "bad luck" not in text and "error of play" not in text
    assert "limit reached" not in text
    # Arabic is written right to left: pdftotext gives each line's words in reading order.
    for word in ("سوء", "حظ", "خطأ", "اللعب", "البحث"):
        assert word in text, word
