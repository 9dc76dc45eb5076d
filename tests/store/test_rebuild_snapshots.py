"""Read models rebuild to the same rows; a snapshot plus the rest folds to the full fold."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select, update

from ledger.audit import audit_record
from ledger.formats.reader import read_matches
from ledger.rules import make_rules
from ledger.store import db
from ledger.store.log import seals, snapshots
from ledger.store.models import EVENTS, PLAYER_TOTALS, READ_MODELS, SNAPSHOTS
from ledger.store.pages import readmodels
from tests.store.conftest import sample_files
from tests.store.helpers import count, import_path, sql
from tests.store.test_live import record, start


def _rebuild(engine: Engine, fill: bool = True) -> None:
    with db.writing(engine) as s:
        conn = s.connection()
        readmodels.rebuild(conn)
        if fill:
            for (mid,) in conn.execute(select(EVENTS.c.match_id).distinct()):
                snapshots.fill(conn, mid)
        s.commit()


def _dump(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    with engine.connect() as c:
        return readmodels.dump(c)


@pytest.fixture
def ledger(engine: Engine, corpus_file: Path, corpus: list[dict[str, Any]]) -> Engine:
    """Imported matches (clean, faulty, partial) and two live ones, one finished."""
    import_path(engine, corpus_file)
    for path in sample_files("faulty")[:6] + sample_files("partial"):
        import_path(engine, path)
    record(engine, start(engine, corpus[7]), corpus[7]["events"])
    record(engine, start(engine, corpus[8]), corpus[8]["events"][:40])
    return engine


def test_rebuild_gives_the_rows_the_writes_gave(ledger: Engine) -> None:
    before = _dump(ledger)
    assert all(before[t.name] for t in READ_MODELS)
    _rebuild(ledger)
    assert _dump(ledger) == before
    for t in READ_MODELS:  # from nothing at all, too
        sql(ledger, f"DELETE FROM {t.name}")
    _rebuild(ledger)
    assert _dump(ledger) == before


def test_rebuild_repairs_a_read_model_edited_by_hand(ledger: Engine) -> None:
    before = _dump(ledger)
    with db.writing(ledger) as s:
        s.connection().execute(update(PLAYER_TOTALS).values(wins=PLAYER_TOTALS.c.wins + 5))
        s.commit()
    assert _dump(ledger) != before
    _rebuild(ledger)
    assert _dump(ledger) == before


def test_player_totals_count_what_the_audit_says(engine: Engine, corpus_file: Path) -> None:
    # Computed here from the audit reports, independently of the read models.
    import_path(engine, corpus_file)
    want: dict[str, Counter[str]] = {}
    for rec in read_matches(corpus_file):
        report = audit_record(rec)
        assert rec.header is not None
        rules = make_rules(rec.header.preset, len(rec.header.seats), rec.header.options)
        for seat, name in enumerate(rec.header.seats):
            side = rules.side_of(seat)
            c = want.setdefault(name, Counter())
            c["matches"] += 1
            c["complete"] += report.complete
            c["wins"] += report.complete and report.winner is not None \
                and rules.side_of(report.winner) == side
            c["deals"] += len(report.deals)
            c["deal_wins"] += sum(1 for d in report.deals if d["winner"] is not None
                                  and rules.side_of(int(str(d["winner"]))) == side)
            c["points"] += (report.scores or [])[side]
    with engine.connect() as conn:
        got = {r.name: Counter({k: getattr(r, k) for k in readmodels.TOTALS if k != "faulty"})
               for r in conn.execute(select(PLAYER_TOTALS))}
    assert got == want


@pytest.mark.slow(reason="rebuilds a corpus twice: 20-40 s")
def test_a_snapshot_plus_the_rest_equals_the_full_fold(ledger: Engine) -> None:
    _rebuild(ledger)
    assert count(ledger, SNAPSHOTS) > 0
    with ledger.connect() as c:
        ids = sorted({mid for (mid,) in c.execute(select(EVENTS.c.match_id))})
        checked = 0
        for mid in ids:
            seqs = [s for (s,) in c.execute(select(EVENTS.c.seq).where(
                EVENTS.c.match_id == mid, EVENTS.c.kind != "derived").order_by(EVENTS.c.seq))]
            for seq in seqs:
                fast = snapshots.state_at(c, mid, seq)
                full = snapshots.state_at(c, mid, seq, use_snapshots=False)
                assert fast == full, (mid, seq)
                checked += 1
        assert checked > 1000


def test_the_stored_fold_is_the_audits_fold(engine: Engine, corpus_file: Path) -> None:
    # The last state from the ledger (cache or not), finished like the audit finishes a
    # record, is the audit's own final state: clean and partial records alike.
    from ledger.engine.fold import finish

    paths = [corpus_file, *sample_files("partial")]
    for path in paths:
        got = import_path(engine, path)
        _rebuild(engine)
        with engine.connect() as c:
            for rec, g in zip(read_matches(path), got, strict=True):
                report = audit_record(rec)
                assert g.id is not None and report.state is not None
                for cached in (True, False):
                    st = snapshots.state_at(c, g.id, use_snapshots=cached)
                    assert st is not None
                    finish(st, [], [], len(rec.events) - 1)
                    assert st == report.state, (path.name, rec.index)


def test_the_snapshot_is_what_the_fold_starts_from(ledger: Engine) -> None:
    # Proof that state_at reads the cache: a doctored snapshot shows through, and one
    # written for another shape of State is ignored.
    with db.writing(ledger) as s:
        snapshots.fill(s.connection(), 2)
        s.commit()
    with ledger.connect() as c:
        snap = c.execute(select(SNAPSHOTS).where(SNAPSHOTS.c.match_id == 2)
                         .order_by(SNAPSHOTS.c.seq.desc())).first()
        assert snap is not None
        honest = snapshots.state_at(c, 2, snap.seq)
    doctored = snap.state.replace('"scores":[', '"scores":[1000,', 1)
    with ledger.connect() as c:
        event = bytes(c.execute(select(EVENTS.c.hash).where(
            EVENTS.c.match_id == 2, EVENTS.c.seq == snap.seq)).scalar_one())
    # Sealed again with it (as only the ledger's own code would), the doctored state shows
    # through; left with the honest state's seal, it is folded past (issue 32).
    for version, sealed, shows in ((snapshots.VERSION, True, True),
                                   (snapshots.VERSION, False, False), ("stale", True, False)):
        seal = (seals.snapshot(2, snap.seq, snap.recorded_index, version, doctored, event)
                if sealed else snap.seal)
        with db.writing(ledger) as s:
            s.connection().execute(update(SNAPSHOTS).where(
                SNAPSHOTS.c.match_id == 2, SNAPSHOTS.c.seq == snap.seq).values(
                state=doctored, version=version, seal=seal))
            s.commit()
        with ledger.connect() as c:
            st = snapshots.state_at(c, 2, snap.seq)
        assert st is not None and honest is not None
        assert (st.scores[0] == 1000) is shows
        assert (st == honest) is not shows


def test_live_appends_write_a_snapshot_at_each_deal(engine: Engine,
                                                    corpus: list[dict[str, Any]]) -> None:
    match = corpus[9]
    mid = start(engine, match)
    record(engine, mid, match["events"])
    deals = sum(1 for e in match["events"] if e["type"] == "deal")
    with engine.connect() as c:
        assert c.execute(select(SNAPSHOTS.c.seq).where(SNAPSHOTS.c.match_id == mid)
                         ).all().__len__() == deals
