"""``read_stream``: the reader's public entry for an open byte stream (the web's upload),
read as ``read_matches`` reads a file of that name; records and errors say the name."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest

from ledger.formats.reader import MatchRecord, ReadError, read_matches, read_stream

SAMPLES = Path(__file__).resolve().parents[2] / "sample_matches"


def _summary(records: list[MatchRecord]) -> list[tuple[int, int | None, bool, int]]:
    return [(r.index, r.line, r.header is not None, len(r.events)) for r in records]


def test_a_stream_reads_as_its_file_does() -> None:
    path = SAMPLES / "archive.jsonl.gz"
    from_file = list(read_matches(path))
    with path.open("rb") as raw:
        from_stream = list(read_stream(raw, "upload.jsonl.gz"))
    assert len(from_file) > 1
    assert _summary(from_stream) == _summary(from_file)
    assert {r.path for r in from_stream} == {"upload.jsonl.gz"}


def test_a_document_and_lines_by_name_or_by_choice() -> None:
    data = (SAMPLES / "domena-4.json").read_bytes()
    one = list(read_stream(io.BytesIO(data), "mine.json"))
    assert len(one) == 1 and one[0].header is not None and one[0].path == "mine.json"
    # The same pretty-printed object read one match per line cannot be read.
    lines = list(read_stream(io.BytesIO(data), "mine.jsonl"))
    assert lines and all(r.header is None for r in lines)
    chosen = list(read_stream(io.BytesIO(data), "mine.jsonl", document=True))
    assert _summary(chosen) == _summary(one)


def test_gzip_is_found_by_its_bytes_and_a_false_gz_is_named() -> None:
    data = (SAMPLES / "domena-4.json").read_bytes()
    packed = list(read_stream(io.BytesIO(gzip.compress(data)), "x.json"))
    assert len(packed) == 1 and packed[0].header is not None
    with pytest.raises(ReadError) as info:
        list(read_stream(io.BytesIO(b"{}\n"), "upload.jsonl.gz"))
    assert "upload.jsonl.gz: not a gzip file" in str(info.value)
