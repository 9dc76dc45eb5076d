"""Many small files over every core (issue 18, point 4): ``audit`` and ``import`` of many
files give each worker whole files and print, store and report exactly what one process
does, in the files' order, an unreadable file and a missing one reported in their place."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.file_workers import many_files_jobs

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_matches"


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8",
           "LC_ALL": "C.UTF-8"}
    done = subprocess.run([sys.executable, "-m", "web.cli", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def _season(tmp_path: Path) -> list[Path]:
    """Every sample file (faulty ones too) as its own file, twice over, with a file that is
    not gzip and one that is missing among them."""
    found = sorted(p for p in [*SAMPLES.glob("*.json*"), *SAMPLES.glob("faulty/*.json")]
                   if not p.name.endswith(".expected.json"))
    files = []
    for n, path in enumerate(found * 2):
        files.append(tmp_path / f"{n:03d}-{path.name}")
        shutil.copyfile(path, files[-1])
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(b"not gzip at all")
    middle = len(files) // 2
    return [*files[:middle], bad, tmp_path / "missing.json", *files[middle:]]


def test_the_split_is_by_whole_files_only_for_several_small_ones(tmp_path: Path) -> None:
    small = [tmp_path / f"{n}.json" for n in range(3)]
    for p in small:
        p.write_bytes(b"x" * 100)
    big = tmp_path / "big.jsonl"
    big.write_bytes(b"x" * 2000)
    paths = [str(p) for p in small]
    assert many_files_jobs(paths[:1], 2, small=1000) == 1  # one file: split by match
    assert many_files_jobs([*paths, str(big)], 2, small=1000) == 1  # a large one among them
    assert many_files_jobs(paths, 2, small=1000) == 2
    assert many_files_jobs(paths, 8, small=1000) == 3  # never more workers than files
    assert many_files_jobs(paths, 1, small=1000) == 1
    assert many_files_jobs(paths, None, small=1000, enough=10_000) == 1  # too little to split
    assert many_files_jobs(paths, None, small=1000, enough=300) >= 1


@pytest.mark.parametrize("mode", [["--json"], [], ["--strict"], ["--json", "--lang", "ar"]])
def test_audit_of_many_files_on_two_workers_prints_what_one_process_prints(
        mode: list[str], tmp_path: Path) -> None:
    files = _season(tmp_path)
    one = _run("audit", *mode, "--jobs", "0", *files)
    two = _run("audit", *mode, "--jobs", "2", *files)
    assert (two.returncode, two.stdout, two.stderr) == (one.returncode, one.stdout,
                                                        one.stderr)
    assert one.stdout.count("\n") >= len(files) - 2 or "--strict" in mode
    if "--strict" not in mode:
        assert "bad.jsonl.gz" in one.stderr and "missing.json" in one.stderr


def _stored(db: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as c:
        return c.execute("SELECT match_id, seq, recorded_index, kind, type, payload "
                         "FROM events ORDER BY match_id, seq").fetchall()


def test_import_of_many_files_on_two_workers_stores_what_one_process_stores(
        tmp_path: Path) -> None:
    files = _season(tmp_path / "files") if (tmp_path / "files").mkdir() is None else []
    one = _run("import", "--json", "--jobs", "0", "--db", f"sqlite:///{tmp_path / 'one.db'}",
               *files)
    two = _run("import", "--json", "--jobs", "2", "--db", f"sqlite:///{tmp_path / 'two.db'}",
               *files)
    assert (two.returncode, two.stdout, two.stderr) == (one.returncode, one.stdout,
                                                        one.stderr)
    assert "bad.jsonl.gz" in one.stderr and "missing.json" in one.stderr
    assert one.stdout.count('"new":true') > 0 and one.stdout.count('"new":false') > 0
    stored = _stored(tmp_path / "one.db")
    assert stored and stored == _stored(tmp_path / "two.db")
