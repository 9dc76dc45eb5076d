"""A match's score sheet as a file, in every format of the registry
(``ledger.exports.formats``: the export command's), and the match file itself: the
export command's code (``ledger.exports.files``), so a download is byte for byte what
``domino-ledger export`` writes for the same stored match. While a live match is
recorded, a reader without its key gets the audit the match page shows (the export's own
audit reads the hands in play) and no match file."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ledger.exports.files import hand_record_file, match_file_bytes, sheet_bytes, stored_export
from ledger.exports.formats import SHEET_FORMATS
from ledger.exports.selection import Selected
from ledger.replay import deal_span
from web.access import Refused, deal_finished, sees_live_hands
from web.deps import MatchId, ReadSession
from web.lang import request_language
from web.matchdata import load_match

router = APIRouter(include_in_schema=False)


def _selected(request: Request, session: ReadSession, match_id: int, review: bool
              ) -> tuple[Selected, bool]:
    """The match as the export command reads it, and whether the reader sees its hands."""
    conn = session.connection()
    m = load_match(conn, match_id)  # MatchNotFound: 404
    sees = sees_live_hands(request, match_id, m.origin, m.status)
    # The export audits the record as stored, the hands in play with it; a reader without
    # the recorder key gets the audit the match page shows instead.
    selected = stored_export(conn, match_id, review=review and sees,
                             audit=None if sees else m.sheet().audit)
    if selected is None:
        raise StarletteHTTPException(404)
    return selected, sees


@router.get("/matches/{match_id}/sheet.{fmt}")
def sheet_file(request: Request, match_id: MatchId, fmt: str, session: ReadSession) -> Response:
    """The score sheet as a file (the CLI's export), in the page's language. The PDF's
    page of the review by what each player knew only for a reader who sees the hands."""
    form = SHEET_FORMATS.get(fmt)
    if form is None:
        raise StarletteHTTPException(404)
    lang = request_language(request)
    selected, _ = _selected(request, session, match_id, review=True)
    data = sheet_bytes(fmt, [selected], lang)
    return _attachment(data, form.media_type, f"match-{match_id}-{lang.code}.{fmt}")


@router.get("/matches/{match_id}/match.json")
def match_file(request: Request, match_id: MatchId, session: ReadSession) -> Response:
    """The match itself as domino-match/1 (``export --format match``). While a live deal is
    recorded its hands are the recorder's: refused without its key."""
    selected, sees = _selected(request, session, match_id, review=False)
    if not sees:
        raise Refused(request, 403, f"match {match_id} is being recorded: its file opens "
                      "when the match is over")
    data = match_file_bytes(selected)
    if data is None:
        raise Refused(request, 409, f"match {match_id} has an event that could not be read: "
                      "it cannot be written back as it was")
    return _attachment(data, "application/json", f"match-{match_id}.json")


@router.get("/matches/{match_id}/hand-records.pdf")
def hand_records(request: Request, match_id: MatchId, session: ReadSession) -> Response:
    """The hand records (``export --hand-record``): every hand of every deal. While a
    deal is being recorded, a reader without the recorder's key gets the deals over for
    good before it (the deal in play left out whole), and a refusal when there is none."""
    lang = request_language(request)
    m = load_match(session.connection(), match_id)  # MatchNotFound: 404
    before = None
    if not deal_finished(m, len(m.types)) and not sees_live_hands(request, match_id,
                                                                   m.origin, m.status):
        before, _ = deal_span(m.types, len(m.types))
        if "deal" not in m.types[:before]:
            raise Refused(request, 403, f"match {match_id} is being recorded: its hand "
                          "records open when the deal is over")
    selected, _ = _selected(request, session, match_id, review=True)
    data = hand_record_file([selected], lang, before)
    return _attachment(data, "application/pdf", f"match-{match_id}-hands-{lang.code}.pdf")


def _attachment(data: bytes, media_type: str, name: str) -> Response:
    return Response(data, media_type=media_type,
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})
