"""An import worker (``python -m ledger.store.worker``) loads no SQLAlchemy, SQLModel or
store tables: it only reads, audits and hashes, and starts the faster for it."""

from __future__ import annotations

import subprocess
import sys

from tests.store.conftest import ROOT


def test_an_import_worker_loads_no_database_library() -> None:
    code = ("import sys, ledger.store.worker; "
            "print(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in "
            "('sqlalchemy', 'sqlmodel', 'alembic', 'psycopg')} | "
            "{m for m in sys.modules if m == 'ledger.store.models'}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "[]"
