"""Issue 12 (writes need a key, live privacy) and issue 19 (cross-site posts, foreign
hosts), over HTTP: the app's own setting through FastAPI's TestClient, and a real server
bound to a non-loopback address in a network namespace of its own (web.access.serving,
as ``serve`` runs it).

A refused request stores nothing: every refusal is checked against the ledger's counts.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from ledger.sim.generator import generate_match
from ledger.store.db import open_db
from ledger.store.models import EVENTS, MATCHES, RECORDER_KEYS
from web.access import KEY_COOKIE, OWNER_COOKIE, Access, Mode, serving
from web.app import create_app

TOKEN = "owner-token-for-the-tests-0123456789"
SAMPLE = Path(__file__).resolve().parents[2] / "sample_matches" / "domena-2.json"
HOSTS = ("127.0.0.1", "localhost", "testserver")


def _match() -> dict[str, Any]:
    return generate_match("sahrat-draw", 2, {}, seed=7)


def _counts(app: Any) -> tuple[int, int]:
    with app.state.engine.connect() as c:
        return (int(c.execute(select(func.count()).select_from(MATCHES)).scalar_one()),
                int(c.execute(select(func.count()).select_from(EVENTS)).scalar_one()))


@pytest.fixture
def keyed(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 'l.db'}",
                     access=Access(Mode.KEYS, TOKEN, HOSTS))
    with TestClient(app) as c:
        yield c


@pytest.fixture
def loopback(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'l.db'}")) as c:
        yield c


def _owner() -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}"}


def _start(c: TestClient, match: dict[str, Any], headers: dict[str, str]) -> httpx.Response:
    return c.post("/api/matches", json={"table": match["table"], "seats": match["seats"]},
                  headers=headers)


def _append(c: TestClient, mid: int, seq: int, ev: dict[str, Any],
            key: str | None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return c.post(f"/api/matches/{mid}/events", json={"expected_seq": seq, "event": ev},
                  headers=headers)


def test_without_a_key_nothing_is_written(keyed: TestClient) -> None:
    app = keyed.app
    before = _counts(app)
    assert _start(keyed, _match(), {}).status_code == 401
    assert _start(keyed, _match(), {"Authorization": "Bearer wrong"}).status_code == 403
    r = keyed.post("/record", data={"preset": "domena", "seats": "2"})
    assert r.status_code == 401
    r = keyed.post("/import", files={"file": ("m.json", SAMPLE.read_bytes())})
    assert r.status_code == 401
    assert _counts(app) == before
    # The owner's token starts a match; its recorder key is needed for every append.
    r = _start(keyed, _match(), _owner())
    assert r.status_code == 201
    mid, key = r.json()["id"], r.json()["recorder_key"]
    first = _match()["events"][0]
    assert _append(keyed, mid, 0, first, None).status_code == 401
    assert _append(keyed, mid, 0, first, "not-the-key").status_code == 403
    assert _append(keyed, mid, 0, first, TOKEN).status_code == 403   # owner is not recorder
    assert _counts(app) == (before[0] + 1, before[1])
    assert _append(keyed, mid, 0, first, key).status_code == 201
    undo = {"type": "undo", "event": 0}
    assert _append(keyed, mid, 1, undo, None).status_code == 401
    assert _append(keyed, mid, 1, undo, key).status_code == 201


def test_the_key_is_kept_only_as_its_hash(keyed: TestClient) -> None:
    r = _start(keyed, _match(), _owner())
    mid, key = r.json()["id"], r.json()["recorder_key"]
    with keyed.app.state.engine.connect() as c:  # type: ignore[attr-defined]
        row = c.execute(select(RECORDER_KEYS).where(RECORDER_KEYS.c.match_id == mid)).one()
    assert len(row.key_hash) == 32 and key.encode() not in bytes(row.key_hash)


def test_a_key_of_match_a_does_not_write_to_match_b(keyed: TestClient) -> None:
    a = _start(keyed, _match(), _owner()).json()
    b = _start(keyed, _match(), _owner()).json()
    first = _match()["events"][0]
    before = _counts(keyed.app)
    assert _append(keyed, b["id"], 0, first, a["recorder_key"]).status_code == 403
    keyed.cookies.set(KEY_COOKIE.format(match=a["id"]), a["recorder_key"])
    assert _append(keyed, b["id"], 0, first, None).status_code == 401
    assert _counts(keyed.app) == before
    assert _append(keyed, a["id"], 0, first, None).status_code == 201   # its own, by cookie


def test_a_rotated_key_is_refused(keyed: TestClient) -> None:
    got = _start(keyed, _match(), _owner()).json()
    mid, old = got["id"], got["recorder_key"]
    assert keyed.post(f"/api/matches/{mid}/key").status_code == 401
    r = keyed.post(f"/api/matches/{mid}/key", headers={"Authorization": f"Bearer {old}"})
    assert r.status_code == 200
    new = r.json()["recorder_key"]
    assert new != old
    events = _match()["events"]
    assert _append(keyed, mid, 0, events[0], old).status_code == 403
    assert _append(keyed, mid, 0, events[0], new).status_code == 201
    # The owner may rotate too (a recorder who lost the link).
    r = keyed.post(f"/api/matches/{mid}/key", headers=_owner())
    assert r.status_code == 200
    assert _append(keyed, mid, 1, events[1], new).status_code == 403


def test_loopback_default_writes_without_keys(loopback: TestClient) -> None:
    match = _match()
    r = _start(loopback, match, {})
    assert r.status_code == 201
    mid = r.json()["id"]
    for seq, ev in enumerate(match["events"][:5]):
        assert _append(loopback, mid, seq, ev, None).status_code == 201
    r = loopback.post("/record", data={"preset": "domena", "seats": "2"},
                      follow_redirects=False)
    assert r.status_code == 303 and "#key=" not in r.headers["location"]
    r = loopback.post("/import", files={"file": ("m.json", SAMPLE.read_bytes())})
    assert r.status_code == 200


@pytest.mark.parametrize("path", ["/record", "/import"])
def test_cross_site_posts_are_refused(loopback: TestClient, path: str) -> None:
    before = _counts(loopback.app)
    kw: dict[str, Any] = ({"data": {"preset": "domena", "seats": "2"}} if path == "/record"
                          else {"files": {"file": ("m.json", SAMPLE.read_bytes())}})
    r = loopback.post(path, headers={"Origin": "http://evil"}, follow_redirects=False, **kw)
    assert r.status_code == 403
    r = loopback.post(path, headers={"Referer": "http://evil/page"}, follow_redirects=False,
                      **kw)
    assert r.status_code == 403
    assert _counts(loopback.app) == before
    r = loopback.post(path, headers={"Origin": "http://testserver"}, follow_redirects=False,
                      **kw)
    assert r.status_code in (200, 303)
    assert _counts(loopback.app)[0] > before[0]


def test_foreign_hosts_are_refused(loopback: TestClient) -> None:
    assert loopback.get("/matches", headers={"Host": "evil.example"}).status_code == 400
    assert loopback.get("/matches", headers={"Host": "localhost:8000"}).status_code == 200


def _live(c: TestClient, upto: int) -> tuple[int, str, dict[str, Any]]:
    match = _match()
    got = _start(c, match, _owner()).json()
    for seq, ev in enumerate(match["events"][:upto]):
        assert _append(c, got["id"], seq, ev, got["recorder_key"]).status_code == 201
    return got["id"], got["recorder_key"], match


def test_a_live_deal_shows_no_hand_without_the_key(keyed: TestClient) -> None:
    mid, key, match = _live(keyed, 12)
    dealt = match["events"][0]
    hands = {t for h in dealt["hands"] for t in h} | set(dealt.get("stock") or [])
    played = {e["tile"] for e in match["events"][:12] if e["type"] == "play"}
    hidden = hands - played
    for seat in ("", "0", "1", "table"):
        q = f"?step=12&seat={seat}" if seat else "?step=12"
        r = keyed.get(f"/api/matches/{mid}/replay{q}")
        assert r.status_code == 200 and r.json()["view"] == "table"
        assert all(h["tiles"] == [] for h in r.json()["hands"])
        page = keyed.get(f"/matches/{mid}/replay{q}").text
        assert not (hidden & _tiles(page)), seat
    events = keyed.get(f"/api/matches/{mid}/events").text
    assert not (hidden & _tiles(events))
    assert keyed.get(f"/api/matches/{mid}/analysis?deal=1").status_code == 403
    assert keyed.get(f"/matches/{mid}/record").status_code == 401
    assert keyed.get(f"/api/matches/{mid}/menu").status_code == 401
    # The recorder, with its key, sees every hand as before.
    auth = {"Authorization": f"Bearer {key}"}
    r = keyed.get(f"/api/matches/{mid}/replay?step=12", headers=auth)
    assert r.json()["view"] == "" and any(h["tiles"] for h in r.json()["hands"])
    assert hidden <= _tiles(keyed.get(f"/api/matches/{mid}/events", headers=auth).text)
    assert keyed.get(f"/matches/{mid}/record", headers=auth).status_code == 200


def _tiles(text: str) -> set[str]:
    from ledger.seatview import tiles_named

    return tiles_named(text)


def test_key_links_become_cookies(keyed: TestClient) -> None:
    mid, key, _ = _live(keyed, 3)
    r = keyed.get(f"/matches/{mid}/record?key={key}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/matches/{mid}/record"
    assert keyed.cookies.get(KEY_COOKIE.format(match=mid)) == key
    assert keyed.get(f"/matches/{mid}/record").status_code == 200
    r = keyed.get("/matches?token=" + TOKEN, follow_redirects=False)
    assert r.status_code == 303 and keyed.cookies.get(OWNER_COOKIE) == TOKEN
    r = keyed.post("/record", data={"preset": "domena", "seats": "2"}, follow_redirects=False)
    assert r.status_code == 303 and "#key=" in r.headers["location"]


def test_private_mode_needs_a_key_to_read(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'l.db'}", access=Access(Mode.PRIVATE, TOKEN, HOSTS))
    with TestClient(app) as c:
        assert c.get("/matches").status_code == 401
        assert c.get("/api/matches").status_code == 401
        assert c.get("/static/css/app.css").status_code != 401
        assert c.get("/api/matches", headers=_owner()).status_code == 200
        mid, key, _ = _live(c, 2)
        auth = {"Authorization": f"Bearer {key}"}
        assert c.get(f"/api/matches/{mid}/replay?step=1", headers=auth).status_code == 200
        assert c.get("/api/matches", headers=auth).status_code == 401


def test_serving_on_loopback_stays_open(tmp_path: Path) -> None:
    assert serving("127.0.0.1", False, False, tmp_path).mode == Mode.OPEN
    assert serving("0.0.0.0", True, False, tmp_path).mode == Mode.OPEN
    got = serving("0.0.0.0", False, False, tmp_path)
    assert got.mode == Mode.KEYS and (tmp_path / "owner-token").read_text().strip() == \
        got.owner_token
    assert serving("0.0.0.0", False, True, tmp_path).owner_token == got.owner_token


# --- a real server on a non-loopback address -------------------------------------------
# The server and its client run in a network namespace of the test's own (a child process
# unshares its network and gives its interface a private address, not a loopback one):
# no packet can leave it, and no address of the machine's own network is used.

NETNS_HOST = "10.77.0.1"
CLONE_NEWNET = 0x40000000
SKIPPED = 77


def _own_network() -> bool:
    """In a forked child: a network of its own, NETNS_HOST on its only interface."""
    import ctypes
    import subprocess

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) != 0:
        return False
    for cmd in (["ip", "link", "set", "lo", "up"],
                ["ip", "addr", "add", f"{NETNS_HOST}/32", "dev", "lo"]):
        if subprocess.run(cmd, capture_output=True).returncode != 0:
            return False
    return True


def _in_namespace(tmp_path: Path) -> None:
    import os
    import traceback

    code = SKIPPED
    try:
        if _own_network():
            _check_server(NETNS_HOST, tmp_path)
            code = 0
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        os._exit(code)


def test_a_server_on_a_network_address_wants_keys(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing

    monkeypatch.delenv("DOMINO_LEDGER_TOKEN", raising=False)
    child = multiprocessing.get_context("fork").Process(target=_in_namespace, args=(tmp_path,))
    child.start()
    child.join(timeout=180)
    if child.is_alive():
        child.kill()
        pytest.fail("the server in its own network namespace did not finish in 180 s")
    if child.exitcode == SKIPPED:
        pytest.skip("no network namespace could be made here (needs root and iproute2)")
    assert child.exitcode == 0, "the checks in the network namespace failed (see stderr)"


def _check_server(host: str, tmp_path: Path) -> None:
    import uvicorn

    access = serving(host, False, False, tmp_path / "data")
    assert access.mode == Mode.KEYS and host in access.hosts
    url = f"sqlite:///{tmp_path / 'l.db'}"
    open_db(url).dispose()
    app = create_app(url, access=access)
    with socket.socket() as s:
        s.bind((host, 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    base = f"http://{host}:{port}"
    try:
        with httpx.Client(base_url=base, timeout=30) as c:
            match = _match()
            before = _counts(app)
            body = {"table": match["table"], "seats": match["seats"]}
            assert c.post("/api/matches", json=body).status_code == 401
            assert c.post("/import", files={"file": ("m.json", SAMPLE.read_bytes())}
                          ).status_code == 401
            assert _counts(app) == before
            token = access.owner_token
            r = c.post("/api/matches", json=body, headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 201
            mid, key = r.json()["id"], r.json()["recorder_key"]
            ev = {"expected_seq": 0, "event": match["events"][0]}
            assert c.post(f"/api/matches/{mid}/events", json=ev).status_code == 401
            assert c.post(f"/api/matches/{mid}/events", json=ev,
                          headers={"Authorization": f"Bearer {key}"}).status_code == 201
            page = c.get(f"/api/matches/{mid}/replay?step=1").json()
            assert page["view"] == "table" and all(not h["tiles"] for h in page["hands"])
            assert c.get("/matches", headers={"Host": "evil.example"}).status_code == 400
            r = c.post("/import", headers={"Origin": "http://evil",
                                           "Authorization": f"Bearer {token}"},
                       files={"file": ("m.json", SAMPLE.read_bytes())})
            assert r.status_code == 403
            assert json.loads(c.get(f"/api/matches/{mid}").text)["next_seq"] == 1
    finally:
        server.should_exit = True
        thread.join(timeout=20)
