"""Issue 19: a database that cannot be used answers 503 with a sentence, in English and
Arabic: a page for pages, JSON for /api (``web/db_faults.py``), never a bare 500.

The faults are the databases' own: SQLite refusing writes (``query_only``, the error of
a read-only file) or new pages (``max_page_count``: "database or disk is full"), its
file removed; PostgreSQL in read-only transactions, its schema dropped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from ledgers import BACKENDS, fresh_ledger
from sqlalchemy import event, text

READ_ONLY_AR = "للقراءة فقط"
MISSING_AR = "جداولها"
NEW_MATCH = {"table": {"rules": "domena"}, "seats": ["Ali", "Omar"]}


@pytest.fixture(params=BACKENDS)
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    from ledger.store.db import open_db

    with fresh_ledger(request.param, tmp_path) as url:
        open_db(url, migrate=True).dispose()
        yield request.param, url


def _client(url: str) -> TestClient:
    from web.app import create_app

    return TestClient(create_app(url), raise_server_exceptions=False)


def _on_connect(client: TestClient, sql: Callable[[Any], str]) -> None:
    """Every new connection of the app runs ``sql(dbapi_connection)`` (the pool is emptied)."""
    engine = client.app.state.engine  # type: ignore[attr-defined]

    def run(dbapi: Any, _record: Any) -> None:
        cur = dbapi.cursor()
        cur.execute(sql(dbapi))
        cur.close()

    event.listen(engine, "connect", run)
    engine.dispose()


def _unavailable(res: Any, cause: str) -> dict[str, Any]:
    assert res.status_code == 503, res.text[:500]
    body: dict[str, Any] = res.json()["error"]
    assert body["code"] == "database-unavailable" and body["cause"] == cause
    assert "Traceback" not in res.text and "sqlite3" not in res.text
    return body


def test_a_read_only_database(ledger: tuple[str, str]) -> None:
    backend, url = ledger
    if backend == "postgres":
        url += "%20-cdefault_transaction_read_only%3Don"
    with _client(url) as client:
        if backend == "sqlite":
            _on_connect(client, lambda _: "PRAGMA query_only = ON")
        assert client.get("/matches").status_code == 200  # reading still works
        body = _unavailable(client.post("/api/matches", json=NEW_MATCH), "read-only")
        assert body["message"].startswith("The ledger's database is read-only")
        assert READ_ONLY_AR in body["message_worded"] or "read-only" in body["message_worded"]
        res = client.post("/record?lang=ar", data={"preset": "domena", "seats": "2",
                                                   "name": ["Ali", "Omar"]})
        assert res.status_code == 503 and res.headers["content-type"].startswith("text/html")
        assert READ_ONLY_AR in res.text and 'dir="rtl"' in res.text
        res = client.post("/record?lang=en", data={"preset": "domena", "seats": "2",
                                                  "name": ["Ali", "Omar"]})
        assert res.status_code == 503 and "is read-only just now" in res.text


def test_a_full_disk(tmp_path: Path) -> None:
    from ledger.store.db import open_db

    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    open_db(url, migrate=True).dispose()
    with _client(url) as client:
        def cap(dbapi: Any) -> str:  # no page past those the file has now
            pages = dbapi.execute("PRAGMA page_count").fetchone()[0]
            return f"PRAGMA max_page_count = {pages}"

        _on_connect(client, cap)
        codes = []
        for _ in range(2000):  # names as long as the ledger takes (200 characters)
            res = client.post("/api/matches", json={**NEW_MATCH, "seats": ["A" * 200, "B" * 200]})
            codes.append(res.status_code)
            if res.status_code != 201:
                break
        body = _unavailable(res, "disk-full")
        assert "disk is full" in body["message"]
        assert set(codes[:-1]) <= {201}
        assert client.get("/matches").status_code == 200


def test_a_dropped_database(ledger: tuple[str, str], tmp_path: Path) -> None:
    backend, url = ledger
    with _client(url) as client:
        assert client.get("/matches").status_code == 200
        engine = client.app.state.engine  # type: ignore[attr-defined]
        if backend == "sqlite":
            engine.dispose()
            (tmp_path / "ledger.db").unlink()
        else:
            with engine.connect() as conn:
                schema = conn.execute(text("SELECT current_schema()")).scalar()
                conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
                conn.commit()
        res = client.get("/matches?lang=ar")
        assert res.status_code == 503 and MISSING_AR in res.text
        res = client.get("/matches?lang=en")
        assert res.status_code == 503
        assert "The ledger is not available" in res.text and "tables are gone" in res.text
        body = _unavailable(client.get("/api/matches"), "missing")
        assert json.dumps(body)  # a JSON answer, whole


# --- a connection killed under a statement (issue 32) ----------------------------------
# PostgreSQL ends the app's own connection (pg_terminate_backend, as an administrator or a
# restart does) right after its n-th statement: the next one finds it dead.


def _kill_after(engine: Any, n: int) -> Callable[[], None]:
    """Arms a kill of whichever connection runs the engine's ``n``-th statement from now;
    returns the function that disarms it."""
    from ledgers import PG
    from sqlalchemy import create_engine

    admin = create_engine(PG, isolation_level="AUTOCOMMIT")
    left = [n]

    def run(_conn: Any, cursor: Any, *_: Any) -> None:
        left[0] -= 1
        if left[0] == 0:
            pid = cursor.connection.info.backend_pid
            with admin.connect() as c:
                c.execute(text(f"SELECT pg_terminate_backend({pid})"))

    event.listen(engine, "after_cursor_execute", run)

    def disarm() -> None:
        event.remove(engine, "after_cursor_execute", run)
        admin.dispose()

    return disarm


@pytest.mark.postgres
@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("path", ["/matches", "/api/matches", "/api/matches/1", "/matches/1",
                                  "/api/matches/1/events", "/players"])
def test_a_read_whose_connection_is_killed_is_read_again(tmp_path: Path, path: str,
                                                         n: int) -> None:
    with fresh_ledger("postgres", tmp_path) as url:
        from ledger.store.db import open_db

        open_db(url, migrate=True).dispose()
        with _client(url) as client:
            assert client.post("/api/matches", json=NEW_MATCH).status_code == 201
            disarm = _kill_after(client.app.state.engine, n)  # type: ignore[attr-defined]
            try:
                res = client.get(path)
            finally:
                disarm()
            assert res.status_code == 200, res.text[:500]


@pytest.mark.postgres
@pytest.mark.parametrize("n", [1, 2, 3])
def test_a_write_whose_connection_is_killed_says_so_in_a_sentence(tmp_path: Path,
                                                                  n: int) -> None:
    with fresh_ledger("postgres", tmp_path) as url:
        from ledger.store.db import open_db

        open_db(url, migrate=True).dispose()
        with _client(url) as client:
            engine = client.app.state.engine  # type: ignore[attr-defined]
            disarm = _kill_after(engine, n)
            try:
                res = client.post("/api/matches", json=NEW_MATCH)
                page = client.post("/record?lang=ar", data={
                    "preset": "domena", "seats": "2", "name": ["Ali", "Omar"]},
                    follow_redirects=False)
            finally:
                disarm()
            if res.status_code != 201:  # (a kill after the commit: stored, and said so)
                body = _unavailable(res, "connection-lost")
                assert body["message"].startswith("The ledger lost its connection")
                assert "rolled back" not in res.text and "sqlalche" not in res.text
            assert "sqlalche" not in page.text and "Can't reconnect" not in page.text
            assert page.status_code in (303, 503)
            # Nothing half-written, and the next write works.
            assert client.post("/api/matches", json=NEW_MATCH).status_code == 201
            assert client.get("/api/matches").json()["total"] in (1, 2, 3)


@pytest.mark.postgres
@pytest.mark.parametrize("n", [5, 15])
def test_an_import_whose_connection_is_killed_says_so_in_a_sentence(
        tmp_path: Path, n: int, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: "domino-ledger: Can't reconnect until invalid transaction is rolled back.
    # Please rollback() fully before proceeding (Background on this error at: ...)".
    from sqlalchemy.engine import Engine
    from webtest_support import SAMPLES

    from ledger.cli import main
    from ledger.store.db import open_db

    with fresh_ledger("postgres", tmp_path) as url:
        open_db(url, migrate=True).dispose()
        disarm = _kill_after(Engine, n)  # the command makes its own engine
        try:
            code = main(["import", str(SAMPLES / "archive.jsonl.gz"), "--db", url,
                         "--jobs", "0"])
        finally:
            disarm()
        err = capsys.readouterr().err
        assert code == 2
        assert "the connection to the ledger's database was lost" in err, err
        assert "Can't reconnect" not in err and "sqlalche" not in err
        assert main(["import", str(SAMPLES / "archive.jsonl.gz"), "--db", url]) == 0
