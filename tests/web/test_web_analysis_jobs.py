"""Deal analyses off the request (ledger.jobs.service): 202 with progress, then the answer;
one job per deal; kept in the store across restarts; a time limit; errors answered.

Each test serves an app of its own (uvicorn on a free port) over a ledger of its own,
so the job counters it reads are its own. Nothing here depends on a deal being slow or
quick: where a deal might finish before the next request, the facts asserted hold
either way.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from webtest_support import SAMPLES, analysed, serving, without_worded

from ledger.analysis.review import DealReview, review_match
from ledger.analysis.swing import swing_figure
from ledger.formats.reader import parse_match
from ledger.i18n import ENGLISH, language
from ledger.jobs import service as analysis_jobs
from ledger.jobs.deal_analysis import VERSION, Task, with_judged, worded
from ledger.jobs.service import AnalysisJobs, Settings
from ledger.rules import make_rules
from ledger.store import db
from ledger.store.imports.importer import import_file
from ledger.store.jobs import analyses
from ledger.store.models import ANALYSES
from web.app import create_app

QUICK = "domena-2.json"       # two sides: its deals solve in milliseconds
BIGGER = "selminha-3.json"    # three sides each for himself (max-n): seconds a deal
SLOW = "sahrat-fives-4.json"  # four sides with Fives: many seconds a deal


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, int]]:
    """A ledger file with a few samples; each test copies it (its cache rows are its own)."""
    path = tmp_path_factory.mktemp("jobs") / "ledger.db"
    engine = db.open_db(f"sqlite:///{path}")
    ids: dict[str, int] = {}
    try:
        for name in (QUICK, BIGGER, SLOW):
            with db.writing(engine) as session:
                (got,) = import_file(session, str(SAMPLES / name))
                assert got.id is not None
                ids[name] = got.id
    finally:
        engine.dispose()
    return str(path), ids


@pytest.fixture
def db_url(ledger: tuple[str, dict[str, int]], tmp_path: Path) -> str:
    copy = tmp_path / "ledger.db"
    copy.write_bytes(Path(ledger[0]).read_bytes())
    return f"sqlite:///{copy}"


@pytest.fixture
def ids(ledger: tuple[str, dict[str, int]]) -> dict[str, int]:
    return ledger[1]


class Running:
    """An app served over a ledger, with an HTTP client; ``jobs`` is its job service."""

    def __init__(self, db_url: str, settings: Settings | None = None) -> None:
        self.app = create_app(db_url, settings or Settings(seconds=60))
        self._serving = serving(self.app)

    def __enter__(self) -> Running:
        self.url = self._serving.__enter__()
        self.client = httpx.Client(base_url=self.url, timeout=120)
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.close()
        self._serving.__exit__(None, None, None)

    @property
    def jobs(self) -> AnalysisJobs:
        jobs: AnalysisJobs = self.app.state.analysis_jobs
        return jobs


@pytest.fixture
def running(db_url: str) -> Iterator[Running]:
    with Running(db_url) as r:
        yield r


def review_of(name: str, deal: int) -> tuple[DealReview, Any, list[str]]:
    import orjson

    obj = orjson.loads((SAMPLES / name).read_bytes())
    rec = parse_match(obj)
    assert rec.header is not None
    rules = make_rules(rec.header.preset, len(rec.header.seats), rec.header.options)
    (review,) = review_match(rules, rec.events, deals=[deal - 1])
    return review, rules, list(obj["seats"])


JUDGED = ("hindsight_lost", "knowledge_lost", "severity")


def as_reviewed(body: Any) -> Any:
    """A served part as the review worked it out: without the per-request wording and
    without the measures the server adds to each decision
    (ledger.jobs.deal_analysis.with_judged)."""
    body = without_worded(body)
    if isinstance(body, list):
        return [{k: v for k, v in d.items() if k not in JUDGED} if isinstance(d, dict)
                else d for d in body]
    return body


def _check_progress(pending: list[dict[str, Any]]) -> None:
    """The 202 answers: queued (0 of 0) first, then running; counts never go back."""
    statuses = [p["status"] for p in pending]
    assert set(statuses) <= {"queued", "running"}
    assert statuses == sorted(statuses, key=("queued", "running").index)
    dones = [p["done"] for p in pending]
    assert dones == sorted(dones)
    totals = {p["total"] for p in pending if p["total"]}
    assert len(totals) <= 1
    assert all(p["done"] <= p["total"] for p in pending)


# --- the answer -------------------------------------------------------------------------


def test_202_then_the_review_of_the_deal(running: Running, ids: dict[str, int]) -> None:
    review, rules, seats = review_of(QUICK, 2)
    res, pending = analysed(running.client, ids[QUICK], 2)
    assert res.status_code == 200, res.text
    _check_progress(pending)
    got = res.json()
    want = review.to_dict()
    assert {k: as_reviewed(got[k]) for k in want} == want
    # Each decision carries its hindsight loss again under its measure's name.
    assert all(d["hindsight_lost"] == d["lost"] for d in got["decisions"])
    assert got["swing"] == swing_figure(review, rules, seats, ENGLISH)
    assert running.jobs.started == 1
    (job,) = running.jobs.recent
    assert job.state == "done" and job.total == len(review.steps) + 1
    assert job.done == job.total  # the count ended at the total
    # Known now: 200 at once, from memory, with no other job.
    again = running.client.get(f"/api/matches/{ids[QUICK]}/analysis", params={"deal": 2})
    assert again.status_code == 200 and again.json() == got
    assert running.jobs.started == 1


def test_progress_of_a_bigger_deal_counts_up(running: Running, ids: dict[str, int]) -> None:
    res, pending = analysed(running.client, ids[BIGGER], 1)
    assert res.status_code == 200, res.text
    _check_progress(pending)
    body = res.json()
    (job,) = running.jobs.recent
    assert job.done == job.total == len(body["steps"])  # the start and each move


def test_the_chart_comes_in_the_page_language(running: Running, ids: dict[str, int]) -> None:
    review, rules, seats = review_of(QUICK, 3)
    res, _ = analysed(running.client, ids[QUICK], 3, lang="ar")
    assert res.status_code == 200, res.text
    arabic = res.json()["swing"]
    assert arabic == swing_figure(review, rules, seats, language("ar"))
    english = running.client.get(f"/api/matches/{ids[QUICK]}/analysis",
                                 params={"deal": 3, "lang": "en"}).json()["swing"]
    assert english == swing_figure(review, rules, seats, ENGLISH)
    assert english["layout"]["title"]["text"] == "Deal 3: best play after each move"
    assert "التوزيعة" in arabic["layout"]["title"]["text"]
    assert arabic["data"][0]["text"][0] == "بداية التوزيعة"
    assert running.jobs.started == 1  # one job: the languages share the answer


def test_two_requests_at_once_start_one_job(running: Running, ids: dict[str, int]) -> None:
    gate = threading.Barrier(2)
    codes: list[int] = []

    def ask() -> None:
        with httpx.Client(base_url=running.url, timeout=60) as c:
            gate.wait()
            codes.append(c.get(f"/api/matches/{ids[BIGGER]}/analysis",
                               params={"deal": 2}).status_code)

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(codes) in ([200, 202], [202, 202], [200, 200])
    res, _ = analysed(running.client, ids[BIGGER], 2)
    assert res.status_code == 200
    assert running.jobs.started == 1


def test_missing_deals_and_matches_are_404_at_once(running: Running, ids: dict[str, int]
                                                   ) -> None:
    res = running.client.get(f"/api/matches/{ids[QUICK]}/analysis", params={"deal": 99})
    assert res.status_code == 404 and res.json()["error"]["code"] == "deal-not-found"
    res = running.client.get("/api/matches/999999/analysis", params={"deal": 1})
    assert res.status_code == 404 and res.json()["error"]["code"] == "match-not-found"
    assert running.jobs.started == 0


# --- kept in the store -----------------------------------------------------------------


def test_a_restarted_app_serves_from_the_store(db_url: str, ids: dict[str, int]) -> None:
    with Running(db_url) as first:
        res, _ = analysed(first.client, ids[QUICK], 2)
        assert res.status_code == 200
        body = res.json()
        assert first.jobs.started == 1
    with Running(db_url) as second:  # a new app object: nothing in its memory
        res = second.client.get(f"/api/matches/{ids[QUICK]}/analysis", params={"deal": 2})
        assert res.status_code == 200 and res.json() == body
        assert second.jobs.started == 0 and not second.jobs.recent


def test_only_a_row_for_the_stored_head_and_version_is_served(
        db_url: str, ids: dict[str, int]) -> None:
    match_id = ids[QUICK]
    engine = db.open_db(db_url)
    with engine.connect() as c:
        at = analyses.head(c, match_id)
    assert at is not None
    stale = analyses.Head(at.last_seq - 1, at.hash)
    review, rules, seats = review_of(QUICK, 2)
    planted = {**review.to_dict(), "swing": {"data": [], "layout": {}}, "planted": True}

    def plant(head: analyses.Head, version: str) -> None:
        with db.writing(engine) as s:
            conn = db.write_connection(s)
            analyses.clear(conn)
            analyses.put(conn, match_id, 1, head, version, planted)
            s.commit()

    try:
        # The row of the head as stored now and this version: served as it is (so the
        # table is read), with no job.
        plant(at, VERSION)
        with Running(db_url) as r:
            res = r.client.get(f"/api/matches/{match_id}/analysis", params={"deal": 2})
            assert res.status_code == 200 and res.json()["planted"] is True
            assert r.jobs.started == 0
        # A row for other events, or of another version: never served; worked out again.
        for head, version in ((stale, VERSION), (at, "0/old")):
            plant(head, version)
            with Running(db_url) as r:
                res, _ = analysed(r.client, match_id, 2)
                assert res.status_code == 200 and "planted" not in res.json()
                assert r.jobs.started == 1
            with engine.connect() as c:  # and the fresh answer replaced the stale row
                kept = analyses.get(c, match_id, 1, at, VERSION)
            # No review by knowledge is kept for this ledger: each decision judged by none.
            assert kept is not None
            assert with_judged(worded(kept, ENGLISH), None) == res.json()
    finally:
        engine.dispose()


# --- time, failures ---------------------------------------------------------------------


def _rows(db_url: str) -> int:
    engine = db.open_db(db_url)
    try:
        with engine.connect() as c:
            return len(c.execute(ANALYSES.select()).all())
    finally:
        engine.dispose()


def test_a_deal_out_of_time_is_left_out_with_a_note(db_url: str, ids: dict[str, int]) -> None:
    # No time at all: the worker's stop says stop before the first position.
    with Running(db_url, Settings(seconds=0)) as r:
        res, _ = analysed(r.client, ids[QUICK], 2)
        assert res.status_code == 200, res.text
        body = res.json()
        assert r.jobs.killed == 0
    assert body["best"] is None and body["decisions"] == [] and body["late"] is True
    assert "could not be solved in time" in body["note"] and "stopped" in body["note"]
    assert all(s["best"] is None for s in body["steps"])
    assert body["steps"] and body["knowledge"]  # the deal's shape is still there
    assert _rows(db_url) == 0  # a late answer is not kept for good: another start retries


def test_the_late_note_in_arabic(db_url: str, ids: dict[str, int]) -> None:
    # The time limit's note goes first, then the solver's own (stopped), both worded.
    with Running(db_url, Settings(seconds=0)) as r:
        res, _ = analysed(r.client, ids[QUICK], 2, lang="ar")
        assert res.status_code == 200, res.text
        body = res.json()
    assert body["note"].startswith("the deal could not be solved in time (the limit is 0 s); "
                                   "the analysis was stopped: ")
    assert [p["phrase"] for p in body["note_phrases"]][0] == \
        "the deal could not be solved in time (the limit is {seconds} s)"
    said = body["note_worded"]
    assert said.startswith("تعذّر حلّ التوزيعة في الوقت المحدد (الحد \u20680\u2069 ثانية)؛ "
                           "أُوقف التحليل: ")
    assert "the" not in said


def test_a_worker_over_its_time_is_killed_and_the_deal_said_late(
        db_url: str, ids: dict[str, int]) -> None:
    # Killed at once, whatever the deal: the clock is looked at before the worker's answer.
    with Running(db_url, Settings(seconds=60, kill_after=0)) as r:
        res, _ = analysed(r.client, ids[QUICK], 2)
        assert res.status_code == 200, res.text
        body = res.json()
        assert r.jobs.killed == 1 and r.jobs.started == 1
        # The next job gets a fresh worker (and is killed too, as the settings say).
        res, _ = analysed(r.client, ids[QUICK], 3)
        assert res.status_code == 200 and r.jobs.killed == 2
    assert body["best"] is None and "could not be solved in time" in body["note"]


LATE_EN = "the analysis of deal 2 failed: it could not be solved in time (the limit is 60 s)"
LATE_AR = ("فشل تحليل التوزيعة \u20662\u2069: تعذّر حلّها في الوقت المحدد "
           "(الحد \u206860\u2069 ثانية)")


def test_a_deal_late_even_after_the_kill_is_an_error_in_the_page_language(
        db_url: str, ids: dict[str, int], monkeypatch: pytest.MonkeyPatch) -> None:
    # Both runs killed at once: the first by the settings, the run after the kill (the
    # deal's shape only) by its own limit, lowered to nothing so that it cannot finish.
    monkeypatch.setattr(analysis_jobs, "GIVE_UP", 0.0)
    with Running(db_url, Settings(seconds=60, kill_after=0)) as r:
        res, _ = analysed(r.client, ids[QUICK], 2, lang="ar")
        assert res.status_code == 500, res.text
        arabic = res.json()["error"]
        assert r.jobs.killed == 1 and r.jobs.started == 1  # the second kill is not counted
        res = r.client.get(f"/api/matches/{ids[QUICK]}/analysis",
                           params={"deal": 2, "lang": "en"})  # (the cookie says ar now)
        english = res.json()["error"]
    assert arabic["code"] == english["code"] == "analysis-failed"
    # ``message`` is English in every language; ``message_worded`` is in the page's.
    assert arabic["message"] == english["message"] == english["message_worded"] == LATE_EN
    assert arabic["message_worded"] == LATE_AR


@pytest.mark.browser
def test_the_panel_says_why_in_arabic(db_url: str, ids: dict[str, int], page: Any,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis_jobs, "GIVE_UP", 0.0)
    review, _, _ = review_of(QUICK, 2)
    step = review.event + 1  # deal 2 dealt
    with Running(db_url, Settings(seconds=60, kill_after=0)) as r:
        page.goto(f"{r.url}/matches/{ids[QUICK]}/replay?step={step}&lang=ar")
        page.click("#analysis-panel > summary")
        status = page.locator("#analysis-status")
        page.wait_for_function("document.getElementById('analysis-status').textContent"
                               ".startsWith('لا يمكن تحليل')", timeout=60_000)
        assert status.inner_text() == f"لا يمكن تحليل هذه التوزيعة. ({LATE_AR})"


def test_a_failing_analysis_is_an_error_answer(running: Running, ids: dict[str, int]) -> None:
    match_id = ids[QUICK]
    engine = running.app.state.engine
    with engine.connect() as c:
        at = analyses.head(c, match_id)
    assert at is not None
    # A task the worker cannot do (a table it does not know), under a real match's key.
    bad = Task(match_id, 0, "no-such-table", {}, ("Ali", "Omar"), ())
    running.jobs.submit((match_id, 0, at), bad)
    res, _ = analysed(running.client, match_id, 1)
    assert res.status_code == 500
    error = res.json()["error"]
    assert error["code"] == "analysis-failed" and "no-such-table" in error["message"]
    arabic = running.client.get(f"/api/matches/{match_id}/analysis",
                                params={"deal": 1, "lang": "ar"}).json()["error"]
    assert arabic["message"] == error["message"]
    assert arabic["message_worded"].startswith("فشل تحليل التوزيعة \u20661\u2069: ")
    assert "no-such-table" in arabic["message_worded"]  # the worker's own words, as said
    # Asked again: the same error, not a hang and not another job.
    res = running.client.get(f"/api/matches/{match_id}/analysis", params={"deal": 1})
    assert res.status_code == 500 and running.jobs.started == 1
    # The worker is still there for the next deal.
    res, _ = analysed(running.client, match_id, 2)
    assert res.status_code == 200


@pytest.mark.slow(reason="pages timed while a deal is solved: 5-10 s")
def test_pages_answer_while_a_job_runs(db_url: str, ids: dict[str, int]) -> None:
    # A short limit keeps the test short however slow the solver is today.
    with Running(db_url, Settings(seconds=5, kill_after=15)) as running:
        _pages_while_solving(running, ids)


def _pages_while_solving(running: Running, ids: dict[str, int]) -> None:
    first = running.client.get(f"/api/matches/{ids[SLOW]}/analysis", params={"deal": 1})
    assert first.status_code in (200, 202)
    with running.app.state.engine.connect() as c:
        at = analyses.head(c, ids[SLOW])
    assert at is not None
    during = []
    for _ in range(5):
        page = running.client.get("/matches")
        assert page.status_code == 200 and "<table" in page.text
        during.append(running.jobs.job(ids[SLOW], 0, at) is not None)
    # Whether or not the job was still running at each answer, the pages were served and
    # the job goes on to its end.
    res, pending = analysed(running.client, ids[SLOW], 1)
    assert res.status_code == 200
    _check_progress(pending)
    assert running.jobs.started == 1
    assert during == sorted(during, reverse=True)  # running, then (maybe) finished
