"""CSV score sheets read back with the csv module: every total is the engine's."""

from __future__ import annotations

import copy
import csv
import io
from typing import Any

import pytest

from ledger.audit import audit_record
from ledger.exports.csv_export import COLUMNS, MAX_SIDES, csv_bytes
from ledger.scoresheet import ScoreSheet, sheet_from_report
from tests.exports.corpus import (
    ALI,
    LAYLA,
    audited,
    generated_match,
    generated_tables,
    sample_files,
    sample_records,
    table_id,
)

TABLES = generated_tables()


def sheet_and_report(obj: dict[str, Any], match_id: str = "m") -> tuple[ScoreSheet, Any]:
    record, report = audited(obj)
    assert record.header is not None
    return sheet_from_report(report, record.header, match_id=match_id,
                             ledger_hash="0" * 64), report


def read_back(data: bytes) -> list[dict[str, str]]:
    assert data.startswith(b"\xef\xbb\xbf"), "spreadsheets need the UTF-8 byte order mark"
    text = data.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert tuple(rows[0]) == COLUMNS
    assert all(len(r) == len(COLUMNS) for r in rows)
    return [dict(zip(COLUMNS, r, strict=True)) for r in rows[1:]]


def _int(cell: str) -> int | None:
    return None if cell == "" else int(cell)


def _seat(cell: str) -> int | None:
    """A CSV seat (counted from 1, issue 34) as the engine's 0-based index."""
    got = _int(cell)
    assert got is None or got >= 1
    return None if got is None else got - 1


@pytest.mark.parametrize("table", TABLES, ids=table_id)
def test_every_total_is_the_engines(table: tuple[str, int, dict[str, object]]) -> None:
    sheet, report = sheet_and_report(generated_match(table))
    rows = read_back(csv_bytes([sheet]))
    assert len(rows) == len(report.deals)
    sides = report.rules.sides
    running = [0] * sides
    for row, deal, d in zip(rows, report.deals, sheet.deals, strict=True):
        assert (row["result"], _seat(row["winner_seat"]), int(row["points"])) == (
            deal["result"], deal["winner"], deal["points"])
        totals = [int(row[f"total_{i + 1}"]) for i in range(sides)]
        assert totals == list(d.totals)
        assert all(row[f"total_{i + 1}"] == "" for i in range(sides, MAX_SIDES))
        # the rows add up: before + Fives in the deal + the winner's points
        fives = [int(row[f"fives_{i + 1}"] or 0) for i in range(sides)]
        expected = [r + f for r, f in zip(running, fives, strict=True)]
        if deal["winner"] is not None:
            expected[report.rules.side_of(deal["winner"])] += deal["points"]
        assert totals == expected
        running = totals
        assert [_int(row[f"final_{i + 1}"]) for i in range(sides)] == report.scores
        assert _seat(row["match_winner_seat"]) == report.winner
        assert _seat(row["led_by_seat"]) == d.leader
        assert row["audit"] == "ok" and row["errors"] == "0"
        assert row["rules"] == table[0] and int(row["seats"]) == table[1]
    assert running == report.scores


def test_many_matches_one_file() -> None:
    pairs = [sheet_and_report(generated_match(t), match_id=f"m{i}")
             for i, t in enumerate(TABLES)]
    rows = read_back(csv_bytes([s for s, _ in pairs]))
    assert len(rows) == sum(len(r.deals) for _, r in pairs)
    ids = [row["match"] for row in rows]
    assert ids == [f"m{i}" for i, (_, r) in enumerate(pairs) for _ in r.deals]


def test_arabic_names_read_back_intact() -> None:
    obj = copy.deepcopy(generated_match(("sahrat-partner", 4, {})))
    obj["seats"][0] = ALI
    obj["seats"][1] = LAYLA
    sheet, report = sheet_and_report(obj)
    data = csv_bytes([sheet])
    assert ALI.encode("utf-8") in data and LAYLA.encode("utf-8") in data
    rows = read_back(data)
    for row in rows:
        assert row["players"].split("; ")[:2] == [ALI, LAYLA]
        assert row["side_1"] == f"{ALI} & {obj['seats'][2]}"
        assert row["side_2"] == f"{LAYLA} & {obj['seats'][3]}"
    seats = obj["seats"]
    assert [row["winner"] for row in rows] == [
        seats[d["winner"]] if d["winner"] is not None else "" for d in report.deals]
    assert [row["led_by"] for row in rows] == [seats[d.leader] for d in sheet.deals]


def test_crlf_rows_for_spreadsheets() -> None:
    sheet, report = sheet_and_report(generated_match(("arab-block", 2, {})))
    text = csv_bytes([sheet]).decode("utf-8-sig")
    assert text.count("\r\n") == len(report.deals) + 1
    assert "\n" not in text.replace("\r\n", "")


def test_formula_like_names_stay_text() -> None:
    # A spreadsheet runs a cell starting with = + - @ as a formula (CSV injection).
    obj = copy.deepcopy(generated_match(("domena", 2, {})))
    obj["seats"] = ["=HYPERLINK(\"http://x\")", "@Omar"]
    sheet, _ = sheet_and_report(obj)
    rows = read_back(csv_bytes([sheet]))
    assert rows[0]["players"] == "'=HYPERLINK(\"http://x\"); @Omar"
    assert rows[0]["side_1"] == "'=HYPERLINK(\"http://x\")" and rows[0]["side_2"] == "'@Omar"


def test_match_without_deals_still_has_a_row() -> None:
    obj = copy.deepcopy(generated_match(("domena", 2, {})))
    obj["events"] = [{"type": "abandon", "reason": "no show"}]
    sheet, report = sheet_and_report(obj)
    rows = read_back(csv_bytes([sheet]))
    assert len(rows) == 1
    assert rows[0]["deal"] == "" and rows[0]["match_end"] == "abandoned"
    assert rows[0]["final_1"] == "0" and rows[0]["final_2"] == "0"


@pytest.mark.skipif(not sample_files(), reason="no sample matches yet (sample_matches/)")
def test_every_sample_sheet() -> None:
    records = sample_records()
    reports = [audit_record(r) for r in records]
    sheets = [sheet_from_report(rep, rec.header, match_id=f"s{i}")
              for i, (rec, rep) in enumerate(zip(records, reports, strict=True))]
    rows = read_back(csv_bytes(sheets))
    for i, report in enumerate(reports):
        got = [row for row in rows if row["match"] == f"s{i}"]
        if not report.deals:
            assert len(got) == 1 and got[0]["deal"] == ""
            continue
        assert [(r["result"], _seat(r["winner_seat"]), int(r["points"])) for r in got] == [
            (d["result"], d["winner"], d["points"]) for d in report.deals]
        sides = len(report.scores or [])
        assert [_int(got[-1][f"final_{k + 1}"]) for k in range(sides)] == report.scores
        assert got[-1]["errors"] == str(len(report.errors))
