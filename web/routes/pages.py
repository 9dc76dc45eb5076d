"""The pages a person reads, put together: the matches list, a match with its score sheet
and its files, the replay, the glossary, the import, the files the pages load and
``/docs``, and the page answers to errors (one call in create_app)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from web import assets
from web.routes import (
    glossary,
    knowledge,
    match,
    matches,
    page_errors,
    replay,
    sheets,
    upload,
    vendor,
)
from web.templating import STATIC_DIR


def install(app: FastAPI) -> None:
    """Add the pages, the replay and the static files to the app (one call in create_app)."""
    app.include_router(vendor.router)
    app.include_router(matches.router)
    app.include_router(match.router)
    app.include_router(sheets.router)
    app.include_router(upload.router)
    app.include_router(assets.router)  # /assets/<digest>/...: static files, cached for good
    app.include_router(match.api)
    app.include_router(knowledge.router)  # a match's review by what each player knew
    app.include_router(knowledge.api)
    app.include_router(replay.router)
    app.include_router(glossary.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    # Pages answer errors with a page a person can read; /api keeps web.errors' JSON.
    for cls in page_errors.HANDLED:
        app.add_exception_handler(cls, page_errors.page_error)
