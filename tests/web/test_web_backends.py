"""The pages' reads (list filters, a stored match, its replay) on SQLite and on PostgreSQL.

The local PostgreSQL (127.0.0.1:5432, user postgres, database ``test``) gets a
schema of its own for this test session, dropped at its end.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text
from webtest_support import SAMPLES, sample_files

from ledger.engine import fold
from ledger.formats.reader import read_matches
from ledger.replay import frame
from ledger.store.db import open_db, writing
from ledger.store.imports.importer import import_records
from ledger.store.log import snapshots
from ledger.store.read import Filters, list_page
from web.matchdata import load_match

PG = os.environ.get("DOMINO_LEDGER_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
NAMES = ["domena-2.json", "domena-4-bot.json", "sahrat-fives-2.json", "selminha-3.json",
         "casual-arena-4-teams.json", "sahrat-partner-4.json"]


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres",
                                                              marks=pytest.mark.postgres)])
def ledger(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[tuple[Engine, dict[str, int]]]:
    admin: Engine | None = None
    schema = f"web_t{os.getpid()}_{secrets.token_hex(3)}"
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('ledger') / 'ledger.db'}"
    else:
        admin = create_engine(PG, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as c:
                c.execute(text(f'CREATE SCHEMA "{schema}"'))
        except Exception as exc:
            pytest.fail(f"PostgreSQL is not reachable at {PG} ({exc}); scripts/test.sh "
                        "starts it")
        url = f"{PG}?options=-csearch_path%3D{schema}"
    engine = open_db(url, migrate=True)
    ids: dict[str, int] = {}
    files = [SAMPLES / n for n in NAMES] + [p for p in sample_files() if "faulty" in p.parts][:4]
    with writing(engine) as session:
        for path in files:
            for got in import_records(session, read_matches(path)):
                assert got.id is not None
                ids[Path(path).name] = got.id
    with engine.begin() as conn:
        for match_id in ids.values():
            snapshots.fill(conn, match_id)
    try:
        yield engine, ids
    finally:
        engine.dispose()
        if admin is not None:
            with admin.connect() as c:
                c.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            admin.dispose()


def rows(engine: Engine) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(text(
            "SELECT m.id, m.preset, m.seats, m.ok, s.complete, s.winner FROM matches m "
            "LEFT JOIN match_summaries s ON s.match_id = m.id ORDER BY m.id DESC"))]


def test_list_filters_agree_with_the_rows(ledger: tuple[Engine, dict[str, int]]) -> None:
    engine, _ = ledger
    everything = rows(engine)
    import orjson

    for r in everything:
        if isinstance(r["seats"], str):
            r["seats"] = orjson.loads(r["seats"])
    player = everything[0]["seats"][0]
    cases = [
        (Filters(), lambda r: True),
        (Filters(player=player), lambda r: player in r["seats"]),
        (Filters(table="domena"), lambda r: r["preset"] == "domena"),
        (Filters(audit="faulty"), lambda r: not r["ok"]),
        (Filters(audit="ok", result="won"), lambda r: r["ok"] and r["complete"]
         and r["winner"] is not None),
        (Filters(result="unfinished"), lambda r: not r["complete"]),
        (Filters(player='Nobody "quoted" 100%_'), lambda r: False),
    ]
    with engine.connect() as conn:
        for filters, keep in cases:
            want = [r["id"] for r in everything if keep(r)]
            page = list_page(conn, filters, limit=3)
            assert [row.id for row in page.rows] == want[:3], filters
            assert page.count == len(want)
            if len(want) > 3:  # the next page starts below the last id shown
                assert page.older is not None
                nxt = list_page(conn, filters, before=page.older, limit=3)
                assert [row.id for row in nxt.rows] == want[3:6]
                back = list_page(conn, filters, after=nxt.newer, limit=3)
                assert [row.id for row in back.rows] == want[:3]


def test_replay_of_a_stored_match_uses_its_snapshots(ledger: tuple[Engine, dict[str, int]]
                                                     ) -> None:
    engine, ids = ledger
    match_id = ids["sahrat-fives-2.json"]
    with engine.connect() as conn:
        whole = load_match(conn, match_id, everything=True)
        assert whole.replay is not None and whole.rules is not None
        starts = whole.replay.deal_starts()
        for step in (0, 1, starts[1] - 1, starts[2], starts[2] + 5, whole.replay.last_step):
            one = load_match(conn, match_id, step=step)
            assert one.replay is not None
            assert (one.snapshot is None) == (step == 0)
            got = frame(one.replay, step, snapshot=one.snapshot)
            assert got == frame(whole.replay, step)
            events = [ev for ev in whole.replay.events[:step] if ev is not None]
            assert got.scores == tuple(fold(whole.rules, events).scores)
        sheet = load_match(conn, match_id).sheet()
        assert sheet.deals and sheet.scores == got.scores
