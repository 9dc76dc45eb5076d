"""Issue 19 (load): the matches list and the API's list are kept while the ledger holds
the same, a match's page while its head does (``web/page_cache.py``), and never served
stale: a match stored or an event appended by anyone (another server process, the
command line) shows at once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from webtest_support import SAMPLES

from web.page_cache import PageCache


def _cache_of(client: TestClient) -> PageCache:
    layer: Any = client.app.middleware_stack  # type: ignore[attr-defined]
    while not isinstance(layer, PageCache):
        layer = layer.app
    return layer


def _store(url: str, name: str, folder: Path, seats: list[str] | None = None) -> int:
    from ledger.store.db import open_db, writing
    from ledger.store.imports.importer import import_file

    obj = json.loads((SAMPLES / name).read_text(encoding="utf-8"))
    if seats:
        obj["seats"] = seats
    path = folder / f"{len(list(folder.iterdir()))}.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    engine = open_db(url)  # an engine of its own: as another process would write
    try:
        with writing(engine) as session:
            (got,) = import_file(session, str(path))
    finally:
        engine.dispose()
    assert got.id is not None
    return got.id


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[tuple[TestClient, str, Path]]:
    from web.app import create_app

    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    files = tmp_path / "files"
    files.mkdir()
    _store(url, "domena-2.json", files)
    with TestClient(create_app(url)) as client:
        client.get("/matches")  # builds the middleware stack
        yield client, url, files


def test_a_list_is_kept_and_given_again(ledger: tuple[TestClient, str, Path]) -> None:
    client, _, _ = ledger
    cache = _cache_of(client)
    first = client.get("/matches?table=domena")
    hits = cache.hits
    again = client.get("/matches?table=domena")
    assert cache.hits == hits + 1 and again.text == first.text
    assert again.headers.get_list("vary") == first.headers.get_list("vary")
    api = client.get("/api/matches").json()
    assert client.get("/api/matches").json() == api and cache.hits == hits + 2


def test_a_match_stored_elsewhere_shows_at_once(ledger: tuple[TestClient, str, Path]) -> None:
    client, url, files = ledger
    before = client.get("/matches").text
    client.get("/matches")
    new = _store(url, "selminha-3.json", files, seats=["Zainab", "Yusuf", "Xena"])
    after = client.get("/matches").text
    assert after != before and f'data-id="{new}"' in after and "Zainab" in after
    assert new in [m["id"] for m in client.get("/api/matches").json()["items"]]


def test_an_event_appended_shows_at_once(ledger: tuple[TestClient, str, Path]) -> None:
    client, _, _ = ledger
    match_id = client.post("/api/matches", json={"table": {"rules": "domena"},
                                                 "seats": ["Ali", "Omar"]}).json()["id"]

    def listed() -> dict[str, Any]:
        rows = client.get("/api/matches").json()["items"]
        return next(m for m in rows if m["id"] == match_id)

    assert listed() == listed()
    seen = listed()
    deal = {"type": "deal", "hands": [["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0"],
                                      ["5-5", "5-4", "5-3", "5-2", "5-1", "5-0", "0-0"]]}
    res = client.post(f"/api/matches/{match_id}/events", json={"expected_seq": 0,
                                                               "event": deal})
    assert res.status_code == 201, res.text
    assert listed() != seen


def test_each_language_has_its_own_page(ledger: tuple[TestClient, str, Path]) -> None:
    client, _, _ = ledger
    english = client.get("/matches?lang=en")
    arabic = client.get("/matches?lang=ar")
    assert 'lang="ar"' in arabic.text and 'lang="en"' in english.text
    again = client.get("/matches?lang=ar")  # kept, and the cookie is still set
    assert again.text == arabic.text and "lang=ar" in again.headers["set-cookie"]
    assert 'lang="ar"' in client.get("/matches").text  # the cookie now says Arabic


_DEAL = {"type": "deal", "hands": [["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0"],
                                   ["5-5", "5-4", "5-3", "5-2", "5-1", "5-0", "0-0"]]}


def test_a_match_page_is_kept_until_its_own_head_moves(
        ledger: tuple[TestClient, str, Path]) -> None:
    client, _, _ = ledger
    cache = _cache_of(client)
    start = {"table": {"rules": "domena"}, "seats": ["Ali", "Omar"]}
    mine = client.post("/api/matches", json=start).json()["id"]
    other = client.post("/api/matches", json=start).json()["id"]
    first = client.get(f"/matches/{mine}")
    assert first.status_code == 200 and "0 recorded" in first.text
    hits = cache.hits
    # An append to another match moves the ledger, not this match's head: still kept.
    res = client.post(f"/api/matches/{other}/events", json={"expected_seq": 0,
                                                            "event": _DEAL})
    assert res.status_code == 201, res.text
    assert client.get(f"/matches/{mine}").text == first.text and cache.hits == hits + 1
    res = client.post(f"/api/matches/{mine}/events", json={"expected_seq": 0,
                                                           "event": _DEAL})
    assert res.status_code == 201, res.text
    after = client.get(f"/matches/{mine}")
    assert cache.hits == hits + 1 and "1 recorded" in after.text
    assert client.get("/matches/99999").status_code == 404  # not there: never kept
    assert client.get("/matches/99999").status_code == 404 and cache.hits == hits + 1


def test_a_kept_answer_is_sent_compressed_once(ledger: tuple[TestClient, str, Path]) -> None:
    import gzip

    client, _, _ = ledger
    cache = _cache_of(client)
    plain = client.get("/matches/1", headers={"accept-encoding": "identity"})
    assert "content-encoding" not in plain.headers
    hits = cache.hits
    raw: list[bytes] = []
    for _ in range(2):  # the second is the kept one: the same compressed bytes
        with client.stream("GET", "/matches/1", headers={"accept-encoding": "gzip"}) as res:
            assert res.headers["content-encoding"] == "gzip"
            raw.append(b"".join(res.iter_raw()))
    assert cache.hits == hits + 1 and raw[0] == raw[1]
    assert gzip.decompress(raw[1]).decode() == plain.text


def test_a_request_with_a_token_or_key_is_never_served_a_kept_page(
        ledger: tuple[TestClient, str, Path]) -> None:
    # A live match's page shows its recorder-key holder what others do not see (web.access):
    # a request carrying a token or a key is answered by the app itself, and not kept.
    client, _, _ = ledger
    cache = _cache_of(client)
    start = {"table": {"rules": "domena"}, "seats": ["Ali", "Omar"]}
    mine = client.post("/api/matches", json=start).json()["id"]
    client.get(f"/matches/{mine}")
    hits = cache.hits
    for headers in ({"Authorization": "Bearer x"}, {"X-Recorder-Key": "k"},
                    {"Cookie": f"dl_key_{mine}=k"}, {"Cookie": "dl_owner=t"}):
        assert client.get(f"/matches/{mine}", headers=headers).status_code == 200
        assert cache.hits == hits, headers
    client.get(f"/matches/{mine}")
    assert cache.hits == hits + 1  # the page kept for readers without one is still served
