"""What-if: a recorded match re-scored under another table's rules, sheets side by side.

The recorded moves are replayed under the other preset (same seats) for as long
as they are legal there; the claims of the record (``deal_end``, ``block``,
``match_end``) are left out, since they state the original table's results. The
first move the other table does not allow (a different leader, a draw where that
table passes, a play after its match already ended...) is where the comparison
stops: the other sheet holds the deals played out before it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ledger.audit import audit_events, audit_record
from ledger.events import BlockClaimed, DealEndClaimed, Event, MatchEndClaimed
from ledger.findings import Finding
from ledger.formats.reader import MatchRecord
from ledger.i18n import Phrase
from ledger.rules import RulesError, make_rules
from ledger.scoresheet import DealRow, ScoreSheet, build_sheet, sheet_from_report

CLAIMS = (DealEndClaimed, BlockClaimed, MatchEndClaimed)


class WhatIfError(ValueError):
    """The match cannot be replayed under the other table at all (``said`` words why in any
    language; ``code`` is the rules' code, or ``no-header``)."""

    def __init__(self, code: str, said: Phrase) -> None:
        super().__init__(str(said))
        self.code = code
        self.said = said
        self.message = str(said)


@dataclass(frozen=True, slots=True)
class WhatIf:
    original: ScoreSheet
    other: ScoreSheet
    stop: Finding | None  # the first move the other table does not allow (None: none)

    @property
    def legal_until(self) -> int | None:
        """Index of the first recorded event that is not legal under the other table."""
        return None if self.stop is None else self.stop.event

    def side_by_side(self) -> list[tuple[int, DealRow | None, DealRow | None]]:
        """Deal by deal (1-based): the original row and the other table's row."""
        a = {d.deal: d for d in self.original.deals}
        b = {d.deal: d for d in self.other.deals}
        return [(n, a.get(n), b.get(n)) for n in sorted(a.keys() | b.keys())]

    def to_dict(self) -> dict[str, Any]:
        return {
            "original": self.original.to_dict(),
            "other": self.other.to_dict(),
            "legal_until": self.legal_until,
            "stop": None if self.stop is None else self.stop.to_dict(),
        }


def what_if(record: MatchRecord, preset: str,
            options: Mapping[str, object] | None = None) -> WhatIf:
    """Both score sheets of ``record``: as recorded, and under ``preset`` (with ``options``)."""
    header = record.header
    if header is None:
        raise WhatIfError("no-header", Phrase("the match has no readable header"))
    try:
        rules = make_rules(preset, len(header.seats), options or {})
    except RulesError as exc:
        raise WhatIfError(exc.code, Phrase(exc.template, **exc.params)) from None
    original = sheet_from_report(audit_record(record), header)
    # The record's own claims would all be "wrong" under other rules: leave them out,
    # keeping every other event at its index so findings name the recorded event.
    # An event that cannot be read ends the replay there, as it ends the audit.
    end = record.stop if record.stop is not None else len(record.events)
    events: list[Event | None] = [None if isinstance(ev, CLAIMS) else ev
                                  for ev in record.events[:end]]
    kept = [i for i, ev in enumerate(events) if ev is not None]
    trial = audit_events(rules, [events[i] for i in kept])
    stop = None
    for f in trial.findings:
        if f.severity == "error" and f.event is not None:
            at = kept[f.event]
            stop = replace(f, event=at)
            trial = audit_events(rules, [events[i] for i in kept if i < at])
            break
    other_header = replace(header, rules=preset, options=dict(options or {}))
    derived = [ev for evs in trial.derived for ev in evs]
    other = build_sheet(other_header, derived, trial.findings, rules=rules)
    return WhatIf(original, other, stop)
