"""A match's page: its score sheet, audit findings and score race; the sheet as JSON."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ledger.exports.formats import SHEET_FORMATS
from ledger.jobs.service import ClientJobs
from ledger.replay import deals
from ledger.store import read
from ledger.store.handles import Session
from web.access import sees_live_hands
from web.charts import score_race
from web.deps import Jobs, MatchId, ReadSession, page_work
from web.lang import request_language
from web.matchdata import StoredMatch, load_match
from web.redact import table_findings
from web.routes import knowledge
from web.templating import templates
from web.wording import match_title, table_words

router = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api", tags=["matches"])


def _deal_steps(match: StoredMatch) -> dict[int, int]:
    """The replay step at which each deal (by number) is dealt."""
    if match.replay is None:
        return {}
    return {line.deal: line.first_step for line in deals(match.replay) if line.deal}


@router.get("/matches/{match_id}", response_class=HTMLResponse)
async def match_page(request: Request, match_id: MatchId, session: ReadSession, jobs: Jobs,
                     review: str | None = None) -> HTMLResponse:
    return await page_work(request, partial(_match_page, request, match_id, session, jobs,
                                            review))


def _match_page(request: Request, match_id: int, session: Session, jobs: ClientJobs,
                review: str | None) -> HTMLResponse:
    lang = request_language(request)
    match = load_match(session.connection(), match_id)
    if not sees_live_hands(request, match.id, match.origin, match.status):
        match = replace(match, findings=tuple(table_findings(
            match.findings, read.events_of(session.connection(), match_id),
            lambda f: (f.event, f.message))))
    sheet = match.sheet()
    steps = _deal_steps(match)
    shown = knowledge.page_part(request, session.connection(), match, jobs, review)
    page = templates.TemplateResponse(request, "match.html", {
        "nav": "matches",
        "match": match,
        "title": match_title(sheet, lang),
        "sheet": sheet,
        "table": table_words(sheet, lang),
        "deal_links": [f"/matches/{match_id}/replay?step={steps.get(row.deal, 0)}"
                       for row in sheet.deals],
        "chart": score_race(sheet, lang) if sheet.deals else None,
        "sheet_formats": list(SHEET_FORMATS.values()),
        **shown,
    })
    if shown["review_pending"] or shown["review_failed"]:
        page.headers["Cache-Control"] = "no-store"  # true for now only: never kept
    return page


_SHEET_TYPES = {"csv": "text/csv; charset=utf-8", "json": "application/json",
                "pdf": "application/pdf"}


@api.get("/matches/{match_id}/scoresheet", summary="A match's score sheet")
def scoresheet_api(match_id: MatchId, session: ReadSession) -> dict[str, Any]:
    """Each deal's leader, result, winner, points, Fives in-deal points and running
    totals, the final result and the audit status: the one sheet every export uses."""
    return load_match(session.connection(), match_id).sheet().to_dict()
