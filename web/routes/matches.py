"""The matches list: filters, orders and pages (``ledger.store.read.list_page``)."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from ledger.rules import PRESETS
from ledger.store.read import AUDITS, RESULTS, BadFilter, Filters, ListPage, list_page, player_names
from web.deps import DbInt, ReadSession
from web.lang import request_language
from web.templating import templates

router = APIRouter(include_in_schema=False)


@router.get("/")
def home() -> RedirectResponse:
    return RedirectResponse("/matches", status_code=307)


@router.get("/matches", response_class=HTMLResponse)
def matches_page(request: Request, session: ReadSession, player: str | None = None,
                 table: str | None = None,
                 date_from: Annotated[str | None, Query(alias="from")] = None,
                 date_to: Annotated[str | None, Query(alias="to")] = None,
                 result: str | None = None, audit: str | None = None,
                 sort: str | None = None, order: str | None = None,
                 before: Annotated[DbInt | None, Query(ge=1)] = None,
                 after: Annotated[DbInt | None, Query(ge=0)] = None,
                 offset: Annotated[DbInt, Query(ge=0)] = 0) -> HTMLResponse:
    conn = session.connection()
    error = None
    try:
        filters = Filters.of(player, table, date_from, date_to, result, audit, sort, order)
    except BadFilter as exc:
        filters, error = Filters(player=player), request_language(request).word(exc.phrase)
    page: ListPage = list_page(conn, filters, before=before, after=after, offset=offset)

    def link(**cursor: int | None) -> str:
        params = {**filters.query(), **{k: str(v) for k, v in cursor.items() if v is not None}}
        return "/matches?" + urlencode(params)

    return templates.TemplateResponse(request, "matches.html", {
        "nav": "matches", "page": page, "filters": filters, "error": error, "link": link,
        "presets": PRESETS, "results": RESULTS, "audits": AUDITS,
        "players": player_names(conn)}, status_code=400 if error else 200)
