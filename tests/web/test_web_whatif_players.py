"""The what-if page and the players page: over HTTP, and clicked through in Chromium.

What the pages show is checked against the library they show (``what_if`` on the sample
file, ``player_stats`` over the audits of every sample the ledger holds).
"""

from __future__ import annotations

import json
from html import unescape
from typing import Any

import httpx
import orjson
import pytest
from webtest_support import Server, sample_files

from ledger.analysis.stats import audited, player_stats
from ledger.analysis.whatif import what_if
from ledger.formats.reader import parse_match, read_matches


@pytest.fixture(scope="module")
def client(server: Server) -> Any:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


def _cells(html: str, table_id: str) -> list[list[str]]:
    """The text of each body row's cells of the table with that id (tags dropped)."""
    import re

    body = html.split(f'id="{table_id}"', 1)[1].split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    return [[unescape(re.sub(r"<[^>]+>", "", c)).strip()
             for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)] for r in rows]


# --- what-if --------------------------------------------------------------------------


def test_whatif_api_is_the_comparison_of_the_file(client: Any, server: Server) -> None:
    name = "domena-2.json"
    got = client.get(f"/api/matches/{server.id_of(name)}/whatif",
                     params={"rules": "arab-block"})
    assert got.status_code == 200
    expected = what_if(parse_match(server.sample(name)), "arab-block").to_dict()
    body = got.json()
    assert body["match"] == server.id_of(name) and body["rules"] == "arab-block"
    for key in ("legal_until", "stop"):
        assert body[key] == json.loads(orjson.dumps(expected[key]))
    for sheet in ("original", "other"):
        assert body[sheet]["deals"] == expected[sheet]["deals"]  # type: ignore[index]
        assert body[sheet]["scores"] == expected[sheet]["scores"]  # type: ignore[index]


def test_whatif_api_refuses_a_table_that_cannot_seat_the_match(client: Any,
                                                               server: Server) -> None:
    res = client.get(f"/api/matches/{server.id_of('domena-4.json')}/whatif",
                     params={"rules": "arab-block"})
    assert res.status_code == 422
    assert res.json()["error"] == {"code": "bad-seat-count",
                                   "message": "table 'arab-block' is played by 2 seats, not 4"}
    assert client.get("/api/matches/987654/whatif", params={"rules": "domena"}).status_code == 404


def test_whatif_page_shows_both_sheets(client: Any, server: Server) -> None:
    name = "domena-4.json"
    match_id = server.id_of(name)
    page = client.get(f"/matches/{match_id}/whatif",
                      params={"rules": "casual-arena", "teams": "true", "target": "50"})
    assert page.status_code == 200
    w = what_if(parse_match(server.sample(name)), "casual-arena", {"teams": True, "target": 50})
    for table_id, sheet in (("sheet-recorded", w.original), ("sheet-other", w.other)):
        rows = _cells(page.text, table_id)
        assert [int(r[0]) for r in rows] == [d.deal for d in sheet.deals]
        assert [int(r[4]) for r in rows] == [d.points for d in sheet.deals]
        assert [[int(x) for x in r[-len(sheet.sides):]] for r in rows] == \
            [list(d.totals) for d in sheet.deals]
    if w.stop is not None:
        assert f'data-event="{w.stop.event}"' in page.text
    else:
        assert 'id="whatif-all-legal"' in page.text
    # The form offers every table that seats four, and keeps what was asked.
    assert 'value="arab-block"' not in page.text
    assert 'value="casual-arena" data-teams="yes" selected' in page.text
    assert 'id="whatif-teams" checked' in page.text and 'value="50"' in page.text
    # In Arabic, and a table that cannot seat the match says so on the page.
    ar = client.get(f"/matches/{match_id}/whatif", params={"rules": "selminha", "lang": "ar"})
    assert ar.status_code == 200 and 'dir="rtl"' in ar.text and "كما سُجّلت" in ar.text
    bad = client.get(f"/matches/{match_id}/whatif", params={"rules": "no-such-table"})
    assert bad.status_code == 422 and 'id="whatif-error"' in bad.text
    assert "no-such-table" in bad.text


# --- players --------------------------------------------------------------------------


def _audited_ledger(server: Server, ok_only: bool = False) -> list[Any]:
    # What the ledger holds (the samples, and what other tests stored or recorded), each
    # match read back as its file and audited again.
    from sqlalchemy import select

    from ledger.store import db
    from ledger.store.models import MATCHES
    from ledger.store.pages.queries import record_of

    engine = db.open_db(server.db_url)
    try:
        with engine.connect() as c:
            q = select(MATCHES.c.id).order_by(MATCHES.c.id)
            if ok_only:  # as the ledger's audit found them when they were stored
                q = q.where(MATCHES.c.ok.is_(True))
            ids = list(c.execute(q).scalars())
            return [audited(record_of(c, i)) for i in ids]
    finally:
        engine.dispose()


def test_players_api_counts_every_stored_match(client: Any, server: Server) -> None:
    # The samples are all there, and the counts are those of the matches' audits.
    assert len(_audited_ledger(server)) >= sum(len(list(read_matches(p)))
                                               for p in sample_files(server.samples))
    # Only matches whose audit is ok count (issue 16): a faulty record's scores are not
    # the players'.
    expected = [r.to_dict() for r in player_stats(_audited_ledger(server, ok_only=True))]
    got = client.get("/api/players").json()
    # Reviews are kept only once a deal's Analysis was worked out (other tests may do it).
    def untouched(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in r.items() if k not in (
            "reviewed_deals", "decisions", "hindsight_lost", "knowledge_matches",
            "inaccuracies", "mistakes", "blunders")}
                for r in rows]
    assert untouched(got) == untouched(expected)
    name = expected[0]["player"]
    one = client.get("/api/players", params={"player": name, "table": "domena"}).json()
    assert {r["player"] for r in one} <= {name}
    assert all(r["preset"] in ("domena", "all") for r in one)


def test_players_page_rows_are_the_api_rows(client: Any, server: Server) -> None:
    rows = client.get("/api/players").json()
    page = client.get("/players")
    assert page.status_code == 200 and 'id="nav-players" aria-current="page"' in page.text
    cells = _cells(page.text, "player-stats")
    assert len(cells) == len(rows)
    for got, row in zip(cells, rows, strict=True):
        assert got[0] == row["player"]
        assert [int(x) for x in got[2:6]] == [row["matches"], row["wins"], row["deals"],
                                              row["points"]]
        assert got[6] == f"{row['points_per_deal']:.2f}"
        assert got[8] == f"{row['blocks']} ({row['blocks_won']})"
        assert int(got[10]) == row["hindsight_lost"]
        assert got[11:14] == ([str(row[k]) for k in ("inaccuracies", "mistakes", "blunders")]
                              if row["knowledge_matches"] else ["–"] * 3)
    none = client.get("/players", params={"player": "nobody at all"})
    assert 'id="no-players"' in none.text


# --- in the browser -------------------------------------------------------------------


@pytest.mark.browser
def test_from_a_match_to_what_if_and_to_the_players(page: Any, shot: Any,
                                                    server: Server) -> None:
    name = "sahrat-draw-2.json"
    page.goto(f"{server.url}/matches/{server.id_of(name)}")
    page.click("#open-whatif")
    page.wait_for_url("**/whatif")
    page.select_option("#whatif-rules", "domena")
    page.fill("#whatif-target", "60")
    page.click("#whatif-compare")
    page.wait_for_selector("#sheet-other")
    w = what_if(parse_match(server.sample(name)), "domena", {"target": 60})
    assert page.locator("#sheet-recorded tbody tr").count() == len(w.original.deals)
    assert page.locator("#sheet-other tbody tr").count() == len(w.other.deals)
    # Side by side on a wide screen: the two sheets start at the same height.
    left = page.locator("#sheet-recorded-card").bounding_box()
    right = page.locator("#sheet-other-card").bounding_box()
    assert left["y"] == right["y"] and left["x"] != right["x"]
    shot("whatif")
    page.click("#nav-players")
    page.wait_for_url("**/players")
    player = w.original.players[0]
    page.fill('#player-filters input[name="player"]', player)
    page.click('#player-filters button')
    page.wait_for_url("**/players?*")
    shown = page.eval_on_selector_all("#player-stats tbody tr",
                                      "rows => rows.map(r => r.dataset.player)")
    assert shown and set(shown) == {player}
    shot("players")
    page.click('#player-stats tbody tr[data-preset="all"] a')
    page.wait_for_url("**/matches?player=*")
    assert page.locator("#matches tbody tr").count() >= 1


def test_players_counts_follow_the_ledger(tmp_path: Any) -> None:
    # The app keeps its counts while the ledger stays as it is: a match stored, a deal's
    # analysis kept, and the next answer counts them.
    from webtest_support import SAMPLES, serving

    from ledger.analysis.review import review_match
    from ledger.rules import make_rules
    from ledger.store import db
    from ledger.store.imports.importer import import_file
    from ledger.store.jobs import analyses
    from web.app import create_app

    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    engine = db.open_db(url)

    def store(name: str) -> int:
        with db.writing(engine) as session:
            (got,) = import_file(session, str(SAMPLES / name))
            assert got.id is not None
            return got.id

    store("domena-2.json")
    try:
        with serving(create_app(url)) as base, httpx.Client(base_url=base) as c:
            first = c.get("/api/players").json()
            assert c.get("/api/players").json() == first
            match_id = store("domena-4.json")
            second = c.get("/api/players").json()
            assert sum(r["matches"] for r in second) > sum(r["matches"] for r in first)
            assert all(r["reviewed_deals"] == 0 for r in second)
            (record,) = read_matches(SAMPLES / "domena-4.json")
            (review,) = review_match(make_rules("domena", 4), record.events, deals=[0])
            with db.writing(engine) as session:
                conn = session.connection()
                at = analyses.head(conn, match_id)
                assert at is not None
                analyses.put(conn, match_id, 0, at, "test", review.to_dict())
                session.commit()
            third = c.get("/api/players", params={"table": "domena"}).json()
            assert record.header is not None
            for name in record.header.seats:
                (row,) = [r for r in third if r["player"] == name and r["preset"] == "domena"]
                assert row["reviewed_deals"] == 1
    finally:
        engine.dispose()
