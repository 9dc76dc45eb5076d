"""``domino-ledger knowledge FILE --deal N --step K --seat S``: the full deals the review
by knowledge solves for one decision, for users and for checking from outside."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import orjson
import pytest

from ledger.analysis.cli_knowledge import decision_text
from ledger.analysis.full_deals import DealSpace, FullDeal
from ledger.analysis.knowledge_review import decisions_of, iter_knowledge_reviews, values_over
from ledger.cli import main
from ledger.formats.canonical import match_hash
from ledger.formats.reader import parse_match
from ledger.i18n import language
from ledger.rules import make_rules
from ledger.sim.generator import generate_match
from ledger.tiles import Tile
from tests.analysis.test_full_deals import replay_errors


@pytest.fixture(scope="module")
def match_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ks") / "selminha.json"
    path.write_bytes(orjson.dumps(generate_match("selminha", 3, {}, seed=5)))
    return path


def _record(path: Path):  # type: ignore[no-untyped-def]
    record = parse_match(json.loads(path.read_text()))
    assert record.header is not None
    return record, make_rules("selminha", 3, {})


def _deal(obj: dict[str, object]) -> FullDeal:
    hands = obj["hands"]
    stock = obj["stock"]
    assert isinstance(hands, list) and isinstance(stock, list)
    return FullDeal(tuple(tuple(Tile.parse(t) for t in h) for h in hands),
                    tuple(Tile.parse(t) for t in stock))


def test_json_samples_are_full_deals_that_replay(match_file: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    record, rules = _record(match_file)
    events = [e for e in record.events if e is not None]
    # A decision after another seat drew: the facts of its past draws matter.
    f = next(f for f in decisions_of(rules, record.events)
             if f.deal == 0 and any(a.kind == "draw" and a.seat != f.seat
                                    for a in f.constraints.facts.acts))  # type: ignore[union-attr]
    assert main(["knowledge", str(match_file), "--deal", "0", "--step", str(f.event),
                 "--seat", str(f.seat), "--samples", "6", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert {"samples", "exact", "count"} <= set(obj)
    samples = obj["samples"]
    assert isinstance(samples, list)
    assert obj["exact"] is (len(samples) < 6 or obj["count"] == 6)
    for s in samples:
        d = _deal(s)
        assert len(d.hands) == 3 and all(len(h) == 7 for h in d.hands)
        assert len(d.stock) == 7  # Selminha, three seats: 7 in the stock, in drawing order
        assert replay_errors(rules, events, f, d) == []


def test_the_samples_are_the_deals_the_review_solves(match_file: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    record, rules = _record(match_file)
    key = match_hash(record.header, [e for e in record.events if e is not None])  # type: ignore[arg-type]
    f = [f for f in decisions_of(rules, record.events) if f.deal == 0][3]
    k = 5
    assert main(["knowledge", str(match_file), "--deal", "0", "--step", str(f.event),
                 "--seat", str(f.seat), "--samples", str(k), "--json"]) == 0
    deals = [_deal(s) for s in json.loads(capsys.readouterr().out)["samples"]]
    legal, rows = values_over(f, deals, workers=1)
    (review,) = iter_knowledge_reviews(rules, record.events, key, k, [0], workers=1,
                                       only={f.event})
    d = review.decision(f.event)
    assert d is not None and d.samples == len(deals)
    for j, move in enumerate(legal):
        mean = Fraction(sum(r[j] for r in rows if r is not None), len(rows))
        got = d.expected_of(str(move))
        assert got is not None and got.expected is not None
        assert abs(Fraction(got.expected) - mean) <= Fraction(1, 10_000)


def test_a_late_decision_is_exact_with_its_count(match_file: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    record, rules = _record(match_file)
    f = next(f for f in decisions_of(rules, record.events)
             if isinstance(f.constraints, DealSpace) and 2 <= f.constraints.count() <= 50)
    assert main(["knowledge", str(match_file), "--deal", str(f.deal), "--step", str(f.event),
                 "--seat", str(f.seat), "--samples", "50", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["exact"] is True and obj["count"] == len(obj["samples"]) == f.constraints.count()
    assert len({json.dumps(s) for s in obj["samples"]}) == obj["count"]
    assert main(["knowledge", str(match_file), "--deal", str(f.deal), "--step", str(f.event),
                 "--seat", str(f.seat), "--samples", "50"]) == 0
    text = capsys.readouterr().out
    assert f"every consistent deal: {obj['count']}" in text
    assert len([x for x in text.splitlines() if "stock:" in x]) == obj["count"]


@pytest.mark.parametrize(("args", "words"), [
    (["--deal", "99", "--step", "5", "--seat", "0"], "deal 99"),
    (["--deal", "0", "--step", "0", "--seat", "0"], "event 0 is not a move of deal 0"),
    (["--deal", "0", "--step", "5", "--seat", "3"], "seat 3"),
    (["--deal", "0", "--step", "5", "--seat", "0", "--samples", "0"], "--samples"),
])
def test_a_bad_place_is_named(match_file: Path, capsys: pytest.CaptureFixture[str],
                              args: list[str], words: str) -> None:
    assert main(["knowledge", str(match_file), *args]) == 2
    err = capsys.readouterr().err
    assert words in err


def test_an_exact_decision_says_so_in_words(match_file: Path) -> None:
    """Issue 30, "exact when small": a decision whose consistent deals were all solved says
    "all N consistent deals (exact)" where a sampled one says "over K deals"."""
    record, rules = _record(match_file)
    key = match_hash(record.header, [e for e in record.events if e is not None])  # type: ignore[arg-type]
    late = next(f for f in decisions_of(rules, record.events)
                if isinstance(f.constraints, DealSpace) and 2 <= f.constraints.count() <= 20)
    (review,) = iter_knowledge_reviews(rules, record.events, key, 50, [late.deal], workers=1,
                                       only={late.event})
    d = review.decision(late.event)
    assert d is not None and d.exact and d.count == late.constraints.count()  # type: ignore[union-attr]
    text = decision_text(d)
    assert f"all {d.count} consistent deals (exact)" in text and "over" in text, text
    assert "(exacto)" in decision_text(d, language("es"))
    sampled = replace(d, exact=False, count=None, samples=7)
    assert "over 7 deals," in decision_text(sampled) and "exact" not in decision_text(sampled)
