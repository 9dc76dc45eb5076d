"""Issue 15: the steps the replay page holds (GET /matches/N/replay/frames, one deal's
steps for one view) are each exactly what that step's own page shows: its #replay block
and its whole-match chart, over HTTP against the real test server, in every view and in
Arabic too. A step out of range holds the first or the last deal; a bad view or match
is refused."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from webtest_support import Server

CHART = re.compile(r'<script type="application/json" id="match-chart-data">(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def client(server: Server) -> Any:
    with httpx.Client(base_url=server.url, timeout=60) as c:
        yield c


def block(html: str) -> str:
    """The page's #replay block, as the page serves it."""
    start = html.index('<div id="replay"')
    return html[start:html.index('<details class="analysis-panel', start)].strip()


def deal_starts(obj: dict[str, Any]) -> list[int]:
    return [i for i, ev in enumerate(obj["events"]) if ev["type"] == "deal"]


@pytest.mark.parametrize(("name", "seat", "lang"), [
    ("domena-2.json", "", "en"), ("domena-2.json", "1", "ar"),
    ("sahrat-fives-4.json", "table", "en"), ("sahrat-fives-4.json", "2", "en")])
def test_held_steps_are_the_pages_of_those_steps(client: Any, server: Server, name: str,
                                                 seat: str, lang: str) -> None:
    obj = server.sample(name)
    match_id = server.id_of(name)
    starts = deal_starts(obj)
    # The first deal (step 0 with it) and the second, whose last step ends it.
    for asked, first, last in [(3, 0, starts[1]), (starts[1] + 2, starts[1] + 1, starts[2])]:
        got = client.get(f"/matches/{match_id}/replay/frames",
                         params={"step": asked, "seat": seat, "lang": lang}).json()
        assert (got["first"], got["last"]) == (first, last)
        assert [f["step"] for f in got["frames"]] == list(range(first, last + 1))
        assert got["last_step"] == len(obj["events"]) and got["live"] is False
        for f in got["frames"][::3] + got["frames"][-1:]:
            page = client.get(f"/matches/{match_id}/replay",
                              params={"step": f["step"], "seat": seat, "lang": lang}).text
            assert f["html"].strip() == block(page), (name, seat, f["step"])
            assert got["charts"][f["chart"]] == json.loads(CHART.findall(page)[0])
    # In a seat's view the chart grows at the step that ends a deal, not before.
    if seat:
        charts = [got["charts"][f["chart"]] for f in got["frames"]]
        assert charts[-1] != charts[0]


def test_steps_out_of_range_and_bad_asks(client: Any, server: Server) -> None:
    name = "domena-2.json"
    obj = server.sample(name)
    match_id = server.id_of(name)
    last = len(obj["events"])
    got = client.get(f"/matches/{match_id}/replay/frames", params={"step": last + 50}).json()
    assert got["frames"][-1]["step"] == last and got["first"] == deal_starts(obj)[-1] + 1
    got = client.get(f"/matches/{match_id}/replay/frames", params={"step": -3}).json()
    assert got["first"] == 0
    assert client.get(f"/matches/{match_id}/replay/frames", params={"seat": "x"}).status_code \
        == 422
    assert client.get(f"/matches/{match_id}/replay/frames", params={"seat": "9"}).status_code \
        == 404
    assert client.get("/matches/999999/replay/frames").status_code == 404
