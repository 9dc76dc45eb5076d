"""Issue 12: a seat sees only what it saw. Every step of every sample match and of a
generated match of every table and seat count, in every seat's view and the table's,
in the replay page (HTML), its JSON answer and the Analysis panel's answer: every tile
named there is one the viewer knew at that step (tests/seat/leaks.py: the oracle).
Issue 15: the steps the browser holds (web.replay_frames: a deal's steps in one answer)
too, each against what the viewer knew at that step, not at the step asked for.

The page and the answers are made by the functions the routes call (the frame as
web.access lets the viewer see it, the page's template, the JSON, the analysis body cut
to the view), without the HTTP round trip, so that all of them fit in a few minutes;
tests/seat/test_keys_http.py goes through HTTP.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from starlette.requests import Request

from ledger.i18n import Language, language
from ledger.jobs.deal_analysis import seen_by, worded
from ledger.replay import deal_span
from ledger.rules.base import Rules
from ledger.seatview import TABLE, Viewer, sight, tiles_named
from ledger.store.db import open_db, writing
from ledger.store.imports.importer import import_file
from tests.seat.leaks import Known, label, match_files, oracle, walked_whole, worst_bodies
from web.app import create_app
from web.matchdata import StoredMatch, load_match
from web.replay_frames import chunk, frames
from web.routes.replay import frame_answer, page_context, view_frame
from web.templating import templates


@dataclass
class Tally:
    frames: int = 0
    held: int = 0      # steps of the answers the browser holds (web.replay_frames)
    checks: int = 0
    leaks: list[str] = field(default_factory=list)
    matches: int = 0

    def check(self, where: str, text: str, known: frozenset[str]) -> None:
        self.checks += 1
        extra = tiles_named(text) - known
        if extra and len(self.leaks) < 20:
            self.leaks.append(f"{where}: {sorted(extra)} not known (knew {sorted(known)})")
        elif extra:
            self.leaks.append(where)


# Every frame of every file: DOMINO_LEDGER_EXHAUSTIVE=1 (about 50,000 frames, some 20-50
# minutes on two cores). The default run walks every step of the faulty and partial
# samples and, of the others, every STRIDE-th step (a different one for each viewer), in
# all three answers.
EXHAUSTIVE = os.environ.get("DOMINO_LEDGER_EXHAUSTIVE", "") == "1"
STRIDE = 1 if EXHAUSTIVE else 15
FILES = [label(p) for p in match_files(None)]


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict[str, list[int]]]]:
    tmp = tmp_path_factory.mktemp("seat-leaks")
    url = f"sqlite:///{tmp / 'ledger.db'}"
    engine = open_db(url)
    ids: dict[str, list[int]] = {}
    for path in match_files(tmp):
        with writing(engine) as session:
            ids[label(path)] = [got.id for got in import_file(session, str(path))
                              if got.id is not None]
    engine.dispose()
    app = create_app(url)
    yield app, ids
    app.state.engine.dispose()


def _request(app: Any, path: str) -> Request:
    return Request({"type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
                    "query_string": b"", "headers": [], "app": app, "root_path": "",
                    "scheme": "http", "server": ("testserver", 80), "client": ("test", 1)})


def _walk(app: Any, match_id: int, tally: Tally, lang: Language, stride: int = 1) -> None:
    with app.state.engine.connect() as conn:
        whole = load_match(conn, match_id, everything=True)
        if whole.replay is None or whole.rules is None:
            return
        rules: Rules = whole.rules
        known: Known = oracle(rules, whole.replay.events)
        h = whole.header
        # Worded once per deal: ``worded`` only adds words beside what ``seen_by`` keeps or
        # leaves out, so wording first and cutting after gives the route's answer.
        bodies = {deal: worded(body, lang) for deal, body in worst_bodies(
            match_id, h.preset, dict(h.options), h.seats, rules, whole.replay.events).items()}
        windows: dict[tuple[int, int], StoredMatch] = {}
        tally.matches += 1
        request = _request(app, f"/matches/{match_id}/replay")
        for step in range(whole.replay.last_step + 1):
            span = deal_span(whole.types, max(step, 1))
            if span not in windows:
                windows[span] = load_match(conn, match_id, step=step)
            match = windows[span]
            assert match.replay is not None
            for seat in [*range(rules.seats), None]:
                if (step + (seat if seat is not None else rules.seats)) % stride:
                    continue
                view = TABLE if seat is None else str(seat)
                where = f"match {match_id} ({h.preset}) step {step} view {view}"
                can = known.of(step, seat)
                fr = view_frame(request, match, step, view)
                assert fr.viewer == Viewer.parse(view)
                tally.frames += 1
                tally.check(f"{where} json", json.dumps(frame_answer(match, fr)), can)
                page = templates.TemplateResponse(request, "replay.html",
                                                  page_context(match, fr, lang))
                tally.check(f"{where} html", bytes(page.body).decode(), can)
                body = bodies.get(fr.deal)
                if body is not None:
                    start, _ = deal_span(match.types, max(step, 1))
                    cut = seen_by(body, sight(fr.viewer, step, match.replay.events, start))
                    tally.check(f"{where} analysis", json.dumps(cut), can)
        _walk_held(conn, request, match_id, whole.types, rules.seats, known, tally, stride)


def _walk_held(conn: Any, request: Request, match_id: int, types: tuple[str, ...],
               seats: int, known: Known, tally: Tally, stride: int) -> None:
    """Every answer of held steps (one per deal and view) the browser could ask for: each
    step in it, and the whole-match chart it draws there, against that step's knowledge.
    Outside the exhaustive run, one view of each deal in turn (all of them for the small
    and odd files)."""
    firsts = sorted({chunk(types, s).start for s in range(len(types) + 1)})
    for n, first in enumerate(firsts):
        for seat in [*range(seats), None]:
            if stride > 1 and (n + (seat if seat is not None else seats)) % (seats + 1):
                continue
            view = TABLE if seat is None else str(seat)
            answer = frames(request, conn, match_id, first, view)
            assert answer["first"] == first and answer["frames"]
            for held in answer["frames"]:
                step = held["step"]
                where = f"match {match_id} held step {step} (asked {first}) view {view}"
                can = known.of(step, seat)
                tally.held += 1
                tally.check(f"{where} html", held["html"], can)
                tally.check(f"{where} chart", json.dumps(answer["charts"][held["chart"]]), can)


@pytest.mark.slow
@pytest.mark.parametrize("name", FILES)
def test_no_view_names_a_tile_its_viewer_did_not_know(
        ledger: tuple[Any, dict[str, list[int]]], name: str) -> None:
    app, ids = ledger
    tally = Tally()
    lang = language("en")
    stride = 1 if walked_whole(name) else STRIDE
    for match_id in ids[name]:
        _walk(app, match_id, tally, lang, stride)
    print(f"\n{name}: {tally.matches} matches, {tally.frames} frames, {tally.held} held "
          f"steps, {tally.checks} page/JSON/analysis answers, {len(tally.leaks)} leaks")
    assert tally.matches == len(ids[name]) >= 1 and tally.frames > 0 and tally.held > 0
    assert not tally.leaks, "\n".join(tally.leaks[:20])


def test_the_oracle_catches_a_leak(ledger: tuple[Any, dict[str, list[int]]]) -> None:
    """All hands open names tiles seat 0 did not know: the check above can fail."""
    app, ids = ledger
    match_id = ids["domena-2.json"][0]
    with app.state.engine.connect() as conn:
        match = load_match(conn, match_id, step=5)
        whole = load_match(conn, match_id, everything=True)
    assert match.replay is not None and match.rules is not None and whole.replay is not None
    fr = view_frame(_request(app, "/"), match, 5, None)
    tally = Tally()
    tally.check("all hands", json.dumps(frame_answer(match, fr)),
                oracle(match.rules, whole.replay.events).of(5, 0))
    assert tally.leaks


def test_the_oracle_catches_a_leak_in_held_steps(ledger: tuple[Any, dict[str, list[int]]]) -> None:
    """The steps held with all hands open name tiles seat 0 did not know: the walk of the
    held steps above can fail."""
    app, ids = ledger
    match_id = ids["domena-2.json"][0]
    with app.state.engine.connect() as conn:
        whole = load_match(conn, match_id, everything=True)
        assert whole.replay is not None and whole.rules is not None
        known = oracle(whole.rules, whole.replay.events)
        answer = frames(_request(app, "/"), conn, match_id, 5, None)
    tally = Tally()
    for held in answer["frames"]:
        tally.check(f"held step {held['step']}", held["html"], known.of(held["step"], 0))
    assert len(tally.leaks) >= len(answer["frames"]) - 1   # step 0 names no tile yet
