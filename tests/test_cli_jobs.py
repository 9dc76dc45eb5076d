"""``audit --jobs N``: forked workers share a file's matches; the output is the one
``--jobs 1`` prints, byte for byte, in input order, strict stops and unreadable files
included."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_matches"


def _audit(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8",
           "LC_ALL": "C.UTF-8"}
    done = subprocess.run([sys.executable, "-m", "ledger.cli", "audit", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def _night(tmp_path: Path) -> Path:
    """Every sample match and faulty sample, twice over, a broken line among them."""
    lines = [json.dumps(json.loads(p.read_text(encoding="utf-8"))) + "\n"
             for p in sorted([*SAMPLES.glob("*.json"), *SAMPLES.glob("faulty/*.json")])
             if not p.name.endswith(".expected.json")]
    path = tmp_path / "night.jsonl"
    path.write_text("".join(lines) + "{broken\n\n" + "".join(lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("mode", [["--json"], [], ["--json", "--lang", "ar"]])
def test_jobs_print_what_one_process_prints(mode: list[str], tmp_path: Path) -> None:
    path = _night(tmp_path)
    one = _audit(*mode, "--jobs", "1", path)
    assert one.returncode == 1 and one.stdout.count(str(path)) >= 2
    for jobs in ("2", "3"):
        many = _audit(*mode, "--jobs", jobs, path)
        assert (many.returncode, many.stdout, many.stderr) == (
            one.returncode, one.stdout, one.stderr)


def test_strict_with_jobs_stops_where_one_process_stops(tmp_path: Path) -> None:
    path = _night(tmp_path)
    one = _audit("--strict", "--json", "--jobs", "1", path)
    many = _audit("--strict", "--json", "--jobs", "3", path)
    assert one.returncode == 1 and "stopped at" in one.stderr
    assert (many.returncode, many.stdout, many.stderr) == (one.returncode, one.stdout,
                                                          one.stderr)


def test_unreadable_files_with_jobs(tmp_path: Path) -> None:
    fake = tmp_path / "plain.jsonl.gz"
    fake.write_text("{}\n")
    args = (tmp_path / "missing.jsonl", fake, SAMPLES / "domena-2.json")
    one = _audit("--jobs", "1", *args)
    many = _audit("--jobs", "2", *args)
    assert one.returncode == 2 and "not a gzip file" in one.stderr
    assert (many.returncode, many.stdout, many.stderr) == (one.returncode, one.stdout,
                                                          one.stderr)
