"""The JSON API over a real ledger (SQLite and PostgreSQL), through FastAPI's TestClient."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.store import db
from tests.store.helpers import count, import_path
from web.app import create_app


@pytest.fixture
def client(url: str) -> Iterator[TestClient]:
    db.open_db(url, migrate=True).dispose()  # a server database is migrated on request
    with TestClient(create_app(url)) as c:
        yield c


def _start(client: TestClient, match: dict[str, Any]) -> int:
    r = client.post("/api/matches", json={"table": match["table"], "seats": match["seats"],
                                          "source": {"site": "test"}})
    assert r.status_code == 201, r.text
    assert r.headers["location"] == f"/api/matches/{r.json()['id']}"
    return int(r.json()["id"])


def test_record_a_whole_match_over_http(client: TestClient,
                                        corpus: list[dict[str, Any]]) -> None:
    match = corpus[4]
    mid = _start(client, match)
    seq = 0
    derived: list[str] = []
    for i, ev in enumerate(match["events"]):
        r = client.post(f"/api/matches/{mid}/events", json={"expected_seq": seq, "event": ev})
        assert r.status_code == 201, r.text
        body = r.json()
        assert body["seq"] == seq and body["event"] == i
        derived += [d["type"] for d in body["derived"]]
        seq = body["next_seq"]
    assert body["status"] == "complete"
    assert derived.count("deal_scored") == sum(1 for e in match["events"]
                                               if e["type"] == "deal_end")
    got = client.get(f"/api/matches/{mid}").json()
    assert got["complete"] and got["status"] == "complete" and got["next_seq"] == seq
    assert got["scores"] == match["events"][-1]["scores"]  # the generator's match_end claim
    assert len(got["score_sheet"]) == got["deals"] > 0
    assert got["findings"] == []
    events = client.get(f"/api/matches/{mid}/events").json()
    assert [e["seq"] for e in events] == list(range(seq))
    assert all(e["prev_hash"] == p["hash"] for p, e in zip(events, events[1:], strict=False))


def test_an_illegal_event_is_422_with_the_rule(client: TestClient,
                                                corpus: list[dict[str, Any]]) -> None:
    match = corpus[0]
    mid = _start(client, match)
    r = client.post(f"/api/matches/{mid}/events",
                    json={"expected_seq": 0, "event": match["events"][0]})
    assert r.status_code == 201
    opening = match["events"][1]
    bad = dict(opening, seat=1 - opening["seat"])
    r = client.post(f"/api/matches/{mid}/events", json={"expected_seq": 1, "event": bad})
    assert r.status_code == 422
    err = r.json()["error"]
    assert err["code"] in ("out-of-turn", "tile-not-in-hand", "wrong-leader")
    assert err["event"] == 1 and f"seat {bad['seat']}" in err["message"]
    assert client.get(f"/api/matches/{mid}").json()["next_seq"] == 1
    r = client.post(f"/api/matches/{mid}/events",
                    json={"expected_seq": 1, "event": {"type": "play", "seat": 0,
                                                       "tile": "8-8"}})
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad-tile"


def test_a_stale_writer_gets_409_and_can_retry(client: TestClient,
                                               corpus: list[dict[str, Any]]) -> None:
    match = corpus[0]
    mid = _start(client, match)
    client.post(f"/api/matches/{mid}/events", json={"expected_seq": 0,
                                                    "event": match["events"][0]})
    r = client.post(f"/api/matches/{mid}/events", json={"expected_seq": 0,
                                                        "event": match["events"][1]})
    assert r.status_code == 409
    err = r.json()["error"]
    assert err["code"] == "conflict" and err["next_seq"] == 1
    r = client.post(f"/api/matches/{mid}/events", json={"expected_seq": err["next_seq"],
                                                        "event": match["events"][1]})
    assert r.status_code == 201


def test_two_clients_at_once_exactly_one_wins(client: TestClient,
                                              corpus: list[dict[str, Any]]) -> None:
    match = corpus[0]
    mid = _start(client, match)
    barrier = threading.Barrier(2)
    codes: list[int] = []

    def post() -> None:
        barrier.wait()
        codes.append(client.post(f"/api/matches/{mid}/events", json={
            "expected_seq": 0, "event": match["events"][0]}).status_code)

    threads = [threading.Thread(target=post) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(codes) == [201, 409]


def test_missing_and_closed_matches(client: TestClient, url: str, corpus_file: Path) -> None:
    r = client.get("/api/matches/424242")
    assert r.status_code == 404 and r.json()["error"]["code"] == "match-not-found"
    r = client.post("/api/matches/424242/events", json={"expected_seq": 0,
                                                        "event": {"type": "pass", "seat": 0}})
    assert r.status_code == 404
    engine = client.app.state.engine  # type: ignore[attr-defined]
    (got, *_) = import_path(engine, corpus_file)
    r = client.post(f"/api/matches/{got.id}/events", json={"expected_seq": 0,
                                                           "event": {"type": "pass", "seat": 0}})
    assert r.status_code == 409 and r.json()["error"]["code"] == "match-closed"


def test_a_match_that_cannot_be_played_is_422(client: TestClient) -> None:
    r = client.post("/api/matches", json={"table": {"rules": "chess"}, "seats": ["A", "B"]})
    assert r.status_code == 422 and r.json()["error"]["code"] == "unknown-preset"
    r = client.post("/api/matches", json={"table": {"rules": "domena"}, "seats": ["A"] * 3})
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad-seat-count"


def test_list_filters_and_pages(client: TestClient, corpus_file: Path,
                                corpus: list[dict[str, Any]]) -> None:
    engine = client.app.state.engine  # type: ignore[attr-defined]
    got = import_path(engine, corpus_file)
    live_id = _start(client, corpus[0])
    everything = client.get("/api/matches", params={"limit": 500}).json()
    assert everything["total"] == len(got) + 1 == len(everything["items"])
    ids = [m["id"] for m in everything["items"]]
    assert ids == sorted(ids, reverse=True) and ids[0] == live_id
    # Pages cover the list once, in order.
    seen: list[int] = []
    for offset in range(0, len(ids), 7):
        page = client.get("/api/matches", params={"limit": 7, "offset": offset}).json()
        assert page["total"] == len(ids)
        seen += [m["id"] for m in page["items"]]
    assert seen == ids
    domena = client.get("/api/matches", params={"preset": "domena"}).json()
    want = sum(1 for m in corpus if m["table"]["rules"] == "domena") + 1
    assert domena["total"] == want
    assert all(m["preset"] == "domena" for m in domena["items"])
    name = corpus[5]["seats"][1]
    mine = client.get("/api/matches", params={"player": name, "limit": 500}).json()
    assert mine["total"] == sum(1 for m in corpus if name in m["seats"]) + \
        (name in corpus[0]["seats"])
    assert all(name in m["seats"] for m in mine["items"])
    live = client.get("/api/matches", params={"origin": "live", "status": "recording"}).json()
    assert [m["id"] for m in live["items"]] == [live_id]
    assert client.get("/api/matches", params={"ok": "false"}).json()["total"] == 0
    assert client.get("/api/matches", params={"limit": 0}).status_code == 422


def test_a_faulty_import_shows_its_findings(client: TestClient) -> None:
    from tests.store.conftest import sample_files

    engine = client.app.state.engine  # type: ignore[attr-defined]
    path = next(p for p in sample_files("faulty") if p.name == "illegal-pass.json")
    (got,) = import_path(engine, path)
    body = client.get(f"/api/matches/{got.id}").json()
    assert body["ok"] is False and body["errors"] >= 1
    assert any(f["code"] == "illegal-pass" for f in body["findings"])
    assert client.get("/api/matches", params={"ok": "false"}).json()["total"] == 1
    assert count(engine) > 0
