"""Import: audit each match, store it whole with its findings and derived events, once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from sqlalchemy import Engine, select

from ledger.audit import audit_record
from ledger.formats.reader import read_matches
from ledger.store.log.mapper import finding_json
from ledger.store.log.verify import verify
from ledger.store.models import DEAL_ROWS, EVENTS, MATCHES, SUMMARIES
from ledger.store.pages import queries
from tests.store.conftest import sample_files, write_jsonl
from tests.store.helpers import count, import_path, matches


def test_every_match_is_stored_with_its_derived_events(engine: Engine, corpus_file: Path
                                                       ) -> None:
    got = import_path(engine, corpus_file)
    assert [g.new for g in got] == [True] * len(got)
    assert len({g.id for g in got}) == len(got) == matches(engine)
    # Rows: the file's events plus, after each, what the rules derived from it (the audit's).
    expected = 0
    with engine.connect() as c:
        for record, g in zip(read_matches(corpus_file), got, strict=True):
            report = audit_record(record)
            derived = [d.TYPE for ds in report.derived for d in ds]
            rows = c.execute(select(EVENTS.c.kind, EVENTS.c.type, EVENTS.c.seq)
                             .where(EVENTS.c.match_id == g.id).order_by(EVENTS.c.seq)).all()
            assert [r.seq for r in rows] == list(range(len(rows)))
            assert [r.type for r in rows if r.kind == "recorded"] == [
                e["type"] for e in record.raw["events"]]  # type: ignore[index]
            assert [r.type for r in rows if r.kind == "derived"] == derived
            expected += len(rows)
    assert count(engine) == expected


def test_read_models_agree_with_the_audit(engine: Engine, corpus_file: Path) -> None:
    # The read models come from stored derived events; the audit folds the file afresh.
    got = import_path(engine, corpus_file)
    with engine.connect() as c:
        for record, g in zip(read_matches(corpus_file), got, strict=True):
            report = audit_record(record)
            assert g.id is not None
            m = queries.get_match(c, g.id)
            assert m["ok"] is report.ok is True
            assert m["scores"] == report.scores
            assert m["winner"] == report.winner
            assert m["complete"] == report.complete
            assert m["status"] == ("complete" if report.complete else "incomplete")
            sheet = [{"result": d["result"], "winner": d["winner"], "points": d["points"]}
                     for d in m["score_sheet"]]
            assert sheet == report.deals
            assert m["events"] == len(record.events)


def test_reimporting_adds_nothing_and_says_so(engine: Engine, corpus_file: Path) -> None:
    first = import_path(engine, corpus_file)
    rows = count(engine)
    again = import_path(engine, corpus_file)
    assert [g.new for g in again] == [False] * len(first)
    assert [g.id for g in again] == [g.id for g in first]
    assert count(engine) == rows and matches(engine) == len(first)


def test_the_same_match_in_other_notation_is_the_same_match(
        engine: Engine, corpus: list[dict[str, Any]], tmp_path: Path) -> None:
    # match-format.md, Tiles: "63" and [6, 3] are "6-3".
    match = corpus[3]
    other = dict(match, events=[
        dict(e, tile=[int(e["tile"][0]), int(e["tile"][2])])
        if e["type"] == "play" and e["tile"][0] >= e["tile"][2] else e
        for e in match["events"]])
    assert other != match
    a = import_path(engine, write_jsonl(tmp_path / "a.jsonl", [match]))
    b = import_path(engine, write_jsonl(tmp_path / "b.jsonl", [other]))
    assert a[0].new and not b[0].new and a[0].id == b[0].id


def test_faulty_matches_are_stored_and_flagged_never_repaired(engine: Engine) -> None:
    files = sample_files("faulty")
    assert len(files) >= 10
    for path in files:
        (got,) = import_path(engine, path)
        (report,) = [audit_record(r) for r in read_matches(path)]
        assert got.id is not None and got.new
        assert got.ok is report.ok is False
        with engine.connect() as c:
            m = c.execute(select(MATCHES).where(MATCHES.c.id == got.id)).one()
            assert m.ok is False and m.errors == len(report.errors)
            assert m.findings == [finding_json(f) for f in report.findings]  # with phrases
            # The events as the file gave them: every one kept, in order.
            stored = [orjson.loads(p) for (p,) in c.execute(
                select(EVENTS.c.payload).where(EVENTS.c.match_id == got.id,
                                               EVENTS.c.kind != "derived")
                .order_by(EVENTS.c.seq))]
        raw = orjson.loads(path.read_bytes())["events"]
        assert len(stored) == len(raw)
        assert [e.get("type") for e in stored] == [e.get("type") for e in raw]
    with engine.connect() as c:
        assert all(v.ok for v in verify(c))


def test_an_unreadable_event_is_kept_verbatim(engine: Engine, corpus: list[dict[str, Any]],
                                              tmp_path: Path) -> None:
    match = dict(corpus[0])
    events = list(match["events"])
    events[5] = {"type": "play", "seat": 0, "tile": "7-7"}  # no such tile
    events[9] = {"type": "shrug", "seat": 1}  # a type the format does not define
    match["events"] = events
    (got,) = import_path(engine, write_jsonl(tmp_path / "m.jsonl", [match]))
    assert got.id is not None and not got.ok
    with engine.connect() as c:
        rows = c.execute(select(EVENTS.c.kind, EVENTS.c.payload)
                         .where(EVENTS.c.match_id == got.id, EVENTS.c.kind != "derived")
                         .order_by(EVENTS.c.seq)).all()
        unread = [(r.kind, orjson.loads(r.payload)) for r in rows if r.kind == "unread"]
        assert unread == [("unread", events[5]), ("unread", events[9])]
        codes = {f["code"] for f in queries.get_match(c, got.id)["findings"]}
        assert {"bad-tile", "unknown-event-type"} <= codes
        assert all(v.ok for v in verify(c))


def test_a_match_without_a_readable_header_is_reported_not_stored(
        engine: Engine, corpus: list[dict[str, Any]], tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(orjson.dumps(corpus[0]) + b"\n{not json\n"
                     + orjson.dumps(dict(corpus[1], format="domino-match/9")) + b"\n"
                     + orjson.dumps(corpus[2]) + b"\n")
    got = import_path(engine, path)
    assert [g.id is not None for g in got] == [True, False, False, True]
    assert got[1].line == 2 and "not valid JSON" in (got[1].error or "")
    assert "domino-match/9" in (got[2].error or "")
    assert matches(engine) == 2


def test_an_unknown_table_is_stored_and_flagged(engine: Engine, corpus: list[dict[str, Any]],
                                                tmp_path: Path) -> None:
    match = dict(corpus[0], table={"rules": "tournament-xyz"})
    (got,) = import_path(engine, write_jsonl(tmp_path / "m.jsonl", [match]))
    assert got.id is not None and not got.ok
    with engine.connect() as c:
        m = queries.get_match(c, got.id)
        assert m["findings"][0]["code"] == "unknown-preset"
        assert m["events"] == len(match["events"]) and m["score_sheet"] == []
        assert all(v.ok for v in verify(c))


def test_partial_records_are_stored_as_recorded(engine: Engine) -> None:
    for path in sample_files("partial"):
        (got,) = import_path(engine, path)
        (report,) = [audit_record(r) for r in read_matches(path)]
        assert got.id is not None
        with engine.connect() as c:
            m = queries.get_match(c, got.id)
            first = c.execute(select(EVENTS.c.payload).where(
                EVENTS.c.match_id == got.id, EVENTS.c.seq == 0)).scalar_one()
        raw = orjson.loads(path.read_bytes())["events"][0]
        # The hidden hands stay hidden in the ledger: it keeps what the recorder saw.
        assert [h is None for h in orjson.loads(first)["hands"]] == [
            h is None for h in raw["hands"]]
        assert m["scores"] == report.scores and m["winner"] == report.winner
        assert m["findings"] == [f.to_dict() for f in report.findings]


def test_read_model_tables_hold_one_summary_per_stored_match(engine: Engine,
                                                             corpus_file: Path) -> None:
    got = import_path(engine, corpus_file)
    assert count(engine, SUMMARIES) == len(got)
    with engine.connect() as c:
        deals = sum(queries.get_match(c, g.id)["deals"] for g in got if g.id is not None)
    assert count(engine, DEAL_ROWS) == deals > 0


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_gzip_and_plain_files_import_alike(engine: Engine, corpus: list[dict[str, Any]],
                                           tmp_path: Path, suffix: str) -> None:
    import gzip

    data = b"".join(orjson.dumps(m) + b"\n" for m in corpus[:4])
    path = tmp_path / f"m{suffix}"
    path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    got = import_path(engine, path)
    assert [g.new for g in got] == [True] * 4


@pytest.mark.parametrize("jobs", [1, 2])
def test_worker_processes_store_the_same_matches_in_the_same_order(
        engine: Engine, corpus_file: Path, tmp_path: Path, jobs: int) -> None:
    from ledger.store import db
    from ledger.store.imports.importer import import_file

    junk = tmp_path / "mixed.jsonl"
    junk.write_bytes(corpus_file.read_bytes() + b"{broken\n" + corpus_file.read_bytes()[:0])
    with db.writing(engine) as s:
        got = list(import_file(s, str(junk), jobs=jobs))
    with db.writing(engine) as s:
        again = list(import_file(s, str(junk), jobs=0))
    assert [(g.match, g.line, g.ok) for g in got] == [(g.match, g.line, g.ok) for g in again]
    assert [g.new for g in got] == [True] * (len(got) - 1) + [False]
    assert [g.id for g in got] == [g.id for g in again] and got[-1].id is None
    with engine.connect() as c:
        assert all(v.ok for v in verify(c))


def test_a_worker_reports_a_file_it_cannot_read(engine: Engine, tmp_path: Path) -> None:
    from ledger.formats.reader import ReadError
    from ledger.store import db
    from ledger.store.imports.importer import import_file

    with db.writing(engine) as s, pytest.raises(ReadError, match="cannot open"):
        list(import_file(s, str(tmp_path / "missing.jsonl"), jobs=1))
