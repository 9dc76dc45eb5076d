"""Static files under content-hashed names: gzipped, cached for good, all from this machine;
the match page does not wait for Plotly (issue 15)."""

from __future__ import annotations

import gzip
import hashlib
import html
import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from webtest_support import Server

from web.assets import PLOTLY_BASIC as PLOTLY
from web.assets import STATIC_DIR

ASSET = re.compile(r'(?:src|href|data-plotly)="(/assets/([0-9a-f]{16})/([^"]+))"')


@pytest.fixture(scope="module")
def client(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=60) as c:
        yield c


def _assets(client: httpx.Client, path: str) -> list[tuple[str, str, str]]:
    page = client.get(path)
    assert page.status_code == 200
    return ASSET.findall(page.text)


def test_match_page_files_are_hashed_gzipped_and_kept_for_good(client: httpx.Client,
                                                                 server: Server) -> None:
    found = _assets(client, f"/matches/{server.id_of('domena-2.json')}")
    assert {name for _, _, name in found} == {"favicon.svg", "css/app.css", "js/chart.js",
                                               "js/plot.js", PLOTLY}
    for url, digest, name in found:
        # Raw bytes off the wire, to see what was sent: httpx would gunzip them.
        with client.stream("GET", url, headers={"Accept-Encoding": "gzip"}) as res:
            sent = b"".join(res.iter_raw())
        assert res.status_code == 200, url
        assert res.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert res.headers["content-encoding"] == "gzip"
        body = gzip.decompress(sent)
        assert hashlib.sha256(body).hexdigest()[:16] == digest, name
        plain = client.get(url, headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.content == body
        if name == PLOTLY:  # the partial bundle, sent as packed ahead of time
            assert len(body) > 1_000_000 and len(sent) < 600_000
            assert sent == (STATIC_DIR / f"{PLOTLY}.gz").read_bytes()


def test_stale_unknown_and_outside_names(client: httpx.Client) -> None:
    stale = client.get("/assets/0000000000000000/js/chart.js")
    assert stale.status_code == 307
    assert re.fullmatch(r"/assets/[0-9a-f]{16}/js/chart\.js", stale.headers["location"])
    assert client.get("/assets/0000000000000000/js/nothing.js").status_code == 404
    assert client.get("/assets/0000000000000000/..%2F..%2Fapp.py").status_code == 404


def test_pages_go_out_gzipped(client: httpx.Client, server: Server) -> None:
    res = client.get(f"/matches/{server.id_of('domena-2.json')}/replay?step=5",
                     headers={"Accept-Encoding": "gzip"})
    assert res.status_code == 200 and res.headers["content-encoding"] == "gzip"


def test_the_match_page_does_not_wait_for_plotly(client: httpx.Client, server: Server) -> None:
    page = client.get(f"/matches/{server.id_of('domena-2.json')}").text
    scripts = re.findall(r"<script\b[^>]*\bsrc=[^>]*>", page)
    assert scripts and all(" defer" in tag or " async" in tag for tag in scripts), scripts
    assert not any("plotly" in tag.split("data-plotly")[0] for tag in scripts)


@pytest.mark.browser
def test_the_page_is_shown_before_plotly_arrives(browser: Any, server: Server) -> None:
    """Plotly's answer is held back until the page has loaded: the page is complete and
    readable meanwhile, and the chart is drawn once the script comes."""
    context = browser.new_context()
    page = context.new_page()
    held: list[Any] = []
    page.route("**/plotly-basic.min.js", lambda route: held.append(route))
    page.goto(f"{server.url}/matches/{server.id_of('domena-2.json')}", wait_until="load")
    assert page.locator("h1").first.is_visible()
    page.wait_for_function("() => document.readyState === 'complete'")
    page.wait_for_timeout(200)
    assert len(held) == 1 and page.locator("#score-race .main-svg").count() == 0
    held[0].continue_()
    page.wait_for_selector("#score-race .main-svg")
    context.close()


# --- Plotly's partial bundle (issue 33, item 5) ----------------------------------------------

VENDORED = STATIC_DIR / "vendor" / "plotly_basic"
BUNDLE_TRACES = {"scatter", "bar", "pie"}  # what plotly.js-basic-dist-min holds


def test_the_vendored_bundle_says_what_it_is() -> None:
    """Its licence, and a note naming the npm package, its version and the file's sum, which
    agree with the file itself."""
    js = (VENDORED / "plotly-basic.min.js").read_bytes()
    version = re.search(rb"plotly\.js \(basic - minified\) v(\d+\.\d+\.\d+)", js[:300])
    assert version, "the bundle's header names no version"
    note = (VENDORED / "README.md").read_text(encoding="utf-8")
    assert "`plotly.js-basic-dist-min`" in note
    assert f"| version | {version.group(1).decode()} " in note
    assert hashlib.sha256(js).hexdigest() in note
    assert re.search(r"tarball sha1 \(npm `shasum`\) \| `[0-9a-f]{40}`", note)
    licence = (VENDORED / "LICENSE").read_text(encoding="utf-8")
    assert "Plotly" in licence and "Permission is hereby granted, free of charge" in licence
    assert gzip.decompress((VENDORED / "plotly-basic.min.js.gz").read_bytes()) == js


def test_the_vendored_bundle_names_no_other_host() -> None:
    """The app works offline: no address of a CDN or a cloud is left in the script it
    serves (the note's patch), only XML namespaces and the licences' pages, never fetched."""
    js = (VENDORED / "plotly-basic.min.js").read_text(encoding="utf-8")
    hosts = set(re.findall(r"https?://([a-z0-9.-]+)", js))
    assert not {h for h in hosts if "cdn" in h or "cloud" in h}, hosts
    assert hosts <= {"www.w3.org", "plotly.com", "github.com", "syntheti.cc",
                     "getify.mit-license.org"}, hosts


def test_no_file_of_the_web_names_a_cdn() -> None:
    """Pages, scripts and notes under web/ point at no script host (the app serves every
    script itself and works offline); the vendored bundle is checked above."""
    web = STATIC_DIR.parent
    named = []
    for path in web.rglob("*"):
        if path.suffix not in {".html", ".js", ".py", ".md", ".css"} or path.name.endswith(
                ".min.js"):
            continue
        for host in re.findall(r"https?://([a-z0-9.-]+)", path.read_text(encoding="utf-8")):
            if any(w in host for w in ("cdn", "unpkg", "jsdelivr", "cloud", "googleapis")):
                named.append((str(path.relative_to(web)), host))
    assert named == []


def test_the_bundle_is_served_gzipped_and_the_old_address_leads_to_it(
        client: httpx.Client) -> None:
    old = client.get("/static/vendor/plotly.min.js", follow_redirects=False)
    assert old.status_code == 307
    url = old.headers["location"]
    assert url.endswith("/vendor/plotly_basic/plotly-basic.min.js")
    with client.stream("GET", url, headers={"Accept-Encoding": "gzip, br"}) as res:
        sent = b"".join(res.iter_raw())
    assert res.headers["content-encoding"] == "gzip" and "Accept-Encoding" in res.headers["vary"]
    assert res.headers["content-type"].startswith("text/javascript")
    assert sent == (VENDORED / "plotly-basic.min.js.gz").read_bytes()
    assert client.get(url + ".gz").status_code == 404  # the .gz is no file of its own


def test_the_whole_plotly_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    from web.assets import PLOTLY_ENV, PLOTLY_FULL, asset, plotly_bundle

    monkeypatch.delenv(PLOTLY_ENV, raising=False)
    assert plotly_bundle() == PLOTLY
    monkeypatch.setenv(PLOTLY_ENV, "full")
    assert plotly_bundle() == PLOTLY_FULL
    full, basic = asset(PLOTLY_FULL), asset(PLOTLY)
    assert full is not None and basic is not None and len(basic.raw) < len(full.raw) / 3


def _figure(page: str, block: str) -> Any:
    found = re.search(rf'<script type="application/json" id="{block}">(.*?)</script>', page, re.S)
    assert found, block
    return json.loads(found.group(1))


def test_every_chart_is_a_trace_the_bundle_holds(client: httpx.Client, server: Server) -> None:
    match = server.id_of("domena-4.json")
    race = _figure(client.get(f"/matches/{match}").text, "score-race-data")
    whole = _figure(client.get(f"/matches/{match}/replay?step=30").text, "match-chart-data")
    types = {t["type"] for fig in (race, whole) for t in fig["data"]}
    assert types and types <= BUNDLE_TRACES, types


def test_the_arabic_page_hands_plotly_its_words(client: httpx.Client, server: Server) -> None:
    page = client.get(f"/matches/{server.id_of('domena-4.json')}?lang=ar").text
    found = re.search(r"<script src=\"[^\"]+/js/plot\.js\" data-plotly=\"[^\"]+\" "
                      r"data-locale='([^']*)' defer>", page)
    assert found, "no plot.js on the match page"
    locale = json.loads(html.unescape(found.group(1)))
    assert locale["name"] == "ar" and locale["dictionary"]["Zoom in"] == "تكبير"
    assert set(locale["format"]) == {"decimal", "thousands"}
    race = _figure(page, "score-race-data")
    hover = " ".join(t for trace in race["data"] for t in trace["text"])
    assert "(خروج)" in hover or "(قفلة)" in hover
    assert not re.search(r"\b(?:out|block)\b", hover), hover
    english = client.get(f"/matches/{server.id_of('domena-4.json')}?lang=en").text
    assert "data-locale='null'" in english
