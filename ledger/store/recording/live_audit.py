"""A live match's findings after an append: the audit of its export (live equals import).

Every append and every undo walks the match's standing line again, as ``audit`` walks
the exported file, so a reveal judges the passes and draws made before it against the
hands it shows (issue 29). Walking the whole line is most of an append's time when every
deal shows its hands (a record with nothing hidden): then the events' findings do not
change once walked, and the append before it hands them on (``Audited.walked``); only the
new event's and the record's end (a deal still waiting, an open match) are walked again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ledger.audit import audit_events
from ledger.engine.state import State
from ledger.events import Dealt, Event
from ledger.findings import Finding
from ledger.rules.base import Rules
from ledger.walk import finish_record, fold_record


@dataclass(frozen=True, slots=True)
class Audited:
    findings: tuple[Finding, ...]              # as ``audit_events`` gives them, in order
    walked: tuple[Finding, ...] | None         # the events' own (None: something is hidden)


def _whole(ev: Event) -> bool:
    return not isinstance(ev, Dealt) or (ev.stock is not None and None not in ev.hands)


def audited(rules: Rules, line: Sequence[Event], state: State,
            walked: tuple[Finding, ...] | None = None,
            found: Sequence[Finding] = ()) -> Audited:
    """The audit of ``line``; ``state`` is the state after it. ``walked``: the events'
    findings up to the last one, kept from the append before; ``found``: the last one's."""
    if walked is not None and line and _whole(line[-1]):
        base = walked + tuple(found)
    else:
        fold_found: list[Finding] = []
        if fold_record(State(rules), list(line), fold_found, [], whole=True) is not True:
            # A hidden hand (or stock): the audit rebuilds the record, as for an import.
            return Audited(tuple(audit_events(rules, list(line)).findings), None)
        base = tuple(fold_found)
    tail: list[Finding] = []
    finish_record(state.copy(), [], tail, len(line) - 1 if line else None)
    found_all = list(base) + tail
    found_all.sort(key=lambda f: (-1 if f.event is None else f.event))  # as the audit
    return Audited(tuple(found_all), base)


__all__ = ["Audited", "audited"]
