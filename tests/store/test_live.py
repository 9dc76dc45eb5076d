"""Live recording: append one event at a time; illegal events and lost races store nothing."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select, text

from ledger.findings import IllegalEvent
from ledger.store import db
from ledger.store.errors import BadInput, Conflict, MatchClosed, MatchNotFound
from ledger.store.log.verify import verify
from ledger.store.models import EVENTS
from ledger.store.pages import queries, readmodels
from ledger.store.recording import live
from tests.store.conftest import write_jsonl
from tests.store.helpers import count, import_path


def header(match: dict[str, Any]) -> dict[str, Any]:
    return {k: match[k] for k in ("table", "seats", "source") if k in match}


def start(engine: Engine, match: dict[str, Any]) -> int:
    with db.writing(engine) as s:
        return live.start_match(s, header(match))


def record(engine: Engine, match_id: int, events: list[dict[str, Any]]) -> list[live.Appended]:
    out = []
    with db.writing(engine) as s:
        seq = 0
        for ev in events:
            got = live.append(s, match_id, ev, expected_seq=seq)
            out.append(got)
            seq = got.next_seq
    return out


def test_a_recorded_match_equals_the_same_match_imported(
        engine: Engine, corpus: list[dict[str, Any]], tmp_path: Path) -> None:
    # Two roads to the ledger, one fold: the same derived events, summary and score sheet.
    match = corpus[6]
    live_id = start(engine, match)
    appended = record(engine, live_id, match["events"])
    assert appended[-1].status == "complete"
    (imported,) = import_path(engine, write_jsonl(tmp_path / "m.jsonl", [match]))
    with engine.connect() as c:
        def stream(mid: int) -> list[tuple[Any, ...]]:
            return [tuple(r) for r in c.execute(
                select(EVENTS.c.seq, EVENTS.c.recorded_index, EVENTS.c.kind, EVENTS.c.type,
                       EVENTS.c.payload).where(EVENTS.c.match_id == mid)
                .order_by(EVENTS.c.seq))]

        assert imported.id is not None
        assert stream(live_id) == stream(imported.id)
        a, b = queries.get_match(c, live_id), queries.get_match(c, imported.id)
        for key in ("scores", "winner", "complete", "deals", "events", "next_seq",
                    "score_sheet", "status"):
            assert a[key] == b[key], key
        assert a["origin"] == "live" and b["origin"] == "import"
        assert all(v.ok for v in verify(c))


def test_an_illegal_event_is_refused_with_the_rule_and_stores_nothing(
        engine: Engine, corpus: list[dict[str, Any]]) -> None:
    match = corpus[0]  # domena, 2 seats
    mid = start(engine, match)
    record(engine, mid, match["events"][:3])
    rows = count(engine)
    nxt = match["events"][3]
    wrong_seat = 1 - nxt["seat"] if "seat" in nxt else 0
    with db.writing(engine) as s, pytest.raises(IllegalEvent) as exc:
        live.append(s, mid, dict(nxt, seat=wrong_seat), expected_seq=None)
    assert exc.value.finding.code == "out-of-turn"
    assert f"seat {wrong_seat}" in exc.value.finding.message
    assert count(engine) == rows
    with db.writing(engine) as s:  # the right event still goes in
        got = live.append(s, mid, nxt)
    assert got.index == 3


@pytest.mark.parametrize("event, code", [
    ({"type": "play", "seat": 7, "tile": "6-6"}, "bad-seat"),
    ({"type": "play", "seat": 0, "tile": "6-9"}, "bad-tile"),
    ({"type": "deal_scored", "deal": 0}, "unknown-event-type"),
])
def test_an_unreadable_event_is_refused(engine: Engine, corpus: list[dict[str, Any]],
                                        event: dict[str, Any], code: str) -> None:
    mid = start(engine, corpus[0])
    with db.writing(engine) as s, pytest.raises(BadInput) as exc:
        live.append(s, mid, event, 0)
    assert exc.value.code == code
    assert count(engine) == 0


def test_a_stale_sequence_number_is_a_conflict(engine: Engine,
                                               corpus: list[dict[str, Any]]) -> None:
    match = corpus[0]
    mid = start(engine, match)
    first = record(engine, mid, match["events"][:1])
    with db.writing(engine) as s, pytest.raises(Conflict) as exc:
        live.append(s, mid, match["events"][1], expected_seq=0)
    assert exc.value.next_seq == first[-1].next_seq
    assert count(engine) == first[-1].next_seq


def test_imported_and_missing_matches_take_no_events(engine: Engine, corpus_file: Path,
                                                     corpus: list[dict[str, Any]]) -> None:
    (got, *_) = import_path(engine, corpus_file)
    assert got.id is not None
    with db.writing(engine) as s:
        with pytest.raises(MatchClosed):
            live.append(s, got.id, {"type": "pass", "seat": 0})
        with pytest.raises(MatchNotFound):
            live.append(s, 999_999, {"type": "pass", "seat": 0})


@pytest.mark.parametrize("table, seats, code", [
    ({"rules": "no-such-table"}, ["A", "B"], "unknown-preset"),
    ({"rules": "arab-block"}, ["A", "B", "C"], "bad-seat-count"),
    ({"rules": "domena", "options": {"colour": "red"}}, ["A", "B"], "unknown-option"),
])
def test_a_match_that_cannot_be_played_is_not_started(engine: Engine, table: dict[str, Any],
                                                      seats: list[str], code: str) -> None:
    with db.writing(engine) as s, pytest.raises(BadInput) as exc:
        live.start_match(s, {"table": table, "seats": seats})
    assert exc.value.code == code


def test_eight_writers_at_once_leave_no_gap_and_no_duplicate(
        engine: Engine, corpus: list[dict[str, Any]]) -> None:
    match = max(corpus[:8], key=lambda m: len(m["events"]))
    events = match["events"][:90]
    mid = start(engine, match)
    barrier = threading.Barrier(8)
    conflicts = [0] * 8
    appended = [0] * 8
    failures: list[BaseException] = []

    def where_now() -> tuple[int, int]:
        # One statement, one snapshot: the next seq and the next recorded event agree.
        with engine.connect() as c:
            seq, index = c.execute(text(
                "SELECT max(seq), max(recorded_index) FROM events WHERE match_id = :m"),
                {"m": mid}).one()
        return (0, 0) if seq is None else (seq + 1, index + 1)

    def writer(w: int) -> None:
        try:
            barrier.wait()
            with db.write_session(engine) as s:
                while True:
                    seq, index = where_now()
                    if index >= len(events):
                        return
                    try:
                        live.append(s, mid, events[index], expected_seq=seq)
                        appended[w] += 1
                    except Conflict:
                        conflicts[w] += 1
        except BaseException as exc:  # reported below, in the test's thread
            failures.append(exc)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not failures, failures
    assert sum(appended) == len(events)
    assert sum(conflicts) > 0, "the writers never raced: the test proved nothing"
    with engine.connect() as c:
        rows = c.execute(select(EVENTS.c.seq, EVENTS.c.kind, EVENTS.c.recorded_index,
                                EVENTS.c.payload).where(EVENTS.c.match_id == mid)
                         .order_by(EVENTS.c.seq)).all()
        assert [r.seq for r in rows] == list(range(len(rows)))
        recorded = [r for r in rows if r.kind == "recorded"]
        assert [r.recorded_index for r in recorded] == list(range(len(events)))
        import orjson

        assert [orjson.loads(r.payload) for r in recorded] == events
        (v,) = verify(c, mid)
        assert v.ok, v.describe()
        # The read model followed every append: same as computing it afresh.
        assert readmodels.stored(c, mid, *_header_ok(c, mid)).summary == \
            readmodels.load(c, mid).summary  # type: ignore[union-attr]


def _header_ok(c: Any, mid: int) -> tuple[Any, bool]:
    from ledger.store.log.mapper import Header
    from ledger.store.models import MATCHES

    m = c.execute(select(MATCHES).where(MATCHES.c.id == mid)).one()
    return Header.of_row(m), bool(m.ok)
