"""One store test suite, run against SQLite and against the local PostgreSQL.

Every test that takes ``url`` (or ``engine``) runs twice: on a fresh SQLite
file and on a fresh schema of the PostgreSQL database ``test``
(127.0.0.1:5432, user postgres, trust auth). Schema names carry this test
session's process id and a random tag, so concurrent sessions never share a
schema; all of them are dropped when the session ends.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from sqlalchemy import Engine, create_engine, text

from ledger.sim.generator import generate_corpus
from ledger.store import db
from ledger.store.jobs import analyses
from ledger.store.jobs.analyses import Head
from tests.store.helpers import import_path

PG_SERVER = os.environ.get("DOMINO_LEDGER_TEST_PG",
                           "postgresql+psycopg://postgres@127.0.0.1:5432/test")
ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_matches"


class Schemas:
    """Fresh PostgreSQL schemas for this session, dropped at its end."""

    def __init__(self) -> None:
        self.tag = f"ledger_t{os.getpid()}_{secrets.token_hex(3)}"
        self.made: list[str] = []
        self.admin: Engine | None = None

    def new(self) -> str:
        if self.admin is None:
            self.admin = create_engine(PG_SERVER, isolation_level="AUTOCOMMIT")
            try:
                with self.admin.connect() as c:
                    c.execute(text("SELECT 1"))
            except Exception as exc:  # the suite needs both databases: say so plainly
                pytest.fail(f"PostgreSQL is not reachable at {PG_SERVER} ({exc}); "
                            "scripts/test.sh starts it")
        name = f"{self.tag}_{len(self.made)}"
        with self.admin.connect() as c:
            c.execute(text(f'CREATE SCHEMA "{name}"'))
        self.made.append(name)
        return f"{PG_SERVER}?options=-csearch_path%3D{name}"

    def drop_all(self) -> None:
        if self.admin is None:
            return
        with self.admin.connect() as c:
            for name in self.made:
                c.execute(text(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))
        self.admin.dispose()


@pytest.fixture(scope="session")
def schemas() -> Iterator[Schemas]:
    s = Schemas()
    yield s
    s.drop_all()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def url(backend: str, tmp_path: Path, schemas: Schemas) -> str:
    """A database nobody has used: no tables yet."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'ledger.db'}"
    return schemas.new()


@pytest.fixture
def engine(url: str) -> Iterator[Engine]:
    eng = db.open_db(url, migrate=True)
    yield eng
    eng.dispose()


@pytest.fixture
def stored(engine: Engine) -> tuple[Engine, int, Head]:
    """domena-2.json imported: the engine, the match's id and its head (what the analyses
    and the knowledge reviews are kept by)."""
    (got,) = import_path(engine, SAMPLES / "domena-2.json")
    assert got.id is not None
    with engine.connect() as c:
        at = analyses.head(c, got.id)
    assert at is not None
    return engine, got.id, at


# --- match files ---------------------------------------------------------------------


def write_jsonl(path: Path, matches: list[dict[str, Any]]) -> Path:
    with path.open("wb") as f:
        for m in matches:
            f.write(orjson.dumps(m) + b"\n")
    return path


@pytest.fixture(scope="session")
def corpus() -> list[dict[str, Any]]:
    """Generated legal matches, every table of the seeds at least once."""
    return list(generate_corpus(26, seed=11))


@pytest.fixture(scope="session")
def corpus_file(tmp_path_factory: pytest.TempPathFactory, corpus: list[dict[str, Any]]) -> Path:
    return write_jsonl(tmp_path_factory.mktemp("corpus") / "corpus.jsonl", corpus)


def sample_files(folder: str) -> list[Path]:
    return sorted(p for p in (SAMPLES / folder).glob("*.json")
                  if not p.name.endswith(".expected.json"))
