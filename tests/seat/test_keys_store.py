"""Recorder keys in the store (ledger/store/recording/keys.py, migration 0005), on SQLite and
PostgreSQL: issued with the match in one transaction, kept as a hash, rotated."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, select

from ledger.store.db import writing
from ledger.store.errors import MatchNotFound
from ledger.store.models import RECORDER_KEYS
from ledger.store.recording import keys, live

HEADER = {"table": {"rules": "domena", "options": {}}, "seats": ["Ali", "Omar"]}


def test_a_match_starts_with_its_own_key(engine: Engine) -> None:
    with writing(engine) as s:
        a = live.start_keyed(s, HEADER)
        b = live.start_keyed(s, HEADER)
    assert a.key != b.key and len(a.key) >= 40
    with engine.connect() as c:
        assert keys.check(c, a.match_id, a.key) and keys.check(c, b.match_id, b.key)
        assert not keys.check(c, a.match_id, b.key)
        assert not keys.check(c, a.match_id, "") and not keys.check(c, a.match_id, None)
        stored = c.execute(select(RECORDER_KEYS.c.key_hash)).scalars().all()
    assert all(bytes(h) == keys.digest(k) for h, k in zip(stored, (a.key, b.key), strict=True))


def test_rotation_refuses_the_old_key(engine: Engine) -> None:
    with writing(engine) as s:
        got = live.start_keyed(s, HEADER)
        new = live.rotate_key(s, got.match_id)
    with engine.connect() as c:
        assert not keys.check(c, got.match_id, got.key)
        assert keys.check(c, got.match_id, new)
        assert keys.generation(c, got.match_id) == 2
    with writing(engine) as s, pytest.raises(MatchNotFound):
        live.rotate_key(s, 10_000)
