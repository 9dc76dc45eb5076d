"""Live equals import, through the real server (issue 29): the live match's page and API
say what ``audit`` says of its export, once a reveal shows a pass was illegal.

The match and its events are those of tests/store/test_live_equals_import.py: seat 1's
hand is not seen while it passes holding 6-4 on an open 6 (arab-block, seed 000: "a seat
that cannot play passes"); the reveal at the end of the deal shows it.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.record.conftest import Server
from tests.store.test_live_equals_import import HEADER, _events
from tests.web.webtest_support import ROOT

Api = Callable[..., Any]


def _cli(*args: str) -> str:
    run = subprocess.run([sys.executable, "-m", "web.cli", *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode in (0, 1), run.stderr  # audit answers 1 for a faulty match
    return run.stdout


def test_the_live_page_and_api_say_what_the_audit_of_the_export_says(
        api: Api, server: Server, tmp_path: Path) -> None:
    got = api("POST", "/api/matches", json=HEADER)
    assert got.status_code == 201, got.text
    match_id = int(got.json()["id"])
    seq = 0
    for ev in _events():
        done = api("POST", f"/api/matches/{match_id}/events",
                   json={"expected_seq": seq, "event": ev})
        assert done.status_code == 201, done.text
        seq = done.json()["next_seq"]
    out = tmp_path / "live.json"
    _cli("export", str(match_id), "--db", server.db_url, "--format", "match", "-o", str(out))
    audited = json.loads(_cli("audit", "--json", str(out)).splitlines()[0])
    said = sorted((f["event"], f["code"], f["message"]) for f in audited["findings"])
    assert "illegal-pass" in {code for _, code, _ in said}
    shown = api("GET", f"/api/matches/{match_id}").json()
    assert sorted((f["event"], f["code"], f["message"]) for f in shown["findings"]) == said
    assert shown["ok"] is audited["ok"] is False
    page = html.unescape(api("GET", f"/matches/{match_id}").text)
    names = HEADER["seats"]
    for _, _, message in said:
        # The page names each seat's player, counted from 1 (issue 34); the API and the
        # audit's JSON keep the English of the file, "seat 0".
        assert re.sub(r"\bseat (\d+)", lambda m: f"{names[int(m[1])]} (seat {int(m[1]) + 1})",
                      message) in page
    # The recorder's own page shows what the reveal proved (its open match aside: the
    # recorder is recording it).
    recorder = html.unescape(api("GET", f"/matches/{match_id}/record").text)
    for _, code, message in said:
        message = re.sub(r"\bseat (\d+)",
                         lambda m: f"{names[int(m[1])]} (seat {int(m[1]) + 1})", message)
        assert (message in recorder) is (code != "match-unfinished"), code
