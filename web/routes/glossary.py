"""The glossary pages: each table's words as its players know them (ledger.glossary)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from starlette.exceptions import HTTPException

from ledger.glossary import GLOSSARIES, entries
from ledger.i18n import NAMES
from ledger.rules import PRESETS
from web.lang import request_language
from web.templating import templates

router = APIRouter(include_in_schema=False)


def _tables(code: str) -> list[dict[str, Any]]:
    return [{"preset": g.preset, "name": g.name(code), "title": g.name("en"),
             "languages": [(c, NAMES.get(c, c)) for c in g.languages], "terms": len(g.terms)}
            for g in GLOSSARIES.values()]


@router.get("/glossary", response_class=HTMLResponse)
def glossary_index(request: Request) -> HTMLResponse:
    lang = request_language(request)
    return templates.TemplateResponse(request, "glossary.html", {
        "nav": "glossary", "tables": _tables(lang.code), "table": None})


@router.get("/glossary/{preset}", response_class=HTMLResponse)
def glossary_page(request: Request, preset: str) -> HTMLResponse:
    g = GLOSSARIES.get(preset)
    if g is None:
        raise HTTPException(404)
    lang = request_language(request)
    table = {"preset": g.preset, "name": g.name(lang.code), "title": g.name("en"),
             "seed": g.seed, "known": preset in PRESETS,
             "languages": [(c, NAMES.get(c, c)) for c in g.languages],
             "entries": entries(preset, lang),
             # the language each term is shown in: the reader's, else English
             "word_langs": [lang.code if lang.code in t.words else "en" for t in g.terms]}
    return templates.TemplateResponse(request, "glossary.html", {
        "nav": "glossary", "tables": _tables(lang.code), "table": table})
