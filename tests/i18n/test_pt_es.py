"""Portuguese (Brazil) and Spanish (Latin America), complete (issue 34 item 6).

Selminha is played in Portuguese and Casual Arena in Spanish: the catalogs use the words
those tables' glossaries give (``ledger/glossary.py``) for the game's terms, the same
word for a term everywhere, and gettext's two plural forms of each language (Brazilian
Portuguese counts 0 as one: "0 rodada"). ``domino-ledger --lang`` and the locale choose
them as they choose Arabic.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog

from ledger.cli import main
from ledger.glossary import GLOSSARIES
from ledger.i18n import SUPPORTED, from_environment, language, negotiate, translations
from ledger.i18n.build import PLURAL_FORMS, extract, problems, read

SAMPLES = Path(__file__).resolve().parents[2] / "sample_matches"


@pytest.fixture(scope="module")
def template() -> Catalog:
    return extract()


@pytest.mark.parametrize("lang", ["pt", "es"])
def test_shipped_and_complete(template: Catalog, lang: str) -> None:
    assert lang in SUPPORTED
    assert problems(template, [lang]) == []
    catalog = read(lang)
    ids = {m.id if not m.context else (m.context, m.id) for m in template if m.id}
    assert len(ids) > 800 and len([m for m in catalog if m.id]) == len(ids)


@pytest.mark.parametrize(("lang", "header"), [
    ("pt", "nplurals=2; plural=(n > 1);"),
    ("es", "nplurals=2; plural=(n != 1);"),
])
def test_plural_forms_are_gettexts(lang: str, header: str) -> None:
    # CLDR (Babel's default) gives both a third form for millions; gettext's rules have two.
    assert PLURAL_FORMS[lang] == header
    catalog = read(lang)
    assert catalog.num_plurals == 2
    assert f"Plural-Forms: {header}" in read_text(lang)


def read_text(lang: str) -> str:
    from ledger.i18n.catalog import po_path

    return po_path(lang).read_text(encoding="utf-8")


@pytest.mark.parametrize(("lang", "counts"), [
    # Brazilian Portuguese: 0 and 1 take the singular
    ("pt", {0: "0 erro", 1: "1 erro", 2: "2 erros", 11: "11 erros"}),
    ("es", {0: "0 errores", 1: "1 error", 2: "2 errores", 11: "11 errores"}),
])
def test_counted_sentences(lang: str, counts: dict[int, str]) -> None:
    said = language(lang)
    for n, text in counts.items():
        assert said.say_n("{count} error", "{count} errors", n) == text


# The tables' own words (ledger/glossary.py) and the sentences that must use them.
WORDS = {
    "pt": [  # Selminha's glossary: pedra, carroça, dorme, passo, bater, jogo trancado
        ("{name} draws {tile}", None, "compra"),
        ("{name} draws from the stock", None, "compra do dorme"),
        ("{name} passes", None, "passa"),
        ("{name} went out, {gain}", None, "bateu"),
        ("block", "result", "tranca"),
        ("out", "result", "batida"),
        ("deal {deal} must open with {tile}, the highest double dealt", None, "carroça"),
        ("%(num)s tile", None, "pedra"),
        ("the stock", None, "dorme"),
        ("Blocked: nobody can play", None, "Trancado"),
        ("Deal", None, "Rodada"),
        ("Match", None, "Partida"),
        ("Seat %(seat)s", None, "Lugar"),
        ("blunder", "knowledge", "erro grave"),
        ("inaccuracy", "knowledge", "imprecisão"),
        ("Replay", None, "Reprodução"),
    ],
    "es": [  # Casual Arena's glossary: ficha, doble, robar, paso, tranque, dominó, la mano
        ("{name} draws {tile}", None, "roba"),
        ("{name} draws from the stock", None, "roba del pozo"),
        ("{name} passes", None, "pasa"),
        ("{name} went out, {gain}", None, "dominó"),
        ("block", "result", "tranque"),
        ("out", "result", "dominó"),
        ("deal {deal} must open with {tile}, the highest double dealt", None, "doble"),
        ("%(num)s tile", None, "ficha"),
        ("lead", None, "mano"),
        ("Play in couples (seats 1 & 3 against 2 & 4)", None, "parejas"),
        ("Deal", None, "Ronda"),
        ("Match", None, "Partida"),
        ("Seat %(seat)s", None, "Asiento"),
        ("blunder", "knowledge", "error grave"),
        ("inaccuracy", "knowledge", "imprecisión"),
        ("Replay", None, "Reproducción"),
    ],
}
# Words of other tables (or of Portugal and Spain) that these catalogs never use for
# the same things: one word per term.
NEVER = {
    "pt": ["peça", "peças", "monte", "bucha", "buchas", "ficha", "fichas", "robar"],
    "es": ["pieza", "piezas", "montón", "chancho", "tomar una ficha", "cerrado", "hueso",
           "huesos", "coger"],
}


@pytest.mark.parametrize("lang", ["pt", "es"])
def test_the_tables_own_words(lang: str) -> None:
    tr = translations(lang)
    for msgid, context, word in WORDS[lang]:
        if msgid.startswith("%(num)s"):
            text = tr.ngettext(msgid, msgid + "s", 1)
        else:
            text = tr.pgettext(context, msgid) if context else tr.gettext(msgid)
        assert word in text, (msgid, text)
    glossary = {"pt": GLOSSARIES["selminha"], "es": GLOSSARIES["casual-arena"]}[lang]
    assert lang in glossary.languages  # the table is played in this language
    everything = " ".join(" ".join(m.string) if isinstance(m.string, tuple) else m.string
                          for m in read(lang) if m.id).lower()
    for term in glossary.terms:
        # each of the table's words (its stem: "carr" of "carroça" in "carroças", "bate"
        # of "bater" in "bateu") is in the catalog
        stem = term.words[lang].lower().split()[-1][:4]
        assert stem in everything, (term.key, term.words[lang])
    for word in NEVER[lang]:
        assert not re.search(rf"\b{re.escape(word)}\b", everything), word


def test_chosen_by_accept_language_and_the_locale() -> None:
    assert negotiate("es-AR,es;q=0.9,en;q=0.5") == "es"
    assert negotiate("pt-BR,pt;q=0.9") == "pt"
    assert negotiate("fr-FR,fr;q=0.9,pt;q=0.5,en;q=0.4") == "pt"
    assert from_environment({"LANG": "pt_BR.UTF-8"}) == "pt"
    assert from_environment({"LANG": "es_MX.UTF-8"}) == "es"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    main(args)
    return capsys.readouterr().out


def test_audit_words_a_finding_in_spanish_and_portuguese(
        capsys: pytest.CaptureFixture[str]) -> None:
    sample = str(SAMPLES / "faulty" / "deal-not-finished.json")
    english = run(["audit", sample, "--lang", "en"], capsys)
    spanish = run(["audit", sample, "--lang", "es"], capsys)
    portuguese = run(["audit", sample, "--lang", "pt"], capsys)
    assert "[deal-not-finished] deal 1 was still being played" in english
    # the code stays; the sentence is the table's language
    assert ("  error en evento 21 [deal-not-finished] la ronda 1 todavía se estaba jugando "
            "(turno de \u2068علي\u2069 (asiento 1)) cuando empezó una ronda nueva; no anota "
            "nada") in spanish
    assert ("  erro em evento 21 [deal-not-finished] a rodada 1 ainda estava sendo jogada "
            "(vez de \u2068علي\u2069 (lugar 1)) quando uma nova rodada começou; não marca "
            "nada") in portuguese
    assert len(spanish.splitlines()) == len(english.splitlines()) == \
        len(portuguese.splitlines())


@pytest.mark.parametrize(("lang", "said"), [
    ("pt", ["partida 0: ok, 0 erro, 0 aviso", "casual-arena, 2 lugares, 1 rodada,",
            "partida 0: ok, 0 erro, 0 aviso", "casual-arena, 2 lugares, 9 rodadas,",
            "partida 0: COM FALHAS, 1 erro, 1 aviso", "selminha, 2 lugares, 2 rodadas,"]),
    ("es", ["partida 0: ok, 0 errores, 0 advertencias", "casual-arena, 2 asientos, 1 ronda,",
            "partida 0: ok, 0 errores, 0 advertencias", "casual-arena, 2 asientos, 9 rondas,",
            "partida 0: CON FALLAS, 1 error, 1 advertencia",
            "selminha, 2 asientos, 2 rondas,"]),
    ("en", ["match 0: ok, 0 error(s), 0 warning(s)", "casual-arena, 2 seats, 1 deal(s),",
            "match 0: ok, 0 error(s), 0 warning(s)", "casual-arena, 2 seats, 9 deal(s),",
            "match 0: FAULTY, 1 error(s), 1 warning(s)", "selminha, 2 seats, 2 deal(s),"]),
])
def test_the_cli_reports_plural_forms(capsys: pytest.CaptureFixture[str], lang: str,
                                      said: list[str]) -> None:
    # 0, 1, 2 and 9 of each count, each in the form its language gives it
    out = run(["audit", str(SAMPLES / "casual-arena-2-one-round.json"),
               str(SAMPLES / "casual-arena-2.json"),
               str(SAMPLES / "faulty" / "wrong-leader.json"), "--lang", lang], capsys)
    heads = [line for line in out.splitlines() if not line.startswith("    ")]
    got = [h.split(".json ", 1)[-1] if ".json " in h else h.strip() for h in heads]
    for want in said:
        assert any(line.startswith(want) for line in got), (want, got)
