"""The pages a person reads: the matches list, a match with its score sheet, the import.

Also what those pages load from the app itself and nowhere else: the static
files, Plotly's JavaScript (served from the installed plotly package) and the
Swagger UI of ``/docs`` (from the installed swagger-ui-bundle package).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, FastAPI, Query, Request, UploadFile
from fastapi.exception_handlers import (
    http_exception_handler,
    request_validation_exception_handler,
)
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from ledger.findings import IllegalEvent
from ledger.formats.reader import ReadError
from ledger.i18n import Language
from ledger.i18n.phrases import N_, Worded
from ledger.replay import SeatOutOfRange, StepOutOfRange, deals
from ledger.rules import PRESETS
from ledger.store.errors import MatchNotFound, StoreError
from ledger.store.read import (
    AUDITS,
    RESULTS,
    BadFilter,
    Filters,
    ListPage,
    list_page,
    player_names,
)
from ledger.store.write import EmptyUpload, TooLarge
from web import assets, errors
from web.access import OwnerOnly
from web.assets import asset_url
from web.charts import score_race
from web.deps import DbInt, MatchId, ReadSession, WriteSession
from web.import_report import ImportReport, import_report
from web.lang import request_language
from web.matchdata import ReplayUnavailable, StoredMatch, load_match
from web.templating import STATIC_DIR, templates
from web.wording import match_title, table_words

router = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api", tags=["matches"])

_CACHE = {"Cache-Control": "public, max-age=86400"}


# --- files the pages load -----------------------------------------------------------


def _package_dir(name: str) -> Path:
    # Found without importing the package: plotly's import alone takes a third of a second.
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise RuntimeError(f"the {name} package is not installed")
    return Path(spec.origin).resolve().parent


def _swagger_dir() -> Path:
    # swagger_ui_bundle/vendor/swagger-ui-<version>/: whichever version is installed.
    found = sorted((_package_dir("swagger_ui_bundle") / "vendor").glob("swagger-ui-*"))
    if not found:
        raise RuntimeError("swagger-ui-bundle holds no swagger-ui")
    return found[-1]


_SWAGGER_FILES = {"swagger-ui-bundle.js", "swagger-ui.css"}


@router.get("/static/vendor/plotly.min.js")
def plotly_js() -> RedirectResponse:
    # The old address: Plotly is served compressed under its content-hashed name.
    return RedirectResponse(asset_url("vendor/plotly.min.js"), status_code=307)


@router.get("/static/vendor/swagger/{name}")
def swagger_file(name: str) -> Response:
    if name not in _SWAGGER_FILES:
        return Response(status_code=404)
    kind = "text/css" if name.endswith(".css") else "text/javascript"
    return FileResponse(_swagger_dir() / name, media_type=kind, headers=_CACHE)


_BACK = ('<nav aria-label="domino-ledger" style="padding:.6rem 1.2rem;background:#1d3b2a;'
         'font:600 1rem system-ui,sans-serif"><a id="back-to-app" href="/matches" '
         'style="color:#e9f1ec;text-decoration:none">&larr; domino-ledger</a></nav>')


@router.get("/docs")
def docs() -> HTMLResponse:
    page = get_swagger_ui_html(
        openapi_url="/openapi.json", title="domino-ledger API",
        swagger_js_url="/static/vendor/swagger/swagger-ui-bundle.js",
        swagger_css_url="/static/vendor/swagger/swagger-ui.css",
        swagger_favicon_url="/static/favicon.svg",
        swagger_ui_parameters={"validatorUrl": None})
    # Swagger's page has no way back to the app (issue 16): a bar above it has one.
    html = bytes(page.body).decode().replace("<body>", "<body>" + _BACK, 1)
    return HTMLResponse(html)


def install(app: FastAPI) -> None:
    """Add the pages, the replay and the static files to the app (one call in create_app)."""
    from web.routes import glossary, replay

    app.include_router(router)
    app.include_router(assets.router)  # /assets/<digest>/...: static files, cached for good
    app.include_router(api)
    app.include_router(replay.router)
    app.include_router(glossary.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    # Pages answer errors with a page a person can read; /api keeps web.errors' JSON.
    for cls in (StoreError, IllegalEvent, StepOutOfRange, SeatOutOfRange, ReplayUnavailable,
                StarletteHTTPException, RequestValidationError):
        app.add_exception_handler(cls, page_error)


_TITLES = {MatchNotFound: N_("No such match"), StepOutOfRange: N_("No such step"),
           SeatOutOfRange: N_("No such seat"),
           ReplayUnavailable: N_("This match cannot be replayed")}


def _own_error(exc: Exception) -> tuple[int, str, str] | None:
    """Status, code and message of the errors the pages raise themselves."""
    if isinstance(exc, StepOutOfRange):
        return 404, "step-out-of-range", str(exc)
    if isinstance(exc, SeatOutOfRange):
        return 404, "seat-out-of-range", str(exc)
    if isinstance(exc, ReplayUnavailable):
        return 422, "replay-unavailable", str(exc)
    return None


def _worded_error(exc: Exception, lang: Language) -> str | None:
    """The message of a page's error in the reader's language (None: as it was raised)."""
    if isinstance(exc, MatchNotFound):
        return lang.say("there is no match {match} in the ledger", match=exc.match_id)
    if isinstance(exc, StepOutOfRange):
        return lang.say("step {step} does not exist: this match has steps 0 to {last}",
                        step=exc.step, last=exc.last)
    if isinstance(exc, SeatOutOfRange):
        return lang.say("seat {seat} does not exist: this match has seats 0 to {last}",
                        seat=exc.seat, last=exc.seats - 1)
    if isinstance(exc, ReplayUnavailable):
        return lang.say("match {match} is played at a table the ledger does not know "
                        "({preset}), so it cannot be replayed", match=exc.match_id,
                        preset=repr(exc.preset))
    if isinstance(exc, IllegalEvent):
        f = exc.finding
        return lang.say("event {event}: {message} [{code}]", event=f.event,
                        message=Worded(lang.finding(f)), code=f.code)
    return None


async def page_error(request: Request, exc: Exception) -> Response:
    api_call = request.url.path.startswith("/api/") or request.url.path == "/openapi.json"
    own = _own_error(exc)
    lang = request_language(request)
    if isinstance(exc, (StoreError, IllegalEvent)):
        answer = await errors.domain_error(request, exc)
        if api_call:
            return answer
        status = answer.status_code
        message = exc.message if isinstance(exc, StoreError) else str(exc)
    elif own is not None:
        status, code, message = own
        if api_call:
            return JSONResponse({"error": {"code": code, "message": message}}, status)
    elif isinstance(exc, RequestValidationError):
        if api_call:
            return await request_validation_exception_handler(request, exc)
        status = 422
        message = "; ".join(_validation_text(e) for e in exc.errors())
    elif isinstance(exc, StarletteHTTPException):
        if api_call:
            return await http_exception_handler(request, exc)
        status = exc.status_code
        message = (lang.say("There is no page at this address.") if status == 404
                   else str(exc.detail))
    else:
        raise exc
    message = _worded_error(exc, lang) or message
    title = lang.say(next((t for cls, t in _TITLES.items() if isinstance(exc, cls)),
                          N_("Page not found") if status == 404
                          else N_("Something is not right")))
    links = [("/matches", lang.say("All matches")), ("/import", lang.say("Import a file"))]
    found = re.match(r"/matches/(\d+)/replay", request.url.path)
    if found and not isinstance(exc, MatchNotFound):
        links.insert(0, (f"/matches/{found.group(1)}/replay?step=0",
                         lang.say("The replay's first step")))
        links.insert(0, (f"/matches/{found.group(1)}",
                         lang.say("Match {match}", match=int(found.group(1)))))
    return templates.TemplateResponse(request, "error.html", {
        "nav": "", "status": status, "title": title,
        "message": message[:1].upper() + message[1:], "links": links}, status_code=status)


def _validation_text(err: Any) -> str:
    where = ".".join(str(p) for p in err.get("loc", ())[1:]) or "the request"
    return f"{where}: {err.get('msg', 'not valid')}"


# --- pages --------------------------------------------------------------------------


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


def _deal_steps(match: StoredMatch) -> dict[int, int]:
    """The replay step at which each deal (by number) is dealt."""
    if match.replay is None:
        return {}
    return {line.deal: line.first_step for line in deals(match.replay) if line.deal}


@router.get("/matches/{match_id}", response_class=HTMLResponse)
def match_page(request: Request, match_id: MatchId, session: ReadSession) -> HTMLResponse:
    lang = request_language(request)
    match = load_match(session.connection(), match_id, worded=lang.code != "en")
    sheet = match.sheet()
    steps = _deal_steps(match)
    return templates.TemplateResponse(request, "match.html", {
        "nav": "matches",
        "match": match,
        "title": match_title(sheet, lang),
        "sheet": sheet,
        "table": table_words(sheet, lang),
        "deal_links": [f"/matches/{match_id}/replay?step={steps.get(row.deal, 0)}"
                       for row in sheet.deals],
        "chart": score_race(sheet, lang) if sheet.deals else None,
    })


_SHEET_TYPES = {"csv": "text/csv; charset=utf-8", "json": "application/json",
                "pdf": "application/pdf"}


@router.get("/matches/{match_id}/sheet.{fmt}")
def sheet_file(request: Request, match_id: MatchId, fmt: str, session: ReadSession) -> Response:
    """The score sheet as a file (the CLI's export), in the page's language."""
    if fmt not in _SHEET_TYPES:
        raise StarletteHTTPException(404)
    lang = request_language(request)
    sheet = load_match(session.connection(), match_id, worded=lang.code != "en").sheet()
    if fmt == "csv":
        from ledger.exports.csv_export import csv_bytes

        data = csv_bytes([sheet], lang)
    elif fmt == "json":
        from ledger.exports.json_export import json_bytes

        data = json_bytes([sheet], lang)
    else:
        from ledger.exports.pdf_export import pdf_bytes  # fpdf loads only for a PDF

        data = pdf_bytes([sheet], lang)
    name = f"match-{match_id}-{lang.code}.{fmt}"
    return Response(data, media_type=_SHEET_TYPES[fmt],
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@api.get("/matches/{match_id}/scoresheet", summary="A match's score sheet")
def scoresheet_api(match_id: MatchId, session: ReadSession) -> dict[str, Any]:
    """Each deal's leader, result, winner, points, Fives in-deal points and running
    totals, the final result and the audit status: the one sheet every export uses."""
    return load_match(session.connection(), match_id).sheet().to_dict()


# --- import ---------------------------------------------------------------------------


@router.get("/import", response_class=HTMLResponse)
def import_form(request: Request) -> HTMLResponse:
    return templates.TemplateResponse(request, "import.html", {
        "nav": "import", "report": None, "error": None, "filename": ""})


@router.post("/import", response_class=HTMLResponse)
def import_upload(_: OwnerOnly, request: Request, file: UploadFile,
                  session: WriteSession) -> HTMLResponse:
    """A plain ``def``: the copy, the reading and the storing run in a worker thread, so
    an upload of any size never stops the server answering other requests."""
    lang = request_language(request)
    name = Path(file.filename or "upload.json").name
    report: ImportReport | None = None
    error: str | None = None
    status = 200
    try:
        report = import_report(session, file.file, name, lang)
    except TooLarge as exc:
        error = lang.say("{name} is larger than {size} MiB", name=name,
                         size=exc.limit // 2**20)
        status = 413
    except EmptyUpload:
        error, status = lang.say("{name} is empty: there is no match in it", name=name), 400
    except ReadError as exc:
        error, status = lang.say(exc.template, **exc.params), 400
    return templates.TemplateResponse(request, "import.html", {
        "nav": "import", "report": report if error is None else None, "error": error,
        "filename": name}, status_code=status)
