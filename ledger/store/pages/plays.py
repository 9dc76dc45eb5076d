"""What the player statistics read from the ledger: each stored match's table, seats,
result and deals, and the reviews kept for its events as they are now.

Read models only (match summaries, deal rows) and the deal analyses the replay keeps
(``analyses``; any version: a solver's values are exact, versions differ only in what
they leave out): no fold, so a ledger of any size is read in one pass, a page of
matches at a time. ``ledger.analysis.stats`` counts what this yields.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import and_, bindparam, func, select
from sqlalchemy.engine import Connection

from ledger.rules.base import Rules
from ledger.store.log import seals
from ledger.store.models import ANALYSES, DEAL_ROWS, MATCHES, SUMMARIES

PAGE = 500


@dataclass(frozen=True, slots=True)
class StoredPlay:
    """One stored match as the statistics need it."""

    match_id: int
    preset: str
    options: dict[str, Any]
    seats: tuple[str, ...]
    complete: bool
    winner: int | None
    # Each deal played out: deal (0-based), result, winner, points, fives (per seat).
    deals: list[dict[str, Any]] = field(default_factory=list)
    # Each reviewed deal (0-based) and the decisions in it: (seat, points the move lost).
    decisions: dict[int, list[tuple[int, int]]] = field(default_factory=dict)


def stored_plays(conn: Connection, preset: str | None = None, player: str | None = None,
                 page: int = PAGE, ok_only: bool = False) -> Iterator[StoredPlay]:
    """Every stored match (of ``preset``, with ``player`` in a seat; with ``ok_only``, only
    those whose audit found no error), oldest first."""
    after = 0
    while True:
        q = (select(MATCHES.c.id, MATCHES.c.preset, MATCHES.c.options, MATCHES.c.seats,
                    SUMMARIES.c.complete, SUMMARIES.c.winner, SUMMARIES.c.last_seq,
                    SUMMARIES.c.head_hash)
             .select_from(MATCHES.outerjoin(SUMMARIES, SUMMARIES.c.match_id == MATCHES.c.id))
             .where(MATCHES.c.id > after).order_by(MATCHES.c.id).limit(page))
        if preset is not None:
            q = q.where(MATCHES.c.preset == preset)
        if ok_only:
            q = q.where(MATCHES.c.ok.is_(True))
        rows = list(conn.execute(q))
        if not rows:
            return
        after = rows[-1].id
        plays = {r.id: StoredPlay(r.id, r.preset, dict(r.options or {}), tuple(r.seats),
                                  bool(r.complete), r.winner)
                 for r in rows if player is None or player in r.seats}
        if plays:
            ids = list(plays)
            q = (select(DEAL_ROWS.c.match_id, DEAL_ROWS.c.deal, DEAL_ROWS.c.result,
                        DEAL_ROWS.c.winner, DEAL_ROWS.c.points, DEAL_ROWS.c.fives)
                 .where(DEAL_ROWS.c.match_id.in_(ids))
                 .order_by(DEAL_ROWS.c.match_id, DEAL_ROWS.c.deal))
            for r in conn.execute(q):
                plays[r.match_id].deals.append({"deal": r.deal, "result": r.result,
                                                "winner": r.winner, "points": r.points,
                                                "fives": r.fives})
            _add_reviews(conn, plays)
        yield from plays.values()


def fingerprint(conn: Connection) -> tuple[int, ...]:
    """What changes whenever a count of ``stored_plays`` can: a match stored, an event
    appended (a summary's last seq grows), an analysis kept or dropped. A few aggregates,
    so a caller may keep what it counted until this changes."""
    out: list[int] = []
    for tbl in (MATCHES, SUMMARIES, ANALYSES):
        col = tbl.c.id if tbl is MATCHES else tbl.c.last_seq
        total = func.max(col) if tbl is MATCHES else func.sum(col)
        row = conn.execute(select(func.count(), func.coalesce(total, 0)).select_from(tbl)).one()
        out += [int(row[0]), int(row[1])]
    return tuple(out)


# Built once (bound at each call): SQLAlchemy builds and keys a statement per call
# otherwise, and every replay step asks this.
_REVIEWS = (select(ANALYSES.c.match_id, ANALYSES.c.deal, ANALYSES.c.body,
                   ANALYSES.c.version, ANALYSES.c.last_seq, ANALYSES.c.head_hash,
                   ANALYSES.c.seal)
            .select_from(ANALYSES.join(SUMMARIES, and_(
                SUMMARIES.c.match_id == ANALYSES.c.match_id,
                SUMMARIES.c.last_seq == ANALYSES.c.last_seq,
                SUMMARIES.c.head_hash == ANALYSES.c.head_hash))))
_CURRENT_REVIEWS = _REVIEWS.where(ANALYSES.c.match_id.in_(bindparam("ids", expanding=True)))
# One match's (every replay step asks): a list parameter is expanded at every call.
_MATCH_REVIEWS = _REVIEWS.where(ANALYSES.c.match_id == bindparam("match"))


def current_reviews(conn: Connection, match_ids: list[int]
                    ) -> dict[int, dict[int, list[tuple[int, int]]]]:
    """Per match and deal (0-based), the (seat, points lost) of each decision of the kept
    analyses that hold for the match's events as stored now (a deal nothing of which was
    solved is left out)."""
    out: dict[int, dict[int, list[tuple[int, int]]]] = {}
    rows = (conn.execute(_MATCH_REVIEWS, {"match": match_ids[0]}) if len(match_ids) == 1
            else conn.execute(_CURRENT_REVIEWS, {"ids": match_ids}))
    for r in rows:
        if not seals.holds(r.seal, seals.analysis(r.match_id, r.deal, r.version, r.last_seq,
                                                  bytes(r.head_hash), r.body)):
            continue  # changed behind the ledger's back: not counted (verify names it)
        body = orjson.loads(r.body)
        if not isinstance(body, dict):
            continue
        decisions = body.get("decisions") or []
        if body.get("best") is None and not decisions:
            continue  # nothing of the deal was solved
        out.setdefault(int(r.match_id), {})[int(r.deal)] = [
            (int(d["seat"]), int(d["lost"])) for d in decisions
            if isinstance(d, dict) and isinstance(d.get("seat"), int)
            and isinstance(d.get("lost"), int)]
    return out


def points_lost(conn: Connection, match_id: int, rules: Rules) -> dict[int, list[int]]:
    """Per deal (1-based) analysed, the points each side's mistakes lost in it (the
    replay's whole-match chart)."""
    lost: dict[int, list[int]] = {}
    for deal, decisions in current_reviews(conn, [match_id]).get(match_id, {}).items():
        if not decisions:
            continue
        sides = [0] * rules.sides
        for seat, points in decisions:
            if 0 <= seat < rules.seats:
                sides[rules.side_of(seat)] += points
        lost[deal + 1] = sides
    return lost


def _add_reviews(conn: Connection, plays: dict[int, StoredPlay]) -> None:
    """The kept analyses that hold for each match's events as stored now."""
    for match_id, deals in current_reviews(conn, list(plays)).items():
        plays[match_id].decisions.update(deals)
