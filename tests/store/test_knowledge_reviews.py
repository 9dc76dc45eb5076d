"""Knowledge reviews kept in the ledger (ledger.store.jobs.knowledge_reviews) on SQLite and
PostgreSQL: per match, head and sample count; another head or count never answers."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from ledger.store import db
from ledger.store.jobs import knowledge_reviews
from ledger.store.jobs.analyses import Head

BODY: dict[str, Any] = {"samples": 20, "report": [{"seat": 0, "player": "ليلى",
                                                   "luck": -1.5}]}


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
