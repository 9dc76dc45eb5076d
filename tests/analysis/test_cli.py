"""``domino-ledger analyse``: files, stored matches, --deal, --json."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from ledger.cli import main
from ledger.engine.fold import advance
from ledger.engine.state import State
from ledger.formats.reader import parse_match
from ledger.rules import make_rules
from ledger.sim.generator import generate_match
from tests.analysis.helpers import brute_options, match_states
from tests.analysis.test_review import SHORT


@pytest.fixture()
def short_file(tmp_path: Path) -> Path:
    path = tmp_path / "short.json"
    path.write_bytes(orjson.dumps(SHORT))
    return path


def test_json_one_object_per_deal(short_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(short_file), "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(lines) == 1
    deal = lines[0]
    assert deal["deal"] == 0 and deal["match"] == 0
    assert deal["result"] == [2, 0]
    assert set(deal) >= {"deal", "best", "decisions"}
    # The options of each decision are what brute force finds there.
    record = parse_match(SHORT)
    st = State(make_rules("arab-block", 2, {"target": 0}))
    for i, ev in enumerate(record.events):
        for d in deal["decisions"]:
            if d["event"] == i:
                got = [(o["move"], tuple(o["outcome"])) for o in d["options"]]
                assert got == brute_options(st)
        advance(st, ev, i, [], [])


def test_text_names_mistakes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.json"
    path.write_bytes(orjson.dumps(generate_match("domena", 4, {}, seed=3)))
    assert main(["analyse", str(path), "--deal", "1"]) == 0
    out = capsys.readouterr().out
    assert "deal 1: best play" in out and "MISTAKE: lost" in out
    assert "deal 0" not in out


def test_deal_out_of_range_and_missing_file(short_file: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(short_file), "--deal", "5", "--json"]) == 1
    assert "no deal 5" in capsys.readouterr().err
    assert main(["analyse", str(tmp_path / "nope.json")]) == 2
    err = capsys.readouterr().err
    assert "nope.json" in err and "Traceback" not in err


def test_chart_with_json(short_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(short_file), "--json", "--chart"]) == 0
    deal = json.loads(capsys.readouterr().out.splitlines()[0])
    assert deal["chart"]["data"][0]["type"] == "scatter"


def test_stored_match_by_id(tmp_path: Path, short_file: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    assert main(["import", str(short_file), "--db", url, "--json", "--no-progress"]) == 0
    imported = json.loads(capsys.readouterr().out.splitlines()[0])
    match_id = imported.get("id", imported.get("match_id"))
    assert main(["analyse", str(match_id), "--db", url, "--json"]) == 0
    from_store = capsys.readouterr().out
    assert main(["analyse", str(short_file), "--json"]) == 0
    from_file = capsys.readouterr().out
    strip = [{k: v for k, v in json.loads(x).items() if k != "match"}
             for x in (from_store.splitlines()[0], from_file.splitlines()[0])]
    assert strip[0] == strip[1]
    assert main(["analyse", "9999", "--db", url]) == 2
    assert "9999" in capsys.readouterr().err


def test_every_deal_of_a_4_seat_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.jsonl"
    path.write_bytes(orjson.dumps(generate_match("sahrat-partner", 4, {}, seed=8)) + b"\n")
    assert main(["analyse", str(path), "--json"]) == 0
    deals = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [d["deal"] for d in deals] == list(range(len(list(
        match_states("sahrat-partner", 4, {}, seed=8)))))
    assert all(d["best"] is not None for d in deals)


def test_search_limit_leaves_large_positions_out(capsys: pytest.CaptureFixture[str]) -> None:
    # A 4-seat deal each for himself (seed 001, Sahrat Draw): with a limit of 2,000
    # positions visited the start is too large and is said to be; with the default, the
    # whole deal is solved.
    sample = str(Path(__file__).resolve().parents[2] / "sample_matches" / "sahrat-draw-4.json")
    assert main(["analyse", sample, "--deal", "0", "--json", "--search-limit", "2000"]) == 0
    (small,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert small["best"] is None
    assert "more than 2,000 positions to search" in small["note"]
    assert main(["analyse", sample, "--deal", "0", "--json"]) == 0
    (full,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert full["best"] is not None and "note" not in full
    assert main(["analyse", sample, "--search-limit", "-1"]) == 2
    assert "--search-limit" in capsys.readouterr().err
