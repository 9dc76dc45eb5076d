"""What-if: a recorded match re-scored under another table's rules, sheets side by side.

The recorded moves are replayed under the other preset (same seats) for as long
as they are legal there; the claims of the record (``deal_end``, ``block``,
``match_end``) are left out, since they state the original table's results. The
first move the other table does not allow (a different leader, a draw where that
table passes, a play after its match already ended...) is where the replay stops:
the deals played out before it are *replayed* under the other rules; every later
deal is *rescored*: played as recorded, scored as the other table scores how it ended
(``ledger.analysis.rescore``: whose pips count, rounding, who wins a block, its target).
The answer says which deals are which.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ledger.analysis.rescore import DealEnd, deal_ends, rescore
from ledger.audit import audit_events, audit_record
from ledger.events import BlockClaimed, DealEndClaimed, Event, MatchEndClaimed
from ledger.findings import Finding
from ledger.formats.reader import MatchRecord
from ledger.i18n import Counted, Phrase
from ledger.rules import RulesError, make_rules
from ledger.rules.base import Rules
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
    replayed: tuple[int, ...] = ()   # deals played out under the other table's rules
    rescored: tuple[int, ...] = ()   # deals played as recorded, scored as it scores
    unscored: tuple[int, ...] = ()   # deals past the stop whose hands stay hidden
    after_end: tuple[int, ...] = ()  # deals played after its match was already over

    @property
    def legal_until(self) -> int | None:
        """Index of the first recorded event that is not legal under the other table."""
        return None if self.stop is None else self.stop.event

    def side_by_side(self) -> list[tuple[int, DealRow | None, DealRow | None]]:
        """Deal by deal (1-based): the original row and the other table's row."""
        a = {d.deal: d for d in self.original.deals}
        b = {d.deal: d for d in self.other.deals}
        return [(n, a.get(n), b.get(n)) for n in sorted(a.keys() | b.keys())]

    def verdict(self, table: str | None = None) -> list[Phrase]:
        """Which deals were replayed under the other table, which were only rescored, and
        which could not count: sentences for the page and the command (``table``: the
        other table's name in the reader's language; its title by default)."""
        table = self.other.title if table is None else table
        said: list[Phrase] = []
        if self.replayed:
            said.append(Counted("Deal {deals} was replayed under the rules of {table}.",
                                "Deals {deals} were replayed under the rules of {table}.",
                                len(self.replayed), deals=_span(self.replayed), table=table))
        if self.rescored:
            said.append(Counted(
                "Deal {deals} was only rescored: played as recorded, scored as {table} "
                "scores how it ended (whose pips count, rounding, who wins a block, its "
                "target), without Fives points during the deal.",
                "Deals {deals} were only rescored: played as recorded, scored as {table} "
                "scores how each ended (whose pips count, rounding, who wins a block, its "
                "target), without Fives points during the deal.",
                len(self.rescored), deals=_span(self.rescored), table=table))
        if self.unscored:
            said.append(Counted("Deal {deals} cannot be rescored: hands stay hidden.",
                                "Deals {deals} cannot be rescored: hands stay hidden.",
                                len(self.unscored), deals=_span(self.unscored)))
        if self.after_end:
            said.append(Counted("Deal {deals} was played after the match was over under "
                                "{table}: it does not count.",
                                "Deals {deals} were played after the match was over under "
                                "{table}: they do not count.",
                                len(self.after_end), deals=_span(self.after_end),
                                table=table))
        return said

    def to_dict(self) -> dict[str, Any]:
        return {
            "original": self.original.to_dict(),
            "other": self.other.to_dict(),
            "legal_until": self.legal_until,
            "stop": None if self.stop is None else self.stop.to_dict(),
            "replayed": list(self.replayed), "rescored": list(self.rescored),
            "unscored": list(self.unscored), "after_end": list(self.after_end),
        }


def _span(deals: tuple[int, ...]) -> str:
    """Deal numbers as runs: (1, 2, 3, 5) -> "1–3, 5"."""
    runs: list[list[int]] = []
    for d in deals:
        if runs and d == runs[-1][-1] + 1:
            runs[-1].append(d)
        else:
            runs.append([d])
    return ", ".join(f"{r[0]}–{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


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
    report = audit_record(record)
    original = sheet_from_report(report, header)
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
    other_header = replace(header, preset=preset, options=dict(options or {}))
    derived = [ev for evs in trial.derived for ev in evs]
    other = build_sheet(other_header, derived, trial.findings, rules=rules)
    replayed = tuple(d.deal for d in other.deals)
    if stop is None or report.rules is None:
        return WhatIf(original, other, stop, replayed)
    return _with_rescored(original, other, stop, rules,
                          deal_ends(report.rules, report.events), replayed)


def _with_rescored(original: ScoreSheet, other: ScoreSheet, stop: Finding, rules: Rules,
                   ends: list[DealEnd], replayed: tuple[int, ...]) -> WhatIf:
    """The other sheet carried on past the stop with the later deals rescored."""
    rest = [e for e in ends if e.deal > max(replayed, default=0)]
    if other.complete:  # its match was over before the stop: nothing more counts
        return WhatIf(original, other, stop, replayed,
                      after_end=tuple(e.deal for e in rest))
    start = other.scores if other.deals else (0,) * rules.sides
    got = rescore(rules, rest, other.players, start)
    over = got.winner is not None
    sheet = replace(other, deals=other.deals + got.rows, scores=got.scores,
                    winner=rules.side_seat(got.winner) if got.winner is not None else None,
                    complete=over, end=("one-round" if rules.target == 0 else "target")
                    if over else None)
    return WhatIf(original, sheet, stop, replayed, tuple(r.deal for r in got.rows),
                  got.unscored, got.after_end)
