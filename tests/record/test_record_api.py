"""The live recording API as a recorder (or anyone) calls it: refusals, undo, conflicts.

A real server on a temp SQLite ledger (conftest.py). Nothing here goes through
a browser: a forged request must be refused by the server itself.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ledger.formats.wire import event_to_dict
from ledger.recording import seeded_deal
from ledger.rules import make_rules
from ledger.store.db import open_db, read_session, writing
from ledger.store.imports.importer import import_file
from ledger.store.log.verify import verify_match
from tests.record.conftest import Server
from tests.record.helpers import stored
from tests.web.webtest_support import ROOT

Api = Callable[..., Any]

DEAL_4 = {"type": "deal", "hands": [
    ["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0"],
    ["5-5", "5-4", "5-3", "5-2", "5-1", "5-0", "0-0"],
    ["4-4", "4-3", "4-2", "4-1", "4-0", "1-1", "1-0"],
    ["3-3", "3-2", "3-1", "3-0", "2-2", "2-1", "2-0"]]}


def _start(api: Api, preset: str, seats: list[str], **options: Any) -> int:
    got = api("POST", "/api/matches", json={"table": {"rules": preset, "options": options},
                                            "seats": seats})
    assert got.status_code == 201, got.text
    return int(got.json()["id"])


def _append(api: Api, match_id: int, event: dict[str, Any], seq: int | None = None) -> Any:
    if seq is None:
        seq = api("GET", f"/api/matches/{match_id}").json()["next_seq"]
    return api("POST", f"/api/matches/{match_id}/events",
               json={"expected_seq": seq, "event": event})


def _first_choice(api: Api, match_id: int) -> dict[str, Any] | None:
    """The first event the menu offers for the seat to move (None: no move is due)."""
    m = api("GET", f"/api/matches/{match_id}/menu").json()
    if m["need"] not in ("move", "lead"):
        return None
    turn = m["turns"][0]
    choice: dict[str, Any] = (turn["plays"] + turn["draws"] + turn["passes"])[0]["event"]
    return choice


def _verify(server: Server, match_id: int) -> str:
    engine = open_db(server.db_url)
    try:
        with read_session(engine) as session:
            return verify_match(session.connection(), match_id).describe()
    finally:
        engine.dispose()


def test_a_forged_illegal_event_is_refused_with_the_rules_sentence_and_nothing_stored(
        api: Api, server: Server) -> None:
    match_id = _start(api, "domena", ["Ali", "Omar", "Layla", "Rania"], target=0)
    assert _append(api, match_id, DEAL_4).status_code == 201
    before = api("GET", f"/api/matches/{match_id}/events").json()
    seq = before[-1]["seq"] + 1
    # rules-decisions.md, domena: "4 seats — holder of 6-6 opens with it."
    forged = [
        ({"type": "play", "seat": 1, "tile": "5-5"}, "wrong-leader",
         "seat 1 opened deal 1, but seat 0 had to lead it"),
        ({"type": "play", "seat": 0, "tile": "6-5"}, "wrong-opening-tile",
         "seat 0 opened with 6-5, but deal 1 must open with 6-6, the highest double dealt"),
        ({"type": "pass", "seat": 0}, "illegal-pass", "seat 0 passed instead of opening deal 1"),
        ({"type": "draw", "seat": 0, "tile": "5-5"}, "out-of-turn",
         "seat 0 drew before deal 1 was opened"),
    ]
    for event, code, sentence in forged:
        got = _append(api, match_id, event, seq)
        assert got.status_code == 422, got.text
        assert got.json()["error"]["code"] == code
        assert got.json()["error"]["message"] == sentence
    assert _append(api, match_id, {"type": "play", "seat": 0, "tile": "6-6"}, seq).status_code \
        == 201
    # Seat 1 holds 5-5 ... 0-0 and no 6: it cannot play on 6-6; there is no stock, so it passes.
    for event, code, sentence in [
        ({"type": "play", "seat": 1, "tile": "5-5", "end": "left"}, "tile-does-not-fit",
         "seat 1 played 5-5, which fits none of the open ends: the left end (6) and the right "
         "end (6)"),
        ({"type": "draw", "seat": 1, "tile": None}, "no-stock",
         "seat 1 drew, but this table has no stock to draw from: a seat that cannot play "
         "passes"),
        ({"type": "play", "seat": 2, "tile": "4-4", "end": "left"}, "out-of-turn",
         "seat 2 played 4-4, but it was seat 1's turn"),
    ]:
        got = _append(api, match_id, event, seq + 1)
        assert (got.status_code, got.json()["error"]["code"]) == (422, code)
        assert got.json()["error"]["message"] == sentence
    after = api("GET", f"/api/matches/{match_id}/events").json()
    assert len(after) == len(before) + 1  # the one legal opening, nothing else
    assert "ok" in _verify(server, match_id)


def test_a_stale_sequence_number_is_a_conflict_and_stores_nothing(api: Api) -> None:
    match_id = _start(api, "sahrat-draw", ["Ali", "Omar"], target=0)
    rules = make_rules("sahrat-draw", 2, {"target": 0})
    deal = event_to_dict(seeded_deal(rules, "api-conflict", 0))
    assert _append(api, match_id, deal, 0).status_code == 201
    again = _append(api, match_id, deal, 0)  # a second device, still at seq 0
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "conflict"
    assert again.json()["error"]["next_seq"] == 1
    assert len(api("GET", f"/api/matches/{match_id}/events").json()) == 1


def test_undo_keeps_the_history_and_the_sheet_replay_and_export_use_the_corrected_line(
        api: Api, server: Server, tmp_path: Path) -> None:
    rules = make_rules("sahrat-draw", 2, {"target": 0})
    match_id = _start(api, "sahrat-draw", ["Ali", "Omar"], target=0)
    assert _append(api, match_id, event_to_dict(seeded_deal(rules, "api-undo", 0))).status_code \
        == 201
    # Play the deal out with the first move offered each time.
    while (choice := _first_choice(api, match_id)) is not None:
        assert _append(api, match_id, choice).status_code == 201
    first = stored(api, match_id)
    assert first.match["status"] == "complete" and len(first.sheet["deals"]) == 1
    last = next(r for r in reversed(first.rows) if r["kind"] == "recorded")
    # Only the last event standing may be taken back.
    wrong = _append(api, match_id, {"type": "undo", "event": last["event"] - 1})
    assert wrong.status_code == 422 and wrong.json()["error"]["code"] == "bad-undo"
    assert wrong.json()["error"]["message"] == (
        f"only the last event can be undone: that is event {last['event']}, not event "
        f"{last['event'] - 1}")
    undo = _append(api, match_id, {"type": "undo", "event": last["event"]})
    assert undo.status_code == 201, undo.text
    assert undo.json()["status"] == "recording"
    back = stored(api, match_id)
    assert back.sheet["deals"] == [] and back.match["scores"] in ([0, 0], None)
    assert back.match["winner"] is None and back.match["status"] == "recording"
    # Record the deal's end again: the match ends once more, as the engine folds it.
    choice = _first_choice(api, match_id)
    assert choice is not None
    assert _append(api, match_id, choice).status_code == 201
    done = stored(api, match_id)
    history = done.history
    assert history[-2] == {"type": "undo", "event": last["event"]}
    assert history[-3] == last["payload"]  # the undone event stays in the history
    report = done.audit()
    assert report.ok and report.complete
    assert done.match["scores"] == report.scores and done.match["winner"] == report.winner
    assert [(d["result"], d["winner"], d["points"]) for d in done.sheet["deals"]] == [
        (d["result"], d["winner"], d["points"]) for d in report.deals]
    assert "ok" in _verify(server, match_id)
    # The replay walks the corrected line: one step per event standing.
    line = done.line
    frame = api("GET", f"/api/matches/{match_id}/replay", params={"step": len(line)}).json()
    assert frame["last_step"] == len(line) and frame["phase"] == "ended"
    assert api("GET", f"/matches/{match_id}/replay", params={"step": len(line)}).status_code \
        == 200
    # An exported match is the corrected line, an ordinary match that audits clean.
    out = tmp_path / "recorded.json"
    run = subprocess.run([sys.executable, "-m", "web.cli", "export", str(match_id), "--db",
                          server.db_url, "--format", "match", "-o", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert [e for e in exported["events"] if e["type"] in ("deal", "play", "draw", "pass")] \
        == [e for e in line if e["type"] in ("deal", "play", "draw", "pass")]
    assert all(e["type"] != "undo" for e in exported["events"])
    audit = subprocess.run([sys.executable, "-m", "web.cli", "audit", "--json", str(out)],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    result = json.loads(audit.stdout.splitlines()[0])
    assert result["ok"] and result["scores"] == report.scores
    # And the analysis reads it as it reads any stored match: one review per deal.
    analysed = subprocess.run([sys.executable, "-m", "web.cli", "analyse", str(match_id),
                               "--db", server.db_url, "--json"],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert analysed.returncode == 0, analysed.stderr
    assert len(analysed.stdout.splitlines()) == len(report.deals)


def test_the_menu_api_offers_only_events_the_server_accepts(api: Api) -> None:
    match_id = _start(api, "sahrat-partner", ["Ali", "Omar", "Layla", "Rania"], target=0)
    assert _append(api, match_id, DEAL_4).status_code == 201
    for _ in range(40):
        m = api("GET", f"/api/matches/{match_id}/menu").json()
        if m["need"] != "move":
            break
        turn = m["turns"][0]
        offered = turn["plays"] + turn["draws"] + turn["passes"]
        seq = m["next_seq"]
        # Every offer is accepted: try each on its own (undoing it again) ...
        for c in offered[1:]:
            assert _append(api, match_id, c["event"], seq).status_code == 201
            took = api("GET", f"/api/matches/{match_id}/menu").json()["undo"]
            assert _append(api, match_id, {"type": "undo", "event": took["event"]}).status_code \
                == 201
            seq = api("GET", f"/api/matches/{match_id}").json()["next_seq"]
        # ... and every refused tile is refused by the server too, with its reason.
        for r in turn["refused"]:
            if r["tile"]:
                got = _append(api, match_id, {"type": "play", "seat": turn["seat"],
                                              "tile": r["tile"], "end": "left"}, seq)
                assert got.status_code == 422
        assert _append(api, match_id, offered[0]["event"], seq).status_code == 201
    assert stored(api, match_id).audit().ok


def test_the_new_match_form_says_what_is_wrong(api: Api) -> None:
    ok = api("POST", "/record", data={"preset": "casual-arena", "seats": "4", "target": "50",
                                      "teams": "true", "name": ["A", "B", "C", "D"]},
             follow_redirects=False)
    assert ok.status_code == 303
    match = api("GET", ok.headers["location"].replace("/record", "").replace(
        "/matches/", "/api/matches/")).json()
    assert match["options"] == {"target": 50, "teams": True} and match["origin"] == "live"
    for form, message in [
        ({"preset": "domena", "seats": "3"}, "Table &#39;domena&#39; is played by 2 or 4 seats"),
        ({"preset": "selminha", "seats": "2", "target": "70"},
         "Table &#39;selminha&#39; plays to a target of 50, 100, not 70"),
        ({"preset": "domena", "seats": "2", "target": "ten"}, "whole number of points"),
        ({"preset": "domena", "seats": "2", "name": ["Ali", "Ali"]}, "the same name"),
    ]:
        got = api("POST", "/record", data=form, follow_redirects=False)
        assert got.status_code == 422, form
        assert message in got.text, (form, got.text[:3000])


def test_an_imported_match_is_not_recorded_here(api: Api, server: Server) -> None:
    engine = open_db(server.db_url)
    try:
        with writing(engine) as session:
            (got,) = list(import_file(session, str(ROOT / "sample_matches" /
                                                   "domena-2.json")))
    finally:
        engine.dispose()
    assert got.id is not None
    page = api("GET", f"/matches/{got.id}/record")
    assert page.status_code == 409
    assert "imported from a file" in page.text
    refused = _append(api, got.id, {"type": "pass", "seat": 0})
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "match-closed"
