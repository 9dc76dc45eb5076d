"""A deal's analysis over HTTP on SQLite and PostgreSQL: worked out once per stored head,
kept in the ledger across a restart, worked out again when the match is recorded further.

The app's own worker processes on both (``backend="local"``); the PostgreSQL ledger's
job queue and its workers are tests/store/test_workers.py's."""

from __future__ import annotations

import time
from typing import Any

import orjson
from fastapi.testclient import TestClient

from ledger.jobs.service import AnalysisJobs, Settings
from ledger.store import db
from tests.store.conftest import SAMPLES
from web.app import create_app

LOCAL = Settings(backend="local")


def _analysed(client: TestClient, match_id: int, deal: int) -> dict[str, Any]:
    while True:  # the server ends every job (its time limit, then a kill)
        res = client.get(f"/api/matches/{match_id}/analysis", params={"deal": deal})
        if res.status_code != 202:
            assert res.status_code == 200, res.text
            body: dict[str, Any] = res.json()
            return body
        time.sleep(0.05)


def _jobs(client: TestClient) -> AnalysisJobs:
    jobs: AnalysisJobs = client.app.state.analysis_jobs  # type: ignore[attr-defined]
    return jobs


def test_kept_per_head_across_a_restart(url: str) -> None:
    db.open_db(url, migrate=True).dispose()  # a server database is migrated on request
    match = orjson.loads((SAMPLES / "domena-2.json").read_bytes())
    events = match["events"]
    with TestClient(create_app(url, LOCAL)) as client:
        r = client.post("/api/matches", json={"table": match["table"], "seats": match["seats"]})
        match_id = int(r.json()["id"])
        seq = 0
        for ev in events[:6]:  # the first deal, its first moves
            got = client.post(f"/api/matches/{match_id}/events",
                              json={"expected_seq": seq, "event": ev})
            assert got.status_code == 201, got.text
            seq = got.json()["next_seq"]
        first = _analysed(client, match_id, 1)
        assert first["note"] == "the record stops before the deal ended"
        assert len(first["steps"]) == 6  # the start and the five moves so far
        assert _jobs(client).started == 1
    with TestClient(create_app(url, LOCAL)) as client:
        # A new app: the answer comes from the ledger, nothing is solved.
        assert _analysed(client, match_id, 1) == first
        assert _jobs(client).started == 0
        # One more move: another head, so the kept answer no longer holds.
        got = client.post(f"/api/matches/{match_id}/events",
                          json={"expected_seq": seq, "event": events[6]})
        assert got.status_code == 201, got.text
        second = _analysed(client, match_id, 1)
        assert _jobs(client).started == 1
        assert len(second["steps"]) == 7
        assert second["steps"][:6] == first["steps"]
