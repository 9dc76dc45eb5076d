"""Recording a match live at the table: the new-match form, the recorder's page, its menu.

The page appends every event itself, through the live API (``POST
/api/matches/{id}/events`` with the expected sequence number), so that an
event is stored the moment it is tapped and two devices never fork a match.
This router only starts matches and shows what the rules allow next.
"""

from __future__ import annotations

import html
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from ledger.recording import Menu, reveal_event
from ledger.rules import PRESETS, RulesError, make_rules
from ledger.store import write
from ledger.store.errors import BadInput
from web.access import COOKIE_AGE, KEY_COOKIE, OwnerOnly, RecorderOnly, open_to, setting
from web.deps import MatchId, ReadSession, WriteSession
from web.recorder import CHART, NotRecordable, Recording, group_refusals, load_recording
from web.templating import templates

router = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api", tags=["recording"])

MAX_SEATS = 4
HISTORY_SHOWN = 60  # lines of history on the page; the replay and the events API hold all
SeedQuery = Annotated[str | None, Query(max_length=64, description="practice seed: the random "
                                        "deals follow from it")]


def _tables() -> list[dict[str, Any]]:
    """Each preset with what the form needs: seat counts, default target, options."""
    out = []
    for p in PRESETS.values():
        out.append({"id": p.id, "title": p.title, "seats": list(p.seat_counts),
                    "target": make_rules(p.id, p.seat_counts[0]).target,
                    "teams": "teams" in p.options,
                    "pairs": [n for n in p.seat_counts if make_rules(p.id, n).teams]})
    return out


def _form(request: Request, values: dict[str, Any], error: str | None = None,
          status: int = 200) -> HTMLResponse:
    return templates.TemplateResponse(request, "record_new.html", {
        "nav": "record", "tables": _tables(), "values": values, "error": error,
        "max_seats": MAX_SEATS}, status_code=status)


@router.get("/record", response_class=HTMLResponse)
def new_match_form(request: Request) -> HTMLResponse:
    return _form(request, {"preset": "domena", "seats": 2, "target": "", "teams": False,
                           "names": [""] * MAX_SEATS})


class FormError(ValueError):
    pass


def _header(preset: str, seats: int, target: str, teams: bool,
            names: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if target.strip():
        try:
            options["target"] = int(target)
        except ValueError:
            raise FormError(f"the target must be a whole number of points, not "
                            f"{target!r}") from None
    if teams:
        options["teams"] = True
    players = [n.strip() or f"Player {i + 1}" for i, n in enumerate(names[:seats])]
    if len(players) < seats:
        players += [f"Player {i + 1}" for i in range(len(players), seats)]
    if len(set(players)) < len(players):
        raise FormError("two seats have the same name: give each player their own")
    try:
        make_rules(preset, seats, options)
    except RulesError as exc:
        raise FormError(exc.message) from None
    started = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    return {"table": {"rules": preset, "options": options}, "seats": players,
            "started_at": started}


@router.post("/record", response_class=HTMLResponse)
def start_match(_: OwnerOnly, request: Request, session: WriteSession,
                preset: Annotated[str, Form()], seats: Annotated[int, Form(le=MAX_SEATS)],
                target: Annotated[str, Form()] = "",
                teams: Annotated[bool, Form()] = False,
                name: Annotated[list[str] | None, Form()] = None,
                seed: Annotated[str, Form(max_length=64)] = "") -> Response:
    names = list(name or [])
    values = {"preset": preset, "seats": seats, "target": target, "teams": teams,
              "names": (names + [""] * MAX_SEATS)[:MAX_SEATS]}
    try:
        header = _header(preset, seats, target, teams and seats == 4, names)
        got = write.start_keyed(session, header)
    except (FormError, BadInput) as exc:
        return _form(request, values, str(exc), status=422)
    url = f"/matches/{got.match_id}/record" + (f"?seed={seed}" if seed.strip() else "")
    if open_to(request):
        return RedirectResponse(url, status_code=303)
    # The recorder's browser keeps the key (a cookie for this match); the page shows the
    # key's link once, from the address's fragment, which never reaches a server.
    answer = RedirectResponse(f"{url}#key={got.key}", status_code=303)
    answer.set_cookie(KEY_COOKIE.format(match=got.match_id), got.key, max_age=COOKIE_AGE,
                      httponly=True, samesite="strict", secure=setting(request).secure_cookies)
    answer.headers["Cache-Control"] = "no-store"
    return answer


def _context(rec: Recording) -> dict[str, Any]:
    m = rec.menu
    reveal = [{"seat": r.seat, "name": rec.name(r.seat), "count": r.count,
               "known": list(r.known), "candidates": list(r.candidates)} for r in m.reveal]
    return {"nav": "record", "rec": rec, "m": m, "st": rec.state, "fr": rec.frame,
            "sheet": rec.sheet, "chart": CHART, "reveal_seats": reveal,
            "group_refusals": group_refusals, "history_shown": HISTORY_SHOWN,
            "reveal_base": reveal_event(rec.state, {}) if m.reveal else None}


@router.get("/matches/{match_id}/record", response_class=HTMLResponse)
def record_page(_: RecorderOnly, request: Request, match_id: MatchId, session: ReadSession,
                seed: SeedQuery = None) -> HTMLResponse:
    try:
        rec = load_recording(session.connection(), match_id, seed)
    except NotRecordable as exc:
        return _not_recordable(request, match_id, str(exc))
    if rec.origin != "live":
        return _not_recordable(request, match_id, f"match {match_id} was imported from a "
                               "file: the ledger keeps it as it was read, and only matches "
                               "recorded here take new events")
    return templates.TemplateResponse(request, "record.html", _context(rec))


@router.get("/matches/{match_id}/record/panel", response_class=HTMLResponse)
def record_panel(_: RecorderOnly, request: Request, match_id: MatchId, session: ReadSession,
                 seed: SeedQuery = None) -> HTMLResponse:
    """The part of the recorder's page that changes with each event (the page swaps it in)."""
    try:
        rec = load_recording(session.connection(), match_id, seed)
    except NotRecordable as exc:
        return HTMLResponse(f"<p class=\"finding error\">{html.escape(str(exc))}</p>", 409)
    return templates.TemplateResponse(request, "record_panel.html", _context(rec))


def _not_recordable(request: Request, match_id: int, message: str) -> HTMLResponse:
    return templates.TemplateResponse(request, "error.html", {
        "nav": "", "status": 409, "title": "This match cannot be recorded here",
        "message": message[:1].upper() + message[1:],
        "links": [(f"/matches/{match_id}", f"Match {match_id}"), ("/record", "Record a new match"),
                  ("/matches", "All matches")]}, status_code=409)


@api.get("/matches/{match_id}/menu", summary="What may be recorded next in a live match")
def menu_api(_: RecorderOnly, match_id: MatchId, session: ReadSession) -> Any:
    """Every event the rules allow next, as ready domino-match/1 objects to append, and
    for the seat to move every tile or action refused with the rule's reason."""
    try:
        rec = load_recording(session.connection(), match_id)
    except NotRecordable as exc:
        return JSONResponse({"error": {"code": "not-recordable", "message": str(exc)}}, 409)
    return {"match": match_id, "next_seq": rec.next_seq, **_menu_json(rec.menu),
            "undo": None if rec.last is None else
            {"type": "undo", "event": rec.last.index, "takes_back": rec.last.text}}


def _menu_json(m: Menu) -> dict[str, Any]:
    return {"need": m.need, "note": m.note, "redeal_allowed": m.redeal_allowed,
            "turns": [asdict(t) for t in m.turns], "reveal": [asdict(r) for r in m.reveal],
            "ending": [asdict(c) for c in m.ending]}
