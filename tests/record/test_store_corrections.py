"""Undo in the store, on SQLite and on the local PostgreSQL: what stands after a correction.

The store folds, scores and snapshots the corrected line (ledger/corrections.py);
a rebuild from the events gives the same read models and snapshots as the
writes did, and ``verify`` re-folds the history, undos included. The ``engine``
fixture is the store suite's: one test per backend (tests/record/conftest.py).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, select

from ledger.engine import fold, new_state
from ledger.formats.wire import event_to_dict, parse_event
from ledger.recording import menu, seeded_deal
from ledger.rules import make_rules
from ledger.store import db
from ledger.store.errors import BadInput
from ledger.store.log import snapshots
from ledger.store.log.verify import verify_match
from ledger.store.models import SNAPSHOTS
from ledger.store.pages import queries, readmodels
from ledger.store.recording import live

RULES = make_rules("sahrat-draw", 2, {"target": 150})
NAMES = ["Ali", "Omar"]


def _append(engine: Engine, match_id: int, event: dict[str, Any]) -> live.Appended:
    with db.writing(engine) as s:
        return live.append(s, match_id, event, expected_seq=live.next_seq(s, match_id))


def _line(engine: Engine, match_id: int) -> list[dict[str, Any]]:
    from ledger.corrections import corrected_line

    with engine.connect() as c:
        rows = queries.events_of(c, match_id)
    return corrected_line([r["payload"] for r in rows if r["kind"] != "derived"])


def _first(engine: Engine, match_id: int) -> dict[str, Any] | None:
    st = fold(RULES, [parse_event(e, 2) for e in _line(engine, match_id)])
    m = menu(st, NAMES)
    if m.need != "move":
        return None
    t = m.turns[0]
    event: dict[str, Any] = (t.plays + t.draws + t.passes)[0].event
    return event


def _play_deal(engine: Engine, match_id: int, number: int) -> None:
    _append(engine, match_id, event_to_dict(seeded_deal(RULES, "store", number)))
    while (ev := _first(engine, match_id)) is not None:
        _append(engine, match_id, ev)


def test_undo_in_the_store_rebuilds_to_the_same_read_models_and_snapshots(
        engine: Engine) -> None:
    with db.writing(engine) as s:
        match_id = live.start_match(s, {"table": {"rules": "sahrat-draw",
                                                  "options": {"target": 150}}, "seats": NAMES})
    _play_deal(engine, match_id, 0)
    with engine.connect() as c:
        scored = queries.get_match(c, match_id)
    assert len(scored["score_sheet"]) == 1
    last = _line(engine, match_id)
    # Take back the deal's last play: its scoring goes with it.
    got = _append(engine, match_id, {"type": "undo", "event": len(last) - 1})
    assert got.index == len(last) - 1 and got.derived == ()
    with engine.connect() as c:
        back = queries.get_match(c, match_id)
    assert back["score_sheet"] == [] and back["winner"] is None
    # Record it again, then deal the next hand and take that deal back too.
    again = _first(engine, match_id)
    assert again is not None
    _append(engine, match_id, again)
    _append(engine, match_id, event_to_dict(seeded_deal(RULES, "store", 1)))
    deal_index = len(_line(engine, match_id)) - 1
    with engine.connect() as c:
        assert c.execute(select(SNAPSHOTS.c.recorded_index)
                         .where(SNAPSHOTS.c.match_id == match_id)).scalars().all() \
            == [0, deal_index]
    _append(engine, match_id, {"type": "undo", "event": deal_index,
                               "at": "2026-11-29T20:15:00Z"})  # as the page sends it
    with engine.connect() as c:
        # The undone deal's snapshot is gone: the fold never starts from it.
        assert c.execute(select(SNAPSHOTS.c.recorded_index)
                         .where(SNAPSHOTS.c.match_id == match_id)).scalars().all() == [0]
    # Only the last event standing can be taken back.
    try:
        _append(engine, match_id, {"type": "undo", "event": 0})
    except BadInput as exc:
        assert exc.code == "bad-undo"
    else:
        raise AssertionError("an undo of an earlier event was stored")
    _play_deal(engine, match_id, 2)
    while True:
        with engine.connect() as c:
            if queries.get_match(c, match_id)["complete"]:
                break
            deals = len(queries.get_match(c, match_id)["score_sheet"])
        _play_deal(engine, match_id, 3 + deals)
    line = [parse_event(e, 2) for e in _line(engine, match_id)]
    expected = fold(RULES, line)
    with engine.connect() as c:
        state = snapshots.state_at(c, match_id)
        match = queries.get_match(c, match_id)
        assert verify_match(c, match_id).ok
    assert state == expected
    assert match["scores"] == expected.scores and match["winner"] == expected.winner
    # What the writes left equals a rebuild from the events alone.
    with engine.connect() as c:
        written = readmodels.dump(c)
        snaps = c.execute(select(SNAPSHOTS.c.seq, SNAPSHOTS.c.state)
                          .where(SNAPSHOTS.c.match_id == match_id)
                          .order_by(SNAPSHOTS.c.seq)).all()
    with db.writing(engine) as s:
        conn = db.write_connection(s)
        readmodels.rebuild(conn)
        snapshots.fill(conn, match_id)
        s.commit()
    with engine.connect() as c:
        assert readmodels.dump(c) == written
        assert c.execute(select(SNAPSHOTS.c.seq, SNAPSHOTS.c.state)
                         .where(SNAPSHOTS.c.match_id == match_id)
                         .order_by(SNAPSHOTS.c.seq)).all() == snaps
    assert new_state(RULES).phase == "waiting"


def test_the_write_side_takes_an_event_back(engine: Engine) -> None:
    from ledger.store import write

    with db.writing(engine) as s:
        match_id = write.start_keyed(s, {"table": {"rules": "sahrat-draw",
                                                   "options": {"target": 150}},
                                         "seats": NAMES}).match_id
    _append(engine, match_id, event_to_dict(seeded_deal(RULES, "store", 0)))
    first = _first(engine, match_id)
    assert first is not None
    _append(engine, match_id, first)
    assert len(_line(engine, match_id)) == 2
    with db.writing(engine) as s:
        got = write.undo(s, match_id, 1, expected_seq=live.next_seq(s, match_id))
    assert got.index == 1 and got.event["type"] == "undo"
    assert [e["type"] for e in _line(engine, match_id)] == ["deal"]  # the play is back
