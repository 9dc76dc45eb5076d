"""Issue 32, item 4: the rows the pages trust beside the events are sealed.

Each kind is forged by direct SQL, as one with the database file would (a loss made 25
in a kept analysis, a knowledge review's body, a snapshot's state, a recorder key
swapped for one the forger knows, or removed): ``verify`` names it, and what the pages
read (``analyses.get``, ``knowledge_reviews.get/current/all_current``,
``snapshots.state_at``, ``keys.check``) does not serve it. Both backends.
"""

from __future__ import annotations

import time
from typing import Any

import orjson
from sqlalchemy import Engine, select, text

from ledger.sim.generator import generate_match
from ledger.store import db
from ledger.store.jobs import analyses, knowledge_reviews
from ledger.store.jobs.analyses import Head
from ledger.store.log import snapshots
from ledger.store.log.verify import Verified, verify
from ledger.store.models import ANALYSES, RECORDER_KEYS, SNAPSHOTS
from ledger.store.pages import plays
from ledger.store.recording import keys, live
from tests.store.helpers import sql

ANALYSIS = {"best": 1, "decisions": [{"seat": 0, "lost": 0}, {"seat": 1, "lost": 3}]}
REVIEW = {"players": [{"name": "A", "lost": 0}]}


def _broken(engine: Engine, match_id: int) -> Verified:
    with engine.connect() as c:
        (got,) = list(verify(c, match_id))
    return got


def _kept_rows(engine: Engine, match_id: int) -> int:
    with engine.connect() as c:
        return int(c.execute(text("SELECT count(*) FROM analyses WHERE match_id = :m"),
                             {"m": match_id}).scalar_one())


def _cached(stored: tuple[Engine, int, Head]) -> tuple[Engine, int, Head]:
    engine, mid, at = stored
    with db.writing(engine) as s:
        conn = s.connection()
        analyses.put(conn, mid, 0, at, "v1", ANALYSIS)
        knowledge_reviews.put(conn, mid, at, 8, "k1", REVIEW)
        assert snapshots.fill(conn, mid) > 0
        s.commit()
    with engine.connect() as c:
        assert all(v.ok for v in verify(c))
    return engine, mid, at


def _live(engine: Engine) -> live.Started:
    match = generate_match("sahrat-draw", 2, {}, seed=7)
    with db.writing(engine) as s:
        started = live.start_keyed(s, {"table": match["table"], "seats": match["seats"]})
        seq = 0
        for ev in match["events"][:5]:
            seq = live.append(s, started.match_id, ev, expected_seq=seq).next_seq
    assert _broken(engine, started.match_id).ok
    return started


def test_a_forged_analysis_is_named_and_not_served(stored: tuple[Engine, int, Head]) -> None:
    engine, mid, at = _cached(stored)
    with engine.connect() as c:
        body = c.execute(select(ANALYSES.c.body)).scalar_one()
        assert plays.current_reviews(c, [mid]) == {mid: {0: [(0, 0), (1, 3)]}}
    forged = body.replace('"lost":0', '"lost":25', 1)
    assert forged != body
    sql(engine, "UPDATE analyses SET body = :b", b=forged)
    got = _broken(engine, mid)
    assert got.broken is not None and got.broken.code == "analysis-mismatch", got.describe()
    assert "deal 0" in got.describe()
    with engine.connect() as c:
        assert analyses.get(c, mid, 0, at, "v1") is None  # worked out again, not served
        assert plays.current_reviews(c, [mid]) == {}  # the players' page counts it not


def test_an_analysis_moved_to_another_head_is_named(stored: tuple[Engine, int, Head]) -> None:
    """A row whose seal holds but names a head its match's chain does not hold (copied
    from another match, with its seal)."""
    engine, mid, at = _cached(stored)
    other = Head(at.last_seq, bytes(32))
    with db.writing(engine) as s:
        sql(engine, "DELETE FROM analyses")
        analyses.put(s.connection(), mid, 0, other, "v1", ANALYSIS)
        s.commit()
    got = _broken(engine, mid)
    assert got.broken is not None and got.broken.code == "analysis-mismatch", got.describe()


def test_a_forged_review_is_named_and_not_served(stored: tuple[Engine, int, Head]) -> None:
    engine, mid, at = _cached(stored)
    forged = orjson.dumps({"players": [{"name": "A", "lost": 25}]}).decode()
    sql(engine, "UPDATE knowledge_reviews SET body = :b", b=forged)
    got = _broken(engine, mid)
    assert got.broken is not None and got.broken.code == "review-mismatch", got.describe()
    with engine.connect() as c:
        assert knowledge_reviews.get(c, mid, at, 8, "k1") is None
        assert knowledge_reviews.current(c, mid, "k1") is None
        assert mid not in knowledge_reviews.all_current(c, "k1")


def test_a_forged_snapshot_is_named_and_folded_past(stored: tuple[Engine, int, Head]) -> None:
    engine, mid, _ = _cached(stored)
    with engine.connect() as c:
        snap = c.execute(select(SNAPSHOTS).order_by(SNAPSHOTS.c.seq.desc())).first()
        assert snap is not None
        honest = snapshots.state_at(c, mid, use_snapshots=False)
    doctored = snap.state.replace('"scores":[', '"scores":[1000,', 1)
    assert doctored != snap.state
    sql(engine, "UPDATE snapshots SET state = :s WHERE seq = :q", s=doctored, q=snap.seq)
    got = _broken(engine, mid)
    assert got.broken is not None and got.broken.code == "snapshot-mismatch", got.describe()
    assert f"after event {snap.seq}" in got.describe()
    with engine.connect() as c:
        assert snapshots.state_at(c, mid) == honest


def test_every_forged_row_of_a_match_is_named(stored: tuple[Engine, int, Head]) -> None:
    engine, mid, _ = _cached(stored)
    sql(engine, "UPDATE analyses SET body = '{}'")
    sql(engine, "UPDATE knowledge_reviews SET body = '{}'")
    got = _broken(engine, mid).describe()
    assert "analysis-mismatch" in got and "review-mismatch" in got, got


def _key_row(engine: Engine, match_id: int) -> Any:
    with engine.connect() as c:
        return c.execute(select(RECORDER_KEYS).where(RECORDER_KEYS.c.match_id == match_id)
                         ).one()


def test_a_swapped_key_is_named_and_grants_nothing(engine: Engine) -> None:
    started = _live(engine)
    mid = started.match_id
    sql(engine, "UPDATE recorder_keys SET key_hash = :h WHERE match_id = :m",
        h=keys.digest("the forger's key"), m=mid)
    got = _broken(engine, mid)
    assert got.broken is not None and got.broken.code == "key-mismatch", got.describe()
    with engine.connect() as c:
        assert not keys.check(c, mid, "the forger's key")
        assert not keys.check(c, mid, started.key)


def test_a_key_copied_from_another_match_grants_nothing(engine: Engine) -> None:
    """Seal and all: the seal binds the key to its own match's header."""
    first, second = _live(engine), _live(engine)
    row = _key_row(engine, first.match_id)
    sql(engine, "UPDATE recorder_keys SET key_hash = :h, generation = :g, issued_at = :t, "
        "seal = :s WHERE match_id = :m", h=row.key_hash, g=row.generation, t=row.issued_at,
        s=row.seal, m=second.match_id)
    got = _broken(engine, second.match_id)
    assert got.broken is not None and got.broken.code == "key-mismatch", got.describe()
    with engine.connect() as c:
        assert not keys.check(c, second.match_id, first.key)
        assert keys.check(c, first.match_id, first.key)


def test_a_removed_key_is_named(engine: Engine) -> None:
    started = _live(engine)
    sql(engine, "DELETE FROM recorder_keys WHERE match_id = :m", m=started.match_id)
    got = _broken(engine, started.match_id)
    assert got.broken is not None and got.broken.code == "key-missing", got.describe()
    with db.writing(engine) as s:  # the owner's way back: a new key
        key = live.rotate_key(s, started.match_id)
    assert _broken(engine, started.match_id).ok
    with engine.connect() as c:
        assert keys.check(c, started.match_id, key)


def test_the_analysis_page_works_a_forged_row_out_again(url: str) -> None:
    """Over HTTP: a kept analysis forged in the database is never answered; the deal is
    worked out again and the true answer kept."""
    from fastapi.testclient import TestClient

    from tests.store.conftest import SAMPLES
    from tests.store.test_analyses_api import LOCAL, _analysed
    from web.app import create_app

    db.open_db(url, migrate=True).dispose()
    match = orjson.loads((SAMPLES / "domena-2.json").read_bytes())
    with TestClient(create_app(url, LOCAL)) as client:
        r = client.post("/api/matches", json={"table": match["table"], "seats": match["seats"]})
        mid = int(r.json()["id"])
        seq = 0
        for ev in match["events"][:6]:
            got = client.post(f"/api/matches/{mid}/events", json={"expected_seq": seq,
                                                                   "event": ev})
            assert got.status_code == 201, got.text
            seq = got.json()["next_seq"]
        first = _analysed(client, mid, 1)
        engine = client.app.state.engine  # type: ignore[attr-defined]
        # The analysis is kept just after it is answered: forge the row once it is there
        # (a forgery of no row would leave nothing to find; once seen on PostgreSQL).
        deadline = time.monotonic() + 20
        while not _kept_rows(engine, mid) and time.monotonic() < deadline:
            time.sleep(0.05)
        forged = orjson.dumps({**first, "forged": True}).decode()
        sql(engine, "UPDATE analyses SET body = :b WHERE match_id = :m", b=forged, m=mid)
        assert "analysis-mismatch" in _broken(engine, mid).describe()
        again = _analysed(client, mid, 1)
        assert "forged" not in again and again == first
    with TestClient(create_app(url, LOCAL)) as client:  # a new app: nothing in memory
        assert _analysed(client, mid, 1) == first
        engine = client.app.state.engine  # type: ignore[attr-defined]
        # Worked out again and kept, sealed (kept just after it is answered).
        deadline = time.monotonic() + 20
        while not _broken(engine, mid).ok and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _broken(engine, mid).ok
