"""Exporting stored matches: the same sheets and hashes as the files they were imported from.

A real SQLite ledger, filled by `domino-ledger import`; no mock of the store.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from ledger.cli import main
from ledger.formats.reader import read_matches
from tests.exports.corpus import ALI, LAYLA, generated_match, generated_tables

TABLES = generated_tables()


@pytest.fixture
def ledger(tmp_path: Path, capsys: pytest.CaptureFixture[str]
           ) -> tuple[str, list[Path], dict[str, int]]:
    """A ledger holding a match per table plus one with Arabic names; file place -> id."""
    objs = [copy.deepcopy(generated_match(t)) for t in TABLES]
    for i, obj in enumerate(objs):
        obj["started_at"] = f"2026-10-{10 + i:02d}T20:00:00Z"
    many = tmp_path / "many.jsonl"
    many.write_bytes(b"".join(orjson.dumps(o) + b"\n" for o in objs))
    one = copy.deepcopy(generated_match(("domena", 2, {})))
    one["seats"] = [ALI, LAYLA]
    one["started_at"] = "2026-11-01T20:15:00Z"
    single = tmp_path / "one.json"
    single.write_bytes(orjson.dumps(one))
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    assert main(["import", str(many), str(single), "--db", url, "--json",
                 "--no-progress"]) == 0
    imported = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    ids = {(f"{i['file']}:{i['line']}" if i["line"] is not None else i["file"]): i["id"]
           for i in imported}
    assert len(ids) == len(objs) + 1 and all(i["new"] for i in imported)
    return url, [many, single], ids


def _sheets(args: list[str], tmp_path: Path) -> list[dict[str, Any]]:
    out = tmp_path / "sheets.json"
    assert main(["export", *args, "--format", "json", "-o", str(out)]) == 0
    return list(json.loads(out.read_text(encoding="utf-8"))["sheets"])


def _without_id(sheet: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in sheet.items() if k != "match"}


def test_stored_sheets_equal_file_sheets(ledger: tuple[str, list[Path], dict[str, int]],
                                         tmp_path: Path) -> None:
    url, files, ids = ledger
    from_files = _sheets([str(f) for f in files], tmp_path)
    from_store = _sheets([*(str(i) for i in ids.values()), "--db", url], tmp_path)
    assert [s["match"] for s in from_files] == list(ids)
    assert [s["match"] for s in from_store] == [str(i) for i in ids.values()]
    # same deals, totals, winner, audit and ledger hash
    assert [_without_id(s) for s in from_store] == [_without_id(s) for s in from_files]
    assert all(s["ledger_hash"] for s in from_store)


def test_selection_from_the_store(ledger: tuple[str, list[Path], dict[str, int]],
                                  tmp_path: Path) -> None:
    url, files, ids = ledger
    for criteria in (["--player", LAYLA], ["--player", "rania"], ["--preset", "selminha"],
                     ["--since", "2026-10-20"], ["--since", "2026-10-20", "--preset", "domena"]):
        by_file = _sheets([*map(str, files), *criteria], tmp_path)
        stored = _sheets(["--db", url, *criteria], tmp_path)
        assert by_file, criteria
        assert [str(ids[s["match"]]) for s in by_file] == [s["match"] for s in stored], criteria
        assert [_without_id(s) for s in stored] == [_without_id(s) for s in by_file]


def test_match_file_from_the_store(ledger: tuple[str, list[Path], dict[str, int]],
                                   tmp_path: Path) -> None:
    url, files, ids = ledger
    out = tmp_path / "back.jsonl.gz"
    assert main(["export", *(str(i) for i in ids.values()), "--db", url, "--format", "match",
                 "-o", str(out)]) == 0
    before = [r for f in files for r in read_matches(f)]
    after = list(read_matches(out))
    assert [(r.header, r.events) for r in after] == [(r.header, r.events) for r in before]


def test_unknown_stored_match(ledger: tuple[str, list[Path], dict[str, int]], tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    url, _, _ = ledger
    assert main(["export", "999", "--db", url, "--format", "csv",
                 "-o", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err
    assert "there is no match 999 in the ledger" in err and "Traceback" not in err
    assert not (tmp_path / "x.csv").exists()
