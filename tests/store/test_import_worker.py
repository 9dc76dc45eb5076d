"""An import worker (``python -m ledger.store.imports.worker``) loads no SQLAlchemy, SQLModel or
store tables: it only reads, audits and hashes, and starts the faster for it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ledger.sim.generator import generate_corpus
from tests.store.conftest import ROOT, write_jsonl


def _database_modules_after(statement: str) -> str:
    code = (f"import sys; {statement}; "
            "print(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in "
            "('sqlalchemy', 'sqlmodel', 'alembic', 'psycopg')} | "
            "{m for m in sys.modules if m == 'ledger.store.models'}))")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()


def test_an_import_worker_loads_no_database_library() -> None:
    assert _database_modules_after("import ledger.store.imports.worker") == "[]"


def test_the_import_command_starts_its_workers_before_it_loads_a_database_library(
        tmp_path: Path) -> None:
    """The workers prepare the first matches while the command loads SQLAlchemy and
    opens the ledger: starting them loads none of it."""
    big = write_jsonl(tmp_path / "big.jsonl", list(generate_corpus(4, seed=2)))
    started = ("import argparse, contextlib; from ledger.store import cli; "
               "stack = contextlib.ExitStack(); "
               f"plan = cli._plan(stack, argparse.Namespace(files=[{str(big)!r}], jobs=2)); "
               "assert plan.workers is not None and len(plan.workers.procs) == 2; "
               "stack.close()")
    assert _database_modules_after(started) == "[]"
