"""The import page: a match file uploaded, read, audited and stored
(``ledger.store.write.import_bytes``), and the report on it."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request, UploadFile
from fastapi.responses import HTMLResponse

from ledger.formats.reader import ReadError
from ledger.store.write import EmptyUpload, TooLarge
from web.access import OwnerOnly
from web.deps import WriteSession
from web.import_report import ImportReport, import_report
from web.lang import request_language
from web.templating import templates

router = APIRouter(include_in_schema=False)


def refused_status(report: ImportReport) -> int:
    """200: something of the upload is in the ledger (stored now or before); 400: nothing
    of it could be read; 422: matches were read, and every one was refused."""
    if report.stored:
        return 200
    return 422 if report.read else 400


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
    else:
        status = refused_status(report)
    return templates.TemplateResponse(request, "import.html", {
        "nav": "import", "report": report if error is None else None, "error": error,
        "filename": name}, status_code=status)
