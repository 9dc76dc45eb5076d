"""Faulty records: each breaks one rule and must give exactly the findings its sidecar
lists (worked out from the rules in sample_matches/faults.py, the ``why`` of each)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from ledger.audit import audit_record
from ledger.findings import CODES
from ledger.formats.reader import read_matches

from .files import FAULTY, expected, match_files

FILES = match_files(FAULTY)
KINDS = {
    "illegal-pass", "illegal-draw", "tile-not-in-hand", "wrong-end", "missing-end",
    "out-of-turn", "wrong-draw", "no-stock", "empty-stock", "wrong-opening-tile",
    "wrong-leader", "false-block", "wrong-deal-end", "wrong-match-end", "deal-end-early",
    "unexpected-redeal", "redeal-required", "pass-out-of-order",
}


def test_one_file_per_kind_of_fault() -> None:
    codes = {f["code"] for p in FILES for f in expected(p)["findings"]}
    assert codes >= KINDS, sorted(KINDS - codes)
    assert codes <= set(CODES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_faulty_file_gives_exactly_its_findings(path: Path) -> None:
    want = expected(path)
    report = audit_record(next(read_matches(path)))
    got = Counter((f.event, f.severity, f.code) for f in report.errors)
    assert got == Counter((e["event"], e["severity"], e["code"]) for e in want["findings"]), \
        [f.to_dict() for f in report.findings]
    for e in want["findings"]:
        (finding,) = [f for f in report.errors if (f.event, f.code) == (e["event"], e["code"])]
        for word in e["words"]:
            assert word.lower() in finding.message.lower(), (word, finding.message)
    for w in want["warnings"]:
        assert any((f.event, f.code) == (w["event"], w["code"]) for f in report.findings), w
    assert not report.ok


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_faulty_file_reads_cleanly(path: Path) -> None:
    """The fault is in the play, not the file: the reader has nothing to say."""
    record = next(read_matches(path))
    assert record.problems == [] and record.header is not None
