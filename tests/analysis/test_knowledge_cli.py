"""``domino-ledger analyse --knowledge / --samples K / --report``: the knowledge review
beside the hindsight one, the match report per player."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from ledger.analysis.cli_knowledge import REPORT_VERSION, severity
from ledger.cli import main
from ledger.sim.generator import generate_match


@pytest.fixture(scope="module")
def match_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("k") / "selminha.json"
    path.write_bytes(orjson.dumps(generate_match("selminha", 2, {}, seed=4)))
    return path


def _lines(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    return [json.loads(x) for x in capsys.readouterr().out.splitlines()]


def test_json_keeps_hindsight_and_adds_knowledge(match_file: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(match_file), "--deal", "0", "--json"]) == 0
    (plain,) = _lines(capsys)
    assert main(["analyse", str(match_file), "--deal", "0", "--json", "--samples", "8"]) == 0
    (deal,) = _lines(capsys)
    assert deal["samples"] == 8 and isinstance(deal["seed"], str) and len(deal["seed"]) == 64
    decisions = deal["decisions"]
    assert isinstance(decisions, list) and decisions
    assert isinstance(plain["decisions"], list)
    for d, p in zip(decisions, plain["decisions"], strict=True):
        assert d["lost"] == p["lost"]  # hindsight unchanged
        assert d["samples"] == 8 and d["knowledge_lost"] >= 0
        # Both measures named as every page names them (issue 29, ledger.analysis.measures).
        assert d["hindsight_lost"] == d["lost"]
        assert d["severity"] == severity(d["knowledge_lost"])
        for o, q in zip(d["options"], p["options"], strict=True):
            assert o["outcome"] == q["outcome"] and o["move"] == q["move"]
            assert isinstance(o["expected"], float) and o["stderr"] >= 0
        played = next(o for o in d["options"] if o["move"] == d["played"])
        best = max(o["expected"] for o in d["options"])
        assert d["knowledge_lost"] == pytest.approx(best - played["expected"], abs=1e-3)
    # The same command twice: the same numbers.
    assert main(["analyse", str(match_file), "--deal", "0", "--json", "--samples", "8"]) == 0
    assert _lines(capsys) == [deal]


def test_text_labels_hindsight(match_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(match_file), "--deal", "0", "--knowledge", "--samples",
                 "4"]) == 0
    out = capsys.readouterr().out
    assert "values are hindsight (every hand known)" in out
    assert "up to 4 deals sampled per decision, stopping once its label is settled" in out
    assert "by knowledge: expected" in out
    if "MISTAKE" in out:
        assert "in hindsight: MISTAKE" in out


def test_report_per_player(match_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(match_file), "--deal", "0", "--report", "--json",
                 "--samples", "4"]) == 0
    (obj,) = _lines(capsys)
    assert obj["samples"] == 4 and obj["thresholds"] == {
        "inaccuracy": 2.0, "mistake": 5.0, "blunder": 10.0}
    report = obj["report"]
    assert isinstance(report, list) and [p["seat"] for p in report] == [0, 1]
    for p in report:
        assert p["decisions"] + p["forced"] > 0
        assert p["inaccuracies"] + p["mistakes"] + p["blunders"] == len(p["named"])
        assert p["luck_adjusted"] == pytest.approx(p["result"] - p["luck"], abs=1e-3)
        for m in p["named"]:
            assert m["severity"] == severity(m["knowledge_lost"])
    assert main(["analyse", str(match_file), "--deal", "0", "--report", "--samples", "4"]) == 0
    assert "mean loss" in capsys.readouterr().out


def test_bad_samples(match_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(match_file), "--samples", "0"]) == 2
    assert "--samples" in capsys.readouterr().err


def test_severity_thresholds() -> None:
    assert [severity(x) for x in (None, 0, 1.99, 2, 4.99, 5, 9.99, 10, 40)] == [
        None, None, None, "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder",
        "blunder"]


def test_a_stored_matchs_report_is_kept_by_its_head(match_file: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from ledger.store import db
    from ledger.store.jobs import analyses, knowledge_reviews
    from ledger.store.models import KNOWLEDGE_REVIEWS

    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    assert main(["import", str(match_file), "--db", url, "--json", "--no-progress"]) == 0
    imported = json.loads(capsys.readouterr().out.splitlines()[0])
    match_id = imported.get("id", imported.get("match_id"))
    args = ["analyse", str(match_id), "--db", url, "--report", "--json", "--samples", "2"]
    assert main(args) == 0
    (first,) = _lines(capsys)
    assert main(["analyse", str(match_file), "--report", "--json", "--samples", "2"]) == 0
    (from_file,) = _lines(capsys)
    assert {k: v for k, v in first.items() if k != "match"} == \
        {k: v for k, v in from_file.items() if k != "match"}
    engine = db.open_db(url)
    try:
        with engine.connect() as c:
            assert c.execute(KNOWLEDGE_REVIEWS.select()).fetchall()
            at = analyses.head(c, match_id)
        assert at is not None
        # What the ledger keeps is what is answered: a changed row shows.
        kept = {k: v for k, v in first.items() if k != "match"}
        kept["seed"] = "kept"
        with db.writing(engine) as s:
            knowledge_reviews.put(db.write_connection(s), match_id, at, 2, REPORT_VERSION,
                                  kept)
            s.commit()
    finally:
        engine.dispose()
    assert main(args) == 0
    (again,) = _lines(capsys)
    assert again["seed"] == "kept"
    assert main(args[:4] + ["--report", "--samples", "2"]) == 0
    assert "mean loss" in capsys.readouterr().out
