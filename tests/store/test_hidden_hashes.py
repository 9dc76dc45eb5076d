"""Issue 32, item 1: nothing hidden can be found through the hash chain.

A spectator of a live match reads its events with the deal in play redacted, hashes
included. Each redacted row is tried here against its published hash with every payload
it could have held (every tile for a draw, every tile and end for a play taken back) and
with the very payload it holds, read with the recorder's key: none may match. With the
full record (the key's read: payloads and salts) every hash is computed again, so the
chain still verifies for whoever holds it. Both backends.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.sim.generator import generate_match
from ledger.store import db
from ledger.store.log.hashing import canonical, event_hash, stamp
from ledger.store.log.verify import verify_match
from web.access import Access, Mode
from web.app import create_app

TOKEN = "owner-token-for-the-tests-0123456789"
TILES = [f"{a}-{b}" for a in range(7) for b in range(a + 1)]
ENDS = (None, "left", "right")


@pytest.fixture
def keyed(url: str) -> Iterator[TestClient]:
    db.open_db(url, migrate=True).dispose()  # a server database is migrated on request
    app = create_app(url, access=Access(Mode.KEYS, TOKEN, ("testserver",)))
    with TestClient(app) as c:
        yield c


def _live(c: TestClient) -> tuple[int, str, dict[str, Any]]:
    """A sahrat-draw match recorded to the middle of its first deal: six hidden draws,
    and a play taken back by an undo."""
    match = generate_match("sahrat-draw", 2, {}, seed=7)
    r = c.post("/api/matches", json={"table": match["table"], "seats": match["seats"]},
               headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 201, r.text
    mid, key = int(r.json()["id"]), r.json()["recorder_key"]
    events = match["events"]
    wanted = [*events[:21], {"type": "undo", "event": 20}, events[20]]
    seq = 0
    for ev in wanted:
        got = c.post(f"/api/matches/{mid}/events", json={"expected_seq": seq, "event": ev},
                     headers={"Authorization": f"Bearer {key}"})
        assert got.status_code == 201, got.text
        seq = got.json()["next_seq"]
    assert sum(e["type"] == "draw" for e in wanted) == 6
    return mid, key, match


def _at(row: dict[str, Any]) -> str:
    return stamp(datetime.fromisoformat(row["recorded_at"].removesuffix("Z")))


def _hashes(row: dict[str, Any], payload: dict[str, Any], salt: str | None) -> bytes:
    return event_hash(bytes.fromhex(row["prev_hash"]), row["seq"], row["event"], row["kind"],
                      row["type"], _at(row), canonical(payload),
                      None if salt is None else bytes.fromhex(salt))


def _guesses(row: dict[str, Any], seats: int) -> Iterator[dict[str, Any]]:
    """Every payload a redacted draw or play could hold."""
    for seat in range(seats):
        for tile in TILES:
            if row["type"] == "draw":
                yield {"type": "draw", "seat": seat, "tile": tile}
            for end in ENDS:
                play = {"type": "play", "seat": seat, "tile": tile}
                yield play if end is None else {**play, "end": end}


def test_no_redacted_event_gives_its_tiles_away(keyed: TestClient) -> None:
    mid, key, match = _live(keyed)
    public = keyed.get(f"/api/matches/{mid}/events").json()
    full = {r["seq"]: r for r in keyed.get(
        f"/api/matches/{mid}/events", headers={"Authorization": f"Bearer {key}"}).json()}
    hidden = [r for r in public if r.get("redacted")]
    assert {r["type"] for r in hidden} == {"deal", "draw", "play"}
    assert len(hidden) == 8  # the deal, six draws, the play taken back
    seats = len(match["seats"])
    for row in hidden:
        assert row["salt"] is None, row
        truth = full[row["seq"]]
        assert truth["hash"] == row["hash"] and truth["salt"] is not None
        published = bytes.fromhex(row["hash"])
        # The strongest guess of all, the payload itself, does not give the hash without
        # its salt; nor does any tile (and end) it could have been.
        assert _hashes(row, truth["payload"], None) != published
        if row["type"] != "deal":
            found = [g for g in _guesses(row, seats) if _hashes(row, g, None) == published]
            assert found == [], (row["seq"], found)
    # Whoever holds the full record computes every hash again.
    for row in full.values():
        assert _hashes(row, row["payload"], row["salt"]).hex() == row["hash"], row["seq"]
    assert [r["hash"] for r in public] == [full[r["seq"]]["hash"] for r in public]
    with keyed.app.state.engine.connect() as conn:  # type: ignore[attr-defined]
        assert verify_match(conn, mid).ok


def test_a_salted_row_changed_breaks_the_chain(keyed: TestClient) -> None:
    """The salt is hashed: verify names a row whose salt was swapped."""
    from sqlalchemy import text

    mid, _, _ = _live(keyed)
    engine = keyed.app.state.engine  # type: ignore[attr-defined]
    with engine.begin() as conn:
        conn.execute(text("DROP TRIGGER IF EXISTS events_no_update" if
                          conn.dialect.name == "sqlite" else
                          "ALTER TABLE events DISABLE TRIGGER USER"))
        conn.execute(text("UPDATE events SET salt = :s WHERE match_id = :m AND seq = 3"),
                     {"s": bytes(16), "m": mid})
    with engine.connect() as conn:
        got = verify_match(conn, mid)
    assert got.broken is not None and got.broken.code == "hash-mismatch"
    assert got.broken.seq == 3


def test_going_below_the_salts_is_refused_while_a_row_holds_one(url: str) -> None:
    """Migration 0010's downgrade would leave salted chains unverifiable: refused."""
    from ledger.store.recording import live

    engine = db.open_db(url, migrate=True)
    try:
        match = generate_match("sahrat-draw", 2, {}, seed=7)
        with db.writing(engine) as s:
            mid = live.start_match(s, {"table": match["table"], "seats": match["seats"]})
            live.append(s, mid, match["events"][0], expected_seq=0)
        with pytest.raises(Exception, match="hold a salt"):
            db.downgrade(engine, "0009")
        assert db.current_revision(engine) == db.head_revision()
        with engine.connect() as conn:
            assert verify_match(conn, mid).ok
    finally:
        engine.dispose()
