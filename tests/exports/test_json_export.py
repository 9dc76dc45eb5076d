"""JSON score sheets read back with the json module: every total is the engine's."""

from __future__ import annotations

import copy
import json

import pytest

from ledger.exports.json_export import FORMAT, json_bytes
from ledger.scoresheet import sheet_from_report
from tests.exports.corpus import ALI, LAYLA, audited, generated_match, generated_tables, table_id

TABLES = generated_tables()


def test_every_sheet_and_total_is_the_engines() -> None:
    audits = [audited(generated_match(t)) for t in TABLES]
    sheets = [sheet_from_report(report, record.header, match_id=f"m{i}",
                                ledger_hash=f"{i:064x}")
              for i, (record, report) in enumerate(audits)]
    doc = json.loads(json_bytes(sheets).decode("utf-8"))
    assert doc["format"] == FORMAT
    assert len(doc["sheets"]) == len(TABLES)
    for i, (got, (record, report)) in enumerate(zip(doc["sheets"], audits, strict=True)):
        assert got["match"] == f"m{i}" and got["ledger_hash"] == f"{i:064x}"
        assert [(d["result"], d["winner"], d["points"]) for d in got["deals"]] == [
            (d["result"], d["winner"], d["points"]) for d in report.deals]
        assert got["scores"] == report.scores and got["winner"] == report.winner
        assert got["complete"] == report.complete
        assert got["audit"] == {"ok": True, "status": "ok", "errors": 0, "warnings": 0,
                                "findings": []}
        if got["deals"]:
            assert got["deals"][-1]["totals"] == report.scores
        assert got["table"]["rules"] == record.header.preset
        assert got["players"] == list(record.header.seats)


@pytest.mark.parametrize("table", [("sahrat-fives", 4, {})], ids=table_id)
def test_fives_per_side(table: tuple[str, int, dict[str, object]]) -> None:
    record, report = audited(generated_match(table))
    doc = json.loads(json_bytes([sheet_from_report(report, record.header)]))
    sheet = doc["sheets"][0]
    assert sheet["table"]["fives"] is True
    assert all(len(d["fives"]) == 4 and len(d["totals"]) == 4 for d in sheet["deals"])


def test_arabic_names_are_written_as_text() -> None:
    obj = copy.deepcopy(generated_match(("domena", 2, {})))
    obj["seats"] = [ALI, LAYLA]
    record, report = audited(obj)
    data = json_bytes([sheet_from_report(report, record.header)])
    assert ALI.encode() in data and LAYLA.encode() in data
    sheet = json.loads(data)["sheets"][0]
    assert sheet["players"] == [ALI, LAYLA]
    assert sheet["winner_name"] == [ALI, LAYLA][report.winner]


def test_findings_are_listed() -> None:
    obj = copy.deepcopy(generated_match(("domena", 2, {})))
    claim = next(e for e in obj["events"] if e["type"] == "match_end")
    claim["scores"] = [1, 2]
    record, report = audited(obj)
    sheet = json.loads(json_bytes([sheet_from_report(report, record.header)]))["sheets"][0]
    assert sheet["audit"]["ok"] is False and sheet["audit"]["status"] == "1 error"
    assert [f["code"] for f in sheet["audit"]["findings"]] == ["wrong-match-end"]
    assert sheet["scores"] == report.scores
