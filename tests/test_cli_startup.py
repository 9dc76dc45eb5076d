"""What the command loads before it works: ``--help`` and ``audit`` need no database.

Checked by the modules a fresh interpreter holds (``sys.modules``), not by a clock:
benchmarks/startup.py prints the times.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_matches" / "casual-arena-2.json"
HEAVY = ("sqlalchemy", "sqlmodel", "fastapi", "plotly", "starlette", "alembic", "psycopg",
         "ledger.store.models", "ledger.analysis.solver")

_PROBE = """
import contextlib, io, json, sys
module = sys.argv[1]
argv = sys.argv[2:]
import importlib
main = importlib.import_module(module).main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
heavy = [m for m in json.loads(sys.stdin.read()) if m in sys.modules]
print(json.dumps({"code": code, "heavy": heavy, "out": out.getvalue()}))
"""


def _probe(module: str, *argv: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", _PROBE, module, *argv], input=json.dumps(HEAVY),
                          capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "LC_ALL": "C.UTF-8", "PATH": ""})
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


@pytest.mark.parametrize("module", ["web.cli", "ledger.cli"])
def test_audit_loads_no_database_web_or_chart_library(module: str) -> None:
    got = _probe(module, "audit", "--json", str(SAMPLE))
    assert got["code"] == 0
    report = json.loads(str(got["out"]).splitlines()[0])
    assert report["ok"] is True and report["complete"] is True  # the audit did run
    assert got["heavy"] == []


@pytest.mark.parametrize("argv", [["--help"], ["export", "--help"], ["stats", "--help"],
                                  ["analyse", "--help"], ["whatif", "--help"],
                                  ["import", "--help"], ["serve", "--help"]])
def test_help_loads_no_database_web_or_chart_library(argv: list[str]) -> None:
    got = _probe("web.cli", *argv)
    assert got["code"] == 0
    assert "usage: domino-ledger" in str(got["out"])
    assert got["heavy"] == []


def test_export_help_names_the_writers_containers() -> None:
    from ledger.exports.cli import CONTAINERS
    from ledger.formats.writer import CONTAINERS as WRITTEN

    assert CONTAINERS == WRITTEN
