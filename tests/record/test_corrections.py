"""Corrections: an undo takes back the last event standing; the history keeps both.

The corrected line is defined in ledger/corrections.py: each undo names the
last event standing, numbered along the corrected line, and after the undo of
event k the next event is event k again. Two readings must agree: the file
reading (``corrected_line``, one pass with a stack) and the store's row
reading (``standing``, which only sees each row's event number and kind).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.corrections import (
    CorrectionError,
    Undo,
    corrected_line,
    parse_undo,
    standing,
    standing_dicts,
)


def _history(ops: list[bool]) -> tuple[list[dict[str, object]], list[tuple[int, str, str]]]:
    """A history from a script (True: record an event, False: undo the last one), with the
    rows the store keeps for it: (event number, kind, name), one derived row per event."""
    history: list[dict[str, object]] = []
    rows: list[tuple[int, str, str]] = []
    standing_now = 0
    made = 0
    for record in ops:
        if record or standing_now == 0:
            name = f"e{made}"
            made += 1
            history.append({"type": "play", "name": name})
            rows.append((standing_now, "recorded", name))
            rows.append((standing_now, "derived", f"{name}/derived"))
            standing_now += 1
        else:
            standing_now -= 1
            history.append({"type": "undo", "event": standing_now})
            rows.append((standing_now, "undo", "undo"))
    return history, rows


def test_an_undo_takes_back_the_last_event_and_the_next_takes_its_number() -> None:
    history = [{"type": "deal", "n": 0}, {"type": "play", "n": 1}, {"type": "undo", "event": 1},
               {"type": "play", "n": 2}, {"type": "play", "n": 3}, {"type": "undo", "event": 2},
               {"type": "undo", "event": 1}, {"type": "play", "n": 4}]
    assert [e["n"] for e in corrected_line(history)] == [0, 4]


def test_an_undo_of_any_other_event_is_refused_with_a_reason() -> None:
    with pytest.raises(CorrectionError, match="only the last event can be undone: that is "
                       "event 1, not event 0"):
        corrected_line([{"type": "deal"}, {"type": "play"}, {"type": "undo", "event": 0}])
    with pytest.raises(CorrectionError, match="there is no event to undo"):
        parse_undo({"type": "undo", "event": 0}, standing=0)
    with pytest.raises(CorrectionError, match="by its number"):
        parse_undo({"type": "undo", "event": "last"}, standing=3)
    assert parse_undo({"type": "undo", "event": 2}, standing=3) == Undo(event=2)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), max_size=40))
def test_the_store_rows_and_the_file_read_the_same_corrected_line(ops: list[bool]) -> None:
    history, rows = _history(ops)
    by_file = [e["name"] for e in corrected_line(history)]
    kept = standing(rows, index=lambda r: r[0], undo=lambda r: r[1] == "undo")
    assert [name for _, kind, name in kept if kind == "recorded"] == by_file
    # What the rules derived goes with its event: kept exactly when the event is.
    assert [name for _, kind, name in kept if kind == "derived"] == [
        f"{n}/derived" for n in by_file]
    # Any subset read in order (the store reads the recorded rows alone) filters the same.
    subset = [r for r in rows if r[1] != "derived"]
    assert [n for _, k, n in standing(subset, lambda r: r[0], lambda r: r[1] == "undo")
            if k == "recorded"] == by_file


def test_an_unread_row_named_undo_corrects_nothing() -> None:
    # An imported file's {"type": "undo"} that the reader skipped is kept verbatim
    # (kind "unread"); only an undo the live API stored takes anything back.
    rows = [{"event": 0, "kind": "recorded", "type": "deal"},
            {"event": 1, "kind": "recorded", "type": "play"},
            {"event": 2, "kind": "unread", "type": "undo"}]
    assert standing_dicts(rows) == rows


def test_random_histories_never_keep_an_undone_event() -> None:
    rng = random.Random(7)
    for _ in range(50):
        ops = [rng.random() < 0.6 for _ in range(30)]
        history, _ = _history(ops)
        line = corrected_line(history)
        undone = set()
        stack: list[str] = []
        for e in history:
            if e["type"] == "undo":
                undone.add(stack.pop())
            else:
                stack.append(str(e["name"]))
        assert not undone & {str(e["name"]) for e in line}
        assert [e["name"] for e in line] == stack
