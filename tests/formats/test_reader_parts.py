"""``read_matches(path, part=(k, n))``: the n parts of a file are the whole file, shared out.

Checked on every bad input of bad_inputs.py (blank lines, over-long lines, cut gzip,
lines that are not JSON, .json documents) and on a mixed file: every match lands in
exactly one part, the one its position says, with the same problems as when the file is
read whole. ``audit --jobs`` and the import workers rely on it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger.formats.reader import MatchRecord, ReadError, read_matches

from .bad_inputs import GOOD_A, GOOD_B, Case, cases, line


def _key(rec: MatchRecord) -> tuple[object, ...]:
    return (rec.index, rec.line, [f.to_dict() for f in rec.problems], rec.events, rec.stop)


def _read(path: Path, part: tuple[int, int] = (0, 1)) -> list[tuple[object, ...]]:
    return [_key(r) for r in read_matches(path, part=part)]


@pytest.mark.parametrize("case", [c for c in cases() if c.content is not None and
                                  not c.unreadable and c.name != "fifty-megabyte-line"],
                         ids=lambda c: c.name)
@pytest.mark.parametrize("n", [2, 3])
def test_parts_of_a_bad_input_are_the_whole(case: Case, n: int, tmp_path: Path) -> None:
    path = case.write(tmp_path)
    whole = _read(path)
    parts = [_read(path, (k, n)) for k in range(n)]
    for k, got in enumerate(parts):
        assert all(int(str(rec[0])) % n == k for rec in got)
    assert sorted((rec for got in parts for rec in got), key=lambda r: int(str(r[0]))) == whole


def test_parts_of_a_mixed_file(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(line(GOOD_A) + b"\n   \n" + b"{not json\n" + line(GOOD_B) * 3 + b"[1]\n"
                     + b"\n" + line(GOOD_A))
    whole = _read(path)
    assert [rec[1] for rec in whole] == [1, 4, 5, 6, 7, 8, 10]  # blank lines hold no match
    for n in (2, 3, 4, 9):
        parts = [_read(path, (k, n)) for k in range(n)]
        assert sorted((r for got in parts for r in got), key=lambda r: int(str(r[0]))) == whole


def test_every_part_of_an_unreadable_file_raises(tmp_path: Path) -> None:
    for k in range(3):
        with pytest.raises(ReadError):
            list(read_matches(tmp_path / "missing.jsonl", part=(k, 3)))
