"""The knowledge reviews the pages read (ledger.store.jobs.knowledge_reviews.current and
all_current, through ledger.store.read) on SQLite and PostgreSQL: only a review of the
match's head as stored now answers; of several sample counts the largest; each match
with its table and audit status."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from ledger.store import db
from ledger.store.jobs import analyses, knowledge_reviews
from ledger.store.jobs.analyses import Head
from tests.store.conftest import SAMPLES
from tests.store.helpers import import_path


def _put(engine: Engine, match_id: int, at: Head, samples: int, body: dict[str, Any],
         version: str = "1") -> None:
    with db.writing(engine) as s:
        knowledge_reviews.put(db.write_connection(s), match_id, at, samples, version, body)
        s.commit()


def _stored(engine: Engine, name: str) -> tuple[int, Head]:
    (got,) = import_path(engine, SAMPLES / name)
    assert got.id is not None
    with engine.connect() as c:
        at = analyses.head(c, got.id)
    assert at is not None
    return got.id, at


def test_current_answers_for_the_head_as_stored_now(engine: Engine) -> None:
    a, at_a = _stored(engine, "domena-2.json")
    b, at_b = _stored(engine, "selminha-3.json")
    with engine.connect() as c:
        assert knowledge_reviews.current(c, a, "1") is None
        assert knowledge_reviews.all_current(c, "1") == {}
    _put(engine, a, at_a, 20, {"samples": 20})
    _put(engine, a, at_a, 200, {"samples": 200})
    _put(engine, a, Head(at_a.last_seq - 1, bytes(32)), 500, {"samples": 500})  # older head
    _put(engine, b, at_b, 20, {"samples": 20}, version="0")                      # old version
    with engine.connect() as c:
        assert knowledge_reviews.current(c, a, "1") == {"samples": 200}
        assert knowledge_reviews.current(c, b, "1") is None
        assert knowledge_reviews.current(c, b, "0") == {"samples": 20}
        kept = knowledge_reviews.all_current(c, "1")
    assert kept == {a: ("domena", True, {"samples": 200})}


def test_read_names_them() -> None:
    from ledger.store import read

    assert read.knowledge_report is knowledge_reviews.current
    assert read.knowledge_reports is knowledge_reviews.all_current
