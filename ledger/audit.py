"""Auditing a match: fold its record through the rules and report every rule broken.

The report is the ``audit --json`` object of match-format.md. The fold stops
at the first event that makes the rest unreadable; a wrong claim is reported
and the fold goes on with what the rules compute.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from ledger.engine.state import State
from ledger.events import DealScored, Dealt, Event
from ledger.findings import Finding, finding
from ledger.formats.partial import HiddenHand, rebuild_hands
from ledger.formats.reader import MatchRecord
from ledger.rules import RulesError, make_rules
from ledger.rules.base import Rules
from ledger.walk import finish_record, fold_record


@dataclass
class AuditReport:
    match: int
    source: object
    findings: list[Finding]
    deals: list[dict[str, object]] = field(default_factory=list)
    scores: list[int] | None = None
    winner: int | None = None
    complete: bool = False
    rules: Rules | None = None
    state: State | None = None
    # Per recorded event, what the rules derived from it (the ledger stores both).
    derived: list[tuple[Event, ...]] = field(default_factory=list)
    events: list[Event | None] = field(default_factory=list)
    path: str | None = None
    line: int | None = None

    @property
    def ok(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "match": self.match,
            "source": self.source,
            "ok": self.ok,
            "findings": [f.to_dict() for f in self.findings],
            "deals": self.deals,
            "scores": self.scores,
            "winner": self.winner,
            "complete": self.complete,
        }
        if self.path is not None:
            out["file"] = self.path
        if self.line is not None:
            out["line"] = self.line
        return out


# isinstance(x, Dealt) as a C function, for filter: a record's events are scanned at C speed.
_is_deal: Callable[[object], TypeGuard[Dealt]] = Dealt.__instancecheck__  # type: ignore[assignment]


def audit_record(record: MatchRecord) -> AuditReport:
    report = AuditReport(match=record.index, source=record.source,
                         findings=list(record.problems), path=record.path, line=record.line)
    header = record.header
    if header is None:
        return report
    try:
        rules = make_rules(header.preset, len(header.seats), header.options)
    except RulesError as exc:
        report.findings.append(finding(None, "error", exc.code, exc.template, **exc.params))
        return report
    return audit_events(rules, record.events, report, stop=record.stop)


def audit_events(rules: Rules, events: Iterable[Event | None],
                 report: AuditReport | None = None, stop: int | None = None) -> AuditReport:
    """Fold a record's events and fill the report (``None`` stands for an unreadable event)."""
    if report is None:
        report = AuditReport(match=0, source=None, findings=[])
    events = list(events)
    report.rules = rules
    findings = report.findings
    derived_all = report.derived
    kept = len(findings), len(derived_all)
    # A record that shows every hand and the stock of every deal has nothing to rebuild
    # (rebuild_hands passes such a deal by), so it is folded as it is: the fold gives up
    # at the first deal that hides something, and only then is the record rebuilt and
    # folded again. (A fold that stops early has not seen every deal: those are looked at.)
    hidden: list[HiddenHand] = []
    st = State(rules)
    done = fold_record(st, events, findings, derived_all, stop, whole=True)
    if done is None or not done and not all(
            deal.stock is not None and None not in deal.hands
            for deal in filter(_is_deal, events)):
        del findings[kept[0]:]
        del derived_all[kept[1]:]
        events, hidden = rebuild_hands(events, rules)
        st = State(rules)
        done = fold_record(st, events, findings, derived_all, stop)
    report.events = events
    last = len(events) - 1
    if done:
        out: list[Event] = []
        finish_record(st, out, findings, last if last >= 0 else None)
        if out and derived_all:
            derived_all[-1] = derived_all[-1] + tuple(out)
    for h in hidden:
        said = h.sentence()
        findings.append(finding(h.event, "warning", "hidden-tiles", said.template, **said.params))
    report.state = st
    report.deals = [
        {"result": d.result, "winner": d.winner, "points": d.points}
        for evs in filter(None, derived_all) for d in evs if isinstance(d, DealScored)
    ]
    report.scores = list(st.scores)
    report.winner = st.winner
    report.complete = st.phase == "ended"
    report.findings.sort(key=lambda f: (-1 if f.event is None else f.event))
    return report
