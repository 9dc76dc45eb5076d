"""Seats named the same way on every page (issue 34, item 4): the player's name with the
seat counted from 1, "Ali (seat 1)", in findings (match page, replay, recorder, import
report), the replay's lines, the what-if page and the recorder's heading; the API and
the JSON keep 0-based indexes."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from webtest_support import SAMPLES, serving

from ledger.formats.reader import read_matches
from ledger.sim.generator import generate_match

FSI, PDI = "\u2068", "\u2069"
TEXT = re.compile(r'class="finding-text">(.*?)</(?:div|span)>', re.S)
FAULTY = SAMPLES / "faulty" / "illegal-pass.json"  # event 13: seat 0 passed holding 2-0


def _texts(page: str) -> list[str]:
    return [html.unescape(t).strip() for t in TEXT.findall(page)]


def _named(name: str, seat: int, word: str = "seat") -> str:
    """How an English page writes a seat: an Arabic name isolated, the number from 1."""
    shown = f"{FSI}{name}{PDI}" if re.search("[\u0600-\u06ff]", name) else name
    return f"{shown} ({word} {seat + 1})"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, list[str]]]:
    from ledger.store.db import open_db, writing
    from ledger.store.imports.importer import import_file
    from web.app import create_app

    db_url = f"sqlite:///{tmp_path_factory.mktemp('seats-named') / 'ledger.db'}"
    engine = open_db(db_url)
    try:
        with writing(engine) as session:
            (got,) = import_file(session, str(FAULTY))
    finally:
        engine.dispose()
    assert got.id is not None
    header = next(read_matches(FAULTY)).header
    assert header is not None
    with serving(create_app(db_url)) as url:
        yield url, got.id, list(header.seats)


def test_findings_name_the_seats_player_from_one(site: tuple[str, int, list[str]]) -> None:
    url, mid, seats = site
    with httpx.Client(base_url=url, timeout=60) as c:
        page = c.get(f"/matches/{mid}", params={"lang": "en"}).text
        replay = c.get(f"/matches/{mid}/replay", params={"step": 14, "lang": "en"}).text
        spanish = c.get(f"/matches/{mid}", params={"lang": "es"}).text
        api = c.get(f"/api/matches/{mid}").json()
    said = f"{_named(seats[0], 0)} passed holding 2-0, which fits the left end (2)"
    assert said in _texts(page) and said in _texts(replay)
    assert "seat 0" not in page and "seat 0" not in replay
    assert f"{_named(seats[0], 0, 'asiento')} pasó" in " ".join(_texts(spanish))
    # The match page's list of players counts from 1 too.
    assert f"seat 1: <bdi>{seats[0]}</bdi>" in page and f"seat 2: <bdi>{seats[1]}</bdi>" in page
    # The API keeps the audit's report: 0-based indexes, its English message as stored.
    (finding,) = [f for f in api["findings"] if f["code"] == "illegal-pass"]
    assert finding["message"].startswith("seat 0 passed holding 2-0")


def test_the_replay_in_arabic_names_the_seat(site: tuple[str, int, list[str]]) -> None:
    url, mid, seats = site
    with httpx.Client(base_url=url, timeout=60) as c:
        arabic = c.get(f"/matches/{mid}/replay", params={"step": 14, "lang": "ar"}).text
    said = [t for t in _texts(arabic) if "2-0" in t]
    assert said and said[0].startswith(f"مرّر {FSI}{seats[0]}{PDI} (المقعد \u20661{PDI})")


def test_the_whatif_page_names_the_seat_where_the_record_stops(
        site: tuple[str, int, list[str]]) -> None:
    url, mid, seats = site
    with httpx.Client(base_url=url, timeout=60) as c:
        page = c.get(f"/matches/{mid}/whatif",
                     params={"rules": "arab-block", "lang": "en"}).text
    stop = re.search(r'id="whatif-stop"[^>]*>(.*?)</p>', page, re.S)
    assert stop is not None, "arab-block refuses the illegal pass"
    text = html.unescape(stop[1])
    assert any(_named(name, s) + " drew" in text for s, name in enumerate(seats)), text


def test_the_recorder_heading_and_findings_name_the_seat(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    from web.app import create_app

    match: dict[str, Any] = generate_match("domena", 2, {}, seed=4)
    match["seats"] = ["Karim", "Omar"]
    db_url = f"sqlite:///{tmp_path_factory.mktemp('seats-recorder') / 'ledger.db'}"
    with serving(create_app(db_url)) as url, httpx.Client(base_url=url, timeout=60) as c:
        r = c.post("/api/matches", json={"table": match["table"], "seats": match["seats"]})
        assert r.status_code == 201, r.text
        mid, key = int(r.json()["id"]), str(r.json()["recorder_key"])
        auth = {"Authorization": f"Bearer {key}"}
        got = c.post(f"/api/matches/{mid}/events", headers=auth,
                     json={"expected_seq": 0, "event": match["events"][0]})
        assert got.status_code == 201, got.text
        panel = html.unescape(c.get(f"/matches/{mid}/record/panel", headers=auth,
                                    params={"lang": "en"}).text)
    assert re.search(r"(Karim \(seat 1\)|Omar \(seat 2\)) to play", panel), panel[:2000]
