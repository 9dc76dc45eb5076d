"""Bad input files, each with what a reader must make of it.

Shared by tests/formats/test_reader_bad_input.py (through the reader) and
tests/test_cli.py (through the command, in a subprocess). Good matches around a
bad line come from the committed samples, so "the other lines are still
audited" is checked on real matches.
"""

from __future__ import annotations

import copy
import gzip
import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_matches"
HUGE = 50 * 1024 * 1024


def sample(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SAMPLES / name).read_text(encoding="utf-8"))
    return data


def line(match: object) -> bytes:
    return json.dumps(match, ensure_ascii=False).encode("utf-8") + b"\n"


GOOD_A = sample("casual-arena-2-one-round.json")
GOOD_B = sample("domena-4-one-round.json")


def changed(match: dict[str, Any], edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    out = copy.deepcopy(match)
    edit(out)
    return out


@dataclass(frozen=True)
class Bad:
    """One problem the input must produce."""

    line: int | None  # the line it must name (None: a .json file, or the file as a whole)
    code: str
    event: int | None = None
    words: tuple[str, ...] = ()


@dataclass
class Case:
    name: str
    file: str
    content: bytes | None  # None: the file does not exist
    bad: list[Bad] = field(default_factory=list)  # in input order
    good_lines: list[int] = field(default_factory=list)  # lines audited ok after all
    unreadable: bool = False  # the whole input cannot be read: exit 2

    def write(self, folder: Path) -> Path:
        path = folder / self.file
        if self.content is not None:
            path.write_bytes(self.content)
        return path


def _insert(i: int, ev: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    return lambda m: m["events"].insert(i, ev)


def _set(i: int, key: str, value: object) -> Callable[[dict[str, Any]], None]:
    return lambda m: m["events"][i].__setitem__(key, value)


def _table(key: str, value: object) -> Callable[[dict[str, Any]], None]:
    return lambda m: m["table"].__setitem__(key, value)


def truncated_gzip() -> tuple[bytes, int]:
    """Many sample matches gzipped and cut in the middle; how many lines survive whole."""
    names = sorted(p.name for p in SAMPLES.glob("*.json"))
    data = b"".join(line(sample(n)) for n in names)
    packed = gzip.compress(data, mtime=0)
    cut = packed[: len(packed) * 3 // 5]
    whole = zlib.decompressobj(wbits=31).decompress(cut).count(b"\n")
    assert 0 < whole < len(names)
    return cut, whole


def cases() -> list[Case]:
    cut, whole = truncated_gzip()
    huge = b'{"format": "domino-match/1", "pad": "' + b"x" * HUGE + b'"}\n'
    return [
        Case("broken-json-line", "broken.jsonl",
             line(GOOD_A) + b'{"format": "domino-match/1", "table": {"rules": \n' + line(GOOD_B),
             [Bad(2, "bad-json", words=("line 2", "json"))], good_lines=[1, 3]),
        Case("unknown-preset", "presets.jsonl",
             line(changed(GOOD_A, _table("rules", "dominó-x"))) + line(GOOD_B),
             [Bad(1, "unknown-preset", words=("dominó-x",))], good_lines=[2]),
        Case("unknown-option", "options.jsonl",
             line(GOOD_B) + line(changed(GOOD_A, _table("options", {"target": 0, "speed": 3}))),
             [Bad(2, "unknown-option", words=("speed",))], good_lines=[1]),
        Case("unknown-event-type", "chat.jsonl",
             line(changed(GOOD_A, _insert(3, {"type": "chat", "seat": 0, "text": "gg"}))),
             [Bad(1, "unknown-event-type", 3, ("event 3", "chat"))]),
        Case("tile-7-1", "seven.jsonl", line(changed(GOOD_A, _set(2, "tile", "7-1"))),
             [Bad(1, "bad-tile", 2, ("event 2", "7-1"))]),
        Case("seat-out-of-range", "seat.jsonl", line(changed(GOOD_A, _set(2, "seat", 5))),
             [Bad(1, "bad-seat", 2, ("event 2", "seat 5"))]),
        Case("truncated-gzip", "cut.jsonl.gz", cut,
             [Bad(whole + 1, "truncated-file", words=(f"line {whole}",))],
             good_lines=list(range(1, whole + 1))),
        Case("fifty-megabyte-line", "huge.jsonl", line(GOOD_A) + huge + line(GOOD_B),
             [Bad(2, "line-too-long", words=("line 2", "MiB"))], good_lines=[1, 3]),
        Case("missing-file", "missing.jsonl", None, unreadable=True),
        Case("empty-jsonl", "empty.jsonl", b"", [Bad(None, "empty-file", words=("empty",))]),
        Case("empty-json", "empty.json", b"", [Bad(None, "empty-file", words=("empty",))]),
        Case("blank-lines", "blank.jsonl", b"\n  \n\n", [Bad(None, "empty-file")]),
        Case("not-utf-8", "latin1.jsonl",
             line(GOOD_A) + '{"format": "domino-match/1", "seats": ["João"]}\n'.encode("latin-1")
             + line(GOOD_B), [Bad(2, "bad-json", words=("line 2", "utf-8"))],
             good_lines=[1, 3]),
        Case("not-an-object", "values.jsonl",
             line(GOOD_A) + b"[1, 2]\n" + b'"a match"\n' + line(GOOD_B),
             [Bad(2, "bad-format", words=("object", "list")),
              Bad(3, "bad-format", words=("object", "string"))], good_lines=[1, 4]),
        Case("json-list", "list.json", b"[" + line(GOOD_A) + b"]",
             [Bad(None, "bad-format", words=("list", ".jsonl"))]),
        Case("not-gzip", "plain.jsonl.gz", line(GOOD_A), unreadable=True),
        Case("pretty-json-with-bom", "bom.json",
             b"\xef\xbb\xbf" + json.dumps(GOOD_A, indent=2, ensure_ascii=False).encode(), [],
             good_lines=[0]),
    ]
