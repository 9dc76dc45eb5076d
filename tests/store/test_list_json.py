"""The API's list of matches written as JSON at once (``queries.list_matches_json``: the
JSON columns copied as the ledger stores them) says exactly what the list read into
values says, on both databases, for every filter the API takes and every page."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from sqlalchemy import Engine

from ledger.store import db
from ledger.store.pages.queries import list_matches, list_matches_json
from ledger.store.recording import live
from tests.store.conftest import SAMPLES, sample_files
from tests.store.helpers import import_path

FILTERS: list[dict[str, Any]] = [
    {}, {"preset": "domena"}, {"ok": True}, {"ok": False}, {"status": "live"},
    {"origin": "import"}, {"player": "Rania"}, {"player": "nobody"}]


@pytest.fixture
def filled(engine: Engine, corpus: list[dict[str, Any]]) -> Engine:
    for path in [SAMPLES / "domena-2.json", *sample_files("faulty")[:4]]:
        import_path(engine, path)
    with db.writing(engine) as s:  # a live match: no summary yet, then one event
        match_id = live.start_match(s, {"table": corpus[0]["table"],
                                        "seats": corpus[0]["seats"]})
    with db.writing(engine) as s:
        live.append(s, match_id, corpus[0]["events"][0])
    return engine


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: ",".join(map(str, f.items())) or "all")
def test_the_json_list_says_what_the_list_says(filled: Engine, filters: dict[str, Any]
                                               ) -> None:
    with filled.connect() as conn:
        total = list_matches(conn, **filters).total
        for limit, offset in [(50, 0), (1, 0), (2, 1), (3, max(0, total - 2)), (5, total + 3)]:
            read = list_matches(conn, limit=limit, offset=offset, **filters).to_dict()
            written = list_matches_json(conn, limit=limit, offset=offset, **filters)
            assert written == orjson.dumps(read), (limit, offset)
        if not filters:  # the null JSON columns are among those compared
            items = list_matches(conn, limit=50).items
            assert len(items) >= 6 and any(i["source"] is None for i in items)
