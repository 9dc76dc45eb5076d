"""Every sentence of the code has a translation in each shipped language (issue 8).

The msgids are extracted from the code as ``pybabel extract -F ledger/i18n/babel.cfg``
does (ledger.i18n.build.extract); a msgid added to the code without its Arabic
fails here, and so does a .mo that is not the compiled .po.
"""

from __future__ import annotations

import gettext
import io
import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from ledger.i18n import RTL, SUPPORTED, translations
from ledger.i18n.build import extract, po_path, problems, slots

TRANSLATED = [lang for lang in SUPPORTED if lang != "en"]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def template() -> Catalog:
    return extract()


def test_arabic_is_shipped() -> None:
    assert SUPPORTED[0] == "en" and "ar" in SUPPORTED


def test_extraction_finds_the_engine_templates(template: Catalog) -> None:
    # The engine imports no gettext: its templates are found by the calls that carry them.
    ids = {m.id for m in template if m.id}
    assert "{seat} passed holding {tile}, which fits {fits}" in ids
    assert "deal {deal}: hands stay hidden, so its result is taken from the record" in ids
    assert ("{count} unseen tile", "{count} unseen tiles") in ids
    assert len(ids) > 200


# The web pages' own sentences: one of each kind of page, and of each way a template
# marks a sentence ({% trans %}, _(), ngettext(), pgettext()), and the pages' Python.
WEB_MESSAGES = [
    ("web/templates/base.html", "Glossary"),
    ("web/templates/base.html", "Language"),
    ("web/templates/matches.html", ("%(num)s match in the ledger",
                                    "%(num)s matches in the ledger")),
    ("web/templates/matches.html", 'The ledger is empty. <a href="/import">Import a match '
                                   'file</a> to begin.'),
    ("web/templates/match.html", "Audit findings"),
    ("web/templates/match.html", ("%(num)s deal", "%(num)s deals")),
    ("web/templates/replay.html", "Step <b>%(step)s</b> of %(last)s"),
    ("web/templates/replay.html", "Whose view"),
    ("web/templates/import.html", "Audit report for %(file)s"),
    ("web/templates/glossary.html", "The words of this table, as its players know them."),
    ("web/routes/page_errors.py", "No such match"),
    ("web/routes/page_errors.py", "step {step} does not exist: this match has steps 0 to {last}"),
    ("ledger/store/pages/matchlist.py", "ended with no winner"),
    ("web/charts.py", "Fives this deal: {points}"),
    ("web/routes/replay.py", "Before the first deal"),
    ("ledger/replay/wording.py", "{name} plays {tile} on the left"),
]


@pytest.mark.parametrize(("path", "msgid"), WEB_MESSAGES)
def test_extraction_finds_the_web_pages(template: Catalog, path: str,
                                        msgid: str | tuple[str, str]) -> None:
    found = {m.id: m for m in template if m.id}
    assert msgid in found, msgid
    assert path in {where for where, _ in found[msgid].locations}


# Templates with no words of their own: macros drawing tiles, the error page (its words
# come from web/routes/page_errors.py), the charts' script tag (Plotly's words: plot.js).
WORDLESS = {"record_tiles.html", "error.html", "_plot.html"}


def test_every_page_template_has_its_sentences_extracted(template: Catalog) -> None:
    # A page template with no msgid at all would be a page left in English.
    where = {path for m in template for path, _ in m.locations}
    pages = {f"web/templates/{p.name}" for p in (ROOT / "web" / "templates").glob("*.html")
             if p.name not in WORDLESS}
    assert pages <= where, sorted(pages - where)


def test_script_sentences_are_in_the_catalog(template: Catalog) -> None:
    # What a page hands its script (web.lang.js_words) is what Babel extracted from it.
    from web.lang import _script_msgids, js_words

    ids = {m.id for m in template if m.id}
    for script in (ROOT / "web" / "static" / "js").glob("*.js"):
        wanted = _script_msgids(script.name)
        assert set(wanted) <= ids, sorted(set(wanted) - ids)
        words = js_words("ar", script.name)
        assert all(re.search("[\u0600-\u06ff]", text) for text in words.values()), script
    assert len(_script_msgids("record.js")) > 30


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated(template: Catalog, lang: str) -> None:
    assert problems(template, [lang]) == []


def test_an_untranslated_web_sentence_fails(tmp_path: Path) -> None:
    # The check itself: a sentence added to a page (or a page's Python) without its
    # Arabic is reported, as is a translation that drops or renames a %(slot)s.
    pages = tmp_path / "web" / "templates"
    pages.mkdir(parents=True)
    (pages / "new.html").write_text(
        '{% trans %}A sentence nobody translated{% endtrans %}\n'
        '{{ _("Match %(id)s", id=1) }}\n'
        '{{ ngettext("%(num)s new tile", "%(num)s new tiles", 3) }}\n', encoding="utf-8")
    (tmp_path / "web" / "new.py").write_text('_("Also new in Python")\n', encoding="utf-8")
    found = extract(tmp_path)
    assert {m.id for m in found} >= {"A sentence nobody translated", "Match %(id)s",
                                     ("%(num)s new tile", "%(num)s new tiles"),
                                     "Also new in Python"}
    said = problems(found, ["ar"])
    for msgid in ("A sentence nobody translated", "%(num)s new tile", "Also new in Python"):
        assert f"ar: {msgid!r}: missing" in said, said
    assert not any("'Match %(id)s'" in line for line in said)  # this one is translated
    assert slots("Step <b>%(step)s</b> of %(last)s {deal}") == {"step", "last", "deal"}


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
    # gettext gives the msgid back for a msgid it lacks; a translation may be spelled as
    # the English is ("1 error" in Spanish, ", "), so only a language of another script
    # is told by that: every language is also looked up in its compiled catalog.
    other_script = lang in RTL
    for msg in template:
        if not msg.id:
            continue
        if isinstance(msg.id, tuple):
            for n in range(0, 120):  # every plural form of Arabic is reached by 0..110
                text = tr.ngettext(msg.id[0], msg.id[1], n)
                assert text.strip() and (text not in msg.id or not other_script), (msg.id, n)
            key = msg.id[0] if not msg.context else f"{msg.context}\x04{msg.id[0]}"
            assert all((key, i) in tr._catalog for i in range(nplurals)), msg.id  # type: ignore[attr-defined]
            assert nplurals >= 2
        elif msg.context:
            text = tr.pgettext(msg.context, msg.id)
            assert text.strip() and (text != msg.id or not other_script), (msg.context, msg.id)
            assert f"{msg.context}\x04{msg.id}" in tr._catalog, msg.id  # type: ignore[attr-defined]
        else:
            text = tr.gettext(msg.id)
            assert text.strip() and msg.id in tr._catalog, msg.id  # type: ignore[attr-defined]
            if re.search("[A-Za-z]{3,}", re.sub(r"\{[a-z_]+\}", "", msg.id)) and lang == "ar":
                # An Arabic sentence has Arabic letters (not the English msgid back).
                assert re.search("[\u0600-\u06ff]", text), (msg.id, text)
            assert slots(text) <= slots(msg.id), (msg.id, text)


def test_arabic_has_six_plural_forms() -> None:
    tr = translations("ar")
    forms = {tr.ngettext("{count} error", "{count} errors", n) for n in (0, 1, 2, 3, 11, 100)}
    assert len(forms) == 6
