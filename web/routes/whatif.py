"""What-if: a stored match scored under another table's rules, both sheets side by side.

The page (``/matches/{id}/whatif``) offers every table that seats the match and shows
the two sheets; the API (``/api/matches/{id}/whatif``) answers ``WhatIf.to_dict()``.
The comparison itself is ``ledger.analysis.whatif``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from ledger.analysis.whatif import WhatIf, WhatIfError, what_if
from ledger.glossary import table_name
from ledger.i18n import Language
from ledger.rules import PRESETS
from ledger.store.read import record_of
from web.deps import INT_MAX, DbInt, MatchId, ReadSession
from web.lang import request_language
from web.templating import templates
from web.wording import match_title

router = APIRouter()

Target = Annotated[DbInt | None, Query(ge=0, description="the other table's target "
                                                       "(default: its own)")]


@dataclass(frozen=True, slots=True)
class Choice:
    preset: str
    label: str
    teams: bool  # whether the table may play the match's four seats as two teams


def choices(seats: int, lang: Language) -> list[Choice]:
    """The tables that seat ``seats`` players, by name in the reader's language."""
    found = [Choice(p.id, table_name(p.id, lang.code, p.title),
                    "teams" in p.options and seats == 4)
             for p in PRESETS.values() if seats in p.seat_counts]
    return sorted(found, key=lambda c: c.label.casefold())


def _options(teams: bool, target: int | None) -> dict[str, object]:
    options: dict[str, object] = {}
    if teams:
        options["teams"] = True
    if target is not None:
        options["target"] = target
    return options


def form_target(text: str | None, lang: Language) -> tuple[int | None, str | None]:
    """The form's Target as typed: empty is the other table's own (as its placeholder says);
    else a whole number from 0 up, or what is wrong with it, in the page's language."""
    text = (text or "").strip()
    if not text:
        return None, None
    try:
        value = int(text)
    except ValueError:
        return None, lang.say("Target: type a whole number of points, or leave it empty for "
                              "the table's own")
    if not 0 <= value <= INT_MAX:
        return None, lang.say("Target: a number from 0 to {most}", most=INT_MAX)
    return value, None


@router.get("/matches/{match_id}/whatif", response_class=HTMLResponse,
            include_in_schema=False)
def whatif_page(request: Request, match_id: MatchId, session: ReadSession,
                rules: str | None = None, teams: bool = False,
                target: str | None = None) -> HTMLResponse:
    lang = request_language(request)
    record = record_of(session.connection(), match_id)
    seats = len(record.header.seats) if record.header is not None else 0
    compared: WhatIf | None = None
    typed = target
    number, error = form_target(target, lang)
    if rules and error is None:
        try:
            compared = what_if(record, rules, _options(teams, number))
        except WhatIfError as exc:
            error = lang.word(exc.said)
    title = match_title(compared.original, lang) if compared is not None else \
        " · ".join(record.header.seats) if record.header is not None else ""
    return templates.TemplateResponse(request, "whatif.html", {
        "nav": "matches", "match_id": match_id, "title": title,
        "choices": choices(seats, lang), "rules": rules, "teams": teams,
        "target": typed, "target_wrong": error is not None and number is None and bool(typed),
        "w": compared, "error": error,
        "players": tuple(record.header.seats) if record.header is not None else (),
    }, status_code=422 if error else 200)


@router.get("/api/matches/{match_id}/whatif", tags=["matches"],
            summary="A match's score sheet under another table's rules, beside its own")
def whatif_api(match_id: MatchId, session: ReadSession, rules: str, teams: bool = False,
               target: Target = None) -> dict[str, Any]:
    """Both sheets, and ``stop``: the first recorded move the other table does not allow
    (its sheet holds the deals played out before it). 422 if the table cannot seat the
    match."""
    compared = what_if(record_of(session.connection(), match_id), rules,
                       _options(teams, target))
    return {"match": match_id, "rules": rules, **compared.to_dict()}
