"""A review that is told to stop, and one that reports its progress: pure, no clock.

``stop`` here is a countdown of positions, so a test knows exactly where it stopped;
what is solved must be what a review left alone finds, and what is not is left out
with a note (never guessed).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ledger.analysis.review import DealReview, review_match
from ledger.events import Event
from ledger.formats.reader import parse_match
from ledger.rules import make_rules
from ledger.rules.base import Rules
from ledger.sim.generator import generate_match

# Two sides solve from the start of the deal on; three or more from its end back.
TABLES = [("domena", 2, 1), ("selminha", 3, 0)]


def _deal(preset: str, seats: int, deal: int
          ) -> tuple[list[Event | None], DealReview, Rules]:
    record = parse_match(generate_match(preset, seats, {}, seed=5))
    rules = make_rules(preset, seats)
    (full,) = review_match(rules, record.events, deals=[deal])
    assert full.best is not None and full.note is None, "the whole deal solves"
    return list(record.events), full, rules


def _after(positions: int) -> Callable[[], bool]:
    """Says stop once ``positions`` positions have been let through."""
    asked = 0

    def stop() -> bool:
        nonlocal asked
        asked += 1
        return asked > positions

    return stop


@pytest.mark.parametrize(("preset", "seats", "deal"), TABLES)
def test_stopping_leaves_the_rest_out_with_a_note(preset: str, seats: int, deal: int) -> None:
    events, full, rules = _deal(preset, seats, deal)
    let_through = len(full.steps) // 2
    (part,) = review_match(rules, events, deals=[deal],
                           stop=_after(let_through))
    solved = [s for s in part.steps if s.outcome is not None]
    assert len(solved) == let_through
    assert part.best is None  # the start is solved last either way
    assert part.note is not None and "stopped" in part.note and "left out" in part.note
    # What was solved is what the whole review says; the rest is None, not a guess.
    by_event = {s.event: s for s in full.steps}
    for s in part.steps:
        assert s.outcome in (None, by_event[s.event].outcome)
    full_decisions = {d.event: d for d in full.decisions}
    for d in part.decisions:
        assert d == full_decisions[d.event]
    assert len(part.decisions) < len(full.decisions) or not full.decisions
    # Two sides solve forward, so the solved ones come first; max-n solves backward.
    left_out = [s.event for s in part.steps if s.outcome is None]
    kept = [s.event for s in solved]
    if rules.sides == 2:
        assert max(kept) < min(left_out) and f"event {left_out[0]}" in part.note
    else:
        assert max(left_out) < min(kept) and f"event {left_out[-1]}" in part.note


@pytest.mark.parametrize(("preset", "seats", "deal"), TABLES)
def test_a_stop_at_once_solves_nothing_and_a_stop_never_changes_nothing(
        preset: str, seats: int, deal: int) -> None:
    events, full, rules = _deal(preset, seats, deal)
    (none,) = review_match(rules, events, deals=[deal],
                           stop=lambda: True)
    assert not none.analysed and none.best is None and none.decisions == ()
    assert all(s.outcome is None for s in none.steps)
    assert none.note is not None and "stopped" in none.note
    assert none.result == full.result  # what happened is still told
    (all_,) = review_match(rules, events, deals=[deal],
                           stop=lambda: False)
    assert all_ == full


def test_only_the_start_left_out_says_so() -> None:
    events, full, rules = _deal("domena", 2, 1)
    (part,) = review_match(rules, events, deals=[1],
                           stop=_after(len(full.steps)))
    assert [s.outcome for s in part.steps] == [s.outcome for s in full.steps]
    assert part.decisions == full.decisions
    assert part.best is None
    assert part.note is not None and "the start of the deal was not solved" in part.note


@pytest.mark.parametrize(("preset", "seats", "deal"), TABLES)
def test_progress_counts_every_position_up_to_the_total(preset: str, seats: int,
                                                        deal: int) -> None:
    events, full, rules = _deal(preset, seats, deal)
    seen: list[tuple[int, int]] = []
    (again,) = review_match(rules, events, deals=[deal],
                            progress=lambda done, total: seen.append((done, total)))
    assert again == full
    total = len(full.steps) + 1  # the start and the position after each move
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert {t for _, t in seen} == {total}
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:], strict=False))
    # Stopped half way, it still counts up to the total: the rest is dealt with (left out).
    seen.clear()
    review_match(rules, events, deals=[deal], stop=_after(2),
                 progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (total, total)
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:], strict=False))
