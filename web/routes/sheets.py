"""A match's score sheet as a file, in every format of the registry
(``ledger.exports.formats``: the export command's)."""

from __future__ import annotations

from dataclasses import replace

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ledger.exports.formats import SHEET_FORMATS
from ledger.store.read import knowledge_report
from web.access import sees_live_hands
from web.deps import MatchId, ReadSession
from web.knowledge_report import VERSION
from web.lang import request_language
from web.matchdata import load_match

router = APIRouter(include_in_schema=False)


@router.get("/matches/{match_id}/sheet.{fmt}")
def sheet_file(request: Request, match_id: MatchId, fmt: str, session: ReadSession) -> Response:
    """The score sheet as a file (the CLI's export), in the page's language."""
    form = SHEET_FORMATS.get(fmt)
    if form is None:
        raise StarletteHTTPException(404)
    lang = request_language(request)
    conn = session.connection()
    match = load_match(conn, match_id)
    sheet = match.sheet()
    if sees_live_hands(request, match_id, match.origin, match.status):
        # The PDF's page of the review by what each player knew, when the ledger keeps one.
        sheet = replace(sheet, knowledge=knowledge_report(conn, match_id, VERSION))
    data = form.write([sheet], lang)
    name = f"match-{match_id}-{lang.code}.{fmt}"
    return Response(data, media_type=form.media_type,
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})
