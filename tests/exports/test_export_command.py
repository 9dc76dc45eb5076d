"""``domino-ledger export``: files in, every format out, selection, and clear errors."""

from __future__ import annotations

import copy
import csv
import io
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from pypdf import PdfReader

from ledger.cli import main
from ledger.exports.csv_export import COLUMNS
from ledger.formats.canonical import match_hash
from ledger.formats.reader import read_matches
from ledger.formats.writer import recorded_events
from tests.exports.corpus import ALI, LAYLA, audited, generated_match, generated_tables

TABLES = generated_tables()


def _write_jsonl(path: Path, objs: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(o) + b"\n" for o in objs))
    return path


@pytest.fixture
def corpus(tmp_path: Path) -> tuple[Path, Path, list[dict[str, Any]]]:
    """A .jsonl of a match per table, and one .json with Arabic names and a start time."""
    objs = [copy.deepcopy(generated_match(t)) for t in TABLES]
    for i, obj in enumerate(objs):
        obj["started_at"] = f"2026-10-{10 + i:02d}T20:00:00Z"
    many = _write_jsonl(tmp_path / "many.jsonl", objs)
    one = copy.deepcopy(generated_match(("domena", 2, {})))
    one["seats"] = [ALI, LAYLA]
    one["started_at"] = "2026-11-01T20:15:00Z"
    single = tmp_path / "one.json"
    single.write_bytes(orjson.dumps(one))
    return many, single, objs + [one]


def test_csv_of_many_files(corpus: tuple[Path, Path, list[dict[str, Any]]], tmp_path: Path,
                           capsys: pytest.CaptureFixture[str]) -> None:
    many, single, objs = corpus
    out = tmp_path / "sheets.csv"
    assert main(["export", str(many), str(single), "--format", "csv", "-o", str(out)]) == 0
    assert f"wrote {len(objs)} matches" in capsys.readouterr().err
    rows = list(csv.DictReader(io.StringIO(out.read_bytes().decode("utf-8-sig"))))
    assert tuple(rows[0].keys()) == COLUMNS
    reports = [audited(o)[1] for o in objs]
    assert len(rows) == sum(len(r.deals) for r in reports)
    by_match: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        by_match.setdefault(row["match"], []).append(row)
    ids = [f"{many}:{i + 1}" for i in range(len(objs) - 1)] + [str(single)]
    assert list(by_match) == ids
    for match_id, obj, report in zip(ids, objs, reports, strict=True):
        got = by_match[match_id]
        assert [int(r["points"]) for r in got] == [d["points"] for d in report.deals]
        last = got[-1]
        assert [int(last[f"total_{i + 1}"]) for i in range(len(report.scores))] == report.scores
        record, _ = audited(obj)
        assert last["ledger_hash"] == match_hash(record.header, recorded_events(record))
    assert by_match[str(single)][0]["players"] == f"{ALI}; {LAYLA}"


def test_json_and_pdf(corpus: tuple[Path, Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    many, single, objs = corpus
    assert main(["export", str(single), "--format", "json", "-o", str(tmp_path / "s.json")]) == 0
    doc = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    report = audited(objs[-1])[1]
    assert doc["sheets"][0]["scores"] == report.scores
    assert doc["sheets"][0]["players"] == [ALI, LAYLA]
    assert main(["export", str(many), "--format", "pdf", "-o", str(tmp_path / "s.pdf")]) == 0
    pages = PdfReader(tmp_path / "s.pdf").pages
    assert sum(p.extract_text().startswith("Score sheet") for p in pages) == len(objs) - 1


@pytest.mark.parametrize("name", ["back.jsonl", "back.jsonl.gz"])
def test_match_export_round_trip(corpus: tuple[Path, Path, list[dict[str, Any]]],
                                 tmp_path: Path, name: str) -> None:
    many, single, _ = corpus
    out = tmp_path / name
    assert main(["export", str(many), str(single), "--format", "match", "-o", str(out)]) == 0
    before = list(read_matches(many)) + list(read_matches(single))
    after = list(read_matches(out))
    assert len(after) == len(before)
    for a, b in zip(before, after, strict=True):
        assert a.header == b.header and a.events == b.events
        assert match_hash(a.header, recorded_events(a)) == match_hash(b.header,
                                                                      recorded_events(b))


def test_match_export_to_stdout(corpus: tuple[Path, Path, list[dict[str, Any]]],
                                capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    _, single, objs = corpus
    assert main(["export", str(single), "--format", "match", "-o", "-"]) == 0
    lines = capsysbinary.readouterr().out.splitlines()
    assert [orjson.loads(line) for line in lines] == [objs[-1]]


def _selected_ids(args: list[str], tmp_path: Path) -> list[str]:
    out = tmp_path / "sel.json"
    assert main(["export", *args, "--format", "json", "-o", str(out)]) == 0
    return [s["match"] for s in json.loads(out.read_text())["sheets"]]


def test_selection_over_files(corpus: tuple[Path, Path, list[dict[str, Any]]],
                              tmp_path: Path) -> None:
    many, single, objs = corpus
    files = [str(many), str(single)]
    ids = [f"{many}:{i + 1}" for i in range(len(objs) - 1)] + [str(single)]
    # --player: a seat's name, any case; an Arabic name too
    name = objs[3]["seats"][1]
    expected = [i for i, o in zip(ids, objs, strict=True) if name in o["seats"]]
    assert _selected_ids([*files, "--player", name.upper()], tmp_path) == expected
    assert _selected_ids([*files, "--player", LAYLA], tmp_path) == [str(single)]
    # --preset
    expected = [i for i, o in zip(ids, objs, strict=True) if o["table"]["rules"] == "selminha"]
    assert len(expected) == 3
    assert _selected_ids([*files, "--preset", "selminha"], tmp_path) == expected
    # --since: started on or after the date (a time without a zone is UTC)
    assert _selected_ids([*files, "--since", "2026-10-20"], tmp_path) == ids[10:]
    assert _selected_ids([*files, "--since", "2026-10-20T20:00:01"], tmp_path) == ids[11:]
    # together: every criterion must hold
    expected = [i for i, o in zip(ids, objs, strict=True)
                if o["table"]["rules"] == "domena" and o["started_at"] >= "2026-10-20"]
    assert len(expected) == 2  # the one-deal domena table and the Arabic one
    assert _selected_ids([*files, "--since", "2026-10-20", "--preset", "domena"],
                         tmp_path) == expected


def _fails(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["export", *args]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_errors_are_plain(corpus: tuple[Path, Path, list[dict[str, Any]]], tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    many, _, _ = corpus
    out = str(tmp_path / "x.csv")
    assert "no match selected" in _fails([str(many), "--player", "nobody", "--format", "csv",
                                          "-o", out], capsys)
    assert "not a date" in _fails([str(many), "--since", "yesterday", "--format", "csv",
                                   "-o", out], capsys)
    assert "no such file" in _fails(["missing.jsonl", "--format", "csv", "-o", out], capsys)
    assert "holds one match" in _fails([str(many), "--format", "match", "-o",
                                        str(tmp_path / "m.json")], capsys)
    assert "*.jsonl" in _fails([str(many), "--format", "match", "-o",
                                str(tmp_path / "m.txt")], capsys)
    assert "cannot write" in _fails([str(many), "--format", "csv", "-o",
                                     str(tmp_path / "no" / "dir.csv")], capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["many.jsonl", "one.json"]


def test_no_selection_at_all(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "x.csv")
    assert "name the matches" in _fails(["--format", "csv", "-o", out], capsys)
    err = _fails(["abc", "--format", "csv", "-o", out, "--db", f"sqlite:///{tmp_path}/l.db"],
                 capsys)
    assert "'abc' is neither a match file nor a stored match id" in err


def test_bad_lines_are_skipped_and_said(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    good = copy.deepcopy(generated_match(("domena", 2, {})))
    broken = copy.deepcopy(generated_match(("arab-block", 2, {})))
    broken["events"][2] = {"type": "play", "seat": 0, "tile": "7-7"}
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(orjson.dumps(good) + b"\n{not json\n" + orjson.dumps(broken) + b"\n")
    out = tmp_path / "out.jsonl"
    assert main(["export", str(path), "--format", "match", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:2: skipped" in err
    assert f"{path}:3, event 2: skipped" in err
    assert [r.header.seats for r in read_matches(out)] == [tuple(good["seats"])]
    # the sheet of the match with a bad tile is still made, its audit says what is wrong
    sheets = tmp_path / "s.json"
    assert main(["export", str(path), "--format", "json", "-o", str(sheets)]) == 1
    doc = json.loads(sheets.read_text())
    assert [s["audit"]["ok"] for s in doc["sheets"]] == [True, False]
    assert doc["sheets"][1]["ledger_hash"] is None
