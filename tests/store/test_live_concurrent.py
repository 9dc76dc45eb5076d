"""Issue 19 (load): live appends from many clients through two servers on one ledger.

Two apps on the same database stand for two server processes (each its own writer: on
SQLite its own queue, batches and lock file descriptor, taking turns with the other;
on PostgreSQL a transaction per append). Twelve clients race to append three matches'
events with ``expected_seq``: nothing may be lost, doubled or half-written, a 409 must
be true (the seq was stale), and every 201 must say what the ledger holds.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections import defaultdict
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, select
from sqlmodel import Session

from ledger.store.errors import Conflict
from ledger.store.log.verify import verify
from ledger.store.models import EVENTS
from ledger.store.recording import live
from ledger.store.recording.writer import Writer, lock_path
from tests.web.webtest_support import serving
from web.app import create_app

CLIENTS = 12


class Race:
    """What the clients learnt: for each match, the event index each next_seq stands at."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.index_at: dict[int, dict[int, int]] = defaultdict(lambda: {0: 0})
        self.created: list[tuple[int, int, dict[str, Any]]] = []   # (match, seq, answer)
        self.conflicts: list[tuple[int, int, int]] = []  # (match, expected, next_seq said)
        self.errors: list[str] = []


def _client(base: str, match_id: int, events: list[dict[str, Any]], race: Race) -> None:
    try:
        _appends(base, match_id, events, race)
    except Exception as exc:  # said, so the test fails on it
        race.errors.append(f"{type(exc).__name__}: {exc}")


def _appends(base: str, match_id: int, events: list[dict[str, Any]], race: Race) -> None:
    seq = 0
    with httpx.Client(base_url=base, timeout=60) as http:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with race.lock:
                index = race.index_at[match_id].get(seq)
            if index is None:  # another client's answer for this seq is on its way
                time.sleep(0.001)
                continue
            if index >= len(events):
                return
            res = http.post(f"/api/matches/{match_id}/events",
                            json={"expected_seq": seq, "event": events[index]})
            body = res.json()
            with race.lock:
                if res.status_code == 201:
                    race.created.append((match_id, seq, body))
                    race.index_at[match_id][body["next_seq"]] = body["event"] + 1
                    seq = body["next_seq"]
                elif res.status_code == 409:
                    race.conflicts.append((match_id, seq, body["error"]["next_seq"]))
                    seq = body["error"]["next_seq"]
                else:
                    race.errors.append(f"{res.status_code} {body}")
                    return
        race.errors.append(f"match {match_id}: not done in 120 s")


@pytest.mark.slow(reason="two served processes racing over a corpus: 6-12 s")
def test_appends_racing_through_two_servers_lose_and_double_nothing(
        engine: Engine, corpus: list[dict[str, Any]]) -> None:
    url = engine.url.render_as_string(hide_password=False)
    chosen = sorted(corpus, key=lambda m: len(m["events"]))[-3:]  # the longest three
    race = Race()
    with serving(create_app(url)) as one, serving(create_app(url)) as two:
        ids = [httpx.post(f"{one}/api/matches", json={"table": m["table"],
                                                     "seats": m["seats"]}).json()["id"]
               for m in chosen]
        threads = [threading.Thread(target=_client, args=(
            (one, two)[i % 2], ids[i % 3], chosen[i % 3]["events"], race))
            for i in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(180)
    assert race.errors == []
    for match_id, match in zip(ids, chosen, strict=True):
        created = [(seq, body) for m, seq, body in race.created if m == match_id]
        # Each event appended once, in order, each at the seq its client expected.
        assert sorted(body["event"] for _, body in created) == list(range(len(match["events"])))
        assert len({seq for seq, _ in created}) == len(created)
        assert all(body["seq"] == seq for seq, body in created)
        with engine.connect() as conn:
            rows = conn.execute(select(EVENTS.c.seq, EVENTS.c.kind, EVENTS.c.payload)
                                .where(EVENTS.c.match_id == match_id)
                                .order_by(EVENTS.c.seq)).all()
        assert [r.seq for r in rows] == list(range(len(rows)))  # no gap, no double
        recorded = {r.seq: r.payload for r in rows if r.kind == "recorded"}
        assert len(recorded) == len(match["events"])
        for seq, body in created:  # every 201 says what the ledger holds
            assert httpx.Response(200, content=recorded[seq]).json() == body["recorded"]
        # A 409 was true: someone had appended at that seq.
        taken = {seq for seq, _ in created}
        for m, expected, said in race.conflicts:
            if m == match_id:
                assert expected in taken and said > expected
    with engine.connect() as conn:
        assert [v.describe() for v in verify(conn) if not v.ok] == []


def test_a_batch_commits_its_writes_and_refuses_only_the_bad_one(
        engine: Engine, corpus: list[dict[str, Any]]) -> None:
    path = lock_path(engine)
    if path is None:
        pytest.skip("PostgreSQL: each append is a transaction of its own, no batches")
    writer = Writer(engine)
    match = corpus[0]
    with Session(engine) as s:
        ids = [live.start_match(s, {"table": match["table"], "seats": match["seats"]})
               for _ in range(3)]
    first = match["events"][0]
    # Another process's turn: the writer waits at the lock file, the four writes queue
    # behind it and go in as one or two batches when the turn comes.
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    answers: dict[str, Any] = {}

    def ask(name: str, match_id: int, seq: int) -> None:
        try:
            answers[name] = writer.run(
                lambda session: live.append(session, match_id, first, seq, commit=False))
        except Conflict as exc:
            answers[name] = exc

    threads = [threading.Thread(target=ask, args=args) for args in (
        ("a", ids[0], 0), ("b", ids[1], 0), ("stale", ids[2], 5), ("c", ids[2], 0))]
    for t in threads:
        t.start()
    time.sleep(0.5)
    assert answers == {}  # nothing answered before its batch is committed
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)
    for t in threads:
        t.join(30)
    writer.close()
    assert 1 <= writer.batches <= 2  # four writes, at most two commits
    assert isinstance(answers["stale"], Conflict)  # expected 5 of a match at 0 (or 1)
    for name in ("a", "b", "c"):
        assert isinstance(answers[name], live.Appended) and answers[name].seq == 0
    with engine.connect() as conn:
        for match_id in ids:
            kinds = conn.execute(select(EVENTS.c.kind).where(EVENTS.c.match_id == match_id)
                                 ).scalars().all()
            assert kinds.count("recorded") == 1
        assert [v.describe() for v in verify(conn) if not v.ok] == []
