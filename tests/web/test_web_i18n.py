"""The pages in Arabic and English (issue 8), over HTTP against the real test server.

The language comes from Accept-Language, a ``?lang=`` (remembered in a cookie)
or the cookie; every page has the switcher; an Arabic page is ``dir="rtl"`` and
has no English left in it but names, codes and the like; a finding's sentence is
Arabic while its code is the English page's code; each table has a glossary.

What the pages should say is worked out apart from the app: the findings by
auditing the sample file itself (``audit_record`` and ``render_finding``), the
glossary from ``ledger.glossary``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import httpx
import pytest
from webtest_support import SAMPLES, Server

from ledger.audit import audit_record
from ledger.formats.reader import parse_match
from ledger.glossary import GLOSSARIES, entries
from ledger.i18n import SUPPORTED, language
from ledger.i18n.phrases import FSI, LRI, PDI
from ledger.rules import PRESETS

ARABIC = re.compile("[\u0600-\u06ff]")
ISOLATES = re.compile("[\u2066-\u2069]")
FAULTY = sorted(p.name for p in (SAMPLES / "faulty").glob("*.json")
                if not p.name.endswith(".expected.json"))
AR = {"Accept-Language": "ar-EG,ar;q=0.9,en;q=0.5"}
EN = {"Accept-Language": "en-GB,en;q=0.9"}


@pytest.fixture(scope="module")
def client(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


def fresh(server: Server) -> httpx.Client:
    """A client of its own: its cookies are its own."""
    return httpx.Client(base_url=server.url, timeout=30)


# --- reading a page -------------------------------------------------------------------


class Page(HTMLParser):
    """The parts of a page the tests read: <html> attributes, links, texts by selector."""

    VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                      "meta", "source", "track", "wbr"})

    def __init__(self, html: str) -> None:
        super().__init__()
        self.root: dict[str, str] = {}
        self.links: list[dict[str, str]] = []
        self.stack: list[tuple[str, dict[str, str]]] = []
        self.texts: list[tuple[tuple[tuple[str, dict[str, str]], ...], str]] = []
        self.labels: list[tuple[tuple[tuple[str, dict[str, str]], ...], str]] = []  # titles
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "html":
            self.root = a
        if tag == "a":
            self.links.append(a)
        for key in ("title", "aria-label", "placeholder"):
            if a.get(key):
                self.labels.append(((*self.stack, (tag, a)), a[key]))
        if tag not in self.VOID:
            self.stack.append((tag, a))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data: str) -> None:
        if data.strip():
            self.texts.append((tuple(self.stack), data))

    def text_by_id(self, ident: str) -> str:
        return "".join(t for stack, t in self.texts
                       if any(a.get("id") == ident for _, a in stack))

    def text_of(self, cls: str) -> list[str]:
        """The text inside each element of a class, one string per element."""
        out: dict[int, list[str]] = {}
        for stack, text in self.texts:
            for _, attrs in stack:
                if cls in attrs.get("class", "").split():
                    out.setdefault(id(attrs), []).append(text)
                    break
        return ["".join(parts) for parts in out.values()]


# Elements whose text is verbatim: a name, a date, a code, a file name (<bdi>, <code>).
VERBATIM = frozenset({"script", "style", "code", "datalist", "bdi"})


def words_left(page: Page, allowed: set[str]) -> list[str]:
    """Latin words of an Arabic page's text that are not verbatim values."""
    left = []
    for stack, text in page.texts + page.labels:
        if any(tag in VERBATIM or attrs.get("lang", "ar") != "ar" for tag, attrs in stack):
            continue  # verbatim, or a word of another language (the glossary's columns)
        for word in re.findall(r"[A-Za-z][A-Za-z'.]{2,}", ISOLATES.sub(" ", text)):
            if word.strip(".'") not in allowed:
                left.append(word)
    return left


def verbatim(server: Server) -> set[str]:
    """What an Arabic page may show in Latin letters: names from the files, codes, ids."""
    allowed = {"domino-ledger", "domino", "ledger", "API", "JSON", "CSV", "PDF", "UTC", "MiB",
               "Home", "End", "Page", "Up", "Down", "PlayElephant", "English", "Português",
               "Español", "json", "jsonl", "gz", "target", "teams", "fives", "draw", "true",
               "false", "yesterday"}  # what the reader typed into the date filter, given back
    allowed |= set(PRESETS) | {w for p in PRESETS for w in p.split("-")}
    for g in GLOSSARIES.values():  # a table's own words may be quoted: "(la mano)"
        allowed |= {w for t in g.terms for word in t.words.values()
                    for w in re.findall(r"[A-Za-z]+", word)}
    for path in list(SAMPLES.glob("*.json")) + list(SAMPLES.glob("*/*.json")):
        obj = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(obj, dict):
            continue
        for name in obj.get("seats", []):
            allowed |= set(re.findall(r"[A-Za-z']+", str(name)))
        for ev in obj.get("events", []):  # an abandoned match's reason, as recorded
            if isinstance(ev, dict) and isinstance(ev.get("reason"), str):
                allowed |= set(re.findall(r"[A-Za-z']+", ev["reason"]))
    for line in (SAMPLES / "club-night.jsonl").read_text(encoding="utf-8").splitlines():
        for name in json.loads(line).get("seats", []):
            allowed |= set(re.findall(r"[A-Za-z']+", str(name)))
    return allowed


def get(client: httpx.Client, path: str, headers: dict[str, str]) -> Page:
    # A step out of range is the first or the last (a redirect): the page it opens.
    res = client.get(path, headers=headers, follow_redirects=True)
    assert res.status_code < 500, (path, res.text[:500])
    return Page(res.text)


# --- choosing the language --------------------------------------------------------------


@pytest.mark.parametrize(("header", "lang", "direction"), [
    ("ar-EG,ar;q=0.9,en;q=0.8", "ar", "rtl"),
    ("en-GB,en;q=0.9,ar;q=0.8", "en", "ltr"),
    ("fr-FR,fr;q=0.9,ar;q=0.5", "ar", "rtl"),  # French is not shipped: the next one is
    ("de", "en", "ltr"),
])
def test_accept_language_chooses_the_page_language(server: Server, header: str, lang: str,
                                                   direction: str) -> None:
    with fresh(server) as c:
        page = get(c, "/matches", {"Accept-Language": header})
    assert page.root == {"lang": lang, "dir": direction}


def test_lang_parameter_is_remembered_in_a_cookie(server: Server) -> None:
    with fresh(server) as c:
        res = c.get("/matches?lang=ar", headers=EN)
        assert res.status_code == 200
        assert Page(res.text).root["dir"] == "rtl"
        cookie = res.headers["set-cookie"]
        assert cookie.startswith("lang=ar;") and "Path=/" in cookie and "Max-Age=" in cookie
        assert "Accept-Language" in res.headers["vary"] and "Cookie" in res.headers["vary"]
        # the browser says English, the cookie says Arabic: the reader's choice wins
        for path in ("/import", "/glossary", f"/matches/{server.id_of('domena-2.json')}"):
            again = c.get(path, headers=EN)
            assert Page(again.text).root == {"lang": "ar", "dir": "rtl"}, path
            assert "set-cookie" not in again.headers
        back = c.get("/glossary?lang=en", headers=AR)
        assert Page(back.text).root == {"lang": "en", "dir": "ltr"}
        assert Page(c.get("/matches", headers=AR).text).root["lang"] == "en"
        # a language that is not shipped changes nothing
        res = c.get("/matches?lang=xx", headers=AR)
        assert "set-cookie" not in res.headers and Page(res.text).root["lang"] == "en"


def _pages(server: Server) -> list[str]:
    faulty = server.id_of("illegal-pass.json")
    fives = server.id_of("sahrat-fives-4.json")
    return ["/matches", "/matches?table=domena&result=won", "/import", f"/matches/{faulty}",
            f"/matches/{fives}", f"/matches/{fives}/replay?step=30&seat=1",
            f"/matches/{faulty}/replay?step=14", "/glossary", "/glossary/domena",
            "/matches/987654", "/matches/987654/replay?step=3", "/no/such/page"]


@pytest.mark.parametrize("lang", SUPPORTED)
def test_every_page_has_the_language_switcher(server: Server, lang: str) -> None:
    with fresh(server) as c:  # ?lang= sets a cookie: not on the shared client
        pages = [(path, get(c, f"{path}{'&' if '?' in path else '?'}lang={lang}", {}))
                 for path in _pages(server)]
    for path, page in pages:
        switch = [a for a in page.links if a.get("data-lang")]
        assert [a["data-lang"] for a in switch] == list(SUPPORTED), path
        current = [a["data-lang"] for a in switch if a.get("aria-current") == "true"]
        assert current == [lang], path
        for a in switch:
            url = urlparse(a["href"])
            query = parse_qs(url.query)
            assert url.path == urlparse(path).path and query["lang"] == [a["data-lang"]]
            # the page's other parameters are kept: the same page in the other language
            assert {k: v for k, v in query.items() if k != "lang"} == \
                {k: v for k, v in parse_qs(urlparse(path).query).items() if k != "lang"}
            assert a["lang"] == a["hreflang"] == a["data-lang"]


def test_arabic_pages_leave_no_english_behind(client: httpx.Client, server: Server) -> None:
    # Every sentence, label, title and tooltip is Arabic; what stays in Latin letters is
    # what the files hold (names), the codes and ids, and the other languages' words.
    allowed = verbatim(server)
    paths = _pages(server) + [f"/glossary/{p}" for p in GLOSSARIES] + [
        f"/matches/{server.id_of(name)}" for name in FAULTY] + [
        f"/matches/{server.id_of(name)}/replay?step={step}"
        for name in ("sahrat-fives-4.json", "selminha-4-redeal.json", "domena-4-bot.json",
                     "selminha-2-abandon.json", "casual-arena-2-agree-draw.json",
                     "reveal-mismatch.json", "wrong-deal-end.json")
        for step in (0, 1, 2, 9, 40, 10_000)] + [
        "/matches?from=yesterday", f"/matches/{server.id_of('domena-2.json')}/replay?seat=9"]
    for path in paths:
        page = get(client, path, AR)
        assert page.root == {"lang": "ar", "dir": "rtl"}, path
        assert words_left(page, allowed) == [], path


def test_english_pages_carry_no_isolates(client: httpx.Client, server: Server) -> None:
    # English is the templates themselves: nothing invisible is added to it but the
    # isolates around right-to-left text (an Arabic name in an English sentence, issue 16).
    around_rtl = re.compile("\u2068[^\u2066-\u2069]*[\u0590-\u08ff][^\u2066-\u2069]*\u2069")
    for path in _pages(server):
        res = client.get(path, headers=EN)
        assert not ISOLATES.search(around_rtl.sub("", res.text)), path


# --- findings: the sentence is translated, the code is not -------------------------------


def _expected(server: Server, name: str, lang: str) -> list[tuple[str, str]]:
    record = parse_match(server.sample(f"faulty/{name}"))
    report = audit_record(record)
    seats = record.header.seats if record.header is not None else ()
    # Each seat named with its player, counted from 1, as the pages say it (issue 34).
    return [(f.code, language(lang).finding(f, seats=seats)) for f in report.findings]


def _shown(page: Page, container: str = "findings-list") -> list[tuple[str, str]]:
    codes = page.text_of("finding-code")
    texts = page.text_of("finding-text")
    assert page.text_of(container), "no findings on the page"
    return list(zip(codes, texts, strict=True))


@pytest.mark.parametrize("name", FAULTY)
def test_match_page_findings_in_arabic_keep_their_codes(client: httpx.Client, server: Server,
                                                        name: str) -> None:
    match_id = server.id_of(f"{name}")
    english = _shown(get(client, f"/matches/{match_id}", EN))
    arabic = _shown(get(client, f"/matches/{match_id}", AR))
    assert [c for c, _ in arabic] == [c for c, _ in english]
    assert english == _expected(server, name, "en")
    assert arabic == _expected(server, name, "ar")
    for (_, en), (_, ar) in zip(english, arabic, strict=True):
        assert ARABIC.search(ar) and ar != en and "{" not in ar


def test_replay_shows_the_arabic_finding_at_its_event(client: httpx.Client,
                                                      server: Server) -> None:
    name = "illegal-pass.json"
    record = parse_match(server.sample(f"faulty/{name}"))
    report = audit_record(record)
    f = next(f for f in report.findings if f.severity == "error")
    page = get(client, f"/matches/{server.id_of(name)}/replay?step={f.event + 1}", AR)
    assert list(zip(page.text_of("code"), page.text_of("finding-text"), strict=False))[0] == \
        (f.code, language("ar").finding(f, seats=record.header.seats if record.header else ()))


@pytest.mark.parametrize("name", ["illegal-pass.json", "bad-deal.json", "wrong-draw.json"])
def test_import_report_in_arabic(server: Server, tmp_path: Path, name: str) -> None:
    data = (SAMPLES / "faulty" / name).read_bytes()
    with fresh(server) as c:
        res = c.post("/import?lang=ar", files={"file": (name, data)})
    assert res.status_code == 200
    page = Page(res.text)
    assert page.root["dir"] == "rtl"
    assert _shown(page) == _expected(server, name, "ar")
    summary = " ".join(page.text_of("report-head"))
    assert ARABIC.search(summary) and name in summary


def test_import_errors_in_arabic(server: Server) -> None:
    with fresh(server) as c:
        empty = c.post("/import", files={"file": ("empty.json", b"  ")}, headers=AR)
        broken = c.post("/import", files={"file": ("broken.jsonl", b"{nope\n")}, headers=AR)
    assert empty.status_code == 400
    said = Page(empty.text).text_of("finding")
    assert said == [f"{FSI}empty.json{PDI} فارغ: لا مباراة فيه"]
    # a line that is not JSON: the match is not stored, and the reason is Arabic
    page = Page(broken.text)
    (reason,) = page.text_of("finding")
    assert reason.startswith("لم تُخزَّن: ")
    assert ARABIC.search(reason.removeprefix("لم تُخزَّن: "))
    assert page.text_of("finding-code") == ["bad-json"]  # said once, by its code


def test_error_pages_in_arabic(client: httpx.Client, server: Server) -> None:
    page = get(client, "/matches/987654", AR)
    assert page.text_of("lead") == [f"لا توجد مباراة رقم {LRI}987654{PDI} في السجل"]
    page = get(client, "/matches?from=yesterday", AR)
    (said,) = page.text_of("finding")
    assert said.startswith(f"تاريخ البداية {FSI}'yesterday'{PDI} ليس تاريخًا")


@pytest.mark.parametrize("name", ["illegal-pass.json", "wrong-deal-end.json"])
def test_score_sheet_files_in_the_page_language(client: httpx.Client, server: Server,
                                                name: str) -> None:
    # The match page offers the CLI's exports; in Arabic their words are Arabic, their
    # codes and machine columns are the English file's.
    match_id = server.id_of(name)
    links = {a.get("id"): a["href"] for a in get(client, f"/matches/{match_id}", AR).links}
    assert links["sheet-csv"] == f"/matches/{match_id}/sheet.csv"
    files = {lang: client.get(f"/matches/{match_id}/sheet.json", headers=h)
             for lang, h in (("ar", AR), ("en", EN))}
    assert all(r.status_code == 200 for r in files.values())
    assert files["ar"].headers["content-disposition"] == \
        f'attachment; filename="match-{match_id}-ar.json"'
    ar, en = (json.loads(files[k].content)["sheets"][0]["audit"] for k in ("ar", "en"))
    assert [f["code"] for f in ar["findings"]] == [f["code"] for f in en["findings"]]
    assert [f["message"] for f in ar["findings"]] == [m for _, m in _expected(server, name, "ar")]
    # The English file keeps the audit's report: its message says "seat 0" as JSON counts
    # (issue 34); another language's words the sentence, each seat named from 1.
    report = audit_record(parse_match(server.sample(f"faulty/{name}")))
    assert [f["message"] for f in en["findings"]] == [f.message for f in report.findings]
    csv_ar = client.get(f"/matches/{match_id}/sheet.csv", headers=AR).content.decode("utf-8-sig")
    csv_en = client.get(f"/matches/{match_id}/sheet.csv", headers=EN).content.decode("utf-8-sig")
    assert csv_ar.splitlines()[0] == csv_en.splitlines()[0] and ARABIC.search(csv_ar)
    pdf = client.get(f"/matches/{match_id}/sheet.pdf", headers=AR)
    assert pdf.headers["content-type"] == "application/pdf" and pdf.content.startswith(b"%PDF")
    assert client.get(f"/matches/{match_id}/sheet.exe").status_code == 404


# --- the glossary ----------------------------------------------------------------------


def test_glossary_index_lists_every_table(client: httpx.Client) -> None:
    for lang, headers in (("ar", AR), ("en", EN)):
        page = get(client, "/glossary", headers)
        listed = {a["data-preset"] for a in page.links if a.get("data-preset")}
        assert listed == set(GLOSSARIES)
        names = page.text_of("glossary-tables")[0]
        for g in GLOSSARIES.values():
            assert g.name(lang) in names


@pytest.mark.parametrize("preset", sorted(GLOSSARIES))
def test_glossary_page_of_a_table(client: httpx.Client, preset: str) -> None:
    g = GLOSSARIES[preset]
    for lang, headers in (("ar", AR), ("en", EN)):
        page = get(client, f"/glossary/{preset}", headers)
        want = entries(preset, lang)
        terms = page.text_of("term")
        assert terms == [e.word for e in want]
        assert page.text_of("meaning")[0].startswith(want[0].meaning)
        words = page.text_of("word")
        # each term in every language of the table, as its players say it
        assert words == [dict(e.words).get(code, "–") for e in want for code in g.languages]
        assert page.text_by_id("glossary-title") == g.name(lang)


def test_seed_words_on_the_arabic_glossary(client: httpx.Client) -> None:
    page = get(client, "/glossary/sahrat-fives", AR)
    shown = dict(zip(page.text_of("term"), page.text_of("meaning"), strict=True))
    for word in ("البنك", "قفلت", "باص", "دومينو!"):
        assert word in shown and ARABIC.search(shown[word])
    assert get(client, "/glossary/no-such-table", AR).root["dir"] == "rtl"
    assert client.get("/glossary/no-such-table").status_code == 404


def test_match_page_links_its_table_to_the_glossary(client: httpx.Client,
                                                    server: Server) -> None:
    for name, preset in (("sahrat-fives-4.json", "sahrat-fives"), ("domena-2.json", "domena"),
                         ("casual-arena-4-teams.json", "casual-arena")):
        for headers in (AR, EN):
            page = get(client, f"/matches/{server.id_of(name)}", headers)
            link = [a for a in page.links if a.get("id") == "table-glossary"]
            assert [a["href"] for a in link] == [f"/glossary/{preset}"]
            assert [a["href"] for a in page.links if a.get("id") == "nav-glossary"] == \
                ["/glossary"]
    page = get(client, f"/matches/{server.id_of('sahrat-fives-4.json')}", AR)
    assert page.text_of("table-name") == [f"{FSI}{GLOSSARIES['sahrat-fives'].name('ar')}{PDI}"]



# --- recording live -------------------------------------------------------------------


def test_recorder_pages_in_arabic(server: Server) -> None:
    # A practice match recorded from the page's own buttons (the first event offered each
    # time), one with every hand known and one where only seat 0's hand was seen: every
    # page on the way is Arabic, its script's sentences too, and its switcher is there.
    allowed = verbatim(server) | {"HTTP", "Ali", "Omar"}
    with fresh(server) as c:
        form = Page(c.get("/record", headers=AR).text)
        assert form.root["dir"] == "rtl" and words_left(form, allowed) == []
        for preset, names, hidden in (("sahrat-fives", ["Ali", "نور", "Omar", "ليلى"], False),
                                      ("selminha", ["Inês", "Luís"], True)):
            res = c.post("/record", headers=AR, follow_redirects=False, data={
                "preset": preset, "seats": str(len(names)), "target": "", "name": names,
                "seed": "arabic"})
            url = res.headers["location"]
            match_id = int(url.split("/")[2])
            for _ in range(40):
                html = c.get(url, headers=AR).text
                page = Page(html)
                assert page.root == {"lang": "ar", "dir": "rtl"}
                assert words_left(page, allowed) == [], url
                assert [a["data-lang"] for a in page.links if a.get("data-lang")] == \
                    list(SUPPORTED)
                words = json.loads(re.search(r'id="js-words">(.*?)</script>', html).group(1))
                assert len(words) > 30 and all(ARABIC.search(t) for t in words.values())
                offered = re.findall(r"data-event='([^']+)'", html)
                if not offered:
                    break
                event = json.loads(offered[0].replace("&#34;", '"'))
                if hidden and event["type"] == "deal":
                    event = {"type": "deal", "hands": [event["hands"][0], None]}
                seq = int(re.search(r'data-next-seq="(\d+)"', html).group(1))
                got = c.post(f"/api/matches/{match_id}/events",
                             json={"expected_seq": seq, "event": event})
                assert got.status_code == 201, got.text
        english = c.get(url, headers=EN).text  # the cookie is not set: English again
        assert 'id="js-words">{}</script>' in english and not ISOLATES.search(english)
