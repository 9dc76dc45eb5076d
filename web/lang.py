"""The language of a page: chosen per request, remembered in a cookie, used by the templates.

The choice, first that applies: ``?lang=`` (which also sets the cookie), the
``lang`` cookie, the browser's Accept-Language, English. Templates get, per
request, the gettext callables of Jinja2's i18n extension (newstyle: ``_("Match
%(id)s", id=...)`` and ``{% trans %}`` format and escape their variables), the
``Language`` (``lang.say``, ``lang.word``, ``lang.finding``, ``lang.dir``) and
``lang_url(code)`` for the switcher. Nothing is installed in the shared Jinja2
environment, so two requests in two languages never see each other's catalog.

In a right-to-left language every value put into a sentence is wrapped in a
Unicode isolate, as ``ledger.i18n`` does for findings: a number, a tile or a
Latin name keeps its own order inside the Arabic around it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from jinja2 import pass_eval_context
from jinja2.nodes import EvalContext
from markupsafe import Markup, escape
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ledger.i18n import DEFAULT, NAMES, RTL, SUPPORTED, Language, language, negotiate, normalize
from ledger.i18n.phrases import FSI, LRI, PDI, Said

COOKIE = "lang"
PARAM = "lang"
COOKIE_AGE = 365 * 24 * 3600
SCRIPTS = Path(__file__).resolve().parent / "static" / "js"


def chosen(query: str | None, cookie: str | None, accept: str | None) -> str:
    """The language code for a request's ?lang=, its cookie and its Accept-Language."""
    for tag in (query, cookie):
        code = normalize(tag)
        if code is not None:
            return code
    return negotiate(accept)


def request_language(request: Request) -> Language:
    """The page language of a request (worked out once per request)."""
    found = getattr(request.state, "language", None)
    if isinstance(found, Language):
        return found
    lang = language(chosen(request.query_params.get(PARAM), request.cookies.get(COOKIE),
                           request.headers.get("accept-language")))
    request.state.language = lang
    return lang


def lang_url(request: Request, code: str) -> str:
    """This page's address in another language (its other query parameters kept)."""
    params = [(k, v) for k, v in request.query_params.multi_items() if k != PARAM]
    params.append((PARAM, code))
    return f"{request.url.path}?{urlencode(params)}"


class LanguageCookie:
    """ASGI middleware: ``?lang=`` is remembered in a cookie; HTML pages vary by language."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        code = normalize(request.query_params.get(PARAM))

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if code is not None:
                    headers.append("set-cookie", f"{COOKIE}={code}; Path=/; "
                                                 f"Max-Age={COOKIE_AGE}; SameSite=Lax; HttpOnly")
                if headers.get("content-type", "").startswith("text/html"):
                    headers.append("vary", "Accept-Language, Cookie")
            await send(message)

        await self.app(scope, receive, send_with_cookie)


# --- what the templates get ---------------------------------------------------------


def _isolated(value: Any, rtl: bool) -> Any:
    # Markup is HTML the template made itself (a link's address): put in as it is.
    if not rtl or isinstance(value, Markup):
        return value
    mark = LRI if isinstance(value, int) and not isinstance(value, bool) else FSI
    return Markup(mark) + escape(value) + Markup(PDI)


def _format(eval_ctx: EvalContext, text: str, variables: Mapping[str, Any], rtl: bool) -> str:
    if eval_ctx.autoescape:
        text = Markup(text)
    if not variables:
        return text
    return text % {k: _isolated(v, rtl) for k, v in variables.items()}


@cache
def callables(code: str) -> dict[str, Callable[..., str]]:
    """Newstyle gettext, ngettext, pgettext and npgettext of a language, for Jinja2."""
    lang = language(code)
    tr, rtl = lang.translations, lang.rtl
    # The evaluation context, not the whole context: Jinja2 copies every variable into a
    # new context for a ``pass_context`` call made in a loop or a block, which cost each
    # replay step more than its translations did.
    said: dict[str, Markup] = {}  # sentences without variables, made once each

    @pass_eval_context
    def gettext(eval_ctx: EvalContext, message: str, /, **variables: Any) -> str:
        if not variables and eval_ctx.autoescape:
            made = said.get(message)
            if made is None:
                made = said[message] = Markup(tr.gettext(message))
            return made
        return _format(eval_ctx, tr.gettext(message), variables, rtl)

    @pass_eval_context
    def ngettext(eval_ctx: EvalContext, singular: str, plural: str, n: int, /,
                 **variables: Any) -> str:
        variables.setdefault("num", n)
        return _format(eval_ctx, tr.ngettext(singular, plural, n), variables, rtl)

    @pass_eval_context
    def pgettext(eval_ctx: EvalContext, ctx: str, message: str, /, **variables: Any) -> str:
        return _format(eval_ctx, tr.pgettext(ctx, message), variables, rtl)

    @pass_eval_context
    def npgettext(eval_ctx: EvalContext, ctx: str, singular: str, plural: str, n: int, /,
                  **variables: Any) -> str:
        variables.setdefault("num", n)
        return _format(eval_ctx, tr.npgettext(ctx, singular, plural, n), variables, rtl)

    return {"gettext": gettext, "_": gettext, "ngettext": ngettext, "pgettext": pgettext,
            "npgettext": npgettext}


# A sentence of a page's script: _("...") with a plain double-quoted string (what Babel's
# JavaScript extraction, babel.cfg, finds too).
_JS_SENTENCE = re.compile(r'\b_\(\s*"((?:[^"\\\n]|\\.)*)"')


@cache
def _script_msgids(name: str) -> tuple[str, ...]:
    text = (SCRIPTS / name).read_text(encoding="utf-8")
    return tuple(dict.fromkeys(json.loads(f'"{lit}"') for lit in _JS_SENTENCE.findall(text)))


@cache
def js_words(code: str, name: str) -> dict[str, str]:
    """The sentences of a script in web/static/js in a language (msgid -> text), for the
    page to hand it in a JSON block; English: none (the script's own words)."""
    if code == DEFAULT:
        return {}
    tr = language(code).translations
    return {msgid: tr.gettext(msgid) for msgid in _script_msgids(name)}


@cache
def plot_locale(code: str) -> dict[str, Any] | None:
    """Plotly's locale for a language, for web/static/js/plot.js to register: the words of
    Plotly's own that a chart can show (its toolbar's titles and notes, listed in plot.js)
    from the catalogs, and the number separators of the language (Latin digits, as the
    pages write them). English: None, Plotly's own words."""
    if code == DEFAULT:
        return None
    from babel.numbers import get_decimal_symbol, get_group_symbol

    return {"moduleType": "locale", "name": code,
            "dictionary": js_words(code, "plot.js"),
            "format": {"decimal": get_decimal_symbol(code, numbering_system="latn"),
                       "thousands": get_group_symbol(code, numbering_system="latn")}}


def template_context(request: Request) -> dict[str, Any]:
    """What every page's template gets about its language (a Jinja2Templates processor)."""
    lang = request_language(request)
    return {
        **callables(lang.code),
        "lang": lang,
        "languages": [(code, NAMES[code], "rtl" if code in RTL else "ltr")
                      for code in SUPPORTED],
        "lang_url": lambda code: lang_url(request, code),
        "js_words": lambda name: js_words(lang.code, name),
        "plot_locale": lambda: plot_locale(lang.code),  # Plotly's words (plot.js)
        # English text that keeps its wording (a label, a reason): in the page's language
        "words": lambda text: lang.word(text.phrase) if isinstance(text, Said) else text,
    }
