"""The JSON API and the served HTML, over HTTP against the real test server."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import httpx
import pytest
from webtest_support import Server

from ledger.audit import audit_record
from ledger.engine import fold
from ledger.formats.reader import parse_match
from ledger.rules import make_rules


@pytest.fixture(scope="module")
def client(server: Server) -> Any:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


@pytest.mark.parametrize("name", ["domena-2.json", "sahrat-fives-4.json",
                                  "sahrat-partner-4.json", "selminha-3.json"])
def test_replay_json_agrees_with_the_engine(client: Any, server: Server, name: str) -> None:
    obj = server.sample(name)
    rec = parse_match(obj)
    assert rec.header is not None
    rules = make_rules(rec.header.preset, len(rec.header.seats), rec.header.options)
    rng = random.Random(name)
    steps = sorted(rng.sample(range(len(obj["events"]) + 1), 12)) + [len(obj["events"])]
    for step in steps:
        state = fold(rules, rec.events[:step])
        got = client.get(f"/api/matches/{server.id_of(name)}/replay",
                         params={"step": step}).json()
        assert got["step"] == step and got["last_step"] == len(obj["events"])
        for hand in got["hands"]:
            assert sorted(hand["tiles"]) == sorted(str(t) for t in state.hand(hand["seat"]))
        if state.table:
            assert [(e["end"], e["number"]) for e in got["board"]["ends"]] == state.open_ends()
        assert got["scores"] == state.scores
        seat = step % rules.seats
        view = client.get(f"/api/matches/{server.id_of(name)}/replay",
                          params={"step": step, "seat": seat}).json()
        for hand in view["hands"]:
            if hand["seat"] != seat:
                assert hand["tiles"] == []
                assert hand["hidden"] == len(state.hand(hand["seat"]))


def test_scoresheet_json(client: Any, server: Server) -> None:
    name = "sahrat-fives-2.json"
    report = audit_record(parse_match(server.sample(name)))
    sheet = client.get(f"/api/matches/{server.id_of(name)}/scoresheet").json()
    assert [(d["result"], d["winner"], d["points"]) for d in sheet["deals"]] == [
        (d["result"], d["winner"], d["points"]) for d in report.deals]
    assert sheet["scores"] == report.scores
    assert sheet["deals"][-1]["totals"] == report.scores


def test_replay_json_errors(client: Any, server: Server) -> None:
    match_id = server.id_of("domena-2.json")
    res = client.get(f"/api/matches/{match_id}/replay", params={"step": 10_000})
    assert res.status_code == 404
    assert "10000" in res.text
    assert client.get("/api/matches/987654/replay").status_code == 404
    assert client.get(f"/api/matches/{match_id}/replay", params={"seat": 9}).status_code == 404
    assert client.get(f"/api/matches/{match_id}/replay", params={"step": -1}).status_code == 422


# Anything that would make the browser fetch from another machine: an absolute URL
# or a protocol-relative one in an attribute, CSS url() or @import.
EXTERNAL = re.compile(r"""(?:src|href|action|content|poster|data)\s*=\s*["']?\s*(?:https?:)?//"""
                      r"""|url\(\s*["']?\s*(?:https?:)?//|@import\s+["']?(?:https?:)?//""",
                      re.IGNORECASE)


def test_no_served_page_names_an_outside_url(client: Any, server: Server) -> None:
    match_id = server.id_of("sahrat-fives-2.json")
    pages = ["/matches", f"/matches/{match_id}", f"/matches/{match_id}/replay?step=30",
             f"/matches/{match_id}/replay?step=30&seat=1", "/import", "/docs",
             "/matches/987654", "/static/css/app.css"]
    for path in pages:
        res = client.get(path, follow_redirects=True)
        assert res.status_code in (200, 404), path
        assert not EXTERNAL.search(res.text), (path, EXTERNAL.search(res.text))
    # The score race loads Plotly from the app itself (plot.js fetches it: data-plotly).
    page = client.get(f"/matches/{match_id}").text
    plotly = re.search(r'data-plotly="(/assets/[0-9a-f]{16}/vendor/plotly_basic/'
                       r'plotly-basic\.min\.js)"', page)
    assert plotly is not None
    js = client.get(plotly.group(1))
    assert js.status_code == 200 and len(js.content) > 1_000_000
    old = client.get("/static/vendor/plotly.min.js", follow_redirects=True)  # the old address
    assert old.content == js.content


def test_names_from_a_file_are_escaped(client: Any, server: Server) -> None:
    obj = server.sample("arab-block-2.json")
    evil = "<script>alert('x')</script>"
    obj["seats"] = [evil, "B&B"]
    obj["source"] = {"site": "<b>site</b>"}
    files = {"file": ("evil.json", json.dumps(obj).encode(), "application/json")}
    res = client.post("/import", files=files)
    assert res.status_code == 200
    assert evil not in res.text and "&lt;b&gt;site&lt;/b&gt;" in res.text
    match_id = int(re.search(r'data-match-id="(\d+)"', res.text).group(1))  # type: ignore[union-attr]
    for path in (f"/matches/{match_id}", f"/matches/{match_id}/replay?step=5"):
        body = client.get(path).text
        assert evil not in body
        assert "&lt;script&gt;alert(" in body and "B&amp;B" in body


def test_import_many_at_once_and_bad_files(client: Any, server: Server) -> None:
    import gzip

    data = (server.samples / "archive.jsonl.gz").read_bytes()
    lines = [ln for ln in gzip.decompress(data).splitlines() if ln.strip()]
    upload = {"file": ("archive.jsonl.gz", data, "application/gzip")}
    res = client.post("/import", files=upload)
    assert res.status_code == 200
    assert res.text.count('class="card import-result"') == len(lines) > 1
    assert "already in the ledger" not in res.text
    # The same file again: each match is found, not stored twice.
    again = client.post("/import", files=upload)
    assert again.text.count("already in the ledger") == len(lines)
    res = client.post("/import", files={"file": ("empty.json", b"  \n", "application/json")})
    assert res.status_code == 400 and "empty" in res.text
    res = client.post("/import", files={"file": ("junk.json", b"{not json", "application/json")})
    assert res.status_code == 400  # nothing in it could be read (issue 32: was 200)
    assert "bad-json" in res.text and "Not stored" in res.text
