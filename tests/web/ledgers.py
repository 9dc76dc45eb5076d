"""Fresh ledgers for the web tests that run on both backends: a temp SQLite file, or a
schema of its own in the local PostgreSQL (dropped when the test's fixture ends)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

PG = os.environ.get("DOMINO_LEDGER_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@contextmanager
def fresh_ledger(backend: str, folder: Path) -> Iterator[str]:
    """The URL of an empty ledger on ``backend`` (tables made by the app's own open)."""
    if backend == "sqlite":
        yield f"sqlite:///{folder / 'ledger.db'}"
        return
    schema = f"web_h{os.getpid()}_{secrets.token_hex(3)}"
    admin = create_engine(PG, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as c:
            c.execute(text(f'CREATE SCHEMA "{schema}"'))
    except Exception as exc:
        admin.dispose()
        pytest.fail(f"PostgreSQL is not reachable at {PG} ({exc}); scripts/test.sh starts it")
    try:
        yield f"{PG}?options=-csearch_path%3D{schema}"
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()
