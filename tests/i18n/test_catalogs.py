"""Every sentence of the code has a translation in each shipped language (issue 8).

The msgids are extracted from the code as ``pybabel extract -F ledger/i18n/babel.cfg``
does (ledger.i18n.build.extract); a msgid added to the code without its Arabic
fails here, and so does a .mo that is not the compiled .po.
"""

from __future__ import annotations

import gettext
import io
import re

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from ledger.i18n import SUPPORTED, translations
from ledger.i18n.build import extract, po_path, problems, slots

TRANSLATED = [lang for lang in SUPPORTED if lang != "en"]


@pytest.fixture(scope="module")
def template() -> Catalog:
    return extract()


def test_arabic_is_shipped() -> None:
    assert SUPPORTED[0] == "en" and "ar" in SUPPORTED


def test_extraction_finds_the_engine_templates(template: Catalog) -> None:
    # The engine imports no gettext: its templates are found by the calls that carry them.
    ids = {m.id for m in template if m.id}
    assert "seat {seat} passed holding {tile}, which fits {fits}" in ids
    assert "deal {deal}: hands stay hidden, so its result is taken from the record" in ids
    assert ("{count} unseen tile", "{count} unseen tiles") in ids
    assert len(ids) > 200


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated(template: Catalog, lang: str) -> None:
    assert problems(template, [lang]) == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_compiled_catalog_has_a_nonempty_msgstr_for_every_msgid(template: Catalog,
                                                                lang: str) -> None:
    # Compile the .po afresh and look every extracted msgid up in it, as gettext will.
    with po_path(lang).open("rb") as fh:
        catalog = read_po(fh, locale=lang)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    tr = gettext.GNUTranslations(buffer)
    nplurals = catalog.num_plurals
    for msg in template:
        if not msg.id:
            continue
        if isinstance(msg.id, tuple):
            for n in range(0, 120):  # every plural form of Arabic is reached by 0..110
                text = tr.ngettext(msg.id[0], msg.id[1], n)
                assert text.strip() and text not in msg.id or lang == "en", (msg.id, n)
            assert nplurals >= 2
        elif msg.context:
            text = tr.pgettext(msg.context, msg.id)
            assert text.strip() and text != msg.id, (msg.context, msg.id)
        else:
            text = tr.gettext(msg.id)
            assert text.strip(), msg.id
            if re.search("[A-Za-z]{3,}", re.sub(r"\{[a-z_]+\}", "", msg.id)) and lang == "ar":
                # An Arabic sentence has Arabic letters (not the English msgid back).
                assert re.search("[\u0600-\u06ff]", text), (msg.id, text)
            assert slots(text) <= slots(msg.id), (msg.id, text)


def test_arabic_has_six_plural_forms() -> None:
    tr = translations("ar")
    forms = {tr.ngettext("{count} error", "{count} errors", n) for n in (0, 1, 2, 3, 11, 100)}
    assert len(forms) == 6
