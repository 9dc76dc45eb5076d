"""The PDF score sheet's page of the review by what each player knew (issue 14, point 4):
printed after the sheet when the sheet carries a report, never without one; the report is
the one ``analyse FILE --report`` works out (``cli_knowledge.report_object``)."""

from __future__ import annotations

import io
import unicodedata
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from ledger.analysis.cli_knowledge import report_object
from ledger.analysis.knowledge_review import iter_knowledge_reviews
from ledger.audit import audit_record
from ledger.exports.pdf_export import pdf_bytes
from ledger.formats.canonical import match_hash
from ledger.formats.reader import read_matches
from ledger.i18n import language
from ledger.rules import make_rules
from ledger.scoresheet import ScoreSheet, sheet_from_report
from tests.exports.corpus import SAMPLES

SAMPLE = "domena-2.json"
K = 12  # deals per decision: enough to name some mistakes, quick to work out


@pytest.fixture(scope="module")
def reviewed() -> tuple[ScoreSheet, dict[str, Any]]:
    (record,) = read_matches(SAMPLES / SAMPLE)
    h = record.header
    assert h is not None
    rules = make_rules(h.preset, len(h.seats), dict(h.options))
    seed = match_hash(h, [e for e in record.events if e is not None])
    deals = list(iter_knowledge_reviews(rules, record.events, seed, K, luck=True, workers=1))
    sheet = sheet_from_report(audit_record(record), h, match_id="7")
    return sheet, report_object(rules, h.seats, deals, K, seed)


def _pages(data: bytes) -> list[str]:
    return ["".join(c for c in page.extract_text() if unicodedata.category(c) != "Cf")
            for page in PdfReader(io.BytesIO(data)).pages]


def test_no_review_page_without_a_report(reviewed: tuple[ScoreSheet, dict[str, Any]]) -> None:
    sheet, _report = reviewed
    assert not any("Review by what the player knew" in p for p in _pages(pdf_bytes([sheet])))


def test_the_review_page_holds_every_player_and_mistake(
        reviewed: tuple[ScoreSheet, dict[str, Any]]) -> None:
    sheet, report = reviewed
    pages = _pages(pdf_bytes([replace(sheet, knowledge=report)]))
    (at,) = [i for i, p in enumerate(pages) if p.startswith("Review by what the player knew")]
    page = "\n".join(pages[at:])  # its list may run onto the next page
    assert f"{K} deals sampled per decision" in page
    assert "an inaccuracy from 2, a mistake from 5, a blunder from 10" in page
    for p in report["report"]:
        mean = p["mean_knowledge_lost"]
        # The player named with the seat counted from 1, the luck with its standard
        # error (issue 34).
        cells = [f"{p['player']} (seat {p['seat'] + 1})", str(p["decisions"]),
                 str(p["forced"]), str(p["inaccuracies"]), str(p["mistakes"]),
                 str(p["blunders"]), "–" if mean is None else f"{mean:.1f}",
                 f"{p['luck']:.1f}"]
        # (pypdf gives a mixed-script cell in drawing order: the name checked on its own)
        assert " ".join(cells[1:]) in page and p["player"] in page, cells
        assert (f"seat {p['seat'] + 1}): luck {p['luck']:.1f} ± {p['luck_stderr']:.1f}, "
                f"result {p['result']:.1f}") in page
    assert f"Luck is estimated from {K} deals sampled per chance event" in page
    named = sorted(m["event"] for p in report["report"] for m in p["named"])
    steps = [int(line.split(",")[0].split()[1]) for line in page.splitlines()
             if line.startswith("step ")]
    assert steps == [e + 1 for e in named]
    if not named:
        assert "No move lost 2 points or more" in page


def test_the_review_page_in_arabic(reviewed: tuple[ScoreSheet, dict[str, Any]]) -> None:
    sheet, report = reviewed
    pages = _pages(pdf_bytes([replace(sheet, knowledge=report)], language("ar")))
    assert len(pages) == len(_pages(pdf_bytes([replace(sheet, knowledge=report)])))
    review = "\n".join(pages[1:])  # the review's list may run onto another page
    assert "Review by what the player knew" not in review
    assert "مراجعة بحسب ما عرفه اللاعب" in review


def test_the_export_command_adds_the_page_the_ledger_keeps(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from ledger.cli import main

    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    assert main(["import", str(SAMPLES / SAMPLE), "--db", url, "--json",
                 "--no-progress"]) == 0
    mid = str(json.loads(capsys.readouterr().out.splitlines()[0])["id"])
    out = tmp_path / "sheet.pdf"
    assert main(["export", mid, "--db", url, "--format", "pdf", "-o", str(out)]) == 0
    assert not any("Review by what the player knew" in p for p in _pages(out.read_bytes()))
    # analyse --report keeps the report in the ledger; the next export prints it.
    assert main(["analyse", mid, "--db", url, "--report", "--samples", str(K), "--json"]) == 0
    kept = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert main(["export", mid, "--db", url, "--format", "pdf", "-o", str(out)]) == 0
    pages = _pages(out.read_bytes())
    (at,) = [i for i, p in enumerate(pages) if p.startswith("Review by what the player knew")]
    page = "\n".join(pages[at:])  # its list may run onto the next page
    assert f"{K} deals sampled per decision" in page
    # Each mistake's line: "played 5-4, best 6-4, cost 2.7 points (knowledge) / 3.0
    # (hindsight)" (review_phrases.cost_phrase, issue 34).
    # (a line may wrap inside the phrase: its last word is counted)
    assert page.count("(hindsight)") == sum(len(p["named"]) + len(p["unlucky"])
                                            for p in kept["report"])
    assert page.count("error of play") == sum(len(p["named"]) for p in kept["report"])
    assert page.count("bad luck") == sum(len(p["unlucky"]) for p in kept["report"])
