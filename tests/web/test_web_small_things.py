"""The small things of issue 16: "1 pip", a way back from /docs, /players counting only
matches whose audit is ok and ordered by any column, an import of broken JSON said once."""

from __future__ import annotations

import re

import httpx
from webtest_support import SAMPLES, Server

from ledger.audit import audit_record
from ledger.formats.reader import read_matches
from ledger.replay import ReplayMatch, frame


def _get(server: Server, path: str, **params: str) -> str:
    return httpx.get(f"{server.url}{path}", params={"lang": "en", **params}, timeout=30).text


def test_one_pip_is_one_pip(server: Server) -> None:
    """The first step of selminha-3 at which a hand holds a single pip (found from the
    replay's frames) says "1 pip" under that seat, not "1 pips"."""
    (record,) = read_matches(SAMPLES / "selminha-3.json")
    report = audit_record(record)
    assert record.header is not None and report.rules is not None
    rm = ReplayMatch.of(report.rules, record.header.seats, record.events, report.findings,
                        report.derived)
    step = next(s for s in range(rm.last_step + 1)
                if any(h.pips == 1 and h.tiles for h in frame(rm, s).hands))
    html = _get(server, f"/matches/{server.id_of('selminha-3.json')}/replay", step=str(step))
    assert "<span>1 pip</span>" in html and "1 pips" not in html


def test_docs_lead_back_to_the_app(server: Server) -> None:
    html = _get(server, "/docs")
    assert re.search(r'<a id="back-to-app" href="/matches"', html)


def test_players_count_only_matches_whose_audit_is_ok(server: Server) -> None:
    """The faulty samples hold players (Omar, Salma...) whose faulty matches do not count:
    each player's "all" row counts the ok matches the list shows for that name."""
    rows = httpx.get(f"{server.url}/api/players", timeout=30).json()
    totals = {r["player"]: r["matches"] for r in rows if r["preset"] == "all"}
    assert totals
    for name in list(totals)[:6]:
        listed = httpx.get(f"{server.url}/api/matches", params={
            "player": name, "ok": "true", "limit": "500"}, timeout=30).json()
        assert totals[name] == listed["total"], name


def test_players_are_ordered_by_any_column(server: Server) -> None:
    html = _get(server, "/players", sort="wins", order="desc")
    assert 'aria-sort="descending"' in html
    wins = [int(w) for w in re.findall(
        r'<tr data-player="[^"]*" data-preset="all" class="total-row">(?:\s*<td>.*?</td>){2}'
        r'\s*<td class="num">\d+</td><td class="num">(\d+)</td>', html, re.S)]
    assert len(wins) > 3 and wins == sorted(wins, reverse=True)
    again = _get(server, "/players", sort="wins", order="asc")
    assert 'href="/players?sort=wins&amp;order=desc"' in again


def test_an_import_of_broken_json_says_so_once(server: Server) -> None:
    got = httpx.post(f"{server.url}/import?lang=en", timeout=30, files={
        "file": ("broken.json", b'{"format": "domino-match/1", "seats": [')})
    html = got.text
    assert "1 match read" not in html and "Match 0" not in html
    assert html.count("Not stored") == 1 and html.count("not valid JSON") == 1
    assert "0 matches read" in html and "1 part could not be read" in html
