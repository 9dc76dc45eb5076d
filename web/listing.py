"""The matches list: filters and keyset pages over the store's matches and summaries.

A page is the next ``limit`` matches below (or above) an id, newest first, so
page 2,000 costs what page 1 does. The count of a filtered list stops at
``COUNT_CAP`` ("more than 1,000") instead of scanning a whole ledger of 100,000
matches for an exact number nobody reads; the unfiltered count is exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import String, and_, cast, exists, func, literal_column, select, text
from sqlalchemy.engine import Connection
from sqlalchemy.sql import ColumnElement

from ledger.formats.values import searchable
from ledger.i18n import Phrase
from ledger.i18n.phrases import N_
from ledger.rules import PRESETS
from ledger.rules.base import Rules
from ledger.store.mapper import Header
from ledger.store.models import MATCHES, PLAYER_TOTALS, SUMMARIES
from ledger.store.readmodels import rules_of

COUNT_CAP = 1_000
# The filters' choices; their labels are msgids (the page words them in its language).
RESULTS = {"won": N_("won"), "no-winner": N_("ended with no winner"),
           "unfinished": N_("not finished")}
AUDITS = {"ok": N_("audit ok"), "faulty": N_("faulty")}


class BadFilter(ValueError):
    """A filter value the list cannot use (a date that is not YYYY-MM-DD)."""

    def __init__(self, phrase: Phrase) -> None:
        super().__init__(str(phrase))
        self.phrase = phrase


@dataclass(frozen=True, slots=True)
class Filters:
    player: str | None = None
    table: str | None = None
    date_from: date | None = None
    date_to: date | None = None
    result: str | None = None
    audit: str | None = None

    @staticmethod
    def of(player: str | None, table: str | None, date_from: str | None, date_to: str | None,
           result: str | None, audit: str | None) -> Filters:
        return Filters(
            player=searchable((player or "").strip()) or None,
            table=table if table in PRESETS else None,
            date_from=_date(date_from, "from"),
            date_to=_date(date_to, "to"),
            result=result if result in RESULTS else None,
            audit=audit if audit in AUDITS else None,
        )

    def query(self) -> dict[str, str]:
        """The filters as URL parameters (only those set)."""
        out = {"player": self.player, "table": self.table,
               "from": self.date_from.isoformat() if self.date_from else None,
               "to": self.date_to.isoformat() if self.date_to else None,
               "result": self.result, "audit": self.audit}
        return {k: v for k, v in out.items() if v}

    @property
    def any(self) -> bool:
        return bool(self.query())


def _date(value: str | None, which: str) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise BadFilter(
            Phrase("the from date {value} is not a date (write it as 2026-11-01)",
                   value=repr(value)) if which == "from" else
            Phrase("the to date {value} is not a date (write it as 2026-11-01)",
                   value=repr(value))) from None


@dataclass(frozen=True, slots=True)
class Row:
    id: int
    preset: str
    table: str
    seats: list[str]
    day: str
    status: str
    ok: bool
    errors: int
    warnings: int
    deals: int
    scores: list[int] | None
    winner: int | None
    winner_name: str | None
    complete: bool
    teams: bool
    sides: tuple[tuple[str, bool], ...]   # each side's names and whether it won


@dataclass(frozen=True, slots=True)
class ListPage:
    rows: list[Row]
    newer: int | None      # ?after= of the page before (newer matches), if any
    older: int | None      # ?before= of the page after (older matches), if any
    count: int             # matches that pass the filters, up to COUNT_CAP
    capped: bool


def _day() -> ColumnElement[Any]:
    # The day a match was played, else the day it was stored: the first 10 characters
    # of either ISO spelling (SQLite keeps datetimes as text; PostgreSQL casts them).
    return func.substr(func.coalesce(MATCHES.c.started_at, cast(MATCHES.c.created_at, String)),
                       1, 10)


def _player(conn: Connection, name: str) -> ColumnElement[bool]:
    if conn.dialect.name == "postgresql":
        return text("CAST(matches.seats AS jsonb) ? :player").bindparams(  # type: ignore[return-value]
            player=name)
    # A LIKE over the stored JSON first (cheap), then the exact test on what passes it.
    quoted = '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    pattern = "%" + quoted.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%"
    each = func.json_each(MATCHES.c.seats).table_valued("value")
    return and_(cast(MATCHES.c.seats, String).like(pattern, escape="!"),
                exists(select(literal_column("1")).select_from(each)
                       .where(each.c.value == name)))


def _conditions(conn: Connection, f: Filters) -> list[ColumnElement[bool]]:
    conds: list[ColumnElement[bool]] = []
    if f.table:
        conds.append(MATCHES.c.preset == f.table)
    if f.audit:
        conds.append(MATCHES.c.ok.is_(f.audit == "ok"))
    if f.date_from:
        conds.append(_day() >= f.date_from.isoformat())
    if f.date_to:
        conds.append(_day() <= f.date_to.isoformat())
    if f.result == "won":
        conds.append(and_(SUMMARIES.c.complete.is_(True), SUMMARIES.c.winner.is_not(None)))
    elif f.result == "no-winner":
        conds.append(and_(SUMMARIES.c.complete.is_(True), SUMMARIES.c.winner.is_(None)))
    elif f.result == "unfinished":
        conds.append(SUMMARIES.c.complete.is_not(True))
    if f.player:
        conds.append(_player(conn, f.player))
    return conds


_FROM = MATCHES.outerjoin(SUMMARIES, SUMMARIES.c.match_id == MATCHES.c.id)


def list_page(conn: Connection, f: Filters, before: int | None = None,
              after: int | None = None, limit: int = 50) -> ListPage:
    """One page, newest first: ids below ``before``, or the page just above ``after``."""
    if f.player and conn.execute(select(PLAYER_TOTALS.c.name).where(
            PLAYER_TOTALS.c.name == f.player)).first() is None:
        # Nobody of that name ever played here (player_totals knows every name): no scan.
        return ListPage([], None, None, 0, False)
    conds = _conditions(conn, f)
    cols = (MATCHES.c.id, MATCHES.c.preset, MATCHES.c.seats, MATCHES.c.options,
            MATCHES.c.status, MATCHES.c.ok,
            MATCHES.c.errors, MATCHES.c.warnings, _day().label("day"), SUMMARIES.c.deals,
            SUMMARIES.c.scores, SUMMARIES.c.winner, SUMMARIES.c.complete)
    q = select(*cols).select_from(_FROM).where(*conds)
    if after is not None:
        got = list(conn.execute(q.where(MATCHES.c.id > after)
                                .order_by(MATCHES.c.id.asc()).limit(limit + 1)).mappings())
        more_newer = len(got) > limit
        got = list(reversed(got[:limit]))
        more_older = True
    else:
        if before is not None:
            q = q.where(MATCHES.c.id < before)
        got = list(conn.execute(q.order_by(MATCHES.c.id.desc()).limit(limit + 1)).mappings())
        more_older = len(got) > limit
        got = got[:limit]
        more_newer = before is not None
    rows = [_row(r) for r in got]
    if rows and more_newer:
        newer: int | None = rows[0].id
    else:
        newer = None
    older = rows[-1].id if rows and more_older else None
    if not conds:  # the whole ledger: one index scan counts it exactly
        counted = int(conn.execute(select(func.count()).select_from(MATCHES)).scalar_one())
        return ListPage(rows, newer, older, counted, False)
    counted = int(conn.execute(select(func.count()).select_from(
        select(literal_column("1")).select_from(_FROM).where(*conds).limit(COUNT_CAP + 1)
        .subquery())).scalar_one())
    return ListPage(rows, newer, older, min(counted, COUNT_CAP), counted > COUNT_CAP)


def _row(r: Any) -> Row:
    preset = PRESETS.get(r["preset"])
    seats = list(r["seats"])
    winner = r["winner"]
    rules = rules_of(Header(r["preset"], tuple(seats), dict(r["options"] or {})))
    teams = rules is not None and rules.teams
    return Row(
        id=r["id"], preset=r["preset"], table=preset.title if preset else r["preset"],
        seats=seats, day=r["day"] or "", status=r["status"], ok=bool(r["ok"]),
        errors=r["errors"], warnings=r["warnings"], deals=r["deals"] or 0,
        scores=r["scores"], winner=winner,
        winner_name=seats[winner] if winner is not None and 0 <= winner < len(seats) else None,
        complete=bool(r["complete"]), teams=teams, sides=_sides(rules, seats, winner))


def _sides(rules: Rules | None, seats: list[str], winner: int | None
           ) -> tuple[tuple[str, bool], ...]:
    if rules is None or rules.seats != len(seats):
        return tuple((name, s == winner) for s, name in enumerate(seats))
    won = None if winner is None else rules.side_of(winner)
    return tuple((" & ".join(seats[s] for s in rules.side_seats(i)), i == won)
                 for i in range(rules.sides))


def player_names(conn: Connection, limit: int = 500) -> list[str]:
    """Names for the player box's suggestions: those with the most matches."""
    return [r.name for r in conn.execute(
        select(PLAYER_TOTALS.c.name).order_by(PLAYER_TOTALS.c.matches.desc(),
                                              PLAYER_TOTALS.c.name).limit(limit))]
