"""Issue 33 item 1: live follow over Server-Sent Events (web/follow.py), read as a
browser's EventSource reads it (httpx on a real server, uvicorn on a free port).

On a server that wants keys (as off loopback), a small live match is recorded through
the live API with its key while followers without it read the stream of every view (all
hands open, the table, each seat) and one follower with the key reads seat 0's: after
every append and the undo, each follower's new steps are exactly the replay's own held
steps for the same reader (``/replay/frames``), and every tile a spectator's stream names
is one the table had seen at that step (tests/seat/leaks.py's oracle), while the key
holder's names seat 0's hand (so the check can fail). The recorder's address without the
key offers the watch link; a stopped ``serve`` ends its streams instead of waiting.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from ledger.corrections import corrected_line
from ledger.formats.wire import parse_event
from ledger.rules import make_rules
from ledger.seatview import tiles_named
from ledger.sim.generator import generate_match
from ledger.store.db import open_db
from tests.seat.leaks import oracle
from tests.store.conftest import backend, schemas, url  # noqa: F401
from tests.web.webtest_support import ROOT, SAMPLES, free_port, serving, wait_until_served
from web.access import Access, Mode
from web.app import create_app

TOKEN = "owner-token-for-the-follow-tests-0123"
HOSTS = ("127.0.0.1", "localhost")
SECONDS = 10  # a follower waits at most this long for an event (it comes within ~0.5 s)


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("follow")
    app = create_app(f"sqlite:///{folder / 'l.db'}", access=Access(Mode.KEYS, TOKEN, HOSTS))
    with serving(app) as address:
        yield address


@dataclass
class Follower:
    """One EventSource's reading of ``/matches/N/follow``, in a thread of its own."""

    url: str
    params: dict[str, str]
    headers: dict[str, str] = field(default_factory=dict)
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)
    got: threading.Condition = field(default_factory=threading.Condition)
    response: httpx.Response | None = None

    def start(self) -> Follower:
        threading.Thread(target=self._read, daemon=True).start()
        self.wait(lambda evs: bool(evs))  # the head, sent at once
        return self

    def _read(self) -> None:
        name, data = "message", ""
        try:
            with httpx.stream("GET", self.url, params=self.params, headers=self.headers,
                              timeout=httpx.Timeout(5, read=60)) as res:
                self.response = res
                assert res.status_code == 200, res.status_code
                assert res.headers["content-type"].startswith("text/event-stream")
                for line in res.iter_lines():
                    if self.done.is_set():
                        return
                    if line.startswith("event:"):
                        name = line[6:].strip()
                    elif line.startswith("data:"):
                        data += line[5:].strip()
                    elif line == "" and data:
                        self.raw.append(data)
                        with self.got:
                            self.events.append((name, json.loads(data)))
                            self.got.notify_all()
                        name, data = "message", ""
        except (httpx.HTTPError, OSError, RuntimeError):
            if not self.done.is_set():
                raise

    def wait(self, ready: Any) -> list[tuple[str, dict[str, Any]]]:
        with self.got:
            assert self.got.wait_for(lambda: ready(self.events), timeout=SECONDS), \
                f"no such event within {SECONDS} s: {[e[0] for e in self.events]}"
            return list(self.events)

    def steps_at(self, last: int, after: int) -> dict[str, Any]:
        """The first ``steps`` event after the ``after``-th whose newest step is ``last``."""
        def found(evs: list[tuple[str, dict[str, Any]]]) -> bool:
            return any(n == "steps" and b["last_step"] == last for n, b in evs[after:])

        evs = self.wait(found)
        return next(b for n, b in evs[after:] if n == "steps" and b["last_step"] == last)

    def stop(self) -> None:
        """Close the stream, as a page closed does (the server then ends its side)."""
        self.done.set()
        if self.response is not None:
            self.response.close()


def _start(c: httpx.Client, match: dict[str, Any]) -> tuple[int, str]:
    r = c.post("/api/matches", json={"table": match["table"], "seats": match["seats"]},
               headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 201, r.text
    return int(r.json()["id"]), str(r.json()["recorder_key"])


def _append(c: httpx.Client, mid: int, seq: int, event: dict[str, Any], key: str) -> int:
    r = c.post(f"/api/matches/{mid}/events", json={"expected_seq": seq, "event": event},
               headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 201, r.text
    return int(r.json()["next_seq"])


def _known(match: dict[str, Any], history: list[dict[str, Any]]) -> Any:
    """What every viewer knew after each step of the line recorded so far (the oracle)."""
    seats = len(match["seats"])
    rules = make_rules(match["table"]["rules"], seats, match["table"].get("options") or {})
    return oracle(rules, [parse_event(e, seats) for e in corrected_line(history)])


VIEWS = ("", "table", "0", "1")


def test_every_follower_gets_its_own_view_of_every_step_and_no_hidden_tile(
        keyed: str) -> None:
    match = generate_match("sahrat-draw", 2, {}, seed=7)
    events = match["events"]
    deals = [i for i, e in enumerate(events) if e["type"] == "deal"]
    recorded = events[:deals[1] + 3]      # the first deal, the second dealt, three more
    with httpx.Client(base_url=keyed, timeout=30) as c:
        mid, key = _start(c, match)
        seq = _append(c, mid, 0, recorded[0], key)
        url = f"{keyed}/matches/{mid}/follow"
        spectators = {v: Follower(url, {"replay": "1", "since": "1", "seat": v}).start()
                      for v in VIEWS}
        holder = Follower(url, {"replay": "1", "since": "1", "seat": "0"},
                          {"Authorization": f"Bearer {key}"}).start()
        everyone = [*spectators.values(), holder]
        history = [recorded[0]]
        plan: list[dict[str, Any]] = [*recorded[1:]]
        plan.insert(len(plan) - 1, {"type": "undo", "event": len(recorded) - 2})
        plan.insert(len(plan) - 1, recorded[-2])   # the event taken back, recorded again
        checked = 0
        try:
            for event in plan:
                counts = [len(f.events) for f in everyone]
                seq = _append(c, mid, seq, event, key)
                history.append(event)
                known = _known(match, history)
                last = len(corrected_line(history))
                for view, f in spectators.items():
                    body = f.steps_at(last, counts[VIEWS.index(view)])
                    assert body["frames"] and body["frames"][-1]["step"] == last
                    # Exactly the replay's own held steps for the same reader.
                    served = c.get(f"/matches/{mid}/replay/frames",
                                   params={"step": last, "seat": view}).json()
                    own = {fr["step"]: fr["html"] for fr in served["frames"]}
                    for fr in body["frames"]:
                        assert fr["html"] == own[fr["step"]], (view, fr["step"])
                        assert fr["view"] == "table"   # a deal in play: the table's view
                        leaked = tiles_named(fr["html"]) - known.of(fr["step"], None)
                        assert not leaked, (view, fr["step"], sorted(leaked))
                        checked += 1
                    assert not (tiles_named(json.dumps(body["charts"]))
                                - known.of(last, None))
                mine = holder.steps_at(last, counts[-1])
                assert mine["frames"][-1]["view"] == "0"
                hand = tiles_named(mine["frames"][-1]["html"]) - known.of(last, None)
                assert hand <= known.of(last, 0)
            # The key holder saw seat 0's hidden tiles (the check above could fail).
            assert any(tiles_named(b["frames"][-1]["html"]) - known.of(b["last_step"], None)
                       for n, b in holder.events if n == "steps")
        finally:
            for f in everyone:
                f.stop()
    assert checked >= 4 * (len(plan) - 1)


def test_a_follower_is_told_within_a_second(url: str) -> None:  # noqa: F811
    """On SQLite (the head read on the event loop) and PostgreSQL (through the pool)."""
    match = generate_match("domena", 2, {}, seed=3)
    open_db(url, migrate=True).dispose()   # a new PostgreSQL schema: made as `db upgrade` does
    app = create_app(url, access=Access(Mode.KEYS, TOKEN, HOSTS))
    with serving(app) as keyed, httpx.Client(base_url=keyed, timeout=30) as c:
        mid, key = _start(c, match)
        seq = _append(c, mid, 0, match["events"][0], key)
        page = Follower(f"{keyed}/matches/{mid}/follow", {}).start()
        try:
            head = page.events[0]
            assert head == ("head", {"match": mid, "last_step": 1, "status": "recording"})
            waits = []
            for i in (1, 2, 3):
                before = len(page.events)
                t0 = time.monotonic()
                seq = _append(c, mid, seq, match["events"][i], key)
                (name, body), = page.wait(lambda evs, n=before: len(evs) > n)[before:before + 1]
                waits.append(time.monotonic() - t0)
                assert (name, body["last_step"]) == ("head", i + 1)
        finally:
            page.stop()
    assert max(waits) < 1.0, waits


def test_the_recorder_address_without_its_key_offers_the_watch_page(keyed: str) -> None:
    match = generate_match("domena", 2, {}, seed=4)
    with httpx.Client(base_url=keyed, timeout=30) as c:
        mid, key = _start(c, match)
        _append(c, mid, 0, match["events"][0], key)
        for lang, words in (("en", "Watch this match live"), ("ar", None)):
            page = c.get(f"/matches/{mid}/record", params={"lang": lang})
            assert page.status_code == 401
            assert f'href="/matches/{mid}/watch"' in page.text
            assert f'href="/matches/{mid}"' in page.text
            if words:
                assert words in page.text
            else:
                assert "Watch this match live" not in page.text  # worded in Arabic
        watch = c.get(f"/matches/{mid}/watch")
        assert watch.status_code == 303
        assert watch.headers["location"] == f"/matches/{mid}/replay?step=1"
        replay = c.get(watch.headers["location"])
        assert replay.status_code == 200 and 'id="follow"' in replay.text
        # The key holder is not refused: no such page for him.
        assert c.get(f"/matches/{mid}/record",
                     headers={"Authorization": f"Bearer {key}"}).status_code == 200


def test_only_a_live_match_is_followed_and_a_bad_view_is_refused(keyed: str) -> None:
    with httpx.Client(base_url=keyed, timeout=30) as c:
        r = c.post("/import", files={"file": ("m.json", (SAMPLES / "domena-2.json").read_bytes())},
                   headers={"Authorization": f"Bearer {TOKEN}"})
        assert r.status_code == 200
        mid = max(m["id"] for m in c.get("/api/matches").json()["items"]
                  if m.get("origin") != "live")
        assert c.get(f"/matches/{mid}/follow").status_code == 409
        assert 'id="follow"' not in c.get(f"/matches/{mid}").text
        match = generate_match("domena", 2, {}, seed=5)
        live, key = _start(c, match)
        _append(c, live, 0, match["events"][0], key)
        assert c.get(f"/matches/{live}/follow", params={"seat": "7", "replay": "1"}
                     ).status_code == 404
        assert c.get(f"/matches/{live}/follow", params={"seat": "x"}).status_code == 422
        assert c.get("/matches/999999/follow").status_code == 404
        assert 'id="follow"' in c.get(f"/matches/{live}").text


@pytest.mark.slow
def test_a_stopped_server_ends_its_streams(tmp_path: Path) -> None:
    """``serve`` told to stop (SIGTERM) with a follower connected ends at once, not after
    the stream (which never ends by itself)."""
    port = free_port()
    cli = Path(sys.executable).parent / "domino-ledger"
    server = subprocess.Popen([str(cli), "serve", "--workers", "1", "--port", str(port),
                               "--db", f"sqlite:///{tmp_path / 'l.db'}"], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_served(server, f"{base}/matches")
        match = generate_match("domena", 2, {}, seed=6)
        with httpx.Client(base_url=base, timeout=30) as c:
            r = c.post("/api/matches", json={"table": match["table"], "seats": match["seats"]})
            mid = r.json()["id"]
            c.post(f"/api/matches/{mid}/events",
                   json={"expected_seq": 0, "event": match["events"][0]})
        follower = Follower(f"{base}/matches/{mid}/follow", {"replay": "1"}).start()
        t0 = time.monotonic()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=15)
        took = time.monotonic() - t0
        follower.stop()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert took < 4, f"serve took {took:.1f} s to stop with a follower connected"
