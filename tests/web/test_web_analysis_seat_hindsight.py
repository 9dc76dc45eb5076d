"""A seat sees only what it could know in the analysis too (issue 29, item 4).

Best play, each option's outcome, what a move lost by best play and the best-play chart
are worked out with every hand open: in a seat's or the spectator's view of a deal still
being played they are hindsight the viewer could not have. Every mid-deal step of the
samples below, for every seat and the spectator, is asked through the route; none of them
may carry a hindsight value. The all-hands view, and a seat's view once the deal's last
move is made, still show them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from webtest_support import analysed, ledger_with

SAMPLES = ("domena-4-one-round.json", "casual-arena-2-one-round.json")
MOVES = ("play", "draw", "pass")


@pytest.fixture(scope="module", params=SAMPLES)
def deal(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
         ) -> Iterator[tuple[TestClient, int, dict[str, Any]]]:
    """The sample's only deal as the all-hands view answers it."""
    from web.app import create_app

    folder: Path = tmp_path_factory.mktemp("ledger")
    url, match_id = ledger_with(folder, request.param)
    with TestClient(create_app(url)) as client:
        res, _ = analysed(client, match_id, 1)
        assert res.status_code == 200, res.text
        yield client, match_id, res.json()


def hindsight_in(body: dict[str, Any]) -> list[str]:
    """Every hindsight value ``body`` carries, named by where it is."""
    found = []
    if body.get("best") is not None:
        found.append("best")
    if "result" in body:
        found.append("result")
    for s in body.get("steps", ()):
        if s.get("best") is not None or s.get("lost"):
            found.append(f"step {s['step']}: best/lost")
    for d in body.get("decisions", ()):
        if "lost" in d or "hindsight_lost" in d:
            found.append(f"decision {d['event']}: lost")
        found += [f"decision {d['event']}: outcome of {o['move']}"
                  for o in d.get("options", ()) if "outcome" in o]
    if body.get("mistakes"):
        found.append("mistakes")
    if body.get("hindsight_losses"):
        found.append("hindsight losses")
    if body.get("swing", {}).get("data"):
        found.append("swing chart")
    return found


def test_no_mid_deal_view_shows_hindsight(deal: tuple[TestClient, int, dict[str, Any]]
                                          ) -> None:
    client, match_id, whole = deal
    assert hindsight_in(whole), "the all-hands view shows best play"
    moves = [s["step"] for s in whole["steps"] if s["move"] is not None]
    first, last = whole["first_step"], moves[-1]
    views = [*map(str, range(len(whole["seats"]))), "table"]
    leaks, asked = [], 0
    for step in range(first, last):
        for seat in views:
            res = client.get(f"/api/matches/{match_id}/analysis",
                             params={"deal": 1, "seat": seat, "step": step})
            assert res.status_code == 200, res.text
            asked += 1
            leaks += [f"step {step}, seat {seat}: {w}" for w in hindsight_in(res.json())]
    assert asked == (last - first) * len(views)
    assert not leaks, f"{len(leaks)} hindsight values in {asked} mid-deal views: {leaks[:5]}"


def test_the_deal_over_a_seat_sees_best_play(deal: tuple[TestClient, int, dict[str, Any]]
                                             ) -> None:
    client, match_id, whole = deal
    last = [s["step"] for s in whole["steps"] if s["move"] is not None][-1]
    got = client.get(f"/api/matches/{match_id}/analysis",
                     params={"deal": 1, "seat": "0", "step": last}).json()
    assert got["best"] == whole["best"]
    assert [s["best"] for s in got["steps"]] == [s["best"] for s in whole["steps"]]
    assert got["swing"]["data"]
