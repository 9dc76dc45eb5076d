"""The matches list in the browser: filters and pages, checked against the ledger's rows.

The expected ids come from reading the SQLite file directly (plain sqlite3 and
Python filtering), not from the app's own query.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from typing import Any

import pytest
from webtest_support import Server

pytestmark = pytest.mark.browser


def ledger_rows(server: Server) -> list[dict[str, Any]]:
    path = server.db_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as db:
        db.row_factory = sqlite3.Row
        rows = db.execute(
            "SELECT m.id, m.preset, m.seats, m.ok, m.started_at, m.created_at, s.complete, "
            "s.winner FROM matches m LEFT JOIN match_summaries s ON s.match_id = m.id "
            "ORDER BY m.id DESC").fetchall()
    return [{**dict(r), "seats": json.loads(r["seats"]),
             "day": (r["started_at"] or r["created_at"])[:10]} for r in rows]


def listed_ids(page: Any) -> list[int]:
    return [int(x) for x in page.eval_on_selector_all("#matches tbody tr",
                                                      "rows => rows.map(r => r.dataset.id)")]


def test_pages_run_newest_first_and_back(page: Any, shot: Any, server: Server) -> None:
    rows = ledger_rows(server)
    ids = [r["id"] for r in rows]
    assert len(ids) > 50, "the samples should fill more than one page"
    page.goto(f"{server.url}/matches")
    assert listed_ids(page) == ids[:50]
    assert page.locator("#match-count").inner_text().startswith(f"{len(ids)} matches")
    shot("first-page")
    page.click("#older")
    page.wait_for_url("**/matches?before=*")
    assert listed_ids(page) == ids[50:100]
    page.click("#newer")
    page.wait_for_url("**/matches?after=*")
    assert listed_ids(page) == ids[:50]
    assert page.locator("#newer").get_attribute("aria-disabled") == "true"


def test_filters(page: Any, shot: Any, server: Server) -> None:
    rows = ledger_rows(server)
    names = Counter(name for r in rows for name in set(r["seats"]))
    # A name in Arabic script if the samples have one (the filter must match it exactly).
    player = next((name for name, _ in names.most_common() if not name.isascii()),
                  names.most_common(1)[0][0])
    table = next(r["preset"] for r in rows if player in r["seats"])
    page.goto(f"{server.url}/matches")
    page.fill('input[name="player"]', player)
    page.select_option('select[name="table"]', table)
    page.click("#filters button[type=submit]")
    page.wait_for_url("**/matches?*player=*")
    want = [r["id"] for r in rows if player in r["seats"] and r["preset"] == table]
    assert want and listed_ids(page) == want[:50]
    shot("player-and-table")
    page.goto(f"{server.url}/matches?audit=faulty")
    faulty = [r["id"] for r in rows if not r["ok"]]
    assert faulty and listed_ids(page) == faulty[:50]
    assert page.locator("#matches .badge.ok").count() == 0
    page.goto(f"{server.url}/matches?result=no-winner")
    no_winner = [r["id"] for r in rows if r["complete"] and r["winner"] is None]
    assert listed_ids(page) == no_winner[:50]
    day = rows[0]["day"]
    page.goto(f"{server.url}/matches?from={day}&to={day}")
    assert listed_ids(page) == [r["id"] for r in rows if r["day"] == day][:50]
    page.goto(f"{server.url}/matches?from=2999-01-01")
    assert page.locator(".empty").inner_text().startswith("No match passes")
    res = page.goto(f"{server.url}/matches?from=yesterday")
    assert res is not None and res.status == 400
    assert "yesterday" in page.locator("#filter-error").inner_text()
    shot("bad-date")
