"""Choosing the language: Accept-Language (web), the locale and --lang (CLI)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ledger.i18n import (
    NAMES,
    RTL,
    SUPPORTED,
    from_environment,
    language,
    negotiate,
    normalize,
    translations,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("header", "lang"), [
    (None, "en"),
    ("", "en"),
    ("ar-EG,ar;q=0.9,en;q=0.8", "ar"),
    ("en-GB,en;q=0.9,ar;q=0.8", "en"),
    ("fr-FR,fr;q=0.9,ar;q=0.5", "ar"),  # French is not shipped: the next one is
    ("fr, de", "en"),
    ("ar;q=0, en", "en"),  # q=0: not acceptable
    ("*", "en"),
    ("AR-sa", "ar"),
    ("en;q=0.2, ar;q=0.7", "ar"),
    ("ar;q=oops, en;q=0.5", "en"),  # a broken q is taken as 0
])
def test_negotiate(header: str | None, lang: str) -> None:
    assert negotiate(header) == lang


@pytest.mark.parametrize(("env", "lang"), [
    ({}, "en"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LANG": "ar_EG.UTF-8"}, "ar"),
    ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "ar_SA.UTF-8"}, "ar"),
    ({"LANG": "ar_EG.UTF-8", "LC_MESSAGES": "C"}, "en"),
    ({"LANG": "ar_EG.UTF-8", "LC_ALL": "en_GB.UTF-8"}, "en"),
    ({"LC_ALL": "ar_AE@latin"}, "ar"),
    ({"LANG": "en_US.UTF-8", "LANGUAGE": "fr:ar:en"}, "ar"),
    ({"LANG": "C", "LANGUAGE": "ar"}, "en"),  # as gettext: LANGUAGE only with a locale set
    ({"LANG": "de_DE.UTF-8"}, "en"),
])
def test_locale(env: dict[str, str], lang: str) -> None:
    assert from_environment(env) == lang


def test_shipped_languages() -> None:
    assert set(NAMES) >= set(SUPPORTED)
    assert "ar" in RTL and language("ar").dir == "rtl" and language("en").dir == "ltr"
    assert normalize("pt-BR") in (None, "pt") and normalize("ar_EG.UTF-8") == "ar"
    # what Jinja2's i18n extension takes: gettext, ngettext, pgettext
    tr = translations("ar")
    assert tr.gettext("Score sheet") == "ورقة النتائج"
    assert tr.pgettext("end", "left") == "الأيسر"
    with pytest.raises(ValueError):
        translations("xx")


def test_arabic_isolates_numbers_and_tiles() -> None:
    ar = language("ar")
    text = ar.say("{seat} passed holding {tile}, which fits {fits}", seat=0, tile="6-3",
                  fits=(("left", 3), ("right", 3)))
    assert text == ("مرّر المقعد \u20661\u2069 ومعه \u20686-3\u2069 الذي يركب على "
                    "الطرف الأيسر (\u20663\u2069) والطرف الأيمن (\u20663\u2069)")


def test_engine_and_rules_import_no_gettext() -> None:
    # The engine stays pure: it builds templates and parameters, never looks a catalog up.
    for folder in ("ledger/engine", "ledger/rules"):
        for path in (ROOT / folder).glob("*.py"):
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                for name in names:
                    assert name.split(".")[0] not in ("gettext", "babel"), (path, name)
                    assert name in ("ledger.i18n.phrases",) or not name.startswith(
                        "ledger.i18n"), (path, name)
