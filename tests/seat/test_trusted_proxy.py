"""Issue 32, item 7: behind a reverse proxy on the same host, the loopback server is open
only to this machine (docs/security.md, "Behind a reverse proxy").

Before, a keyless ``POST /api/matches`` with ``X-Forwarded-For: 203.0.113.9`` sent through
a proxy on 127.0.0.1 created a match: the server was in open mode and believed everyone.
Now, without ``serve --trusted-proxy`` such a request is another machine's (401, and one
warning in the log); with it, the address the proxy forwarded for decides open or keys.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from web.access import forwarded_chain, serving
from web.app import create_app

ROOT = Path(__file__).resolve().parents[2]
BODY = {"table": {"rules": "domena"}, "seats": ["Ali", "Omar"]}
FAR = "203.0.113.9"


def _client(tmp_path: Path, peer: str, proxies: tuple[str, ...] = ()) -> TestClient:
    access = serving("127.0.0.1", False, False, tmp_path / "data", proxies=proxies)
    app = create_app(f"sqlite:///{tmp_path / 'l.db'}", access=access)
    return TestClient(app, base_url="http://127.0.0.1", client=(peer, 50000))


def _count(c: TestClient) -> int:
    total: int = c.get("/api/matches").json()["total"]
    return total


def test_forwarded_without_a_trusted_proxy_is_not_local(tmp_path: Path,
                                                        caplog: pytest.LogCaptureFixture
                                                        ) -> None:
    import web.access

    web.access._warned.clear()
    with _client(tmp_path, "127.0.0.1") as c, caplog.at_level(logging.WARNING):
        for headers in ({"X-Forwarded-For": FAR}, {"Forwarded": f"for={FAR};proto=https"},
                        {"X-Real-IP": FAR}, {"X-Forwarded-For": "127.0.0.1"}):
            assert c.post("/api/matches", json=BODY, headers=headers).status_code == 401
        assert _count(c) == 0
        assert c.post("/api/matches", json=BODY).status_code == 201  # this machine: open
        token = (tmp_path / "data" / "owner-token").read_text().strip()
        owner = {"X-Forwarded-For": FAR, "Authorization": f"Bearer {token}"}
        assert c.post("/api/matches", json=BODY, headers=owner).status_code == 201
    said = [r for r in caplog.records if "no trusted proxy" in r.getMessage()]
    assert len(said) == 1 and "--trusted-proxy" in said[0].getMessage()


@pytest.mark.parametrize(("headers", "status"), [
    ({"X-Forwarded-For": FAR}, 401),
    ({"X-Forwarded-For": "127.0.0.1"}, 201),
    ({"Forwarded": 'for="[::1]:4711";proto=https'}, 201),
    ({"Forwarded": f"for={FAR}:80"}, 401),
    ({"X-Forwarded-For": f"127.0.0.1, {FAR}"}, 401),   # a client's own claim comes first
    ({"X-Forwarded-For": "unknown"}, 401),
    ({}, 201),
])
def test_a_trusted_proxy_forwards_who_decides(tmp_path: Path, headers: dict[str, str],
                                              status: int) -> None:
    with _client(tmp_path, "127.0.0.1", ("127.0.0.1",)) as c:
        assert c.post("/api/matches", json=BODY, headers=headers).status_code == status
        assert _count(c) == (status == 201)


def test_a_peer_that_is_not_the_trusted_proxy_is_not_believed(tmp_path: Path) -> None:
    with _client(tmp_path, "10.1.2.3", ("127.0.0.1",)) as c:
        res = c.post("/api/matches", json=BODY, headers={"X-Forwarded-For": "127.0.0.1"})
        assert res.status_code == 401


def test_each_forwarded_client_is_a_client_of_its_own(tmp_path: Path) -> None:
    from starlette.requests import Request

    from web.access import client_address

    with _client(tmp_path, "127.0.0.1", ("127.0.0.1",)) as c:
        app = c.app

        def ask(peer: str, forwarded: str) -> str:
            scope = {"type": "http", "app": app, "client": (peer, 1), "headers": [
                (b"x-forwarded-for", forwarded.encode())], "method": "GET", "path": "/"}
            return client_address(Request(scope))

        assert ask("127.0.0.1", FAR) == FAR  # the analysis queue's share is FAR's
        assert ask("10.9.9.9", FAR) == "10.9.9.9"  # not a trusted proxy: its own address


def test_forwarded_chains_are_read() -> None:
    from starlette.datastructures import Headers

    assert forwarded_chain(Headers({})) is None
    assert forwarded_chain(Headers({"forwarded": 'for=192.0.2.60;proto=http, '
                                                 'for="[2001:db8:cafe::17]:4711"'})) == [
        "192.0.2.60", "2001:db8:cafe::17"]
    assert forwarded_chain(Headers({"x-forwarded-for": "1.2.3.4, 5.6.7.8"})) == [
        "1.2.3.4", "5.6.7.8"]


def test_a_bad_trusted_proxy_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not an IP address"):
        serving("127.0.0.1", False, False, tmp_path, proxies=("proxy.example",))


@contextmanager
def _serve(tmp_path: Path, env: dict[str, str]) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    full = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(tmp_path / "xdg"),
            **env}
    full.pop("DOMINO_LEDGER_TOKEN", None)
    server = subprocess.Popen(
        [sys.executable, "-m", "web.cli", "serve", "--workers", "1", "--port", str(port),
         "--db", f"sqlite:///{tmp_path / 'served.db'}"], env=full,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    sys.path.insert(0, str(ROOT / "tests" / "web"))
    from webtest_support import wait_until_served

    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_served(server, base + "/matches")
        yield base, server
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(30)


def test_serve_on_loopback_behind_a_proxy(tmp_path: Path) -> None:
    with _serve(tmp_path, {"DOMINO_LEDGER_TRUSTED_PROXY": ""}) as (base, server):
        for _ in range(2):
            res = httpx.post(base + "/api/matches", json=BODY,
                             headers={"X-Forwarded-For": FAR})
            assert res.status_code == 401
        assert httpx.get(base + "/api/matches").json()["total"] == 0
        assert httpx.post(base + "/api/matches", json=BODY).status_code == 201
    assert server.stderr is not None
    log = server.stderr.read().decode()
    assert log.count("no trusted proxy is set") == 1, log
    assert "needs the owner token" in log


def test_serve_with_a_trusted_proxy_from_the_environment(tmp_path: Path) -> None:
    with _serve(tmp_path, {"DOMINO_LEDGER_TRUSTED_PROXY": "127.0.0.1"}) as (base, server):
        far = httpx.post(base + "/api/matches", json=BODY, headers={"X-Forwarded-For": FAR})
        near = httpx.post(base + "/api/matches", json=BODY,
                          headers={"X-Forwarded-For": "127.0.0.1"})
        assert (far.status_code, near.status_code) == (401, 201)
    assert server.stderr is not None
    log = server.stderr.read().decode()
    assert "no trusted proxy is set" not in log and "trusted proxies: 127.0.0.1" in log


def test_the_setting_is_documented() -> None:
    doc = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    assert "--trusted-proxy" in doc and "DOMINO_LEDGER_TRUSTED_PROXY" in doc
