"""The ``domino-ledger audit`` command, run as a user runs it: in a subprocess.

Exit codes: 0 every match ok, 1 some error finding, 2 an input cannot be read
at all. Bad input never shows a traceback; each problem is named by file,
line and event. The bad inputs are those of tests/formats/bad_inputs.py.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_matches"
REPORT_KEYS = {"match", "source", "ok", "findings", "deals", "scores", "winner", "complete"}


def _load(name: str, path: Path) -> ModuleType:
    # By path: this file sits outside the tests' packages, and must not depend on how
    # the test runner sets sys.path.
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


bad_inputs = _load("cli_bad_inputs", ROOT / "tests" / "formats" / "bad_inputs.py")
CASES = {c.name: c for c in bad_inputs.cases()}
UNREAD = {"bad-json", "line-too-long", "file-too-large", "empty-file"}


def run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    # LC_ALL=C: the English messages whatever the developer's locale (the CLI follows it).
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8",
           "LC_ALL": "C.UTF-8"}
    done = subprocess.run([sys.executable, "-m", "ledger.cli", "audit", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=cwd or ROOT,
                          timeout=300)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    assert "internal-error" not in done.stdout, done.stdout
    return done


def reports(stdout: str) -> list[dict[str, Any]]:
    out = [json.loads(row) for row in stdout.splitlines()]
    for report in out:
        assert set(report) >= REPORT_KEYS
    return out


def sample_files() -> list[Path]:
    return sorted(p for p in SAMPLES.glob("*.json*"))


# --- good input ----------------------------------------------------------------------


def test_samples_audit_ok_exit_0() -> None:
    done = run(*sample_files())
    assert done.returncode == 0, done.stdout
    assert "FAULTY" not in done.stdout
    assert done.stdout.count(": ok, 0 error(s)") >= len(sample_files())


def test_json_report_is_one_object_per_match_in_input_order() -> None:
    done = run("--json", SAMPLES / "club-night.jsonl", SAMPLES / "domena-2-timed.json")
    assert done.returncode == 0
    got = reports(done.stdout)
    lines = (SAMPLES / "club-night.jsonl").read_text(encoding="utf-8").splitlines()
    assert [r["match"] for r in got] == [*range(len(lines)), 0]
    assert [r["line"] for r in got[:-1]] == list(range(1, len(lines) + 1))
    for report, raw in zip(got, lines, strict=False):
        claim = json.loads(raw)["events"][-1]
        assert report["ok"] and report["complete"] and report["findings"] == []
        assert report["scores"] == claim["scores"] and report["winner"] == claim["winner"]
        assert all(set(d) == {"result", "winner", "points"} for d in report["deals"])
    assert got[-1]["source"]["site"] == "playelephant"


# --- faulty input --------------------------------------------------------------------


def test_faulty_match_exit_1_and_named() -> None:
    path = SAMPLES / "faulty" / "illegal-pass.json"
    done = run(path)
    assert done.returncode == 1
    assert f"{path} match 0: FAULTY" in done.stdout
    # The text names the seat's player, counted from 1; the JSON keeps "seat 0" (issue 34).
    assert "error at event 13 [illegal-pass] \u2068علي\u2069 (seat 1) passed holding 2-0" \
        in done.stdout
    data = reports(run("--json", path).stdout)
    assert data[0]["ok"] is False
    assert data[0]["findings"][0] == {
        "event": 13, "severity": "error", "code": "illegal-pass",
        "message": "seat 0 passed holding 2-0, which fits the left end (2)"}


def test_strict_stops_at_first_error_naming_file_line_and_event(tmp_path: Path) -> None:
    faulty = json.loads((SAMPLES / "faulty" / "illegal-pass.json").read_text(encoding="utf-8"))
    good = bad_inputs.GOOD_A
    path = tmp_path / "night.jsonl"
    path.write_bytes(bad_inputs.line(good) + bad_inputs.line(faulty) + bad_inputs.line(good))
    done = run("--strict", "--json", path)
    assert done.returncode == 1
    assert [r["match"] for r in reports(done.stdout)] == [0, 1]  # line 3 is not audited
    assert done.stderr.strip() == (
        f"domino-ledger: stopped at {path}, line 2, event 13: seat 1 passed holding 2-0, which "
        "fits the left end (2) [illegal-pass]")
    lenient = run(path)
    assert lenient.returncode == 1
    assert [row.split()[0] for row in lenient.stdout.splitlines() if row.startswith(str(path))] \
        == [f"{path}:{n}" for n in (1, 2, 3)]


def test_strict_parse_error_names_the_event_once(tmp_path: Path) -> None:
    path = CASES["tile-7-1"].write(tmp_path)
    done = run("--strict", path)
    assert done.returncode == 1
    assert done.stderr.startswith(f"domino-ledger: stopped at {path}, line 1, event 2: tile: ")
    assert "[bad-tile]" in done.stderr and done.stderr.count("event 2") == 1


# --- bad input -----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_through_the_command(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    path = case.write(tmp_path)
    text = run(path)
    if case.unreadable:
        assert text.returncode == 2
        assert text.stdout == ""
        assert text.stderr.startswith(f"domino-ledger: {path}: ")
        assert len(text.stderr.strip().splitlines()) == 1
        return
    # A file none of whose parts could be read cannot be read at all: 2 (issue 32).
    nothing_read = bool(case.bad) and not case.good_lines and all(
        b.code in UNREAD for b in case.bad)
    assert text.returncode == (2 if nothing_read else 1 if case.bad else 0), text.stdout
    for want in case.bad:
        where = f"{path}:{want.line}" if want.line is not None else str(path)
        header = [row for row in text.stdout.splitlines() if row.startswith(f"{where} match ")]
        assert header and "FAULTY, 1 error(s)" in header[0], text.stdout
        at = "match" if want.event is None else f"event {want.event}"
        assert f"error at {at} [{want.code}]" in text.stdout
    for good in case.good_lines:
        where = f"{path}:{good}" if good else str(path)
        assert f"{where} match " in text.stdout
    data = reports(run("--json", path).stdout)
    bad = [r for r in data if not r["ok"]]
    assert [(r.get("line"), [(f["code"], f["event"]) for f in r["findings"]]) for r in bad] == [
        (w.line, [(w.code, w.event)]) for w in case.bad]
    assert [r.get("line") or 0 for r in data if r["ok"]] == case.good_lines


def test_fifty_megabyte_line_does_not_balloon_the_process(tmp_path: Path) -> None:
    """The child's peak memory stays well under the size of the line it skips."""
    path = CASES["fifty-megabyte-line"].write(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-m", "ledger.cli", "audit", str(path)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert child.stdout is not None and child.stderr is not None
    out, err = child.stdout.read(), child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.returncode == 1, err
    assert b"[line-too-long] line 2 is 50.0 MiB" in out
    peak_mib = usage.ru_maxrss / 1024  # Linux: KiB
    baseline = _baseline_mib()
    assert peak_mib - baseline < 40, (peak_mib, baseline)


def _baseline_mib() -> float:
    """Peak memory of the command on a small file: what the interpreter itself takes."""
    child = subprocess.Popen([sys.executable, "-m", "ledger.cli", "audit",
                              str(SAMPLES / "casual-arena-2-one-round.json")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    _, _, usage = os.wait4(child.pid, 0)
    return usage.ru_maxrss / 1024


def test_missing_file_among_good_ones_exit_2_and_others_still_audited(tmp_path: Path) -> None:
    good = SAMPLES / "arab-block-2.json"
    done = run(tmp_path / "nope.jsonl", good)
    assert done.returncode == 2
    assert f"{good} match 0: ok" in done.stdout
    assert "nope.jsonl: cannot open" in done.stderr


def test_unreadable_beats_faulty(tmp_path: Path) -> None:
    done = run(SAMPLES / "faulty" / "wrong-end.json", tmp_path / "nope.json")
    assert done.returncode == 2


@pytest.mark.parametrize(("content", "name"), [
    (b"hello world", "junk.json"), (b"\x00\x01binary", "bin.json"),
    (b'{"format": "domino-match/1"', "cut.json"), (b"", "empty.json"),
    (b"not json\nnor this\n", "junk.jsonl")])
def test_a_file_that_cannot_be_read_at_all_exits_2(tmp_path: Path, content: bytes,
                                                    name: str) -> None:
    # Issue 32: such a file exited 1, as a faulty match does; the README says 2.
    path = tmp_path / name
    path.write_bytes(content)
    for flags in ((), ("--json",), ("--strict",)):
        done = run(*flags, path)
        assert done.returncode == 2, (flags, done.stdout, done.stderr)


def test_a_bad_line_beside_a_good_one_is_a_finding_exit_1(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    good = (SAMPLES / "arab-block-2.json").read_text(encoding="utf-8")
    path.write_text("not json\n" + " ".join(good.split()) + "\n", encoding="utf-8")
    assert run(path).returncode == 1


def test_usage_error_is_not_a_traceback() -> None:
    done = run()
    assert done.returncode == 2 and "usage:" in done.stderr
