"""The Jinja2 environment of the pages: templates, autoescaping, and domino faces.

Every page is rendered on the server; autoescaping is on for every template,
so player names and any text read from a match file reach the page escaped.
Every page is worded in its request's language (web.lang: gettext per request).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from ledger.glossary import table_name
from ledger.i18n import seat_named
from web.assets import STATIC_DIR as STATIC_DIR  # the static folder, as web.assets serves it
from web.assets import asset_url, plotly_bundle
from web.domino_svg import board_tile, defs, half, hand, svg_num
from web.lang import template_context
from web.wording import match_title

HERE = Path(__file__).resolve().parent
TEMPLATES_DIR = HERE / "templates"

def _env() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES_DIR)),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
        auto_reload=False,  # templates do not change under a running server: no stat per page
    )
    # {% trans %} and _() take their gettext from each request's context (web.lang), in
    # the newstyle way: they format and escape their own variables. A trans block's
    # whitespace is folded, as babel.cfg extracts it.
    env.newstyle_gettext = True  # type: ignore[attr-defined]  # the i18n extension adds it
    env.policies["ext.i18n.trimmed"] = True
    env.globals["asset_url"] = asset_url  # a static file's content-hashed address
    env.globals["plotly_bundle"] = plotly_bundle  # the name of the Plotly script served
    env.globals["table_name"] = table_name  # a table's name in a language (ledger.glossary)
    env.globals["match_title"] = match_title  # "Ali vs Omar" in a language
    env.globals["seat_named"] = seat_named  # "Karim (seat 1)": lang.word(seat_named(i, name))
    env.globals["domino_defs"] = defs  # domino tiles in SVG (web.domino_svg): the pips,
    env.globals["board_tile"] = board_tile  # a tile on the table, a hand, a chip's half
    env.globals["domino_hand"] = hand
    env.globals["domino_half"] = half
    env.filters["num"] = svg_num
    env.filters["source"] = source_label
    env.filters["bdi"] = bdi
    env.filters["tiles"] = tiles
    return env


def bdi(value: Any) -> Markup:
    """A name or a list to put inside a sentence, isolated (``<bdi>``), so that an Arabic
    name in an English sentence (or the reverse) does not reorder the words around it."""
    return Markup("<bdi>{}</bdi>").format(value)


_TILE = re.compile(r"\d-\d")


def tiles(value: Any) -> Markup:
    """A worded move with each tile kept whole and left to right (``<bdi dir="ltr">``,
    which the style sheet keeps on one line): a line may not break a tile at its hyphen,
    which in a right-to-left sentence read "3-1" as "-3 1"."""
    return Markup(_TILE.sub(lambda m: f'<bdi dir="ltr">{m.group(0)}</bdi>', str(escape(value))))


def source_label(source: Any) -> str:
    """A record's ``source`` object as one line: "playelephant t-99812"."""
    if isinstance(source, dict):
        return " ".join(str(v) for v in source.values())
    return "" if source is None else str(source)


templates = Jinja2Templates(env=_env(), context_processors=[template_context])
