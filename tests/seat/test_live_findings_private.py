"""Live equals import keeps live privacy (issue 29, docs/security.md "While a match is
being recorded"): a live match's findings are now the audit of its line, and the audit
of a deal in play may name tiles of hands the table has not seen (the unseen tiles of a
hidden hand "are among" every tile the recorded hands do not hold). A reader without
the recorder's key reads, of the deal in play, only findings that name tiles the table
has seen; the key holder, and everyone once the deal is over, read them all.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.store.test_live_equals_import import HEADER, SEAT0, SEAT1
from web.access import Access, Mode
from web.app import create_app

TOKEN = "owner-token-for-the-tests-0123456789"
HOSTS = ("127.0.0.1", "localhost", "testserver")
TILE = re.compile(r"\b[0-6]-[0-6]\b")


@pytest.fixture
def keyed(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 'l.db'}", access=Access(Mode.KEYS, TOKEN, HOSTS))
    with TestClient(app) as c:
        yield c


def _record(c: TestClient, events: list[dict[str, Any]]) -> tuple[int, str]:
    got = c.post("/api/matches", json=HEADER, headers={"Authorization": f"Bearer {TOKEN}"})
    assert got.status_code == 201, got.text
    mid, key = int(got.json()["id"]), str(got.json()["recorder_key"])
    seq = 0
    for ev in events:
        done = c.post(f"/api/matches/{mid}/events", json={"expected_seq": seq, "event": ev},
                      headers={"Authorization": f"Bearer {key}"})
        assert done.status_code == 201, done.text
        seq = done.json()["next_seq"]
    return mid, key


def _named(findings: list[dict[str, Any]]) -> set[str]:
    return {t for f in findings for t in TILE.findall(f["message"])}


def test_a_deal_in_play_names_only_tiles_the_table_saw(keyed: TestClient) -> None:
    played = SEAT0[:2]
    mid, key = _record(keyed, [{"type": "deal", "hands": [SEAT0, None]},
                               {"type": "play", "seat": 0, "tile": played[0]},
                               {"type": "pass", "seat": 1},
                               {"type": "play", "seat": 0, "tile": played[1], "end": "right"}])
    keyed.cookies.clear()
    full = keyed.get(f"/api/matches/{mid}", headers={"Authorization": f"Bearer {key}"}).json()
    # The audit works seat 1's unseen tiles out from seat 0's hand: the key holder reads it.
    assert "hidden-tiles" in {f["code"] for f in full["findings"]}
    assert _named(full["findings"]) - set(played)
    table = keyed.get(f"/api/matches/{mid}").json()
    assert _named(table["findings"]) <= set(played)
    page = html.unescape(keyed.get(f"/matches/{mid}").text)
    assert set(TILE.findall(page)) & (set(SEAT0) - set(played)) == set()


def test_once_the_deal_is_over_everyone_reads_every_finding(keyed: TestClient) -> None:
    events: list[dict[str, Any]] = [{"type": "deal", "hands": [SEAT0, None]},
                                    {"type": "play", "seat": 0, "tile": "6-6"}]
    for tile in SEAT0[1:]:
        events += [{"type": "pass", "seat": 1},
                   {"type": "play", "seat": 0, "tile": tile, "end": "right"}]
    events += [{"type": "reveal", "hands": [[], SEAT1]},
               {"type": "deal", "hands": [SEAT1, None]}]
    mid, key = _record(keyed, events)
    keyed.cookies.clear()
    full = keyed.get(f"/api/matches/{mid}", headers={"Authorization": f"Bearer {key}"}).json()
    table = keyed.get(f"/api/matches/{mid}").json()
    first_deal = [f for f in full["findings"] if f["event"] is not None and f["event"] < 16]
    assert "illegal-pass" in {f["code"] for f in first_deal}
    assert [f for f in table["findings"] if f["event"] is not None and f["event"] < 16] \
        == first_deal
