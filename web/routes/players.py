"""Player statistics across the ledger: the ``/players`` page and its API.

Counted by ``ledger.analysis.stats`` from the read models and the reviews the ledger keeps
(``ledger.store.read``), as ``domino-ledger stats`` counts them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ledger.analysis.stats import PlayerStats, from_stored, player_stats
from ledger.jobs.knowledge_report import VERSION, PlayerReview, player_reviews
from ledger.names import matches
from ledger.rules import PRESETS
from ledger.store.handles import Connection
from ledger.store.read import fingerprint, knowledge_reports, player_names, stored_plays
from web.deps import ReadSession
from web.templating import templates

router = APIRouter()


# Counting every stored match takes about a second for 20,000 of them, and the ledger
# changes less often than the page is read: the app keeps its counts per table for as
# long as the ledger's fingerprint is the same (a new one drops them all).


def _rows(request: Request, conn: Connection, player: str | None,
          table: str | None, exact: bool = True) -> list[PlayerStats]:
    """The rows of ``player`` (the name; not ``exact``: found by part of it, as the
    matches list finds it), of ``table``."""
    preset = table if table in PRESETS else None
    kept: dict[Any, list[PlayerStats]] = getattr(request.app.state, "player_stats", {})
    # The knowledge reviews name the mistakes (ledger.analysis.measures): one kept since
    # counts anew.
    knowledge = knowledge_reports(conn, VERSION)
    key = (fingerprint(conn), preset,
           tuple(sorted((m, body["samples"]) for m, (_, _, body) in knowledge.items())))
    rows = kept.get(key)
    if rows is None:
        # Only matches whose audit is ok: a faulty record's scores are not the players'.
        rows = player_stats(from_stored(p, _body(knowledge.get(p.match_id)))
                            for p in stored_plays(conn, preset, ok_only=True))
        kept = {k: v for k, v in kept.items() if k[0] == key[0]}
        kept[key] = rows
        request.app.state.player_stats = kept
    if not player:
        return rows
    return [r for r in rows if (r.player == player if exact else matches(player, r.player))]


def _body(kept: tuple[str, bool, dict[str, Any]] | None) -> dict[str, Any] | None:
    return None if kept is None else kept[2]


# The columns the page orders by: a player's rows stay together, ordered by the row over
# every table ("all"); names A to Z first, numbers high first.
SORTS = ("player", "matches", "wins", "deals", "points", "points_per_deal", "outs", "blocks",
         "reviewed_deals", "hindsight_lost", "inaccuracies", "mistakes", "blunders",
         "mean_knowledge_lost", "luck")
# Of the review by what each player knew (ledger.jobs.knowledge_report): a player without one last.
REVIEW_SORTS = ("mean_knowledge_lost", "luck")


def ordered(rows: list[PlayerStats], sort: str | None, ascending: bool,
            reviews: Mapping[tuple[str, str], PlayerReview] | None = None
            ) -> list[PlayerStats]:
    if sort not in SORTS or sort == "player" and ascending:
        return rows  # by name already
    groups: dict[str, list[PlayerStats]] = {}
    for r in rows:
        groups.setdefault(r.player, []).append(r)

    def key(name: str) -> Any:
        if sort == "player":
            return name.casefold()
        total = next((r for r in groups[name] if r.preset == "all"), groups[name][0])
        if sort in REVIEW_SORTS:
            review = (reviews or {}).get((name, total.preset))
            got = None if review is None else getattr(review, sort)
            # Without a review: after every reviewed player, whichever way the order goes.
            return (got is not None, got or 0.0) if not ascending else (got is None, got or 0.0)
        return getattr(total, sort)

    names = sorted(groups, key=lambda n: n.casefold())
    names.sort(key=key, reverse=not ascending)
    return [r for n in names for r in groups[n]]


@router.get("/players", response_class=HTMLResponse, include_in_schema=False)
def players_page(request: Request, session: ReadSession, player: str | None = None,
                 table: str | None = None, sort: str | None = None,
                 order: str | None = None) -> HTMLResponse:
    conn = session.connection()
    sort = sort if sort in SORTS else None
    ascending = order == "asc" if sort else True

    def sorted_by(key: str) -> str:
        """The address that orders the page by ``key`` (again: the other way)."""
        asc = not ascending if (sort or "player") == key else key == "player"
        params = {k: v for k, v in (("player", player), ("table", table)) if v}
        return "/players?" + urlencode({**params, "sort": key, "order": "asc" if asc else "desc"})

    def aria_sort(key: str) -> str | None:
        if (sort or "player") != key:
            return None
        return "ascending" if ascending else "descending"

    reviews = player_reviews(knowledge_reports(conn, VERSION))
    rows = ordered(_rows(request, conn, player, table, exact=False), sort, ascending, reviews)
    return templates.TemplateResponse(request, "players.html", {
        "reviews": reviews,
        "nav": "players", "rows": rows, "sorted_by": sorted_by, "aria_sort": aria_sort,
        "player": player or "",
        "table": table if table in PRESETS else "", "presets": PRESETS,
        "players": player_names(conn)})


@router.get("/api/players", tags=["players"],
            summary="Player statistics per table and over every table (preset \"all\")")
def players_api(request: Request, session: ReadSession, player: str | None = None,
                table: str | None = None) -> list[dict[str, Any]]:
    """One row per player and table: matches, wins, deals, points, outs, blocks; for the
    deals whose analysis the ledger keeps, decisions and the points they lost in hindsight
    (`hindsight_lost`, every hand open); and for the matches whose review by what each
    player knew is kept (`knowledge_matches`), the decisions it named: `inaccuracies`,
    `mistakes`, `blunders` (the report's and the match page's counts)."""
    return [r.to_dict() for r in _rows(request, session.connection(), player, table)]
