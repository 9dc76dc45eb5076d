"""Issue 32, items 2, 3, 5 and 6: text no route can take is refused at the door
(``web.doors``), on both backends, with a 4xx that names the place and serialises.

Before: NaN or Infinity in a JSON body was a 500 and a dropped connection (the 422
echoed the NaN and could not be written); ``?status=%00`` (``origin``, ``preset``) a 500
on PostgreSQL; ``/assets/%00/%00`` and a 20,000-character asset name a 500; a player's
name of 8,000 characters 12 s of the players page's CPU."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from ledgers import BACKENDS, fresh_ledger
from webtest_support import SAMPLES

LONG = 20_000


@pytest.fixture(scope="module", params=BACKENDS)
def client(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[TestClient]:
    from ledger.store.db import open_db, writing
    from ledger.store.imports.importer import import_file
    from web.app import create_app

    with fresh_ledger(request.param, tmp_path_factory.mktemp("doors")) as url:
        engine = open_db(url, migrate=True)
        with writing(engine) as session:
            list(import_file(session, str(SAMPLES / "domena-2.json")))
        engine.dispose()
        with TestClient(create_app(url), raise_server_exceptions=False) as got:
            yield got


NON_FINITE = ["NaN", "Infinity", "-Infinity", "1e400"]
BODIES = {
    "/api/matches": '{{"table": {{"rules": "domena", "options": {{"target": {v}}}}}, '
                    '"seats": ["Ali", "Omar"]}}',
    "/api/matches/1/events": '{{"expected_seq": {v}, "event": {{"type": "pass", "seat": 0}}}}',
}


@pytest.mark.parametrize("value", NON_FINITE)
@pytest.mark.parametrize("path", list(BODIES))
def test_non_finite_numbers_in_a_json_body_are_422(client: TestClient, path: str,
                                                   value: str) -> None:
    res = client.post(path, content=BODIES[path].format(v=value),
                      headers={"content-type": "application/json"})
    assert res.status_code == 422, res.text[:300]
    error = res.json()["error"]  # a body that serialises, naming what was refused
    assert error["code"] == "bad-request-text"
    assert value.lstrip("-") in error["message"]


def test_a_nul_in_a_json_string_is_422_and_names_the_field(client: TestClient) -> None:
    res = client.post("/api/matches", json={"table": {"rules": "domena"},
                                            "seats": ["Ali", "Om\x00ar"]})
    assert res.status_code == 422  # the reader's own answer (issue 19), kept
    assert res.json()["error"]["code"] == "bad-name" and "seat 1" in res.text
    res = client.post("/api/matches", json={"table": {"rules": "domena"}, "seats": ["A", "B"],
                                            "source": {"site": "x\x00"}})
    assert res.status_code == 422 and "U+0000" in res.text


def test_a_key_twice_in_a_json_body_is_422(client: TestClient) -> None:
    res = client.post("/api/matches", content='{"table": {"rules": "domena"}, "seats": '
                      '["Ali", "Omar"], "seats": ["Ali", "Omar", "Zaid"]}',
                      headers={"content-type": "application/json"})
    assert res.status_code == 422
    assert 'writes the key "seats" twice' in res.json()["error"]["message"]


def test_finite_bodies_still_pass(client: TestClient) -> None:
    res = client.post("/api/matches", content='{"table": {"rules": "domena", "options": '
                      '{"target": 1.5e2}}, "seats": ["Ali", "Omar"]}',
                      headers={"content-type": "application/json"})
    assert res.status_code in (201, 422), res.text  # the reader's own answer, never a 500
    assert "bad-request-text" not in res.text


@pytest.mark.parametrize("param", ["status", "origin", "preset", "player", "ok"])
def test_a_nul_in_a_list_filter_is_422(client: TestClient, param: str) -> None:
    res = client.get(f"/api/matches?{param}=%00")
    assert res.status_code == 422, res.text[:300]
    assert f"'{param}'" in res.json()["error"]["message"]
    assert "U+0000" in res.json()["error"]["message"]


@pytest.mark.parametrize("path", [
    "/assets/%00/%00", f"/assets/x/{'a' * LONG}", f"/assets/{'a' * LONG}/js/chart.js",
    "/static/%00", "/glossary/%00", f"/glossary/{'d' * LONG}", "/matches/1%00",
    "/matches?player=%00", f"/matches?player={'a' * LONG}", f"/matches?table={'x' * LONG}",
    "/players?player=%00", f"/players?player={'a' * 8000}", f"/api/players?table={'t' * LONG}",
    f"/api/matches?status={'s' * LONG}", f"/matches/1/replay?seat={'1' * LONG}",
])
def test_nul_and_long_text_in_any_address_is_a_clear_422(client: TestClient,
                                                         path: str) -> None:
    res = client.get(path)
    assert res.status_code == 422, (path[:60], res.status_code, res.text[:300])
    text = res.text
    assert "U+0000" in text or "at most" in text, text[:300]
    if not path.startswith("/api/"):  # a page a person reads, in the reader's language
        assert "<h1>" in text
        ar = client.get(path + ("&" if "?" in path else "?") + "lang=ar")
        assert ar.status_code == 422 and 'dir="rtl"' in ar.text


def test_a_long_form_field_is_422(client: TestClient) -> None:
    res = client.post("/record?lang=en", data={"preset": "d" * LONG, "seats": "2",
                                               "name": ["Ali", "Omar"]})
    assert res.status_code == 422
    assert "form field" in res.text and "at most 256" in res.text


def test_what_the_pages_send_still_passes(client: TestClient) -> None:
    for path in ("/matches?player=Ali&table=domena", "/players?player=om",
                 "/api/matches?status=complete&preset=domena", "/glossary/domena"):
        assert client.get(path).status_code == 200, path


def test_the_bounds_are_stated_in_the_security_doc() -> None:
    from web import doors

    doc = (Path(__file__).resolve().parents[2] / "docs" / "security.md").read_text("utf-8")
    for bound in (doors.MAX_TEXT, doors.MAX_PART, doors.MAX_PATH):
        assert f"{bound:,}" in doc or str(bound) in doc
    assert json.dumps("NaN") and "NaN" in doc
