"""Decompression bombs (issue 19): a few hundred KB of gzip that would give gigabytes stop
with a ``file-too-large`` finding after a bounded read; real files read whole.

The bound is checked on what was read (the line reached), not on a clock: the
timings are benchmarks' business (benchmarks/audit.py).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson

from ledger.formats.reader import RATIO_FLOOR, Caps, read_matches
from ledger.sim.generator import generate_corpus


def _gz(path: Path, chunk: bytes, times: int) -> Path:
    with gzip.open(path, "wb", compresslevel=9) as f:
        for _ in range(times):
            f.write(chunk)
    return path


def test_a_gzip_of_newlines_stops_early(tmp_path: Path) -> None:
    path = _gz(tmp_path / "newlines.jsonl.gz", b"\n" * (1 << 20), 200)  # 200 MiB of newlines
    assert path.stat().st_size < 250_000
    records = list(read_matches(path))
    assert len(records) == 1
    (finding,) = records[0].problems
    assert finding.code == "file-too-large"
    assert "decompression bomb" in finding.message
    assert records[0].line is not None and records[0].line < 8 << 20  # 8 of 200 MiB at most


def test_a_gzip_of_tiny_lines_stops_early(tmp_path: Path) -> None:
    path = _gz(tmp_path / "braces.jsonl.gz", b"{}\n" * 100_000, 3)
    records = list(read_matches(path))
    assert records[-1].problems[0].code == "file-too-large"
    assert len(records) < 100_000  # of the 300,000 lines
    assert all(r.problems[0].code == "bad-format" for r in records[:-1])


def test_the_decompressed_size_is_capped(tmp_path: Path) -> None:
    matches = list(generate_corpus(20, seed=3))
    data = b"".join(orjson.dumps(m) + b"\n" for m in matches)
    assert len(data) > 3 * RATIO_FLOOR
    path = _gz(tmp_path / "some.jsonl.gz", data, 1)
    whole = list(read_matches(path))
    assert len(whole) == 20 and not any(r.problems for r in whole)
    capped = list(read_matches(path, caps=Caps(max_bytes=RATIO_FLOOR)))
    assert 1 < len(capped) < 20
    assert not any(r.problems for r in capped[:-1])
    assert capped[-1].problems[0].code == "file-too-large"
    assert "more than 0.0625 MiB" in capped[-1].problems[0].message


def test_real_files_read_whole_even_repeated(tmp_path: Path) -> None:
    # A match repeated line after line compresses about 150 times: still read whole.
    (match,) = generate_corpus(1, seed=5)
    path = _gz(tmp_path / "same.jsonl.gz", orjson.dumps(match) + b"\n", 400)
    records = list(read_matches(path))
    assert len(records) == 400 and not any(r.problems for r in records)


def test_blank_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    (match,) = generate_corpus(1, seed=5)
    line = orjson.dumps(match) + b"\n"
    path = tmp_path / "blanks.jsonl"
    path.write_bytes(b"\n" * 3 + b"  \n\t\r\n" + line + b"\n" * 70_000 + b"   " + line)
    records = list(read_matches(path))
    assert [r.line for r in records] == [6, 70_007]
    assert not any(r.problems for r in records)
