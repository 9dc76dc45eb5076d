"""Knowledge reviews kept in the ledger (ledger.store.knowledge_reviews) on SQLite and
PostgreSQL: per match, head and sample count; another head or count never answers."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine

from ledger.store import analyses, db, knowledge_reviews
from ledger.store.analyses import Head
from tests.store.conftest import SAMPLES
from tests.store.helpers import import_path

BODY: dict[str, Any] = {"samples": 20, "report": [{"seat": 0, "player": "ليلى",
                                                   "luck": -1.5}]}


@pytest.fixture
def stored(engine: Engine) -> tuple[Engine, int, Head]:
    (got,) = import_path(engine, SAMPLES / "domena-2.json")
    assert got.id is not None
    with engine.connect() as c:
        at = analyses.head(c, got.id)
    assert at is not None
    return engine, got.id, at


def _put(engine: Engine, match_id: int, at: Head, samples: int, version: str,
         body: dict[str, Any]) -> None:
    with db.writing(engine) as s:
        knowledge_reviews.put(db.write_connection(s), match_id, at, samples, version, body)
        s.commit()


def _get(engine: Engine, match_id: int, at: Head, samples: int, version: str
         ) -> dict[str, Any] | None:
    with engine.connect() as c:
        return knowledge_reviews.get(c, match_id, at, samples, version)


def test_kept_by_head_and_samples(stored: tuple[Engine, int, Head]) -> None:
    engine, match_id, at = stored
    assert _get(engine, match_id, at, 20, "1") is None
    _put(engine, match_id, at, 20, "1", BODY)
    assert _get(engine, match_id, at, 20, "1") == BODY
    assert _get(engine, match_id, at, 200, "1") is None          # other sample count
    assert _get(engine, match_id, at, 20, "2") is None           # other version
    later = Head(at.last_seq + 1, bytes(32))
    assert _get(engine, match_id, later, 20, "1") is None        # the match went on
    _put(engine, match_id, at, 20, "2", {"samples": 20})
    assert _get(engine, match_id, at, 20, "2") == {"samples": 20}
    assert _get(engine, match_id, at, 20, "1") is None
    with db.writing(engine) as s:
        assert knowledge_reviews.clear(db.write_connection(s), match_id) == 1
        s.commit()
    assert _get(engine, match_id, at, 20, "2") is None
