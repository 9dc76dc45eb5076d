"""The replay: one page per step (``?step=N&seat=S``) and the same frame as JSON."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel

from ledger.i18n import Language, Phrase
from ledger.replay import (
    DealLine,
    EventLabel,
    Frame,
    ReplayMatch,
    StepOutOfRange,
    deal_span,
    deals,
    frame,
    labels,
)
from ledger.scoresheet import ScoreSheet
from ledger.seatview import TABLE, Viewer
from ledger.store.handles import Session
from web.access import allowed_view
from web.deps import DbInt, MatchId, ReadSession, page_work
from web.lang import request_language
from web.matchdata import ReplayUnavailable, StoredMatch, load_match
from web.replay_chart import match_chart, points_lost
from web.replay_marks import Mark, kept_marks, past_last_move, shown_to, strip
from web.templating import templates
from web.wording import match_title

router = APIRouter(tags=["replay"])


# Where each seat sits around the drawn table: seat 0 at the bottom, then
# counter-clockwise ("to the right"), as the seeds pass the turn.
POSITIONS = {2: ("bottom", "top"), 3: ("bottom", "right", "top"),
             4: ("bottom", "right", "top", "left")}

StepQuery = Annotated[DbInt, Query(ge=0,
                                   description="0: before the first event; N: after N events")]
SeatQuery = Annotated[str | None, Query(
    max_length=8, pattern=r"^(\d{1,3}|table)?$",
    description="whose view: a seat (0, 1, ...), `table` for the table only (every hand "
                "face down), left out for all hands open (refused while a deal is being "
                "recorded, to those without the match's recorder key)")]


def _frame(request: Request, session: Session, match_id: int, step: int, seat: str | None
           ) -> tuple[StoredMatch, Frame]:
    match = load_match(session.connection(), match_id, step=step)
    return match, view_frame(request, match, step, seat)


def view_frame(request: Request, match: StoredMatch, step: int, seat: str | None) -> Frame:
    """The frame at ``step`` as ``seat`` may see it (web.access: no hand of a deal being
    recorded without its key)."""
    if match.replay is None:
        raise ReplayUnavailable(match.id, match.header.preset)
    viewer = allowed_view(request, match, step, Viewer.parse(seat))
    return frame(match.replay, step, snapshot=match.snapshot, viewer=viewer)


def _label(match: ReplayMatch, fr: Frame) -> EventLabel | None:
    if fr.event is None:
        return None
    return labels(match, fr.event, fr.event + 1, fr.sight)[0]


def _positions(seats: int, viewer: int | None) -> list[str]:
    """Each seat's place around the table; the viewing seat sits at the bottom."""
    places = POSITIONS.get(seats, ("bottom",) * seats)
    first = viewer or 0
    return [places[(s - first) % seats] for s in range(seats)]


def _deal_result(line: DealLine) -> Phrase | None:
    """How a deal ended, without the "Deal N: " its heading says already."""
    said = line.result_phrase
    if said is not None and said.template == "Deal {deal}: {what}":
        what = said.params.get("what")
        return what if isinstance(what, Phrase) else said
    return said


def _deal_groups(match: ReplayMatch, fr: Frame, lang: Language) -> list[dict[str, Any]]:
    """The event list: every deal as one line, the one on the table opened up.

    In a seat's or the table's view, only what had happened by the step (the next deal
    event included, so the line of the deal on the table stays open at step 0).
    """
    step = fr.step
    start, stop = deal_span(match.types, max(step, 1))
    events = labels(match, start, stop, None if fr.viewer.everyone else fr.sight)
    groups = []
    upto = None if fr.viewer.everyone else max(step, 1)
    for line in deals(match, upto):
        current = line.first_step - 1 <= start < line.last_step
        result = _deal_result(line)
        groups.append({
            "deal": line.deal, "first_step": line.first_step, "current": current,
            "title": lang.say("Deal {deal}", deal=line.deal) if line.deal
            else lang.say("Before the first deal"),
            "result": None if result is None else lang.word(result),
            "events": [e for e in events if e.deal == line.deal] if current else []})
    return groups


@router.get("/matches/{match_id}/replay", response_class=HTMLResponse, include_in_schema=False)
async def replay_page(request: Request, match_id: MatchId, session: ReadSession,
                      step: DbInt = 0, seat: SeatQuery = None) -> Response:
    return await page_work(request, partial(_replay_page, request, match_id, session, step,
                                            seat))


def _replay_page(request: Request, match_id: int, session: Session, step: int,
                 seat: str | None) -> Response:
    lang = request_language(request)
    base = f"/matches/{match_id}/replay"
    # A step before the first or past the last is the first or the last (issue 16): an
    # address typed or kept from before an undo still opens the match.
    if step < 0:
        return RedirectResponse(_url(base, 0, seat), status_code=307)
    try:
        match, fr = _frame(request, session, match_id, step, seat)
    except StepOutOfRange as exc:
        return RedirectResponse(_url(base, exc.last, seat), status_code=307)
    assert match.rules is not None
    # Most matches have no analysis kept: then the query for their points lost is skipped.
    conn = session.connection()
    lost = points_lost(conn, match_id, match.rules) if match.analysed else {}
    return templates.TemplateResponse(
        request, "replay.html",
        page_context(match, fr, lang, lost, marks=kept_marks(request, conn, match)))


def _url(base: str, to: int, view: int | str | None) -> str:
    return f"{base}?step={to}" + ("" if view is None or view == "" else f"&seat={view}")


def page_context(match: StoredMatch, fr: Frame, lang: Language,
                 lost: dict[int, list[int]] | None = None,
                 charts: dict[tuple[int, bool], Any] | None = None,
                 marks: Mapping[int, Mark] | None = None) -> dict[str, Any]:
    """What replay.html draws for one frame (``lost``: the points each deal's analysed
    mistakes lost, for the whole-match chart; ``charts``: the charts made for other
    steps of the same view, web.replay_frames's, kept by the deals over by the step;
    ``marks``: the kept review's decisions by event, web.replay_marks's)."""
    assert match.replay is not None and match.rules is not None
    match_id = match.id
    base = f"/matches/{match_id}/replay"

    def url(to: int, view: int | str | None) -> str:
        return _url(base, to, view)

    sheet = match.sheet()
    return {
        "nav": "matches",
        "match_id": match_id,
        "title": match_title(sheet, lang),
        "table_label": sheet.table_text(lang),
        "preset": match.header.preset,
        "frame": fr,
        "seat": fr.viewer.seat,
        "view": str(fr.viewer),
        "table_view": TABLE,
        "url": url,
        "positions": _positions(len(fr.hands), fr.viewer.seat),
        "teams": match.rules.teams,
        "players": tuple(match.header.seats),  # findings name each seat's player (issue 34)
        "fives": match.rules.fives,
        "sides": sheet.sides,
        "current": _label(match.replay, fr),
        "deals": _deal_groups(match.replay, fr, lang),
        "match_chart": _match_chart(match, sheet, fr, lang, lost, charts),
        **_marks(match.types, fr, marks or {}),
        # A live match's replay follows it as it is recorded (templates/_follow.html).
        "follow": {"id": match_id, "replay": True, "last": fr.last_step,
                   "status": match.status} if match.origin == "live" else None,
    }


def _marks(types: Sequence[str], fr: Frame, marks: Mapping[int, Mark]) -> dict[str, Any]:
    """The marks of the event list the view may see (web.replay_marks says which), and the
    strip of the deal on the table's decisions."""
    if not marks:
        return {"marks": {}, "strip": []}
    start, stop = deal_span(types, max(fr.step, 1))
    seen = shown_to(marks, fr.viewer, fr.step, past_last_move(types, start, stop, fr.step))
    return {"marks": seen, "strip": strip(seen, start, stop)}


def _match_chart(match: StoredMatch, sheet: ScoreSheet, fr: Frame, lang: Language,
                 lost: dict[int, list[int]] | None,
                 charts: dict[tuple[int, bool], Any] | None) -> Any:
    assert match.replay is not None
    # A seat's or the table's view charts only the deals over by its step: a deal is over
    # at the step before the next deal event, or at the last step.
    upto = None if fr.viewer.everyone else fr.step
    key = ((-1, True) if upto is None else
           (sum(s - 1 <= upto for s in fr.deal_steps), upto >= fr.last_step))
    if charts is None or key not in charts:
        made = match_chart(match.replay, sheet, lost or {}, lang, upto=upto)
        if charts is None:
            return made
        charts[key] = made
    return charts[key]


# --- JSON ----------------------------------------------------------------------------


class TileOut(BaseModel):
    tile: str
    x: float
    y: float
    vertical: bool
    first: int
    second: int
    arm: str
    step: int


class BoardOut(BaseModel):
    tiles: list[TileOut]
    box: dict[str, float]
    ends: list[dict[str, Any]]
    spinner: int | None
    fives: int | None


class HandOut(BaseModel):
    seat: int
    name: str
    side: int
    tiles: list[str]
    hidden: int
    seen: list[str]
    pips: int | None
    bot: bool
    to_move: bool
    leader: bool


class FindingOut(BaseModel):
    event: int | None
    severity: str
    code: str
    message: str


class EventOut(BaseModel):
    index: int
    step: int
    type: str
    deal: int
    seat: int | None
    text: str
    notes: list[str]
    findings: list[FindingOut]


class ReplayFrameOut(BaseModel):
    match: int
    step: int
    last_step: int
    event: EventOut | None
    deal: int
    phase: str
    perspective: int | None
    view: str
    board: BoardOut
    hands: list[HandOut]
    stock: int | None
    stock_tiles: list[str] | None
    turn: int | None
    scores: list[int]
    in_deal: list[int]
    teams: bool
    deal_steps: list[int]
    prev_deal_step: int | None
    next_deal_step: int | None
    readable: bool
    stopped_at: int | None
    findings: list[FindingOut]
    result: str | None


def frame_json(match_id: int, fr: Frame, current: EventLabel | None) -> dict[str, Any]:
    b = fr.board
    event = None
    if current is not None:
        event = {"index": current.index, "step": current.step, "type": current.type,
                 "deal": current.deal, "seat": current.seat, "text": current.text,
                 "notes": list(current.notes),
                 "findings": [f.to_dict() for f in current.findings]}
    return {
        "match": match_id,
        "step": fr.step,
        "last_step": fr.last_step,
        "event": event,
        "deal": fr.deal,
        "phase": fr.phase,
        "perspective": fr.perspective,
        "view": str(fr.viewer),
        "board": {"tiles": [asdict(t) for t in b.tiles], "box": asdict(b.box),
                  "ends": [{"end": name, "number": n} for name, n in b.ends],
                  "spinner": b.spinner, "fives": b.fives},
        "hands": [asdict(h) for h in fr.hands],
        "stock": fr.stock,
        "stock_tiles": fr.stock_tiles,
        "turn": fr.turn,
        "scores": list(fr.scores),
        "in_deal": list(fr.in_deal),
        "teams": fr.teams,
        "deal_steps": list(fr.deal_steps),
        "prev_deal_step": fr.prev_deal_step,
        "next_deal_step": fr.next_deal_step,
        "readable": fr.readable,
        "stopped_at": fr.stopped_at,
        "findings": [f.to_dict() for f in fr.findings],
        "result": fr.result,
    }


@router.get("/api/matches/{match_id}/replay", response_model=ReplayFrameOut,
            summary="One step of a match's replay",
            description="The table after `step` recorded events: the tiles on the table laid "
                        "out for drawing (half-tile units), open ends, the Fives count, the "
                        "hands as `seat` saw them (all face up when `seat` is left out, all face "
                        "down for `seat=table`), the event just done as that view saw it, the "
                        "stock, whose turn it is and the scores.")
def replay_api(request: Request, match_id: MatchId, session: ReadSession,
               step: StepQuery = 0, seat: SeatQuery = None) -> dict[str, Any]:
    match, fr = _frame(request, session, match_id, step, seat)
    return frame_answer(match, fr)


def frame_answer(match: StoredMatch, fr: Frame) -> dict[str, Any]:
    """The JSON answer for one frame."""
    assert match.replay is not None
    return frame_json(match.id, fr, _label(match.replay, fr))
