"""The score sheet of a match: what a scorer writes down, deal by deal.

One definition for every way a sheet leaves the ledger (CSV, JSON, PDF, the
web page). It is read off the events the engine derived while folding the
record (``DealScored``, ``FivesScored``, ``MatchEnded``), never recomputed, so
the sheet and the audit cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from ledger.audit import AuditReport, audit_record
from ledger.events import DealScored, Event, FivesScored, MatchEnded, Result
from ledger.findings import Finding
from ledger.formats.reader import MatchRecord
from ledger.formats.wire import MatchHeader
from ledger.glossary import table_name
from ledger.i18n import ENGLISH, Counted, Language, Phrase
from ledger.i18n.phrases import IDENTITY, N_, Worded
from ledger.rules import PRESETS, RulesError, make_rules
from ledger.rules.base import Rules

# Why a match ended, in English: also the msgids of the other languages (``end_text``).
END_PHRASES = {
    "target": N_("reached the target"),
    "one-round": N_("a single deal decided it"),
    "resign": N_("resignation"),
    "abandon": N_("abandoned"),
    "agree_draw": N_("agreed draw"),
}


@dataclass(frozen=True, slots=True)
class Side:
    """Who scores together: one seat, or a team of two partners."""

    index: int
    seats: tuple[int, ...]
    name: str


@dataclass(frozen=True, slots=True)
class DealRow:
    deal: int  # 1-based, as players count deals
    leader: int | None
    leader_name: str | None
    result: Result
    winner: int | None
    winner_name: str | None
    points: int  # what the winner scored for how the deal ended
    fives: tuple[int, ...]  # Fives points scored during the deal, per side
    totals: tuple[int, ...]  # running match score per side after the deal

    def to_dict(self) -> dict[str, Any]:
        return {
            "deal": self.deal,
            "leader": self.leader,
            "leader_name": self.leader_name,
            "result": self.result,
            "winner": self.winner,
            "winner_name": self.winner_name,
            "points": self.points,
            "fives": list(self.fives),
            "totals": list(self.totals),
        }


@dataclass(frozen=True, slots=True)
class AuditStatus:
    errors: int
    warnings: int
    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        return self.errors == 0

    @property
    def label(self) -> str:
        """"ok" or "3 errors": what the sheet prints."""
        return self.text(ENGLISH)

    def text(self, lang: Language) -> str:
        """``label`` in a language."""
        if self.ok:
            return lang.say("ok")
        return lang.say_n("{count} error", "{count} errors", self.errors)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "status": self.label, "errors": self.errors,
                "warnings": self.warnings, "findings": [f.to_dict() for f in self.findings]}


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    match_id: str | None
    title: str  # the table's name, e.g. "PlayElephant Domena"
    preset: str
    options: Mapping[str, object]  # with the target the rules resolved
    target: int | None
    teams: bool
    fives: bool
    players: tuple[str, ...]
    sides: tuple[Side, ...]
    started_at: str | None
    source: Mapping[str, object] | None
    deals: tuple[DealRow, ...]
    scores: tuple[int, ...]  # final score per side
    winner: int | None  # a seat; for teams the winning team's lower seat
    complete: bool
    end: str | None  # why the match ended: a key of END_PHRASES
    audit: AuditStatus
    ledger_hash: str | None
    # The match's report by what each player knew, when the ledger keeps one for it
    # (``cli_knowledge.report_object``): the PDF prints it on a page of its own.
    knowledge: Mapping[str, Any] | None = None

    @property
    def winner_side(self) -> Side | None:
        if self.winner is None:
            return None
        for side in self.sides:
            if self.winner in side.seats:
                return side
        return None

    @property
    def winner_name(self) -> str | None:
        side = self.winner_side
        return None if side is None else side.name

    @property
    def end_phrase(self) -> str:
        return self.end_text(ENGLISH)

    def end_text(self, lang: Language) -> str:
        """Why the match ended (``end_phrase``) in a language."""
        if not self.complete:
            return lang.say("not finished")
        phrase = END_PHRASES.get(self.end or "")
        if phrase is not None:
            return lang.say(phrase)
        return self.end if self.end else lang.say("ended")

    @property
    def source_label(self) -> str:
        """The source as one line: "playelephant t-99812"."""
        if not self.source:
            return ""
        return " ".join(str(v) for v in self.source.values())

    @property
    def table_label(self) -> str:
        """The table in words: "PlayElephant Domena, 4 seats in two teams, to 100"."""
        return self.table_text(ENGLISH)

    def name_in(self, lang: Language) -> str:
        """The table's name as its players know it, in a language (English: ``title``)."""
        if lang.code == ENGLISH.code:
            return self.title
        return table_name(self.preset, lang.code, self.title)

    def table_text(self, lang: Language) -> str:
        """``table_label`` in a language (the table's name as its players know it)."""
        seats = len(self.players)
        parts: list[object] = [
            self.name_in(lang),
            Counted("{count} seats in two teams", "{count} seats in two teams", seats)
            if self.teams else Counted("{count} seats", "{count} seats", seats)]
        if self.target is not None:
            parts.append(Phrase("one deal") if self.target == 0 else
                         Phrase("to {target}", target=self.target))
        return lang.join(parts)

    @property
    def options_label(self) -> str:
        return self.options_text(ENGLISH)

    def options_text(self, lang: Language) -> str:
        """The options as "target 100, teams yes", in a language (an option the tables
        share in its words, issue 34; any other name as written)."""
        return lang.join([Phrase("{option} {value}", option=_option_name(k, lang),
                                 value=_option_value(v)) for k, v in self.options.items()])

    def to_dict(self) -> dict[str, Any]:
        return {
            "match": self.match_id,
            "ledger_hash": self.ledger_hash,
            "table": {"title": self.title, "rules": self.preset, "options": dict(self.options),
                      "teams": self.teams, "fives": self.fives},
            "players": list(self.players),
            "sides": [{"side": s.index, "seats": list(s.seats), "name": s.name}
                      for s in self.sides],
            "started_at": self.started_at,
            "source": None if self.source is None else dict(self.source),
            "deals": [d.to_dict() for d in self.deals],
            "scores": list(self.scores),
            "winner": self.winner,
            "winner_name": self.winner_name,
            "complete": self.complete,
            "end": self.end,
            "audit": self.audit.to_dict(),
        }


# The options of the tables (``Rules.options``), written out so that extraction finds them.
OPTION_NAMES = frozenset({IDENTITY.pgettext("option", "target"),
                          IDENTITY.pgettext("option", "teams")})


def _option_name(key: str, lang: Language) -> str:
    if key not in OPTION_NAMES:
        return key
    return Worded(lang.translations.pgettext("option", key))


def _option_value(value: object) -> object:
    if value is True:
        return Phrase("yes")
    if value is False:
        return Phrase("no")
    return value if isinstance(value, int) else str(value)


def _sides(rules: Rules | None, players: Sequence[str]) -> tuple[Side, ...]:
    if rules is None or rules.seats != len(players):
        return tuple(Side(s, (s,), name) for s, name in enumerate(players))
    return tuple(
        Side(i, seats, " & ".join(players[s] for s in seats))
        for i in range(rules.sides)
        for seats in [rules.side_seats(i)]
    )


def _name(players: Sequence[str], seat: int | None) -> str | None:
    if seat is None or not 0 <= seat < len(players):
        return None
    return players[seat]


def build_sheet(header: MatchHeader, derived: Iterable[Event], findings: Sequence[Finding], *,
                rules: Rules | None = None, ledger_hash: str | None = None,
                match_id: str | None = None) -> ScoreSheet:
    """A sheet from what the engine derived (in order) and what the audit found.

    This is the seam for stored matches: the store keeps the derived events and
    findings, and need not fold again. ``rules`` defaults to the header's table
    (no rules when the table cannot be set up: the sheet then has no deals).
    """
    if rules is None:
        try:
            rules = make_rules(header.preset, len(header.seats), header.options)
        except RulesError:
            rules = None
    players = header.seats
    sides = _sides(rules, players)
    count = len(sides)

    def side_of(seat: int) -> int:
        return rules.side_of(seat) if rules is not None else seat

    running = [0] * count
    fives_by_deal: dict[int, list[int]] = {}
    rows: list[DealRow] = []
    winner: int | None = None
    end: str | None = None
    complete = False
    for ev in derived:
        if isinstance(ev, FivesScored):
            side = side_of(ev.seat)
            if 0 <= side < count:
                fives_by_deal.setdefault(ev.deal, [0] * count)[side] += ev.points
                running[side] += ev.points
        elif isinstance(ev, DealScored):
            running = list(ev.scores)
            rows.append(DealRow(
                deal=ev.deal + 1, leader=ev.leader, leader_name=_name(players, ev.leader),
                result=ev.result, winner=ev.winner, winner_name=_name(players, ev.winner),
                points=ev.points, fives=tuple(fives_by_deal.get(ev.deal, [0] * count)),
                totals=tuple(ev.scores)))
        elif isinstance(ev, MatchEnded):
            running = list(ev.scores)
            winner, end, complete = ev.winner, ev.reason, True

    errors = sum(1 for f in findings if f.severity == "error")
    options: dict[str, object] = dict(header.options)
    if rules is not None:
        options = {**rules.options, "target": rules.target}
    preset = PRESETS.get(header.preset)
    return ScoreSheet(
        match_id=match_id,
        title=preset.title if preset is not None else header.preset,
        preset=header.preset,
        options=options,
        target=rules.target if rules is not None else None,
        teams=rules.teams if rules is not None else False,
        fives=rules.fives if rules is not None else False,
        players=tuple(players),
        sides=sides,
        started_at=header.started_at,
        source=header.source,
        deals=tuple(rows),
        scores=tuple(running),
        winner=winner,
        complete=complete,
        end=end,
        audit=AuditStatus(errors, len(findings) - errors, tuple(findings)),
        ledger_hash=ledger_hash,
    )


def sheet_from_report(report: AuditReport, header: MatchHeader, *,
                      ledger_hash: str | None = None,
                      match_id: str | None = None) -> ScoreSheet:
    """A sheet from an audit already made (``audit_record`` / ``audit_events``)."""
    derived: Iterable[Event] = chain.from_iterable(report.derived)
    return build_sheet(header, derived, report.findings, rules=report.rules,
                       ledger_hash=ledger_hash, match_id=match_id)


def sheet_for_match(header: MatchHeader, events: Sequence[Event | None], *,
                    ledger_hash: str | None = None,
                    match_id: str | None = None) -> ScoreSheet:
    """Audit a match's recorded events and make its sheet."""
    record = MatchRecord(index=0, path=match_id or "<match>", line=None, header=header,
                         events=list(events))
    return sheet_from_report(audit_record(record), header, ledger_hash=ledger_hash,
                             match_id=match_id)
