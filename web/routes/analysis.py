"""The analysis of one deal as JSON, for the replay page's Analysis panel (issue 6).

``GET /api/matches/{id}/analysis?deal=N`` (N 1-based, as the replay numbers deals):
the deal's review (``DealReview.to_dict()``: the best-play outcome, every decision
with its options and what the move played lost), the swing chart (a Plotly figure),
and, per step of the deal, the position's best-play outcome and what each seat knew.
Steps are the replay's: step ``s`` is the table after ``s`` events, so a move at
event ``e`` is shown at step ``e + 1``.

Solving a deal can take seconds, so answers are computed on demand and kept in
process per (match, stored head, deal): a match recorded further gets a new head
and so a fresh answer.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from ledger.analysis.knowledge import iter_knowledge
from ledger.analysis.review import DealReview, review_match
from ledger.analysis.swing import side_names, swing_figure
from ledger.store.errors import MatchNotFound
from ledger.store.models import EVENTS, MATCHES, SUMMARIES
from web.deps import ReadSession
from web.matchdata import ReplayUnavailable, load_match

router = APIRouter(tags=["analysis"])

DealQuery = Annotated[int, Query(ge=1, description="the deal, 1-based as the replay numbers it")]

CACHE_SIZE = 64
_cache: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()
_lock = threading.Lock()


def _head(conn: Connection, match_id: int) -> tuple[Any, ...]:
    """What changes whenever the match's stored events do (the cache's key)."""
    row = conn.execute(select(SUMMARIES.c.head_hash, SUMMARIES.c.last_seq)
                       .where(SUMMARIES.c.match_id == match_id)).one_or_none()
    count, last = conn.execute(select(func.count(), func.max(EVENTS.c.seq))
                               .where(EVENTS.c.match_id == match_id)).one()
    if row is None and not count:
        exists = conn.execute(select(MATCHES.c.id).where(MATCHES.c.id == match_id)).first()
        if exists is None:
            raise MatchNotFound(match_id)
    return (None if row is None else bytes(row.head_hash), count, last)


def _steps(review: DealReview) -> list[dict[str, Any]]:
    """The deal's positions by replay step: the start, then after every move."""
    out: list[dict[str, Any]] = [{"step": review.event + 1, "event": review.event, "seat": None,
                                  "move": None, "best": _vec(review.best), "lost": 0}]
    for s in review.steps:
        out.append({"step": s.event + 1, "event": s.event, "seat": s.seat, "move": s.move,
                    "best": _vec(s.outcome), "lost": s.lost})
    return out


def _vec(outcome: tuple[int, ...] | None) -> list[int] | None:
    return None if outcome is None else list(outcome)


def deal_analysis(conn: Connection, match_id: int, deal: int) -> dict[str, Any]:
    """The answer of the route (cached per match head and deal)."""
    key = (match_id, _head(conn, match_id), deal)
    with _lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    match = load_match(conn, match_id, everything=True)
    if match.replay is None or match.rules is None:
        raise ReplayUnavailable(match_id, match.header.preset)
    rules, events, seats = match.rules, match.replay.events, match.header.seats
    reviews = review_match(rules, events, deals=[deal - 1])
    review = next((r for r in reviews if r.deal == deal - 1), None)
    if review is None:
        raise HTTPException(404, f"match {match_id} has no deal {deal} that can be analysed")
    knowledge = []
    for k in iter_knowledge(rules, events):
        if k.deal is not None and k.deal > deal - 1:
            break
        if k.deal == deal - 1:
            knowledge.append(k.to_dict())
    answer = {
        **review.to_dict(),
        "match": match_id,
        "number": deal,
        "seats": list(seats),
        "sides": side_names(rules, seats),
        "side_of": [rules.side_of(s) for s in range(len(seats))],
        "first_step": review.event + 1,
        "steps": _steps(review),
        "mistakes": [{"step": d.event + 1, "event": d.event, "seat": d.seat,
                      "played": d.played, "lost": d.lost} for d in review.mistakes],
        "swing": swing_figure(review, rules, seats),
        "knowledge": knowledge,
    }
    with _lock:
        _cache[key] = answer
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return answer


@router.get("/api/matches/{match_id}/analysis",
            summary="The analysis of one deal of a match",
            description="The deal's review under best play (`best`, `decisions` with every "
                        "option's outcome and the points the move played `lost`, as "
                        "`DealReview.to_dict()`), plus `steps` (the best-play outcome at each "
                        "replay step of the deal), `mistakes` (with the step to show each at), "
                        "`swing` (a Plotly figure) and `knowledge` (what every seat knew at "
                        "each step). Computed on demand, then cached in the server.")
def analysis_api(match_id: int, session: ReadSession, deal: DealQuery) -> dict[str, Any]:
    return deal_analysis(session.connection(), match_id, deal)
