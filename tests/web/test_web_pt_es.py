"""The pages in Portuguese and Spanish (issue 34 item 6), over HTTP against the test server.

``?lang=pt`` (remembered in the cookie) and ``Accept-Language: es-AR`` give the page in
that language: ``<html lang>``, its words from the catalog, the findings worded as
``render_finding`` words them (their codes unchanged), the glossary of the table played
in that language in its players' own words, and no sentence left as the English page
has it.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import httpx
import pytest
from webtest_support import Server

from ledger.audit import audit_record
from ledger.formats.reader import parse_match
from ledger.glossary import GLOSSARIES
from ledger.i18n import language, translations

ES = {"Accept-Language": "es-AR,es;q=0.9,en;q=0.5"}
EN = {"Accept-Language": "en-GB,en;q=0.9"}


class Page(HTMLParser):
    """<html>'s attributes and the page's texts: not inside script, style or code, nor
    in another language than the page's (a glossary's columns, a rule book's quote)."""

    SKIP = frozenset({"script", "style", "code", "bdi", "datalist"})

    def __init__(self, html: str) -> None:
        super().__init__()
        self.root: dict[str, str] = {}
        self.stack: list[tuple[str, str | None]] = []  # (tag, its lang attribute)
        self.texts: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "html":
            self.root = a
        elif tag not in {"br", "img", "input", "link", "meta", "hr", "wbr", "source", "col"}:
            self.stack.append((tag, a.get("lang")))

    def handle_endtag(self, tag: str) -> None:
        tags = [t for t, _ in self.stack]
        if tag in tags:
            del self.stack[len(tags) - 1 - tags[::-1].index(tag):]

    def handle_data(self, data: str) -> None:
        if not data.strip() or any(t in self.SKIP for t, _ in self.stack):
            return
        if any(lang not in (None, self.root.get("lang")) for _, lang in self.stack):
            return
        self.texts.append(" ".join(data.split()))


def page(client: httpx.Client, path: str, headers: dict[str, str] | None = None) -> Page:
    res = client.get(path, headers=headers or {}, follow_redirects=True)
    assert res.status_code < 500, (path, res.text[:300])
    return Page(res.text)


def fresh(server: Server) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=30)


def test_lang_parameter_gives_portuguese_and_is_remembered(server: Server) -> None:
    with fresh(server) as c:
        res = c.get("/matches?lang=pt", headers=EN)
        assert res.status_code == 200 and res.headers["set-cookie"].startswith("lang=pt;")
        first = Page(res.text)
        assert first.root == {"lang": "pt", "dir": "ltr"}
        assert "Partidas" in first.texts and "Matches" not in first.texts
        again = page(c, "/import", EN)  # the cookie, though the browser says English
        assert again.root["lang"] == "pt"
        assert translations("pt").gettext("Import a match file") in again.texts


def test_accept_language_gives_spanish(server: Server) -> None:
    with fresh(server) as c:
        got = page(c, "/matches", ES)
    assert got.root == {"lang": "es", "dir": "ltr"}
    assert "Partidas" in got.texts and "Glosario" in got.texts


def _pages(server: Server) -> list[str]:
    faulty = server.id_of("illegal-pass.json")
    selminha = server.id_of("selminha-2.json")
    arena = server.id_of("casual-arena-4-teams.json")
    return ["/matches", "/import", "/players", f"/matches/{faulty}", f"/matches/{selminha}",
            f"/matches/{arena}", f"/matches/{selminha}/replay?step=12&seat=0",
            f"/matches/{arena}/replay?step=20", "/glossary/selminha",
            "/glossary/casual-arena", "/matches/987654", "/no/such/page"]


# A text the English page and a translated one may share: a name, a number, a tile,
# a code, a word both languages spell alike.
SHARED = re.compile(r"^[\W\d_]*$|^(?:[\w.-]+\.json|domino-ledger|ok|Total|Final:?|Menu|API|"
                    r"\d+ error|error|"
                    r"Pts|bot|vs|Fives|Casual Arena|Selminha|PlayElephant|Sahrat|"
                    r"English|العربية|Português|Español|Análise|Análisis|Regras|"
                    r"Partida|Partidas|Mesa|Mesas|Idioma|Status|Data|Origem|Origen|"
                    r"Eventos|Eventos \(JSON\))$")


def bare(text: str, names: set[str]) -> str:
    """A text without the names in it, and without what stays as the match file writes
    it: the table's options by their names ("target 100")."""
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    return re.sub(r"\b(?:target|teams) \w+|\b(?:CSV|JSON|PDF|vs|error)\b", " ", text)


@pytest.mark.parametrize("lang", ["pt", "es"])
def test_no_english_sentence_is_left(server: Server, lang: str) -> None:
    # Every text of the English page that is a sentence or a label (not a name, a number,
    # a tile) reads otherwise on the translated page.
    names = {n for g in GLOSSARIES.values() for n in g.names.values()}  # tables' names
    for sample in ("faulty/illegal-pass.json", "selminha-2.json", "casual-arena-4-teams.json"):
        names |= {str(n) for n in server.sample(sample)["seats"]}
    with fresh(server) as c:
        for path in _pages(server):
            sep = "&" if "?" in path else "?"
            english = page(c, f"{path}{sep}lang=en", EN).texts
            translated = set(page(c, f"{path}{sep}lang={lang}", {}).texts)
            left = [t for t in english if t in translated and not SHARED.match(t)
                    and re.search("[A-Za-z]{3,}", bare(t, names))
                    and not re.fullmatch(r"[a-z0-9-]+", t)]  # a preset or a code
            assert left == [], (path, left)


@pytest.mark.parametrize(("lang", "headers"), [("pt", {}), ("es", ES)])
def test_findings_are_worded_in_the_language(server: Server, lang: str,
                                             headers: dict[str, str]) -> None:
    name = "illegal-pass.json"
    record = parse_match(server.sample(f"faulty/{name}"))
    findings = audit_record(record).findings
    assert findings
    path = f"/matches/{server.id_of(name)}" + ("?lang=pt" if lang == "pt" else "")
    with fresh(server) as c:
        html = c.get(path, headers=headers).text
    for f in findings:
        seats = record.header.seats if record.header is not None else ()
        said = language(lang).finding(f, bare=True, seats=seats)  # seats named (issue 34)
        assert said != language("en").finding(f, bare=True, seats=seats)
        assert said in html.replace("&#39;", "'").replace("&#34;", '"'), said
        assert f.code in html  # the code is the English page's


@pytest.mark.parametrize(("lang", "table", "words"), [
    ("pt", "selminha", ["carroça", "pedra", "dorme", "jogo trancado", "bater"]),
    ("es", "casual-arena", ["la mano", "ficha", "tranque", "robar", "parejas", "dominó"]),
])
def test_glossary_in_the_tables_language(server: Server, lang: str, table: str,
                                         words: list[str]) -> None:
    with fresh(server) as c:
        got = page(c, f"/glossary/{table}?lang={lang}")
    assert got.root["lang"] == lang
    text = " ".join(got.texts)
    for word in words:
        assert word in text, word
