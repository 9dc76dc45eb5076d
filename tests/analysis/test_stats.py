"""Player statistics over audited matches."""

from __future__ import annotations

from ledger.analysis.stats import ALL, AuditedMatch, audited, player_stats
from ledger.formats.reader import parse_match
from ledger.sim.generator import generate_match
from tests.analysis.test_review import SHORT


def rows_by(rows: list, player: str, preset: str):  # type: ignore[no-untyped-def]
    return next(r for r in rows if r.player == player and r.preset == preset)


def test_one_deal_match_by_hand() -> None:
    # SHORT: Arab Block to target 0 (one deal decides, rules-decisions "Common"): Ali goes
    # out and scores Omar's 2-0. Seed 003: the deal's winner wins the match.
    rows = player_stats([audited(parse_match(SHORT), analyse=True)])
    ali = rows_by(rows, "Ali", "arab-block")
    omar = rows_by(rows, "Omar", "arab-block")
    assert (ali.matches, ali.wins, ali.deals, ali.points) == (1, 1, 1, 2)
    assert (ali.outs, ali.blocks) == (1, 0)
    assert (omar.matches, omar.wins, omar.deals, omar.points, omar.outs) == (1, 0, 1, 0, 0)
    assert ali.points_per_deal == 2.0
    # Only Omar had choices in that deal (Ali's tiles each fit one way).
    assert omar.reviewed_deals == 1 and omar.decisions > 0
    assert rows_by(rows, "Ali", ALL).points == 2


def test_totals_agree_with_the_audits() -> None:
    matches = []
    for seed, (preset, seats) in enumerate([("domena", 4), ("sahrat-fives", 2),
                                            ("selminha", 3), ("domena", 2)]):
        matches.append(audited(parse_match(generate_match(preset, seats, {}, seed=seed))))
    for m in matches:
        rules = m.report.rules
        assert rules is not None
        one = player_stats([m])
        for seat, name in enumerate(m.seats):
            row = rows_by(one, name, rules.preset)
            # A player's points over the match are its side's final score (every point
            # scored in a deal: the deal's points and Fives scores).
            assert row.points == m.report.scores[rules.side_of(seat)]  # type: ignore[index]
            assert row.deals == len(m.report.deals)
            outs = sum(1 for d in m.report.deals if d["result"] == "out" and d["winner"] == seat)
            assert row.outs == outs
    # Per preset rows add up to the "all" row (names repeat across these matches).
    rows = player_stats(matches)
    for name in {r.player for r in rows}:
        per = [r for r in rows if r.player == name and r.preset != ALL]
        assert sum(r.points for r in per) == rows_by(rows, name, ALL).points
        assert sum(r.matches for r in per) == rows_by(rows, name, ALL).matches


def test_match_without_rules_is_skipped() -> None:
    record = parse_match({"format": "domino-match/1", "table": {"rules": "nope"},
                          "seats": ["A", "B"], "events": []})
    match = audited(record)
    assert isinstance(match, AuditedMatch)
    assert player_stats([match]) == []
