"""Small helpers shared by the store tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func, select, text

from ledger.formats.reader import parse_match
from ledger.store import db
from ledger.store.imports.importer import Imported, Prepared, import_file, prepare
from ledger.store.models import EVENTS, MATCHES


def import_path(engine: Engine, path: Path | str) -> list[Imported]:
    with db.writing(engine) as session:
        return list(import_file(session, str(path)))


def count(engine: Engine, table: Any = EVENTS) -> int:
    with engine.connect() as c:
        return int(c.execute(select(func.count()).select_from(table)).scalar_one())


def matches(engine: Engine) -> int:
    return count(engine, MATCHES)


def sql(engine: Engine, statement: str, **params: Any) -> None:
    with engine.begin() as c:
        c.execute(text(statement), params)


def drop_triggers(engine: Engine) -> None:
    """What someone editing the database behind the app's back would do first."""
    if engine.dialect.name == "postgresql":
        sql(engine, "DROP TRIGGER events_append_only ON events")
        sql(engine, "DROP TRIGGER matches_header_fixed ON matches")
        sql(engine, "DROP TRIGGER matches_no_delete ON matches")
    else:
        for name in ("events_no_update", "events_no_delete", "matches_header_fixed",
                     "matches_no_delete"):
            sql(engine, f"DROP TRIGGER {name}")


def prepared(corpus: list[dict[str, Any]], n: int) -> list[Prepared]:
    """The first ``n`` matches of a corpus, parsed and prepared for storing."""
    out = []
    for match in corpus[:n]:
        prep = prepare(parse_match(match))
        assert prep is not None and prep.size > 1
        out.append(prep)
    return out
