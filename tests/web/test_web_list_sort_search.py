"""The matches list (issue 16): ordered by any column, a player found by part of a name in
any case, Arabic letters written either way; badges for partial records and live matches.

The list's reads run on SQLite and PostgreSQL (the ``ledger`` fixture of
test_web_backends.py: six samples and four faulty files); each answer is checked
against the stored rows, ordered and filtered here in Python.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import httpx
import orjson
import pytest
from sqlalchemy import Engine, text
from test_web_backends import ledger  # noqa: F401  (the fixture: both backends)
from webtest_support import Server

from ledger.names import fold, matching
from ledger.store.read import SORTS, Filters, list_page


def test_fold_makes_one_of_the_spellings_people_type() -> None:
    assert fold("OMAR") == fold("omar") == "omar"
    assert fold("Luís") == "luis" and fold("Andrés") == "andres"
    assert fold("أحمد") == fold("إحمد") == fold("آحمد") == fold("احمد")
    assert fold("فاطمة") == fold("فاطمه")
    assert fold("ليلى") == fold("ليلي")
    assert fold("مُحَمَّد") == "محمد" and fold("علـــي") == "علي"
    assert matching("om", ["Omar", "Tom", "Ali"]) == ["Omar", "Tom"]
    assert matching("  ", ["Omar"]) == []


def _stored(engine: Engine) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        got = [dict(r._mapping) for r in conn.execute(text(
            "SELECT m.id, m.preset, m.seats, m.ok, m.errors, m.warnings, s.complete, "
            "s.winner, s.deals, s.scores FROM matches m "
            "LEFT JOIN match_summaries s ON s.match_id = m.id"))]
    for r in got:
        for key in ("seats", "scores"):
            if isinstance(r[key], str):
                r[key] = orjson.loads(r[key])
    return got


@pytest.mark.parametrize("typed", ["om", "OMAR", "hAs", "ليلي", "luis", "نو"])
def test_a_player_is_found_by_part_of_the_name(ledger: tuple[Engine, dict[str, int]],  # noqa: F811
                                                typed: str) -> None:
    engine, _ = ledger
    stored = _stored(engine)
    want = sorted((r["id"] for r in stored
                   if any(fold(typed) in fold(n) for n in r["seats"])), reverse=True)
    assert want, f"the samples hold a name {typed!r} finds"
    with engine.connect() as conn:
        page = list_page(conn, Filters.of(typed, None, None, None, None, None), limit=100)
    assert [r.id for r in page.rows] == want
    assert page.count == len(want)


def _key(sort: str, r: dict[str, Any]) -> Any:
    result = 2 if r["complete"] and r["winner"] is not None else 1 if r["complete"] else 0
    return {
        "id": (), "table": (r["preset"],), "deals": (r["deals"] or 0,),
        "score": (max((r["scores"] or [])[:4] + [-1]),), "result": (result,),
        "audit": (r["ok"], -r["errors"], -r["warnings"]),
    }[sort] + (r["id"],)


@pytest.mark.parametrize("ascending", [True, False])
@pytest.mark.parametrize("sort", ["id", "table", "deals", "score", "result", "audit"])
def test_the_list_is_ordered_by_any_column(ledger: tuple[Engine, dict[str, int]],  # noqa: F811
                                           sort: str, ascending: bool) -> None:
    engine, _ = ledger
    assert sort in SORTS
    want = [r["id"] for r in sorted(_stored(engine), key=lambda r: _key(sort, r),
                                    reverse=not ascending)]
    filters = Filters.of(None, None, None, None, None, None, sort, "asc" if ascending else "desc")
    with engine.connect() as conn:
        first = list_page(conn, filters, limit=4)
        seen = [r.id for r in first.rows]
        params = first.older_params
        while params is not None:  # page by page to the end
            nxt = list_page(conn, filters, limit=4, **params)
            seen += [r.id for r in nxt.rows]
            params = nxt.older_params
    assert seen == want


def test_a_column_head_orders_the_list_and_again_the_other_way(server: Server) -> None:
    got = httpx.get(f"{server.url}/matches", params={"lang": "en"}).text
    assert 'aria-sort="descending"' in got  # by id, newest first
    assert 'href="/matches?sort=deals&amp;order=desc"' in got
    got = httpx.get(f"{server.url}/matches", params={"sort": "deals", "order": "desc"}).text
    assert 'href="/matches?sort=deals&amp;order=asc"' in got
    # The filters keep it: the order's choice (shown on phones) holds it, chosen.
    assert '<option value="deals" selected>' in got
    assert '<option value="desc" selected>' in got


def test_partial_records_and_live_matches_have_their_badges(server: Server) -> None:
    partial = server.id_of("domena-4-seen-by-seat-0.json")
    whole = server.id_of("domena-4.json")
    form = urlencode([("preset", "domena"), ("seats", "2"), ("name", "Badge"),
                      ("name", "Test")])
    made = httpx.post(f"{server.url}/record", content=form, headers={
        "Content-Type": "application/x-www-form-urlencoded"})
    assert made.status_code == 303
    live = int(made.headers["location"].split("/")[2])
    html = httpx.get(f"{server.url}/matches", params={"lang": "en", "table": "domena"}).text

    def row(match_id: int) -> str:
        start = html.index(f'<tr data-id="{match_id}"')
        return html[start:html.index("</tr>", start)]

    assert 'data-partial="yes"' in row(partial) and "partial record" in row(partial)
    assert 'data-partial' not in row(whole) and "partial record" not in row(whole)
    assert 'data-live="yes"' in row(live) and 'class="badge live"' in row(live)
    assert 'data-live' not in row(whole)
