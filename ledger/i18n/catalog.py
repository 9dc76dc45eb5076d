"""The shipped languages, their gettext catalogs, and choosing one.

Catalogs live in ``locale/<lang>/LC_MESSAGES/domino_ledger.po`` (the
translations) and ``.mo`` (compiled: ``python -m ledger.i18n.build``; a test
fails when a ``.mo`` is stale). English is the templates themselves.
"""

from __future__ import annotations

import gettext
import io
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from ledger.i18n.phrases import FSI, PDI, Phrase, join, render

if TYPE_CHECKING:
    from ledger.findings import Finding

DOMAIN = "domino_ledger"
LOCALE_DIR = Path(__file__).parent / "locale"
DEFAULT = "en"
# Every shipped language, English first; a language is shipped when its catalog is
# complete (tests/i18n checks each msgid has a translation).
SUPPORTED: tuple[str, ...] = ("en", "ar", "pt", "es")
NAMES: Mapping[str, str] = {  # each language in its own words, for a language switcher
    "en": "English", "ar": "العربية", "pt": "Português", "es": "Español",
}
RTL = frozenset({"ar"})


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(lang: str) -> Path:
    return po_path(lang).with_suffix(".mo")


def normalize(tag: str | None) -> str | None:
    """A shipped language for a locale or language tag ("ar_EG.UTF-8", "pt-BR", "es"),
    or None ("C", "POSIX", a language not shipped)."""
    if not tag:
        return None
    base = tag.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].strip().lower()
    return base if base in SUPPORTED else None


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language of the user's locale, as gettext looks it up: LANGUAGE (a list, when a
    locale is set at all), then LC_ALL, LC_MESSAGES, LANG; English if none is shipped."""
    env = os.environ if environ is None else environ
    locale = next((env[k] for k in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(k)), "")
    if env.get("LANGUAGE") and normalize(locale) is not None:
        for tag in env["LANGUAGE"].split(":"):
            lang = normalize(tag)
            if lang is not None:
                return lang
    return normalize(locale) or DEFAULT


def negotiate(accept_language: str | None) -> str:
    """The best shipped language for an HTTP Accept-Language header ("ar-EG,ar;q=0.9,en;q=0.8");
    English when the header names none of them."""
    if not accept_language:
        return DEFAULT
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate(accept_language.split(",")):
        tag, _, rest = part.strip().partition(";")
        q = 1.0
        for param in rest.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        tag = tag.strip()
        lang = DEFAULT if tag == "*" else normalize(tag)
        if lang is not None and q > 0:
            ranked.append((-q, position, lang))
    return min(ranked)[2] if ranked else DEFAULT


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The gettext translations of a shipped language (Jinja2's i18n extension takes it:
    ``env.install_gettext_translations(translations(lang), newstyle=True)``)."""
    code = normalize(lang)
    if code is None:
        raise ValueError(f"language {lang!r} is not shipped (shipped: {', '.join(SUPPORTED)})")
    if code == DEFAULT:
        return gettext.NullTranslations()
    mo = mo_path(code)
    if mo.exists():
        with mo.open("rb") as fh:
            return gettext.GNUTranslations(fh)
    return gettext.GNUTranslations(io.BytesIO(compile_po(po_path(code))))


def compile_po(po: Path) -> bytes:
    """A ``.po`` catalog compiled to ``.mo`` bytes (Babel: only when building)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as fh:
        catalog = read_po(fh)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


@dataclass(frozen=True)
class Language:
    """A shipped language: its catalog and direction, and wording in it."""

    code: str
    rtl: bool
    translations: gettext.NullTranslations
    # The players' names by seat: a seat in a sentence is "Karim (seat 1)" (issue 34).
    seats: tuple[str, ...] = ()

    def seated(self, names: Sequence[str] | None) -> Language:
        """This language naming each seat's player (``names`` by 0-based seat)."""
        return replace(self, seats=tuple(names or ()))

    @property
    def name(self) -> str:
        return NAMES[self.code]

    @property
    def dir(self) -> str:
        """The HTML ``dir`` of the language: "rtl" or "ltr"."""
        return "rtl" if self.rtl else "ltr"

    def say(self, template: str, /, **params: object) -> str:
        """A sentence of the catalogs in this language (tiles and numbers isolated in RTL)."""
        return render(template, params, self.translations, self.rtl, seats=self.seats)

    def say_n(self, singular: str, plural: str, count: int, /, **params: object) -> str:
        """A counted sentence ("{count} error(s)"): the plural form the language needs."""
        return render(singular, {"count": count, **params}, self.translations, self.rtl,
                      plural, self.seats)

    def join(self, items: Sequence[object]) -> str:
        """Phrases, numbers or text as a list ("a, b, c"; in Arabic with its comma)."""
        return join(items, self.translations, self.rtl, self.seats)

    def word(self, phrase: Phrase) -> str:
        return render(phrase.template, phrase.params, self.translations, self.rtl,
                      phrase.plural, self.seats)

    def isolate(self, text: str) -> str:
        """Verbatim text (a name, a path) set apart from the sentence around it in RTL."""
        return f"{FSI}{text}{PDI}" if self.rtl and text else text

    def finding(self, finding: Finding, *, bare: bool = False,
                seats: Sequence[str] | None = None) -> str:
        """A finding's sentence in this language; ``bare`` leaves out the "event N: " that
        the reader puts first (a line that names the event already); ``seats``: the
        players' names, each seat said "Karim (seat 1)". A finding without a template (a
        bare message read back from storage) stays as it was written."""
        if seats is not None and tuple(seats) != self.seats:
            return self.seated(seats).finding(finding, bare=bare)
        if not finding.template:
            message = finding.message
            prefix = f"event {finding.event}: "
            return message.removeprefix(prefix) if bare and finding.event is not None \
                else message
        if bare and finding.template == "event {event}: {reason}":
            reason = finding.params.get("reason")
            if isinstance(reason, Phrase):
                return self.word(reason)
        return render(finding.template, finding.params, self.translations, self.rtl,
                      seats=self.seats)


@cache
def language(lang: str | None = None) -> Language:
    """A shipped language by code or locale tag; English for None."""
    code = normalize(lang) if lang else DEFAULT
    if code is None:
        raise ValueError(f"language {lang!r} is not shipped (shipped: {', '.join(SUPPORTED)})")
    return Language(code, code in RTL, translations(code))


ENGLISH = Language(DEFAULT, False, gettext.NullTranslations())


def render_finding(finding: Finding, lang: str | Language = DEFAULT, *,
                   bare: bool = False) -> str:
    """A finding's sentence in a language (its code never changes)."""
    target = lang if isinstance(lang, Language) else language(lang)
    return target.finding(finding, bare=bare)


# --- the command line: --lang, else the locale ------------------------------------------


def _lang_arg(value: str) -> str:
    import argparse

    code = normalize(value)
    if code is None:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a shipped language (choose from {', '.join(SUPPORTED)})")
    return code


def add_lang_option(parser: object) -> None:
    """``--lang`` on a command (argparse parser): the language of what it prints."""
    parser.add_argument(  # type: ignore[attr-defined]
        "--lang", type=_lang_arg, default=None, metavar="LANG",
        help=f"language of messages and sheets: {', '.join(SUPPORTED)} (default: from "
             "LC_ALL / LC_MESSAGES / LANG, else English)")


def chosen_language(args: object) -> Language:
    """The language a command's ``--lang`` names, else the locale's."""
    return language(getattr(args, "lang", None) or from_environment())
