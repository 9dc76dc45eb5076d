"""The ledger's commands: import, verify, rebuild and db, as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from sqlalchemy import select

from ledger.store import db
from ledger.store.models import EVENTS
from tests.store.conftest import ROOT, sample_files
from tests.store.helpers import drop_triggers, sql
from web.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_import_json_says_id_new_and_ok(url: str, corpus_file: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    db.open_db(url, migrate=True).dispose()
    code, out, _ = run(capsys, "import", str(corpus_file), "--db", url, "--json")
    assert code == 0
    first = [orjson.loads(line) for line in out.splitlines()]
    assert [x["new"] for x in first] == [True] * len(first)
    assert all(x["ok"] and isinstance(x["id"], int) for x in first)
    code, out, _ = run(capsys, "import", str(corpus_file), "--db", url, "--json")
    again = [orjson.loads(line) for line in out.splitlines()]
    assert [(x["id"], x["new"]) for x in again] == [(x["id"], False) for x in first]
    code, out, _ = run(capsys, "import", str(corpus_file), "--db", url)
    assert f"0 new match(es) stored, {len(first)} already in the ledger" in out


def test_import_names_faulty_and_unreadable_matches(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'l.db'}"
    faulty = next(p for p in sample_files("faulty") if p.name == "wrong-draw.json")
    junk = tmp_path / "junk.jsonl"
    junk.write_text("{oops\n")
    code, out, err = run(capsys, "import", str(faulty), str(junk), str(tmp_path / "nope.jsonl"),
                         "--db", url)
    assert code == 2  # a file could not be read at all
    assert "wrong-draw.json match 0: stored as 1, FAULTY" in out and "[wrong-draw]" in out
    assert "junk.jsonl:1 match 0: not stored: line 1 is not valid JSON" in out
    assert "nope.jsonl" in err and "Traceback" not in err
    assert "1 new match(es) stored, 0 already in the ledger, 1 flagged faulty, " \
           "1 not storable" in out
    code, _, _ = run(capsys, "import", str(faulty), "--db", url)
    assert code == 1  # stored before, still faulty


def test_verify_names_the_first_broken_event(tmp_path: Path, corpus_file: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'l.db'}"
    run(capsys, "import", str(corpus_file), "--db", url)
    code, out, _ = run(capsys, "verify", "--db", url)
    assert code == 0 and "0 broken" in out
    engine = db.open_db(url)
    drop_triggers(engine)
    with engine.connect() as c:
        row = c.execute(select(EVENTS.c.id, EVENTS.c.payload).where(
            EVENTS.c.match_id == 3, EVENTS.c.seq == 12)).one()
    sql(engine, "UPDATE events SET payload = :p WHERE id = :i",
        p=row.payload.replace('"type"', '"at":"2026-01-01T00:00:00Z","type"'), i=row.id)
    engine.dispose()
    code, out, _ = run(capsys, "verify", "--db", url)
    assert code == 1
    assert "match 3: BROKEN at event 12" in out and "[hash-mismatch]" in out
    code, out, _ = run(capsys, "verify", "3", "--db", url, "--json")
    assert code == 1
    (result,) = [orjson.loads(line) for line in out.splitlines()]
    assert result["broken"]["seq"] == 12 and result["broken"]["code"] == "hash-mismatch"
    code, _, err = run(capsys, "verify", "99", "--db", url)
    assert code == 2 and "no match 99" in err


def test_rebuild_and_db_commands(tmp_path: Path, corpus_file: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'l.db'}"
    code, out, _ = run(capsys, "db", "upgrade", "--db", url)
    assert code == 0 and f"schema revision: {db.head_revision()} (up to date)" in out
    run(capsys, "import", str(corpus_file), "--db", url)
    code, out, _ = run(capsys, "rebuild", "--db", url)
    assert code == 0 and "rebuilt the read models of 26 match(es)" in out
    code, out, _ = run(capsys, "db", "downgrade", "0001", "--db", url)
    assert code == 0 and f"schema revision: 0001 (latest is {db.head_revision()})" in out
    code, out, _ = run(capsys, "db", "current", "--db", url)
    assert "0001" in out


def test_the_database_comes_from_the_environment(tmp_path: Path, corpus_file: Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "env.db"
    monkeypatch.setenv("DOMINO_LEDGER_DB", f"sqlite:///{path}")
    code, _, _ = run(capsys, "import", str(corpus_file))
    assert code == 0 and path.is_file()
    assert db.resolve_url() == f"sqlite:///{path}"
    monkeypatch.delenv("DOMINO_LEDGER_DB")
    assert db.resolve_url().endswith("domino-ledger/ledger.db")
    assert db.resolve_url("sqlite:///x.db") == "sqlite:///x.db"


def test_db_upgrade_works_from_any_folder(url: str, tmp_path: Path) -> None:
    # The migrations are found next to the installed package, not in the working folder.
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("DOMINO_LEDGER_DB", None)
    done = subprocess.run([sys.executable, "-m", "web.cli", "db", "upgrade", "--db", url],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"schema revision: {db.head_revision()} (up to date)" in done.stdout


def test_a_bad_database_url_is_a_sentence_not_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "verify", "--db", "postgresql+psycopg://nobody@127.0.0.1:1/none")
    assert code == 2 and err.startswith("domino-ledger: the database refused: ")
    assert "Connection refused" in err and "sqlalche.me" not in err
    code, _, err = run(capsys, "verify", "--db", "postgresql+psycopg2://x@127.0.0.1/none")
    assert code == 2 and "postgresql+psycopg://" in err
    missing = tmp_path / "no" / "such" / "folder" / "l.db"
    code, _, err = run(capsys, "import", __file__, "--db", f"sqlite:///{missing}")
    assert code == 2 and "does not exist" in err and not missing.parent.exists()
