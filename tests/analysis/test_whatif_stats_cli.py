"""``domino-ledger whatif`` and ``domino-ledger stats``: files, the ledger, --json, errors.

What each command prints is checked against the library it words
(``ledger.analysis.whatif``, ``ledger.analysis.stats`` over audits), and the ledger's
statistics (read models and kept reviews) against the same matches read as files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from ledger.analysis.review import review_match
from ledger.analysis.stats import audited, player_stats
from ledger.analysis.whatif import what_if
from ledger.cli import main
from ledger.formats.reader import parse_match, read_matches
from ledger.rules import make_rules
from ledger.sim.generator import generate_match
from ledger.store import db
from ledger.store.imports.importer import import_file
from ledger.store.jobs import analyses

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_matches"
# Every table, pairs and each for himself, with and without Fives.
STATS_SAMPLES = ["domena-2.json", "domena-4.json", "sahrat-fives-2.json",
                 "sahrat-partner-4.json", "selminha-3.json", "casual-arena-4-teams.json",
                 "arab-block-2.json"]


def lines_of(capsys: pytest.CaptureFixture[str]) -> list[Any]:
    return [json.loads(x) for x in capsys.readouterr().out.splitlines()]


@pytest.fixture()
def ledger_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    engine = db.open_db(url)
    try:
        for name in STATS_SAMPLES:
            with db.writing(engine) as session:
                list(import_file(session, str(SAMPLES / name)))
    finally:
        engine.dispose()
    return url


# --- whatif ---------------------------------------------------------------------------


def test_whatif_json_is_the_comparison(capsys: pytest.CaptureFixture[str]) -> None:
    # Seed 000 Domena (2 seats, boneyard) under seed 003's Arab Block, which never draws:
    # the first draw is where the other sheet stops.
    path = SAMPLES / "domena-2.json"
    assert main(["whatif", str(path), "--rules", "arab-block", "--json"]) == 0
    (obj,) = lines_of(capsys)
    (record,) = read_matches(path)
    expected = what_if(record, "arab-block").to_dict()
    assert obj == {"match": 0, "rules": "arab-block", **json.loads(orjson.dumps(expected))}
    assert obj["stop"]["code"] == "no-stock" and obj["legal_until"] == obj["stop"]["event"]


def test_whatif_text_has_both_sheets_deal_by_deal(capsys: pytest.CaptureFixture[str]) -> None:
    path = SAMPLES / "domena-2.json"
    assert main(["whatif", str(path), "--rules", "sahrat-draw"]) == 0
    text = capsys.readouterr().out
    (record,) = read_matches(path)
    w = what_if(record, "sahrat-draw")
    assert "as recorded (PlayElephant Domena)" in text and "under Sahrat Domino (draw)" in text
    rows = [line for line in text.splitlines() if "|" in line][1:-1]  # the deals
    assert len(rows) == len(w.side_by_side())
    for line, (n, mine, theirs) in zip(rows, w.side_by_side(), strict=True):
        left, right = line.split("|")
        assert left.split()[0] == str(n)
        for row, cell in ((mine, left), (theirs, right)):
            if row is None:
                assert cell.strip() == "–"
            else:
                assert f"+{row.points}:" in cell or "nobody scores" in cell
                assert cell.rstrip().endswith("-".join(map(str, row.totals)))
    assert w.stop is not None
    assert f"the record stops at event {w.stop.event}:" in text


def test_whatif_options_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(SAMPLES / "domena-2.json")
    assert main(["whatif", path, "--rules", "sahrat-draw", "--option", "target=40",
                 "--json"]) == 0
    (obj,) = lines_of(capsys)
    assert obj["other"]["table"]["options"]["target"] == 40
    # A table that cannot seat the match, or an option it does not have: exit 2, said.
    assert main(["whatif", str(SAMPLES / "domena-4.json"), "--rules", "arab-block"]) == 2
    assert "is played by 2 seats, not 4" in capsys.readouterr().err
    assert main(["whatif", path, "--rules", "domena", "--option", "spinner=true"]) == 2
    assert "has no option 'spinner'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["whatif", path, "--rules", "domena", "--option", "target"])
    assert "NAME=VALUE" in capsys.readouterr().err


def test_whatif_of_a_stored_match_is_that_of_its_file(
        ledger_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = SAMPLES / "domena-4.json"
    assert main(["whatif", str(path), "--rules", "sahrat-partner", "--json"]) == 0
    (from_file,) = lines_of(capsys)
    engine = db.open_db(ledger_url)
    with engine.connect() as c:
        (match_id,) = c.exec_driver_sql(
            "SELECT id FROM matches WHERE imported_from LIKE '%domena-4.json'").scalars()
    engine.dispose()
    assert main(["whatif", str(match_id), "--db", ledger_url, "--rules", "sahrat-partner",
                 "--json"]) == 0
    (stored,) = lines_of(capsys)
    for key in ("legal_until", "stop"):
        assert stored[key] == from_file[key]
    for sheet in ("original", "other"):
        assert stored[sheet]["deals"] == from_file[sheet]["deals"]
        assert stored[sheet]["scores"] == from_file[sheet]["scores"]


# --- stats ----------------------------------------------------------------------------


def test_ledger_stats_are_those_of_the_files(
        ledger_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    # The ledger counts from its read models; the files from their audits: the same rows.
    assert main(["stats", "--db", ledger_url, "--json"]) == 0
    stored = lines_of(capsys)
    files = [str(SAMPLES / n) for n in STATS_SAMPLES]
    assert main(["stats", *files, "--json"]) == 0
    assert stored == lines_of(capsys)
    expected = player_stats(audited(r) for f in files for r in read_matches(f))
    assert stored == [r.to_dict() for r in expected]
    assert {r["preset"] for r in stored} == {"domena", "sahrat-fives", "sahrat-partner",
                                             "selminha", "casual-arena", "arab-block", "all"}


def test_stats_filters(ledger_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--db", ledger_url, "--json"]) == 0
    every = lines_of(capsys)
    name = every[0]["player"]
    assert main(["stats", "--db", ledger_url, "--json", "--player", name]) == 0
    assert lines_of(capsys) == [r for r in every if r["player"] == name]
    assert main(["stats", "--db", ledger_url, "--json", "--preset", "domena"]) == 0
    only = lines_of(capsys)
    assert {r["preset"] for r in only} == {"domena", "all"}
    assert [r for r in only if r["preset"] == "domena"] == \
        [r for r in every if r["preset"] == "domena"]
    assert main(["stats", "--db", ledger_url, "--player", "nobody at all"]) == 0
    assert "no matches to count" in capsys.readouterr().out


def test_kept_reviews_count_hindsight_losses_and_stale_ones_do_not(
        ledger_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    # A deal's analysis kept by the replay counts for the hindsight losses of its players, while
    # it holds for the match's events as stored; one kept for other events does not.
    engine = db.open_db(ledger_url)
    with engine.connect() as c:
        (match_id,) = c.exec_driver_sql(
            "SELECT id FROM matches WHERE imported_from LIKE '%domena-4.json'").scalars()
    (record,) = read_matches(SAMPLES / "domena-4.json")
    assert record.header is not None
    rules = make_rules("domena", 4)
    (review,) = review_match(rules, record.events, deals=[0])
    with db.writing(engine) as session:
        conn = session.connection()
        at = analyses.head(conn, match_id)
        assert at is not None
        analyses.put(conn, match_id, 0, at, "test", review.to_dict())
        stale = analyses.Head(at.last_seq - 1, at.hash)
        analyses.put(conn, match_id, 1, stale, "test", review.to_dict())
        session.commit()
    engine.dispose()
    assert main(["stats", "--db", ledger_url, "--json", "--preset", "domena"]) == 0
    rows = {r["player"]: r for r in lines_of(capsys) if r["preset"] == "domena"}
    for seat, name in enumerate(record.header.seats):
        mine = [d for d in review.decisions if d.seat == seat]
        assert rows[name]["reviewed_deals"] == 1
        assert rows[name]["decisions"] == len(mine)
        assert rows[name]["hindsight_lost"] == sum(d.lost for d in mine)
        # Mistakes are named by what the player knew (issue 29): no such review is kept.
        assert (rows[name]["knowledge_matches"], rows[name]["inaccuracies"],
                rows[name]["mistakes"], rows[name]["blunders"]) == (0, 0, 0, 0)


def test_stats_analyse_reviews_what_is_not_kept(
        ledger_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    # The ledger's Domena matches are these two files; nothing is kept for them.
    files = [str(SAMPLES / "domena-2.json"), str(SAMPLES / "domena-4.json")]
    assert main(["stats", *files, "--analyse", "--json", "--preset", "domena"]) == 0
    from_file = lines_of(capsys)
    assert main(["stats", "--db", ledger_url, "--preset", "domena", "--analyse", "--json"]) == 0
    assert lines_of(capsys) == from_file
    assert all(r["reviewed_deals"] == r["deals"] for r in from_file)
    assert sum(r["decisions"] for r in from_file) > 0


def test_stats_of_a_file_that_cannot_be_read(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(b"not gzip at all")
    assert main(["stats", str(bad)]) == 2
    assert "bad.jsonl.gz" in capsys.readouterr().err
    good = tmp_path / "g.json"
    good.write_bytes(orjson.dumps(generate_match("domena", 2, {}, seed=3)))
    assert main(["stats", str(good), "--lang", "ar"]) == 0
    out = capsys.readouterr().out
    assert "اللاعب" in out and "كل الطاولات" in out
    assert parse_match(orjson.loads(good.read_bytes())).header is not None
