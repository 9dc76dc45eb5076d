"""The glossary of each table (from the seeds) and the exports in Arabic."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from ledger.glossary import GLOSSARIES, entries, table_name
from ledger.rules import PRESETS

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT.parent / "shared" / "seeds"


def test_every_table_has_a_glossary() -> None:
    assert set(GLOSSARIES) == set(PRESETS)


@pytest.mark.parametrize("preset", sorted(GLOSSARIES))
def test_seed_terms_are_quoted_from_the_seed(preset: str) -> None:
    g = GLOSSARIES[preset]
    if not SEEDS.exists():
        pytest.skip("../shared/seeds is not beside the project")
    text = (SEEDS / g.seed).read_text()
    for term in g.terms:
        assert "en" in term.words
        if term.seed is not None:
            assert term.seed in text, (preset, term.key)


def test_seed_words_as_the_players_know_them() -> None:
    # seed 001: «البنك» (the stock), «قفلت» (blocked), «دومينو!»; seed 000: bās, الدومنة
    sahrat = {t.key: t for t in GLOSSARIES["sahrat-fives"].terms}
    assert sahrat["stock"].words["ar"] == "البنك"
    assert sahrat["blocked"].words["ar"] == "قفلت"
    assert sahrat["out"].words["ar"] == "دومينو!"
    domena = {t.key: t for t in GLOSSARIES["domena"].terms}
    assert domena["game"].words["ar"] == "الدومنة" and "bās" in (domena["pass"].seed or "")
    # seed 004: "he's called the hand" (Spanish: la mano); Selminha in Portuguese
    arena = {t.key: t for t in GLOSSARIES["casual-arena"].terms}
    assert arena["hand"].words["es"] == "la mano"
    assert GLOSSARIES["selminha"].languages[0] == "pt"


def test_entries_in_arabic() -> None:
    rows = entries("sahrat-partner", "ar")
    stock = next(r for r in rows if r.key == "stock")
    assert stock.word == "البنك" and "البنك" not in stock.seed.split("(")[1]
    assert all("\u0600" <= ch <= "\u06ff" for ch in stock.meaning if ch.isalpha())
    assert dict(stock.words)["ar"] == "البنك"
    assert table_name("domena", "ar") != table_name("domena", "en") == "PlayElephant Domena"


def _export(fmt: str, out: Path, *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "ledger.cli", "export", "--format", fmt,
                           "-o", str(out), *args,
                           str(ROOT / "sample_matches/faulty/illegal-pass.json"),
                           str(ROOT / "sample_matches/sahrat-fives-4.json")],
                          capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8"})
    assert done.returncode == 0, done.stderr


def test_pdf_in_arabic(tmp_path: Path) -> None:
    _export("pdf", tmp_path / "ar.pdf", "--lang", "ar")
    _export("pdf", tmp_path / "en.pdf")
    ar = "\n".join(p.extract_text() for p in PdfReader(tmp_path / "ar.pdf").pages)
    en = "\n".join(p.extract_text() for p in PdfReader(tmp_path / "en.pdf").pages)
    assert "Score sheet" in en and "Score sheet" not in ar
    for word in ("ورقة", "الفائز", "التدقيق"):  # shaped Arabic still extracts
        assert word in ar or word[::-1] in ar, word
    assert "illegal-pass" in ar and "2-0" in ar  # the code and the tile, as written


def test_csv_in_arabic_keeps_its_columns(tmp_path: Path) -> None:
    _export("csv", tmp_path / "ar.csv", "--lang", "ar")
    _export("csv", tmp_path / "en.csv")
    ar = list(csv.reader(io.StringIO((tmp_path / "ar.csv").read_text("utf-8-sig"))))
    en = list(csv.reader(io.StringIO((tmp_path / "en.csv").read_text("utf-8-sig"))))
    assert ar[0] == en[0]  # machine column names
    col = en[0].index("match_end")
    assert en[1][col] == "not finished" and ar[1][col] == "لم تنتهِ"
    rules = en[0].index("rules")
    assert [r[rules] for r in ar] == [r[rules] for r in en]
