"""A finding's sentence is translated while its code is not (issue 8).

``domino-ledger audit --lang ar --json`` on the faulty samples of sample_matches/faulty/,
and the same with LANG=ar_EG.UTF-8 and no --lang: the codes are those of the English
report, the messages are Arabic, with every tile and number of the English sentence
set in a Unicode isolate so that it reads left to right inside the Arabic.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ledger.audit import audit_record
from ledger.findings import Finding
from ledger.formats.reader import read_matches
from ledger.i18n import language, render_finding
from ledger.i18n.phrases import FSI, LRI, PDI, english

ROOT = Path(__file__).resolve().parents[2]
FAULTY = sorted(p for p in (ROOT / "sample_matches" / "faulty").glob("*.json")
                if not p.name.endswith(".expected.json"))
PARTIAL = sorted(p for p in (ROOT / "sample_matches" / "partial").glob("*.json")
                 if not p.name.endswith(".expected.json"))
ARABIC = re.compile("[\u0600-\u06ff]")
TILE = re.compile(r"(?<![0-9-])[0-6]-[0-6](?![0-9-])")


def audit_json(*args: str, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    base = {k: v for k, v in os.environ.items()
            if k not in ("LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    done = subprocess.run([sys.executable, "-m", "ledger.cli", "audit", "--json", *args],
                          capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={**base, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8",
                               **(env or {"LANG": "C.UTF-8"})})
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def strip(text: str) -> str:
    return text.replace(LRI, "").replace(FSI, "").replace(PDI, "")


def check_arabic(english: list[dict[str, Any]], arabic: list[dict[str, Any]]) -> int:
    assert len(english) == len(arabic)
    seen = 0
    for en, ar in zip(english, arabic, strict=True):
        assert [f["code"] for f in en["findings"]] == [f["code"] for f in ar["findings"]]
        assert [(f["event"], f["severity"]) for f in en["findings"]] == \
            [(f["event"], f["severity"]) for f in ar["findings"]]
        # everything but the sentences is the same report
        assert {k: v for k, v in en.items() if k != "findings"} == \
            {k: v for k, v in ar.items() if k != "findings"}
        for fe, fa in zip(en["findings"], ar["findings"], strict=True):
            assert ARABIC.search(fa["message"]), fa
            assert fa["message"] != fe["message"]
            # the tiles the English names, in the same order, each isolated
            assert TILE.findall(strip(fa["message"])) == TILE.findall(fe["message"]), (fe, fa)
            for tile in TILE.findall(fe["message"]):
                assert f"{FSI}{tile}{PDI}" in fa["message"], (tile, fa["message"])
            seen += 1
    return seen


def test_audit_lang_ar_json_translates_messages_not_codes() -> None:
    files = [str(p) for p in FAULTY]
    english = audit_json(*files)
    arabic = audit_json("--lang", "ar", *files)
    assert check_arabic(english, arabic) >= len(FAULTY)
    # the English report is the one the samples' expectations were written for
    for path, report in zip(FAULTY, english, strict=True):
        expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
        codes = [f["code"] for f in report["findings"] if f["severity"] == "error"]
        assert codes == [f["code"] for f in expected["findings"]], path.name
        for f, want in zip([f for f in report["findings"] if f["severity"] == "error"],
                           expected["findings"], strict=True):
            assert all(w in f["message"] for w in want["words"]), (path.name, f)


def test_locale_ar_eg_without_lang_option() -> None:
    files = [str(p) for p in FAULTY[:6]]
    english = audit_json(*files)
    arabic = audit_json(*files, env={"LANG": "ar_EG.UTF-8"})
    assert check_arabic(english, arabic) >= 6
    # LC_ALL wins over LANG, and --lang over both
    assert audit_json(*files, env={"LANG": "ar_EG.UTF-8", "LC_ALL": "C.UTF-8"}) == english
    assert audit_json("--lang", "en", *files, env={"LANG": "ar_EG.UTF-8"}) == english


def test_summary_in_arabic_keeps_codes() -> None:
    done = subprocess.run([sys.executable, "-m", "ledger.cli", "audit", "--lang", "ar",
                           str(ROOT / "sample_matches/faulty/illegal-pass.json")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert "[" + FSI + "illegal-pass" + PDI + "]" in lines[2]
    assert ARABIC.search(lines[0]) and "فيها أخطاء" in lines[0]
    # The seat is its player's name and its number counted from 1 (issue 34).
    assert "مرّر \u2068علي\u2069 (المقعد \u20661\u2069)" in lines[2]


def test_unknown_language_is_refused_plainly() -> None:
    done = subprocess.run([sys.executable, "-m", "ledger.cli", "audit", "--lang", "xx",
                           str(FAULTY[0])], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "not a shipped language" in done.stderr


def _findings() -> list[Finding]:
    out = []
    for path in FAULTY + PARTIAL:
        for record in read_matches(path):
            out += audit_record(record).findings
    return out


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_every_sample_finding_has_a_template(lang: str) -> None:
    found = _findings()
    assert len({f.code for f in found}) > 25
    for f in found:
        assert f.template, f
        text = render_finding(f, lang)
        if lang == "en":
            # The template words the very same English sentence, but for its seats, said
            # counted from 1 (the report's message keeps the file's "seat 0", issue 34).
            assert english(f.template, f.params) == f.message
            assert text == re.sub(r"\bseat (\d+)", lambda m: f"seat {int(m[1]) + 1}",
                                  f.message)
        else:
            assert ARABIC.search(text) and "{" not in text, (f, text)


def test_wording_survives_storage() -> None:
    # A finding stored as JSON (to_dict + wording) can still be worded in Arabic later.
    ar = language("ar")
    for f in _findings():
        again = Finding.from_dict({**f.to_dict(), "wording": f.wording()})
        assert again == f and again.template == f.template
        assert ar.finding(again) == ar.finding(f)
    bare = Finding.from_dict({"event": 3, "severity": "error", "code": "x",
                              "message": "event 3: something"})
    assert ar.finding(bare) == "event 3: something"  # no template: stays as written
    assert ar.finding(bare, bare=True) == "something"
