"""Player statistics across the ledger: the ``/players`` page and its API.

Counted by ``ledger.analysis.stats`` from the read models and the reviews the ledger keeps
(``ledger.store.plays``), as ``domino-ledger stats`` counts them.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from sqlalchemy.engine import Connection

from ledger.analysis.stats import PlayerStats, from_stored, player_stats
from ledger.rules import PRESETS
from ledger.store.plays import fingerprint, stored_plays
from web.deps import ReadSession
from web.listing import player_names
from web.templating import templates

router = APIRouter()


# Counting every stored match takes about a second for 20,000 of them, and the ledger
# changes less often than the page is read: the app keeps its counts per table for as
# long as the ledger's fingerprint is the same (a new one drops them all).


def _rows(request: Request, conn: Connection, player: str | None,
          table: str | None) -> list[PlayerStats]:
    preset = table if table in PRESETS else None
    kept: dict[Any, list[PlayerStats]] = getattr(request.app.state, "player_stats", {})
    key = (fingerprint(conn), preset)
    rows = kept.get(key)
    if rows is None:
        rows = player_stats(from_stored(p) for p in stored_plays(conn, preset))
        kept = {k: v for k, v in kept.items() if k[0] == key[0]}
        kept[key] = rows
        request.app.state.player_stats = kept
    return [r for r in rows if not player or r.player == player]


@router.get("/players", response_class=HTMLResponse, include_in_schema=False)
def players_page(request: Request, session: ReadSession, player: str | None = None,
                 table: str | None = None) -> HTMLResponse:
    conn = session.connection()
    return templates.TemplateResponse(request, "players.html", {
        "nav": "players", "rows": _rows(request, conn, player, table), "player": player or "",
        "table": table if table in PRESETS else "", "presets": PRESETS,
        "players": player_names(conn)})


@router.get("/api/players", tags=["players"],
            summary="Player statistics per table and over every table (preset \"all\")")
def players_api(request: Request, session: ReadSession, player: str | None = None,
                table: str | None = None) -> list[dict[str, Any]]:
    """One row per player and table: matches, wins, deals, points, outs, blocks, and for the
    deals whose analysis the ledger keeps, decisions, mistakes and the points they lost."""
    return [r.to_dict() for r in _rows(request, session.connection(), player, table)]
