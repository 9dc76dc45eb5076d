"""The ledger in its players' languages: gettext catalogs (English, Arabic, Portuguese,
Spanish) and the wording of findings, messages and sheets.

- ``SUPPORTED``: the shipped languages; ``NAMES``: each in its own words; ``RTL``.
- ``translations(lang)``: a gettext translations object (for Jinja2's i18n extension).
- ``language(lang)``: a ``Language`` that words sentences (``say``, ``say_n``, ``finding``).
- ``render_finding(finding, lang)``: a finding's sentence; its code never changes.
- ``negotiate(accept_language)``: the language of an HTTP request.
- ``from_environment()``: the language of the locale (LC_ALL, LC_MESSAGES, LANG).

Templates and parameters are built by ``ledger.i18n.phrases`` (pure: the engine uses it).
"""

from ledger.i18n.catalog import (
    DEFAULT,
    ENGLISH,
    NAMES,
    RTL,
    SUPPORTED,
    Language,
    add_lang_option,
    chosen_language,
    from_environment,
    language,
    negotiate,
    normalize,
    render_finding,
    translations,
)
from ledger.i18n.phrases import Counted, Phrase, seat_named

__all__ = [
    "DEFAULT", "ENGLISH", "NAMES", "RTL", "SUPPORTED", "Counted", "Language", "Phrase",
    "add_lang_option", "chosen_language", "from_environment", "language", "negotiate",
    "normalize", "render_finding", "seat_named", "translations",
]
