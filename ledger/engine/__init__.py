"""The rules engine: a match is the fold of its events.

Pure: no I/O, no clock, no database. ``apply`` is the strict fold (an event
that breaks a rule raises ``IllegalEvent``); ``step`` is the lenient one that
returns what the event broke and what the rules derived from it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ledger.engine.fold import advance, finish
from ledger.engine.moves import Move, MoveError, legal_moves
from ledger.engine.state import DealResult, State
from ledger.events import Event
from ledger.findings import Finding, IllegalEvent, Unreadable
from ledger.rules.base import Rules


@dataclass(frozen=True, slots=True)
class Step:
    state: State
    derived: tuple[Event, ...]
    findings: tuple[Finding, ...]
    readable: bool = True


def new_state(rules: Rules) -> State:
    return State(rules)


def step(state: State, event: Event, index: int | None = None) -> Step:
    """Fold one event into a copy of ``state``, keeping every finding."""
    st = state.copy()
    out: list[Event] = []
    findings: list[Finding] = []
    try:
        advance(st, event, index, out, findings)
    except Unreadable as stop:
        findings.append(stop.finding)
        return Step(state, tuple(out), tuple(findings), readable=False)
    return Step(st, tuple(out), tuple(findings))


def apply(state: State, event: Event, index: int | None = None) -> State:
    """Strict fold of one event: the new state, or IllegalEvent at the first broken rule."""
    result = step(state, event, index)
    for finding in result.findings:
        if finding.severity == "error":
            raise IllegalEvent(finding)
    return result.state


def fold(rules: Rules, events: Iterable[Event]) -> State:
    """Strict fold of a whole record (a plain loop over ``apply``)."""
    state = new_state(rules)
    for i, event in enumerate(events):
        state = apply(state, event, i)
    return state


__all__ = [
    "DealResult", "IllegalEvent", "Move", "MoveError", "State", "Step", "apply", "finish",
    "fold", "legal_moves", "new_state", "step",
]
