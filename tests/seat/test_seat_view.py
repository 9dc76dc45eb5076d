"""Issue 12's findings, one by one, through the app (TestClient over a temp ledger holding
sample_matches/sahrat-fives-2.json: Salma is seat 0, Omar seat 1) and the projection's own
value types (ledger/seatview.py)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ledger.seatview import EVERYONE, SPECTATOR, BadViewer, Viewer, tiles_named
from ledger.store.db import open_db, writing
from ledger.store.imports.importer import import_file
from web.app import create_app

SAMPLE = Path(__file__).resolve().parents[2] / "sample_matches" / "sahrat-fives-2.json"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, int]]:
    url = f"sqlite:///{tmp_path_factory.mktemp('seat') / 'l.db'}"
    engine = open_db(url)
    with writing(engine) as session:
        match_id = next(g.id for g in import_file(session, str(SAMPLE)))
    engine.dispose()
    assert match_id is not None
    with TestClient(create_app(url)) as c:
        yield c, match_id


def _draws() -> list[tuple[int, dict[str, Any]]]:
    events = json.loads(SAMPLE.read_text(encoding="utf-8"))["events"]
    return [(i, e) for i, e in enumerate(events) if e["type"] == "draw" and e["seat"] == 0]


def test_another_seats_draw_names_no_tile(client: tuple[TestClient, int]) -> None:
    c, mid = client
    index, draw = _draws()[0]   # Salma draws 3-3 (seed 002's stock), seen from Omar's seat
    said = f"Salma draws {draw['tile']}"
    omar = c.get(f"/api/matches/{mid}/replay", params={"step": index + 1, "seat": 1}).json()
    assert omar["event"]["text"] == "Salma draws a tile"
    page = c.get(f"/matches/{mid}/replay", params={"step": index + 1, "seat": 1}).text
    assert said not in page and "Salma draws a tile" in page
    salma = c.get(f"/api/matches/{mid}/replay", params={"step": index + 1, "seat": 0}).json()
    assert salma["event"]["text"] == said
    everyone = c.get(f"/api/matches/{mid}/replay", params={"step": index + 1}).json()
    assert everyone["event"]["text"] == said and everyone["view"] == ""


def test_no_event_after_the_step_is_listed(client: tuple[TestClient, int]) -> None:
    c, mid = client
    page = c.get(f"/matches/{mid}/replay", params={"step": 3, "seat": 1}).text
    assert 'id="ev-2"' in page and 'id="ev-3"' not in page and "Hands shown" not in page
    whole = c.get(f"/matches/{mid}/replay", params={"step": 3}).text
    assert 'id="ev-3"' in whole and "Hands shown" in whole


def test_the_table_view_shows_no_hand(client: tuple[TestClient, int]) -> None:
    c, mid = client
    got = c.get(f"/api/matches/{mid}/replay", params={"step": 9, "seat": "table"}).json()
    assert got["view"] == "table" and got["perspective"] is None
    assert all(h["tiles"] == [] and h["hidden"] > 0 for h in got["hands"])
    assert got["stock_tiles"] is None
    assert tiles_named(json.dumps(got)) <= {t["tile"] for t in got["board"]["tiles"]}
    assert c.get(f"/api/matches/{mid}/replay", params={"seat": "nobody"}).status_code == 422


def test_the_views_read_and_write_back() -> None:
    for text, viewer in (("", EVERYONE), (None, EVERYONE), ("table", SPECTATOR),
                         ("2", Viewer.of_seat(2))):
        assert Viewer.parse(text) == viewer
        assert Viewer.parse(str(viewer)) == viewer
    for bad in ("-1", "x", "1.5", "٣", "1234"):
        with pytest.raises(BadViewer):
            Viewer.parse(bad)
    assert tiles_named("Omar plays 3-6, 0-0; 12-30 2026-05-01 6-66") == {"6-3", "0-0"}


def test_the_analysis_in_a_seat_view_is_the_seats_own(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    url = f"sqlite:///{tmp_path_factory.mktemp('seat-analysis') / 'l.db'}"
    engine = open_db(url)
    with writing(engine) as session:
        match_id = next(g.id for g in import_file(
            session, str(SAMPLE.parent / "casual-arena-2-one-round.json")))
    engine.dispose()
    with TestClient(create_app(url)) as c:
        def ask(**params: Any) -> Any:
            for _ in range(600):
                r = c.get(f"/api/matches/{match_id}/analysis", params={"deal": 1, **params})
                if r.status_code != 202:
                    return r
                time.sleep(0.1)
            raise AssertionError("the analysis never came")

        whole = ask().json()
        assert {d["seat"] for d in whole["decisions"]} == {0, 1}
        step = whole["decisions"][-1]["event"]   # before the deal's last decision
        got = ask(seat=0, step=step).json()
        assert got["decisions"] and all(d["seat"] == 0 and d["event"] < step
                                        for d in got["decisions"])
        assert all(s["step"] <= step for s in got["steps"])
        assert all([s["seat"] for s in k["seats"]] == [0] for k in got["knowledge"])
        assert all(t["mode"] != "markers" for t in got["swing"]["data"])
        table = ask(seat="table", step=step).json()
        assert table["decisions"] == [] and all(k["seats"] == [] for k in table["knowledge"])
        assert ask(seat=0).status_code == 422
