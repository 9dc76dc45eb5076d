"""Findings are stored with their phrase (issue 17, point 2), on SQLite and PostgreSQL.

A stored finding keeps the audit's report (``to_dict``) and its phrase (template and
parameters), so any language words it without auditing the match again. A ledger
written before migration 0006 kept the report only: the migration fills in the phrases
from each match's own events, touches neither header nor events, and going down
gives the old form back.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
import sqlalchemy as sa
from sqlalchemy import Engine, select, update
from sqlalchemy.exc import DBAPIError

from ledger.audit import AuditReport, audit_record
from ledger.findings import Finding
from ledger.formats.reader import parse_match, read_matches
from ledger.i18n import render_finding
from ledger.store import db
from ledger.store.log.mapper import finding_json
from ledger.store.log.verify import verify
from ledger.store.models import EVENTS, MATCHES
from ledger.store.recording import keys
from tests.audit_calls import counting_audits
from tests.store.conftest import SAMPLES, sample_files
from tests.store.helpers import import_path, sql

ARABIC = re.compile("[\u0600-\u06ff]")
BEFORE = "0005"  # the revision before findings kept their phrase


def _reports(paths: list[Path]) -> dict[str, AuditReport]:
    return {p.name: audit_record(next(read_matches(p))) for p in paths}


def _faulty_and_partial() -> list[Path]:
    return sample_files("faulty") + sample_files("partial")


def _stored(engine: Engine) -> dict[int, list[dict[str, Any]]]:
    with engine.connect() as c:
        return {r.id: list(r.findings) for r in
                c.execute(select(MATCHES.c.id, MATCHES.c.findings).order_by(MATCHES.c.id))}


def _facts(engine: Engine) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Every event row and every match column but the audit's (the findings and their
    counts: 0012 gives a live match the audit of its line, issue 29), as stored."""
    with engine.connect() as c:
        # The columns of 0005 (a row's salt came with 0010; none of these rows has one).
        kept = [col for col in EVENTS.c if col.name != "salt"]
        events = [tuple(r) for r in c.execute(select(*kept).order_by(EVENTS.c.id))]
        columns = [col for col in MATCHES.c
                   if col.name not in ("findings", "ok", "errors", "warnings")]
        headers = [tuple(r) for r in c.execute(select(*columns).order_by(MATCHES.c.id))]
    return events, headers


def _live_with_a_warning(engine: Engine, tmp: Path) -> tuple[int, Finding, list[Finding]]:
    """A live match as a ledger of 0005 kept it, whose opening tile names an end: its
    stored warning (end-on-opening, what that append's step gave) and the audit's findings
    of its line (what a live match stores since 0012, issue 29).

    Today's appends write what 0005 had no column for (a row's salt since 0010, a key's
    seal since 0011), so the line is stored the way rows of then were, unsalted, by the
    importer, its header then marked live as ``live.start_keyed`` marks it."""
    match = orjson.loads((SAMPLES / "domena-2.json").read_bytes())
    deal, opening, reply = match["events"][:3]
    line = [deal, {**opening, "end": "left"}, reply]
    path = tmp / "live-line.json"
    path.write_bytes(orjson.dumps({**match, "events": line}))
    (got,) = import_path(engine, path)
    assert got.id is not None
    _mark_live(engine, got.id)
    audited = audit_record(parse_match({**match, "events": line})).findings
    assert [f.code for f in audited] == ["end-on-opening", "match-unfinished"]
    # What an append's step said then (tests/test_walk.py checks step against audit).
    (warning,) = [f for f in step_findings(match, line) if f.severity == "warning"]
    assert warning.code == "end-on-opening" and warning.template
    return got.id, warning, audited


def _mark_live(engine: Engine, match_id: int) -> None:
    """The header of an imported match made a live one's, the triggers that keep a stored
    header fixed (0001) lifted for that one statement, as an operator would."""
    live = update(MATCHES).where(MATCHES.c.id == match_id).values(
        origin="live", content_hash=None, status="recording")
    # Its recorder key as 0005 stored one (0011 seals it on the way up).
    key = sa.table("recorder_keys", sa.column("match_id"), sa.column("key_hash"),
                   sa.column("generation"), sa.column("issued_at"))
    with engine.begin() as c:
        c.execute(sa.insert(key).values(match_id=match_id, key_hash=keys.digest(keys.new_key()),
                                        generation=1, issued_at=datetime(2026, 1, 2, 3, 4)))
        if c.dialect.name == "sqlite":
            triggers = c.exec_driver_sql("SELECT name, sql FROM sqlite_master WHERE "
                                         "type = 'trigger' AND tbl_name = 'matches'").all()
            for name, _ in triggers:
                c.exec_driver_sql(f'DROP TRIGGER "{name}"')
            c.execute(live)
            for _, made in triggers:
                c.exec_driver_sql(made)
        else:
            c.exec_driver_sql("ALTER TABLE matches DISABLE TRIGGER USER")
            c.execute(live)
            c.exec_driver_sql("ALTER TABLE matches ENABLE TRIGGER USER")


def step_findings(match: dict[str, Any], line: list[dict[str, Any]]) -> list[Finding]:
    """Each event's step findings, as an append of 0005 kept them."""
    from ledger.engine import State
    from ledger.rules import make_rules
    from ledger.walk import step

    record = parse_match({**match, "events": line})
    assert record.header is not None
    h = record.header
    state = State(make_rules(h.preset, len(h.seats), h.options))
    out: list[Finding] = []
    for i, ev in enumerate(record.events):
        result = step(state, ev, i)
        state = result.state
        out += result.findings
    return out


def test_an_import_stores_each_finding_with_its_phrase(engine: Engine) -> None:
    paths = _faulty_and_partial()
    reports = _reports(paths)
    ids = {p.name: import_path(engine, p)[0].id for p in paths}
    stored = _stored(engine)
    for name, report in reports.items():
        got = stored[ids[name]]  # type: ignore[index]
        assert got == [finding_json(f) for f in report.findings], name
        for row, f in zip(got, report.findings, strict=True):
            assert row["wording"]["template"] == f.template  # the catalog's msgid
            assert {k: row[k] for k in ("event", "severity", "code", "message")} == \
                f.to_dict()
            again = Finding.from_dict(row)
            assert render_finding(again, "ar") == render_finding(f, "ar"), name
            assert ARABIC.search(render_finding(again, "ar")), name


def test_a_ledger_of_before_0006_upgrades_and_words_in_arabic_without_auditing(
        url: str, tmp_path: Path) -> None:
    engine = db.make_engine(url)
    try:
        db.upgrade(engine, BEFORE)
        paths = _faulty_and_partial()
        reports = _reports(paths)
        ids = {p.name: import_path(engine, p)[0].id for p in paths}
        live_id, warning, audited = _live_with_a_warning(engine, tmp_path)
        # Findings as a ledger of 0005 wrote them: the report only (Finding.to_dict).
        old = {mid: [f.to_dict() for f in reports[name].findings] for name, mid in ids.items()}
        old[live_id] = [warning.to_dict()]
        with engine.begin() as c:  # not guarded: the findings of a live match change too
            for mid, findings in old.items():
                c.execute(update(MATCHES).where(MATCHES.c.id == mid).values(findings=findings))
        assert _stored(engine) == old
        facts = _facts(engine)

        db.upgrade(engine)
        assert db.current_revision(engine) == db.head_revision()
        assert _facts(engine) == facts  # header and events untouched
        stored = _stored(engine)
        for name, mid in ids.items():
            assert stored[mid] == [finding_json(f) for f in reports[name].findings], name
        assert stored[live_id] == [finding_json(f) for f in audited]  # 0012: the audit's
        with engine.connect() as c:
            assert [v for v in verify(c) if not v.ok] == []

        # Worded in Arabic from what is stored, the audit never called.
        want = {mid: [render_finding(f, "ar") for f in reports[name].findings]
                for name, mid in ids.items()}
        want[live_id] = [render_finding(f, "ar") for f in audited]
        with counting_audits() as calls:
            said = {mid: [render_finding(Finding.from_dict(f), "ar") for f in findings]
                    for mid, findings in _stored(engine).items()}
        assert calls.audits == 0
        assert said == want
        assert all(ARABIC.search(s) for texts in said.values() for s in texts)

        # Down again: the form of 0005, the facts as they were.
        db.downgrade(engine, BEFORE)
        assert _stored(engine) == old and _facts(engine) == facts
    finally:
        engine.dispose()


def test_a_finding_the_rules_no_longer_give_keeps_its_form(url: str) -> None:
    # The phrase is taken from the match's own audit, never made up: a stored finding
    # with no twin there stays as it was, and verify still says it differs.
    engine = db.make_engine(url)
    try:
        db.upgrade(engine, BEFORE)
        path = SAMPLES / "faulty" / "illegal-pass.json"
        (got,) = import_path(engine, path)
        (report,) = [audit_record(r) for r in read_matches(path)]
        odd = {"event": 1, "severity": "error", "code": "out-of-turn",
               "message": "event 1: a sentence no audit gives"}
        old = [f.to_dict() for f in report.findings] + [odd]
        with engine.begin() as c:
            c.execute(update(MATCHES).where(MATCHES.c.id == got.id).values(findings=old))
        db.upgrade(engine)
        (stored,) = _stored(engine).values()
        assert stored == [finding_json(f) for f in report.findings] + [odd]
        with engine.connect() as c:
            (checked,) = verify(c)
        assert checked.broken is not None and checked.broken.code == "findings-mismatch"
    finally:
        engine.dispose()


def test_the_header_and_events_stay_guarded_after_0006(engine: Engine) -> None:
    (got,) = import_path(engine, SAMPLES / "faulty" / "illegal-pass.json")
    for statement in ("UPDATE events SET payload = '{}' WHERE seq = 1",
                      "UPDATE matches SET preset = 'selminha'"):
        with pytest.raises(DBAPIError, match="append-only|header is fixed"):
            sql(engine, statement)
    with engine.connect() as c:
        (checked,) = verify(c)
    assert checked.ok and got.id == checked.match_id


def test_verify_compares_the_phrase_too(engine: Engine) -> None:
    # A stored phrase edited behind the ledger's back words another sentence in Arabic:
    # verify compares report and phrase alike, so it is named.
    (got,) = import_path(engine, SAMPLES / "faulty" / "illegal-pass.json")
    (stored,) = _stored(engine).values()
    first = stored[0]
    params = dict(first["wording"]["params"])
    key = next(k for k, v in params.items() if isinstance(v, int))
    params[key] += 1
    edited = [{**first, "wording": {**first["wording"], "params": params}}, *stored[1:]]
    with engine.begin() as c:
        c.execute(update(MATCHES).where(MATCHES.c.id == got.id).values(findings=edited))
    with engine.connect() as c:
        (checked,) = verify(c)
    assert checked.broken is not None and checked.broken.code == "findings-mismatch"
