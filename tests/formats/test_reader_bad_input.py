"""Bad input through the reader: one clear finding per problem, naming line and event;
the other matches of the file are still read and audited. No exception escapes but
ReadError, and only when nothing can be read at all."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from ledger.audit import audit_record
from ledger.formats.reader import MAX_LINE, ReadError, StrictReadError, read_matches
from ledger.formats.reader import read_matches_strict as strict

from .bad_inputs import GOOD_A, HUGE, Case, cases, line

CASES = {c.name: c for c in cases()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_gives_one_clear_finding_per_problem(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    path = case.write(tmp_path)
    if case.unreadable:
        with pytest.raises(ReadError) as err:
            list(read_matches(path))
        assert path.name in str(err.value)
        return
    reports = [audit_record(r) for r in read_matches(path)]
    bad = [r for r in reports if not r.ok]
    assert len(bad) == len(case.bad)
    for report, want in zip(bad, case.bad, strict=True):
        (finding,) = report.findings  # one finding, not a cascade
        assert (finding.code, finding.event, finding.severity) == (want.code, want.event, "error")
        assert report.line == want.line
        for word in want.words:
            assert word.lower() in finding.message.lower(), (word, finding.message)
        if want.event is not None:
            assert finding.message.startswith(f"event {want.event}: ")
    good = [r for r in reports if r.ok]
    assert [r.line if r.line is not None else 0 for r in good] == case.good_lines
    for report in good:
        assert report.complete and report.findings == []
    assert [r.match for r in reports] == list(range(len(reports)))


def test_a_skipped_unknown_event_leaves_the_rest_audited(tmp_path: Path) -> None:
    report = audit_record(next(read_matches(CASES["unknown-event-type"].write(tmp_path))))
    claim = GOOD_A["events"][-1]
    assert report.complete and report.scores == claim["scores"]
    assert report.winner == claim["winner"]


def test_fifty_megabyte_line_is_read_with_bounded_memory(tmp_path: Path) -> None:
    path = CASES["fifty-megabyte-line"].write(tmp_path)
    assert path.stat().st_size > HUGE
    tracemalloc.start()
    try:
        records = list(read_matches(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [r.line for r in records] == [1, 2, 3]
    # The reader holds at most one line of MAX_LINE (8 MiB), never the 50 MiB one.
    assert peak < 3 * MAX_LINE < HUGE


def test_line_just_under_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "limit.jsonl"
    path.write_bytes(line(GOOD_A) * 2)
    limit = len(line(GOOD_A))  # the line with its newline fits exactly
    assert [r.problems for r in read_matches(path, max_line=limit)] == [[], []]
    (first, second) = read_matches(path, max_line=limit - 2)
    assert first.problems[0].code == second.problems[0].code == "line-too-long"


def test_strict_reader_names_file_line_and_event(tmp_path: Path) -> None:
    path = CASES["tile-7-1"].write(tmp_path)
    with pytest.raises(StrictReadError) as err:
        list(strict(path))
    assert str(err.value).startswith(f"{path}:1, event 2: ")
    assert err.value.finding.code == "bad-tile"


def test_folder_is_not_a_match_file(tmp_path: Path) -> None:
    with pytest.raises(ReadError, match="folder"):
        list(read_matches(tmp_path))


def test_cases_cover_the_brief() -> None:
    wanted = {"broken-json-line", "unknown-preset", "unknown-option", "unknown-event-type",
              "tile-7-1", "seat-out-of-range", "truncated-gzip", "fifty-megabyte-line",
              "missing-file", "empty-jsonl", "empty-json", "not-utf-8", "not-an-object"}
    assert wanted <= set(CASES)
    assert all(isinstance(c, Case) for c in CASES.values())
