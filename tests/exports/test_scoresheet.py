"""The score sheet against the engine: every row, total and result as the audit computes it.

The sheet reads the engine's derived events; these tests check that it keeps
them whole (the AuditReport's ``deals``/``scores``/``winner``) and that the
rows add up the way rules-decisions.md says a match is scored ("Only a deal's
winning side scores (Fives adds in-deal scores)").
"""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest

from ledger.events import Dealt, Played
from ledger.formats.reader import parse_match
from ledger.formats.wire import MatchHeader
from ledger.rules import make_rules
from ledger.scoresheet import ScoreSheet, build_sheet, sheet_for_match, sheet_from_report
from tests.exports.corpus import audited, generated_match, generated_tables, table_id

TABLES = generated_tables()


def sheet_of(obj: dict[str, Any]) -> tuple[ScoreSheet, Any, Any]:
    record, report = audited(obj)
    assert record.header is not None
    return sheet_from_report(report, record.header), record, report


@pytest.mark.parametrize("table", TABLES, ids=table_id)
def test_rows_and_totals_are_the_engines(table: tuple[str, int, dict[str, object]]) -> None:
    sheet, record, report = sheet_of(generated_match(table))
    assert report.ok and report.complete
    assert [(d.result, d.winner, d.points) for d in sheet.deals] == [
        (d["result"], d["winner"], d["points"]) for d in report.deals]
    assert list(sheet.scores) == report.scores
    assert sheet.winner == report.winner
    assert sheet.complete and sheet.audit.ok and sheet.audit.label == "ok"
    assert [d.deal for d in sheet.deals] == list(range(1, len(sheet.deals) + 1))
    if sheet.deals:
        assert list(sheet.deals[-1].totals) == report.scores


@pytest.mark.parametrize("table", TABLES, ids=table_id)
def test_running_totals_add_up(table: tuple[str, int, dict[str, object]]) -> None:
    # rules-decisions.md, "Common to every preset": only the deal's winning side scores,
    # Fives adds what was scored during the deal.
    for seed in (7, 8):
        sheet, _, report = sheet_of(generated_match(table, seed))
        rules = report.rules
        assert rules is not None
        before = [0] * rules.sides
        for d in sheet.deals:
            expected = [b + f for b, f in zip(before, d.fives, strict=True)]
            if d.winner is not None:
                expected[rules.side_of(d.winner)] += d.points
            else:
                assert d.result == "tie" and d.points == 0
            assert list(d.totals) == expected, f"deal {d.deal}"
            before = expected


@pytest.mark.parametrize("table", TABLES, ids=table_id)
def test_fives_only_at_the_fives_table(table: tuple[str, int, dict[str, object]]) -> None:
    sheet, _, _ = sheet_of(generated_match(table))
    fives = [p for d in sheet.deals for p in d.fives]
    if table[0] == "sahrat-fives":
        # the seed: the seat scores when the open ends add up to a multiple of 5
        assert sheet.fives and all(p % 5 == 0 for p in fives) and any(fives)
    else:
        assert not sheet.fives and not any(fives)


@pytest.mark.parametrize("table", TABLES, ids=table_id)
def test_leader_is_the_seat_that_opened_each_deal(
        table: tuple[str, int, dict[str, object]]) -> None:
    sheet, record, _ = sheet_of(generated_match(table))
    openers = []
    opening = False
    for ev in record.events:
        if isinstance(ev, Dealt):
            if opening:
                openers.pop()  # a redeal replaces the deal before it
            openers.append(None)
            opening = True
        elif isinstance(ev, Played) and opening:
            openers[-1] = ev.seat
            opening = False
    assert [d.leader for d in sheet.deals] == openers[:len(sheet.deals)]
    players = record.header.seats if record.header else ()
    assert [d.leader_name for d in sheet.deals] == [players[s] for s in openers[:len(sheet.deals)]]


def test_match_ends_at_the_target() -> None:
    # rules-decisions.md: the first side to reach the target (domena default 100) wins
    sheet, _, _ = sheet_of(generated_match(("domena", 2, {})))
    assert sheet.target == 100 and sheet.options["target"] == 100
    assert sheet.end == "target" and sheet.end_phrase == "reached the target"
    side = sheet.winner_side
    assert side is not None
    top = sheet.scores[side.index]
    assert top >= 100 and sheet.scores.count(top) == 1
    assert sheet.winner_name == sheet.players[sheet.winner or 0]


def test_one_deal_target() -> None:
    sheet, _, _ = sheet_of(generated_match(("casual-arena", 2, {"target": 0})))
    assert sheet.target == 0 and sheet.end == "one-round"
    assert len([d for d in sheet.deals if d.winner is not None]) == 1
    assert "one deal" in sheet.table_label


def test_team_sides() -> None:
    # match-format.md: with 4 seats and teams, seats 0 and 2 are partners against 1 and 3
    sheet, _, report = sheet_of(generated_match(("sahrat-partner", 4, {})))
    p = sheet.players
    assert sheet.teams
    assert [(s.seats, s.name) for s in sheet.sides] == [
        ((0, 2), f"{p[0]} & {p[2]}"), ((1, 3), f"{p[1]} & {p[3]}")]
    assert len(sheet.scores) == 2
    assert sheet.winner_name == sheet.sides[report.winner % 2].name


def test_each_for_himself_has_a_side_per_seat() -> None:
    sheet, _, _ = sheet_of(generated_match(("sahrat-fives", 4, {})))
    assert [s.seats for s in sheet.sides] == [(0,), (1,), (2,), (3,)]
    assert [s.name for s in sheet.sides] == list(sheet.players)


def test_header() -> None:
    obj = copy.deepcopy(generated_match(("casual-arena", 4, {"teams": True})))
    obj["started_at"] = "2026-11-01T20:15:00Z"
    obj["source"] = {"site": "playelephant", "id": "t-99812"}
    sheet, _, _ = sheet_of(obj)
    assert sheet.title == "Casual Arena" and sheet.preset == "casual-arena"
    assert sheet.options == {"teams": True, "target": 100}
    assert sheet.started_at == "2026-11-01T20:15:00Z"
    assert sheet.source_label == "playelephant t-99812"
    assert sheet.table_label == "Casual Arena, 4 seats in two teams, to 100"


def test_a_wrong_claim_is_counted_and_the_rules_score_stands() -> None:
    obj = copy.deepcopy(generated_match(("domena", 2, {})))
    claim = next(e for e in obj["events"] if e["type"] == "deal_end" and e["winner"] is not None)
    true_points = claim["points"]
    claim["points"] = true_points + 7
    sheet, _, report = sheet_of(obj)
    assert sheet.audit.errors == len(report.errors) == 1
    assert sheet.audit.label == "1 error" and not sheet.audit.ok
    assert sheet.deals[0].points == true_points
    assert report.errors[0] in sheet.audit.findings


def _cut_after_first_deal(obj: dict[str, Any]) -> dict[str, Any]:
    obj = copy.deepcopy(obj)
    events = obj["events"]
    end = next(i for i, e in enumerate(events) if e["type"] == "deal_end")
    obj["events"] = events[:end + 1]
    return obj


def test_abandoned_match() -> None:
    obj = _cut_after_first_deal(generated_match(("domena", 2, {})))
    obj["events"].append({"type": "abandon", "reason": "inactivity"})
    sheet, _, report = sheet_of(obj)
    assert report.ok and report.complete
    assert sheet.complete and sheet.end == "abandon" and sheet.end_phrase == "abandoned"
    assert sheet.winner is None and sheet.winner_name is None
    assert len(sheet.deals) == 1 and list(sheet.scores) == report.scores


def test_unfinished_match() -> None:
    obj = _cut_after_first_deal(generated_match(("domena", 2, {})))
    sheet, _, report = sheet_of(obj)
    assert not sheet.complete and sheet.end_phrase == "not finished"
    assert sheet.audit.ok and sheet.audit.warnings >= 1  # match-unfinished
    assert list(sheet.scores) == report.scores


def test_unknown_table_gives_a_sheet_without_deals() -> None:
    obj = copy.deepcopy(generated_match(("domena", 2, {})))
    obj["table"] = {"rules": "no-such-table"}
    record = parse_match(obj)
    assert record.header is not None
    sheet = sheet_for_match(record.header, record.events)
    assert sheet.title == "no-such-table" and sheet.deals == ()
    assert sheet.audit.errors == 1 and sheet.audit.findings[0].code == "unknown-preset"
    assert sheet.winner is None and not sheet.complete


def test_build_sheet_from_stored_derived_events() -> None:
    # the store keeps derived events and findings: the sheet needs no second fold
    sheet, record, report = sheet_of(generated_match(("sahrat-fives", 2, {})))
    assert record.header is not None
    flat = [d for group in report.derived for d in group]
    again = build_sheet(record.header, flat, report.findings, ledger_hash="ab" * 32,
                        match_id="17")
    assert again.deals == sheet.deals and again.scores == sheet.scores
    assert again.ledger_hash == "ab" * 32 and again.match_id == "17"
    rules = make_rules("sahrat-fives", 2)
    assert build_sheet(record.header, flat, (), rules=rules).deals == sheet.deals


def test_to_dict_is_plain_json() -> None:
    sheet, _, report = sheet_of(generated_match(("selminha", 4, {})))
    data = orjson.loads(orjson.dumps(sheet.to_dict()))
    assert data["scores"] == report.scores and data["winner"] == report.winner
    assert [(d["result"], d["winner"], d["points"]) for d in data["deals"]] == [
        (d["result"], d["winner"], d["points"]) for d in report.deals]
    assert data["audit"]["status"] == "ok"
    header = MatchHeader("selminha", {}, tuple(data["players"]))
    assert build_sheet(header, [], []).players == tuple(data["players"])
