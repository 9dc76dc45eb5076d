"""A match's score sheet as a file, in every format of the registry
(``ledger.exports.formats``: the export command's)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ledger.exports.formats import SHEET_FORMATS
from web.deps import MatchId, ReadSession
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
    sheet = load_match(session.connection(), match_id).sheet()
    data = form.write([sheet], lang)
    name = f"match-{match_id}-{lang.code}.{fmt}"
    return Response(data, media_type=form.media_type,
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})
