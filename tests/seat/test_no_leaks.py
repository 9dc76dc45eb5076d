"""Issue 12: a seat sees only what it saw. Every step of every sample match and of a
generated match of every table and seat count, in every seat's view and the table's,
in the replay page (HTML), its JSON answer and the Analysis panel's answer: every tile
named there is one the viewer knew at that step (tests/seat/leaks.py: the oracle).

The page and the answers are made by the functions the routes call (the frame as
web.access lets the viewer see it, the page's template, the JSON, the analysis body cut
to the view), without the HTTP round trip, so that all of them fit in a few minutes;
tests/seat/test_keys_http.py goes through HTTP.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from starlette.requests import Request

from ledger.i18n import Language, language
from ledger.replay import deal_span
from ledger.rules.base import Rules
from ledger.seatview import TABLE, Viewer, sight, tiles_named
from ledger.store.db import open_db, writing
from ledger.store.importer import import_file
from ledger.store.models import MATCHES
from tests.seat.leaks import Known, match_files, oracle, worst_bodies
from web.app import create_app
from web.deal_analysis import seen_by, worded
from web.matchdata import StoredMatch, load_match
from web.routes.replay import frame_answer, page_context, view_frame
from web.templating import templates


@dataclass
class Tally:
    frames: int = 0
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


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, list[int]]]:
    tmp = tmp_path_factory.mktemp("seat-leaks")
    url = f"sqlite:///{tmp / 'ledger.db'}"
    engine = open_db(url)
    for path in match_files(tmp):
        with writing(engine) as session:
            for _ in import_file(session, str(path)):
                pass
    with engine.connect() as conn:
        ids = [int(i) for i in conn.execute(select(MATCHES.c.id).order_by(MATCHES.c.id))
               .scalars()]
    engine.dispose()
    app = create_app(url)
    yield app, ids
    app.state.engine.dispose()


def _request(app: Any, path: str) -> Request:
    return Request({"type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
                    "query_string": b"", "headers": [], "app": app, "root_path": "",
                    "scheme": "http", "server": ("testserver", 80), "client": ("test", 1)})


def _walk(app: Any, match_id: int, tally: Tally, lang: Language) -> None:
    with app.state.engine.connect() as conn:
        whole = load_match(conn, match_id, everything=True)
        if whole.replay is None or whole.rules is None:
            return
        rules: Rules = whole.rules
        known: Known = oracle(rules, whole.replay.events)
        h = whole.header
        bodies = worst_bodies(match_id, h.preset, dict(h.options), h.seats, rules,
                              whole.replay.events)
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
                    tally.check(f"{where} analysis", json.dumps(worded(cut, lang)), can)


def test_no_view_names_a_tile_its_viewer_did_not_know(ledger: tuple[Any, list[int]]) -> None:
    app, ids = ledger
    tally = Tally()
    lang = language("en")
    for match_id in ids:
        _walk(app, match_id, tally, lang)
    print(f"\nseat views checked: {tally.matches} matches, {tally.frames} frames, "
          f"{tally.checks} page/JSON/analysis answers, {len(tally.leaks)} leaks")
    assert tally.matches >= 50 and tally.frames > 10_000
    assert not tally.leaks, "\n".join(tally.leaks[:20])


def test_the_oracle_catches_a_leak(ledger: tuple[Any, list[int]]) -> None:
    """The same walk over the unfiltered views (all hands open, the whole analysis) finds
    tiles the seats did not know: the check above can fail."""
    app, ids = ledger
    with app.state.engine.connect() as conn:
        match = load_match(conn, ids[0], step=5)
    assert match.replay is not None and match.rules is not None
    request = _request(app, "/")
    fr = view_frame(request, match, 5, None)
    known = oracle(match.rules, load_match(app.state.engine.connect(), ids[0],
                                           everything=True).replay.events)  # type: ignore
    tally = Tally()
    tally.check("all hands", json.dumps(frame_answer(match, fr)), known.of(5, 0))
    assert tally.leaks


def _sample_path(name: str) -> Path:
    return Path(__file__).resolve().parents[2] / "sample_matches" / name
