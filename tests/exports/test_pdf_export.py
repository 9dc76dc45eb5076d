"""The PDF score sheet read back with pypdf: every row and total is the engine's, and an
Arabic name comes out whole and in reading order."""

from __future__ import annotations

import copy
import io
import shutil
import subprocess
import unicodedata
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from ledger.audit import audit_record
from ledger.exports.pdf_export import font_path, pdf_bytes
from ledger.formats.canonical import match_hash
from ledger.formats.writer import recorded_events
from ledger.scoresheet import ScoreSheet, sheet_from_report
from tests.exports.corpus import (
    ALI,
    LAYLA,
    audited,
    generated_match,
    generated_tables,
    sample_files,
    sample_records,
    table_id,
)

TABLES = generated_tables()


def sheet_of(obj: dict[str, Any]) -> tuple[ScoreSheet, Any]:
    record, report = audited(obj)
    assert record.header is not None
    digest = match_hash(record.header, recorded_events(record))
    return sheet_from_report(report, record.header, ledger_hash=digest,
                             match_id="sheet.json"), report


def page_texts(data: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(data)).pages]


def plain(text: str) -> str:
    """Text without the invisible bidi controls the sheet puts around right-to-left names."""
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def row_line(sheet: ScoreSheet, i: int) -> str:
    d = sheet.deals[i]
    cells = [str(d.deal), d.leader_name or "", d.result, d.winner_name or "—", str(d.points)]
    for s in range(len(sheet.sides)):
        if sheet.fives:
            cells.append(str(d.fives[s]))
        cells.append(str(d.totals[s]))
    return " ".join(cells)


@pytest.mark.parametrize("table", TABLES, ids=table_id)
def test_rows_totals_winner_audit_and_hash(table: tuple[str, int, dict[str, object]]) -> None:
    sheet, report = sheet_of(generated_match(table))
    text = "\n".join(page_texts(pdf_bytes([sheet])))
    lines = [line.strip() for line in text.splitlines()]
    for i, deal in enumerate(report.deals):
        d = sheet.deals[i]
        assert (d.result, d.winner, d.points) == (deal["result"], deal["winner"], deal["points"])
        assert row_line(sheet, i) in lines, f"deal {i + 1}"
    if sheet.deals:
        assert list(sheet.deals[-1].totals) == report.scores
    names = [s.name for s in sheet.sides]
    final = "  ·  ".join(f"{n} {score}" for n, score in zip(names, report.scores, strict=True))
    assert f"Final score: {final}" in lines
    winner = names[report.rules.side_of(report.winner)]
    assert f"Winner: {winner}" in lines
    assert "Audit: ok" in lines
    assert f"Ledger hash (SHA-256): {sheet.ledger_hash}" in lines
    assert sheet.table_label in lines


def test_one_sheet_per_match() -> None:
    sheets = [sheet_of(generated_match(t))[0] for t in TABLES[:4]]
    pages = page_texts(pdf_bytes(sheets))
    starts = [i for i, text in enumerate(pages) if text.startswith("Score sheet")]
    assert len(starts) == 4
    for sheet, start in zip(sheets, starts, strict=True):
        assert sheet.table_label in pages[start]


def test_long_table_repeats_headings_on_the_next_page() -> None:
    sheet, _ = sheet_of(generated_match(("sahrat-fives", 4, {})))
    many = replace(sheet, deals=sheet.deals * 12)
    pages = page_texts(pdf_bytes([many]))
    assert len(pages) >= 2
    assert all("Fives" in p and "Total" in p and "Deal" in p for p in pages[:2])


def test_audit_errors_are_printed() -> None:
    obj = copy.deepcopy(generated_match(("domena", 2, {})))
    claim = next(e for e in obj["events"] if e["type"] == "deal_end" and e["winner"] is not None)
    claim["points"] += 3
    sheet, report = sheet_of(obj)
    text = "\n".join(page_texts(pdf_bytes([sheet])))
    assert "Audit: 1 error" in text
    finding = report.errors[0]
    assert f"event {finding.event} [{finding.code}]" in text


def test_the_shipped_font_is_embedded() -> None:
    sheet, _ = sheet_of(generated_match(("domena", 2, {})))
    reader = PdfReader(io.BytesIO(pdf_bytes([sheet])))
    fonts = reader.pages[0]["/Resources"]["/Font"]
    names = {str(f.get_object()["/BaseFont"]) for f in fonts.values()}
    assert names and all("DejaVuSans" in n for n in names), names
    for f in fonts.values():
        descendant = f.get_object()["/DescendantFonts"][0].get_object()
        assert "/FontFile2" in descendant["/FontDescriptor"]  # embedded, not referenced
    assert font_path().stat().st_size < 200_000  # a subset, kept small
    assert (font_path().parent / "LICENSE").is_file()


def arabic_sheet() -> tuple[ScoreSheet, Any, list[str]]:
    obj = copy.deepcopy(generated_match(("sahrat-partner", 4, {})))
    obj["seats"][0] = ALI
    obj["seats"][1] = LAYLA
    sheet, report = sheet_of(obj)
    return sheet, report, obj["seats"]


def test_arabic_names_read_in_logical_order() -> None:
    sheet, report, seats = arabic_sheet()
    text = plain("\n".join(page_texts(pdf_bytes([sheet]))))
    # The letters come back in the order they are read (and written in the record), not
    # in the left-to-right order the glyphs are drawn in, and not as presentation forms.
    for name in (ALI, LAYLA):
        assert name in text
        assert name[::-1] not in text
    assert not any("\ufb50" <= c <= "\ufeff" for c in text)
    led = [d for d in sheet.deals if d.leader_name in (ALI, LAYLA)]
    assert led, "some deal is led by a player with an Arabic name"
    # every row, Arabic names in their cells included, reads back cell by cell
    lines = [line.strip() for line in text.splitlines()]
    for i in range(len(sheet.deals)):
        assert row_line(sheet, i) in lines, f"deal {i + 1}"
    assert len(sheet.deals) == len(report.deals)


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils not installed")
def test_arabic_name_inside_a_line_keeps_its_place(tmp_path: Path) -> None:
    # "seat 1: <name>, seat 2: <name>" (seats counted from 1, issue 34): the name is
    # isolated so that the seat numbers and commas around it stay where they belong.
    # pdftotext applies the bidi algorithm when it extracts, so what it reads is the line
    # as a reader sees it.
    sheet, _, seats = arabic_sheet()
    pdf = tmp_path / "sheet.pdf"
    pdf.write_bytes(pdf_bytes([sheet]))
    out = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True,
                         capture_output=True, text=True, timeout=60).stdout
    text = plain(out)
    assert f"seat 1: {ALI}, seat 2: {LAYLA}, seat 3: {seats[2]}, seat 4: {seats[3]}" in text


def test_arabic_name_is_shaped_with_joined_letters() -> None:
    # What the PDF draws: HarfBuzz picks the joined (initial, medial, final) glyphs of the
    # shipped font, which differ from the letters' isolated glyphs.
    import uharfbuzz as hb

    font = hb.Font(hb.Face(hb.Blob.from_file_path(str(font_path()))))

    def shape(text: str) -> tuple[str, list[int]]:
        buf = hb.Buffer()
        buf.add_str(text)
        buf.guess_segment_properties()
        hb.shape(font, buf, {})
        return buf.direction, [g.codepoint for g in buf.glyph_infos]

    direction, glyphs = shape("علي")
    assert direction == "rtl"
    joined = glyphs[::-1]  # HarfBuzz gives right-to-left runs in visual order
    isolated = [shape(letter)[1][0] for letter in "علي"]
    assert 0 not in joined and 0 not in isolated  # glyph 0 is .notdef: a missing letter
    assert all(j != i for j, i in zip(joined, isolated, strict=True))


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="poppler-utils not installed")
def test_page_renders(tmp_path: Path) -> None:
    from PIL import Image

    sheet, _, _ = arabic_sheet()
    pdf = tmp_path / "sheet.pdf"
    pdf.write_bytes(pdf_bytes([sheet]))
    subprocess.run(["pdftoppm", "-png", "-r", "60", "-f", "1", "-l", "1", str(pdf),
                    str(tmp_path / "page")], check=True, capture_output=True, timeout=60)
    (png,) = tmp_path.glob("page*.png")
    with Image.open(png) as image:
        gray = image.convert("L")
        width, height = gray.size
        assert width < height  # A4 portrait
        dark = sum(gray.histogram()[:128])
        assert dark > 2000  # text and table rules are on the page


@pytest.mark.skipif(not sample_files(), reason="no sample matches yet (sample_matches/)")
def test_every_sample_sheet() -> None:
    records = sample_records()
    sheets = []
    for record in records:
        report = audit_record(record)
        sheets.append((sheet_from_report(report, record.header), report))
    pages = page_texts(pdf_bytes([s for s, _ in sheets]))
    lines = {line.strip() for line in plain("\n".join(pages)).splitlines()}
    assert sum(p.startswith("Score sheet") for p in pages) == len(sheets)
    for sheet, report in sheets:
        assert [(d.result, d.winner, d.points) for d in sheet.deals] == [
            (d["result"], d["winner"], d["points"]) for d in report.deals]
        for i in range(len(sheet.deals)):
            assert row_line(sheet, i) in lines


def test_letters_the_font_lacks_do_not_stop_the_export() -> None:
    obj = copy.deepcopy(generated_match(("domena", 2, {})))
    obj["seats"] = ["李小龍", "Ωμέγα Иван"]  # Greek and Cyrillic are in the font, Chinese not
    sheet, _ = sheet_of(obj)
    text = "\n".join(page_texts(pdf_bytes([sheet])))
    assert "Ωμέγα Иван" in text
    assert "Audit: ok" in text
