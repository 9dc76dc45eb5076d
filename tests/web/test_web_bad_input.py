"""Issue 19: input never makes a 5xx. Integers past what an INTEGER column holds (32 bits
on PostgreSQL; 2**63 overflowed SQLite's driver too) in a path or a query are a 422
naming the parameter (``web.deps.MatchId``, ``DbInt``); the recorder's page and menu
of an imported match holding an event it cannot read are a 409; a score sheet PDF with
10,000-character names is printed with the names cut (``pdf_export.MAX_NAME``)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from ledgers import BACKENDS, fresh_ledger
from webtest_support import SAMPLES

BIG = 2**63  # one past the largest integer SQLite holds
PG_BIG = 2**31  # one past the largest of PostgreSQL's INTEGER columns (ids, seqs, steps)

GETS = [
    "/matches/{big}", "/matches/{big}/replay", "/matches/{mid}/replay?step={big}",
    "/matches/{mid}/replay?step=0&seat={big}", "/matches?before={big}", "/matches?after={big}",
    "/matches/{big}/sheet.csv", "/matches/{big}/whatif", "/matches/{mid}/whatif?target={big}",
    "/matches/{big}/record", "/matches/{big}/record/panel",
    "/api/matches/{big}", "/api/matches/{big}/events", "/api/matches/{mid}/events?after={big}",
    "/api/matches?offset={big}", "/api/matches/{big}/scoresheet",
    "/api/matches/{big}/analysis?deal=1", "/api/matches/{mid}/analysis?deal={big}",
    "/api/matches/{big}/whatif?rules=domena", "/api/matches/{big}/menu",
    "/api/matches/{big}/replay?step=0", "/api/matches/{mid}/replay?step={big}",
]


def _import(url: str, obj: dict[str, Any], folder: Path) -> int:
    from ledger.store.db import open_db, writing
    from ledger.store.imports.importer import import_file

    path = folder / f"m{len(list(folder.iterdir()))}.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    engine = open_db(url, migrate=True)
    try:
        with writing(engine) as session:
            got = list(import_file(session, str(path)))
    finally:
        engine.dispose()
    assert got[0].id is not None
    return got[0].id


@pytest.fixture(scope="module", params=BACKENDS)
def ledger(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[tuple[TestClient, dict[str, int]]]:
    from web.app import create_app

    folder = tmp_path_factory.mktemp("bad-input")
    with fresh_ledger(request.param, folder) as url:
        sample = json.loads((SAMPLES / "domena-2.json").read_text(encoding="utf-8"))
        unread = json.loads(json.dumps(sample))
        unread["events"][5] = {"type": "play", "seat": 0, "tile": "zz"}
        files = tmp_path_factory.mktemp("files")
        ids = {"clean": _import(url, sample, files), "unread": _import(url, unread, files)}
        with TestClient(create_app(url), raise_server_exceptions=False) as client:
            ids["live"] = client.post("/api/matches", json={
                "table": {"rules": "domena"}, "seats": ["Ali", "Omar"]}).json()["id"]
            yield client, ids


@pytest.mark.parametrize("big", [BIG, PG_BIG])
@pytest.mark.parametrize("path", GETS)
def test_integers_too_large_for_the_database_are_422(
        ledger: tuple[TestClient, dict[str, int]], path: str, big: int) -> None:
    client, ids = ledger
    res = client.get(path.format(big=big, mid=ids["clean"]))
    assert res.status_code == 422, res.text[:300]
    # The limit, with the parameter it bounds; a replay's seat is a seat's number of at
    # most three digits, or "table" (web.routes.replay.SeatQuery).
    assert ("seat" if "seat={big}" in path else "2147483647") in res.text


def test_an_event_for_a_match_past_64_bits_is_422(ledger: tuple[TestClient, dict[str, int]]
                                                  ) -> None:
    client, _ = ledger
    res = client.post(f"/api/matches/{PG_BIG}/events", json={"expected_seq": 0, "event": {}})
    assert res.status_code == 422
    assert res.json()["detail"][0]["loc"] == ["path", "match_id"]


@pytest.mark.parametrize("path", ["/matches/{id}/record", "/matches/{id}/record/panel",
                                  "/api/matches/{id}/menu"])
@pytest.mark.parametrize("which", ["unread", "clean"])
def test_the_recorder_of_an_imported_match_is_409(ledger: tuple[TestClient, dict[str, int]],
                                                  path: str, which: str) -> None:
    client, ids = ledger
    res = client.get(path.format(id=ids[which]))
    assert res.status_code == 409
    assert f"match {ids[which]} was imported from a file" in res.text.lower()
    assert client.get(path.format(id=ids["live"])).status_code == 200


def test_a_sheet_pdf_with_the_longest_names(ledger: tuple[TestClient, dict[str, int]],
                                            tmp_path: Path) -> None:
    # 10,000-character names no longer reach the ledger (a name has at most 200
    # characters: ledger/formats/values.py); the sheet cuts even those to MAX_NAME.
    from pypdf import PdfReader

    from ledger.exports.pdf_export import MAX_NAME

    client, _ = ledger
    url = str(client.app.state.engine.url.render_as_string(hide_password=False))  # type: ignore[attr-defined]
    obj = json.loads((SAMPLES / "domena-2.json").read_text(encoding="utf-8"))
    obj["seats"] = ["A" * 200, "ب" * 200]
    match_id = _import(url, obj, tmp_path)
    for lang in ("en", "ar"):
        res = client.get(f"/matches/{match_id}/sheet.pdf?lang={lang}")
        assert res.status_code == 200 and res.headers["content-type"] == "application/pdf"
        text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(res.content)).pages)
        assert "A" * (MAX_NAME - 1) + "…" in text and "A" * MAX_NAME not in text


@pytest.mark.parametrize("seats", [str(BIG), "1000"])
def test_a_new_match_form_with_too_many_seats_is_422(
        ledger: tuple[TestClient, dict[str, int]], seats: str) -> None:
    # 2**63 seats once meant a list of 2**63 default names: the process ran out of memory.
    client, _ = ledger
    res = client.post("/record?lang=en", data={"preset": "domena", "seats": seats,
                                               "name": ["Ali", "Omar"]})
    assert res.status_code == 422
    # Said in the page's language (issue 33, item 6), never pydantic's English.
    assert "Seats: 4 or less" in res.text and "Input should be" not in res.text
