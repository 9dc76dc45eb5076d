"""The matches list: filters, orders and pages over the store's matches and summaries.

One list for every reader: the matches page (``list_page``: keyset pages, a capped
count) and the API (``ledger.store.pages.queries.list_matches``: offset pages, an exact
total) build their conditions here (``conditions``, ``played_by``).

A page is the next ``limit`` matches below (or above) an id, newest first, so
page 2,000 costs what page 1 does. The count of a filtered list stops at
``COUNT_CAP`` ("more than 1,000") instead of scanning a whole ledger of 100,000
matches for an exact number nobody reads; the unfiltered count is exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import orjson
from sqlalchemy import String, and_, case, cast, exists, func, literal_column, select, text
from sqlalchemy.engine import Connection
from sqlalchemy.sql import ColumnElement

from ledger.formats.values import searchable
from ledger.i18n import Phrase
from ledger.i18n.phrases import N_
from ledger.names import matching
from ledger.rules import PRESETS
from ledger.rules.base import Rules
from ledger.store.log.mapper import Header
from ledger.store.models import EVENTS, MATCHES, PLAYER_TOTALS, SUMMARIES
from ledger.store.pages.readmodels import rules_of

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
    sort: str | None = None   # a key of SORTS (None: newest first, by id)
    ascending: bool = False
    status: str | None = None   # the API's filters: "recording", "complete", ...
    origin: str | None = None   # "import" or "live"

    @staticmethod
    def of(player: str | None, table: str | None, date_from: str | None, date_to: str | None,
           result: str | None, audit: str | None, sort: str | None = None,
           order: str | None = None) -> Filters:
        return Filters(
            player=searchable((player or "").strip()) or None,
            table=table if table in PRESETS else None,
            date_from=_date(date_from, "from"),
            date_to=_date(date_to, "to"),
            result=result if result in RESULTS else None,
            audit=audit if audit in AUDITS else None,
            sort=sort if sort in SORTS and sort != "id" or sort == "id" and order == "asc"
            else None,
            ascending=order == "asc",
        )

    def query(self) -> dict[str, str]:
        """The filters and the order as URL parameters (only those set)."""
        out = {"player": self.player, "table": self.table,
               "from": self.date_from.isoformat() if self.date_from else None,
               "to": self.date_to.isoformat() if self.date_to else None,
               "result": self.result, "audit": self.audit, "sort": self.sort,
               "order": ("asc" if self.ascending else "desc") if self.sort else None}
        return {k: v for k, v in out.items() if v}

    @property
    def any(self) -> bool:
        """Whether some filter is set (an order alone filters nothing)."""
        return bool({k for k in self.query() if k not in ("sort", "order")})

    def sorted_by(self, key: str) -> dict[str, str]:
        """The URL parameters that order the list by column ``key``: the column's first
        order, or the other one if the list is ordered by it already."""
        current = self.sort or "id"
        first_asc = key in ("table", "players")  # words A to Z; numbers and days high first
        asc = not self.ascending if current == key else first_asc
        params = {k: v for k, v in self.query().items() if k not in ("sort", "order")}
        if key == "id" and not asc:
            return params  # the list's own order
        return {**params, "sort": key, "order": "asc" if asc else "desc"}

    def aria_sort(self, key: str) -> str | None:
        if (self.sort or "id") != key:
            return None
        return "ascending" if self.ascending else "descending"


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
    partial: bool = False  # some hand or draw was not seen: rebuilt from one seat's view
    live: bool = False     # being recorded at the table now


@dataclass(frozen=True, slots=True)
class ListPage:
    rows: list[Row]
    newer: int | None      # ?after= of the page before (newer matches), if any
    older: int | None      # ?before= of the page after (older matches), if any
    count: int             # matches that pass the filters, up to COUNT_CAP
    capped: bool
    # Ordered by another column than the id, pages are counted (``?offset=``): the
    # offsets of the page before and the page after, if any.
    earlier: int | None = None
    later: int | None = None

    @property
    def newer_params(self) -> dict[str, int] | None:
        """The URL parameters of the page before this one (None: this is the first)."""
        if self.earlier is not None:
            return {"offset": self.earlier}
        return None if self.newer is None else {"after": self.newer}

    @property
    def older_params(self) -> dict[str, int] | None:
        if self.later is not None:
            return {"offset": self.later}
        return None if self.older is None else {"before": self.older}


def _day() -> ColumnElement[Any]:
    # The day a match was played, else the day it was stored: the first 10 characters
    # of either ISO spelling (SQLite keeps datetimes as text; PostgreSQL casts them).
    return func.substr(func.coalesce(MATCHES.c.started_at, cast(MATCHES.c.created_at, String)),
                       1, 10)


def _top_score(conn: Connection) -> ColumnElement[Any]:
    """The highest score of the match (its sides' scores are a JSON list of up to four)."""
    if conn.dialect.name == "postgresql":
        return func.greatest(*[text(f"COALESCE((CAST(match_summaries.scores AS jsonb) ->> {i})"
                                    "::int, -1)") for i in range(4)])
    return func.max(*[func.coalesce(func.json_extract(SUMMARIES.c.scores, f"$[{i}]"), -1)
                      for i in range(4)])


def _sort_keys(conn: Connection, key: str) -> list[ColumnElement[Any]]:
    """What the list is ordered by for column ``key`` (the id last, to break ties)."""
    result = case((and_(SUMMARIES.c.complete.is_(True), SUMMARIES.c.winner.is_not(None)), 2),
                  (SUMMARIES.c.complete.is_(True), 1), else_=0)
    keys: dict[str, list[ColumnElement[Any]]] = {
        "date": [_day()], "table": [MATCHES.c.preset],
        "players": [cast(MATCHES.c.seats, String)],
        "deals": [func.coalesce(SUMMARIES.c.deals, 0)], "score": [_top_score(conn)],
        "result": [result], "audit": [MATCHES.c.ok, -MATCHES.c.errors, -MATCHES.c.warnings],
    }
    return keys.get(key, [])


def played_by(conn: Connection, names: list[str]) -> ColumnElement[bool]:
    """A match one of ``names`` played in (the names the typed text finds, or the API's
    one exact name: compared as one value, a third quicker on SQLite than a list)."""
    if conn.dialect.name == "postgresql":
        # Raw SQL on purpose: jsonb's ? and ?| operators (an index-backed containment test)
        # have no Core spelling.
        if len(names) == 1:
            return text("CAST(matches.seats AS jsonb) ? :player").bindparams(  # type: ignore[return-value]
                player=names[0])
        return text("CAST(matches.seats AS jsonb) ?| CAST(:players AS text[])").bindparams(  # type: ignore[return-value]
            players=names)
    each = func.json_each(MATCHES.c.seats).table_valued("value")
    if len(names) == 1:
        found = each.c.value == names[0]
    else:
        wanted = func.json_each(orjson.dumps(names).decode()).table_valued("value")
        found = each.c.value.in_(select(wanted.c.value))
    return exists(select(literal_column("1")).select_from(each).where(found))


def found_names(conn: Connection, typed: str) -> list[str]:
    """The players' names ``typed`` finds: part of a name, case, accents and the Arabic
    letters written either way folded (``ledger.names``). player_totals knows every name."""
    return matching(typed, conn.execute(select(PLAYER_TOTALS.c.name)).scalars())


def conditions(conn: Connection, f: Filters, names: list[str] | None = None
               ) -> list[ColumnElement[bool]]:
    """The filters as SQL conditions; ``names``: the players to look for (None: those
    ``f.player`` finds, if it is set)."""
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
    if f.status:
        conds.append(MATCHES.c.status == f.status)
    if f.origin:
        conds.append(MATCHES.c.origin == f.origin)
    if names is None and f.player:
        names = found_names(conn, f.player)
    if names is not None:
        conds.append(played_by(conn, names))
    return conds


SORTS = ("id", "date", "table", "players", "deals", "score", "result", "audit")

_FROM = MATCHES.outerjoin(SUMMARIES, SUMMARIES.c.match_id == MATCHES.c.id)
_COLS = (MATCHES.c.id, MATCHES.c.origin, MATCHES.c.preset, MATCHES.c.seats, MATCHES.c.options,
         MATCHES.c.status, MATCHES.c.ok, MATCHES.c.errors, MATCHES.c.warnings,
         _day().label("day"), SUMMARIES.c.deals, SUMMARIES.c.scores, SUMMARIES.c.winner,
         SUMMARIES.c.complete)


def list_page(conn: Connection, f: Filters, before: int | None = None,
              after: int | None = None, limit: int = 50, offset: int = 0) -> ListPage:
    """One page, newest first: ids below ``before``, or the page just above ``after``;
    ordered by another column (``f.sort``), the page at ``offset``."""
    names = found_names(conn, f.player) if f.player else None
    if names is not None and not names:
        # Nobody of that name ever played here (player_totals knows every name): no scan.
        return ListPage([], None, None, 0, False)
    conds = conditions(conn, f, names)
    q = select(*_COLS).select_from(_FROM).where(*conds)
    if f.sort is not None:
        return _sorted_page(conn, f, q, conds, limit, max(0, offset))
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
    rows = _rows(conn, got)
    newer = rows[0].id if rows and more_newer else None
    older = rows[-1].id if rows and more_older else None
    count, capped = _count(conn, conds)
    return ListPage(rows, newer, older, count, capped)


def _sorted_page(conn: Connection, f: Filters, q: Any, conds: list[ColumnElement[bool]],
                 limit: int, offset: int) -> ListPage:
    keys = [*_sort_keys(conn, f.sort or "id"), MATCHES.c.id]
    order = [k.asc() if f.ascending else k.desc() for k in keys]
    got = list(conn.execute(q.order_by(*order).limit(limit + 1).offset(offset)).mappings())
    rows = _rows(conn, got[:limit])
    count, capped = _count(conn, conds)
    return ListPage(rows, None, None, count, capped,
                    earlier=max(0, offset - limit) if offset > 0 else None,
                    later=offset + limit if len(got) > limit else None)


def _count(conn: Connection, conds: list[ColumnElement[bool]]) -> tuple[int, bool]:
    if not conds:  # the whole ledger: one index scan counts it exactly
        return int(conn.execute(select(func.count()).select_from(MATCHES)).scalar_one()), False
    counted = int(conn.execute(select(func.count()).select_from(
        select(literal_column("1")).select_from(_FROM).where(*conds).limit(COUNT_CAP + 1)
        .subquery())).scalar_one())
    return min(counted, COUNT_CAP), counted > COUNT_CAP


def _rows(conn: Connection, got: list[Any]) -> list[Row]:
    partial = _partial(conn, [r["id"] for r in got])
    return [_row(r, r["id"] in partial) for r in got]


def _partial(conn: Connection, ids: list[int]) -> set[int]:
    """Which of ``ids`` are partial records: a deal with a hand not seen (``null``) or a draw
    whose tile was not seen (match-format.md, *Partial records*). Only a page's rows."""
    if not ids:
        return set()
    q = (select(EVENTS.c.match_id).distinct()
         .where(EVENTS.c.match_id.in_(ids), EVENTS.c.kind == "recorded",
                EVENTS.c.type.in_(("deal", "draw")), EVENTS.c.payload.like("%null%")))
    return {int(i) for i in conn.execute(q).scalars()}


def _row(r: Any, partial: bool = False) -> Row:
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
        complete=bool(r["complete"]), teams=teams, sides=_sides(rules, seats, winner),
        partial=partial, live=r["origin"] == "live" and r["status"] == "recording")


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
