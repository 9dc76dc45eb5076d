"""``verify`` (issue 19): the players' totals summed again from every match's events, and
on PostgreSQL one match's database error does not abort the checks of the others."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select

from ledger.store.log.verify import Verified, verify
from ledger.store.models import PLAYER_TOTALS
from tests.store.helpers import import_path, matches, sql


@pytest.fixture
def filled(engine: Engine, corpus_file: Path) -> Engine:
    import_path(engine, corpus_file)
    return engine


def _checked(engine: Engine) -> list[Verified]:
    with engine.connect() as c:
        return list(verify(c))


def _a_player(engine: Engine) -> Any:
    with engine.connect() as c:
        return c.execute(select(PLAYER_TOTALS).where(PLAYER_TOTALS.c.wins > 0)
                         .order_by(PLAYER_TOTALS.c.name).limit(1)).one()


def test_the_players_totals_of_a_clean_ledger_hold(filled: Engine) -> None:
    checked = _checked(filled)
    assert len(checked) == matches(filled) and all(v.ok for v in checked)


@pytest.mark.parametrize(("statement", "said"), [
    ("UPDATE player_totals SET wins = wins + 1 WHERE name = :n", "wins of {name!r} holds"),
    ("UPDATE player_totals SET points = 0 WHERE name = :n", "points of {name!r} holds 0"),
    ("DELETE FROM player_totals WHERE name = :n", "matches of {name!r} holds 0"),
    ("INSERT INTO player_totals (name, matches, complete, wins, deals, deal_wins, points, "
     "faulty) VALUES ('Nobody who played', 1, 1, 1, 0, 0, 0, 0)",
     "matches of 'Nobody who played' holds 1, the matches' events give 0"),
])
def test_a_forged_player_total_is_named(filled: Engine, statement: str, said: str) -> None:
    player = _a_player(filled)
    sql(filled, statement, **({"n": player.name} if ":n" in statement else {}))
    checked = _checked(filled)
    assert all(v.ok for v in checked[:-1])  # every match still holds
    last = checked[-1]
    assert last.match_id == 0 and last.broken is not None
    assert last.broken.code == "totals-mismatch"
    assert said.format(name=player.name) in last.describe()
    assert last.describe().startswith("player totals: BROKEN")
    with filled.connect() as c:  # one match asked for: the totals are not summed
        assert [v.ok for v in verify(c, 1)] == [True]


@pytest.mark.postgres
def test_a_database_error_on_one_match_leaves_the_others_checked(filled: Engine) -> None:
    if filled.dialect.name != "postgresql":
        pytest.skip("SQLite: a failed statement does not abort the transaction around it")
    # The events of match 2 as the database gives them: one value it cannot compute (a
    # page it cannot read would answer the same). The table goes under another name and
    # a view takes its place, which divides by zero on match 2's event 5 only.
    sql(filled, "ALTER TABLE events RENAME TO events_kept")
    sql(filled, "CREATE VIEW events AS SELECT id, match_id, seq, recorded_index, kind, "
        "type, CASE WHEN match_id = 2 AND seq = 5 THEN payload || (1 / (seq - 5))::text "
        "ELSE payload END AS payload, recorded_at, prev_hash, hash FROM events_kept")
    checked = _checked(filled)
    assert len(checked) == matches(filled)
    assert [(v.match_id, v.broken.code) for v in checked if v.broken is not None] == [
        (2, "unreadable")]
    assert "division by zero" in checked[1].describe()
