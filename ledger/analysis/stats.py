"""Player statistics across matches, overall and per table (preset).

Per player and preset: matches played, matches won, deals played out, points
scored (the points the player's side took in those deals, Fives scores
included) and their average per deal, deals won by going out, blocked deals
(and those the player won); where the deals were reviewed with every hand open, the
decisions and the points they lost in hindsight (``hindsight_lost``); and where the
match's review by what each player knew is kept, the decisions it named by severity
(inaccuracies, mistakes, blunders: ``ledger.analysis.measures``, the same counts as the
report and the match page).

What is counted is ``MatchFacts``: a match's table, seats, result, deals and
reviews. A match file gives them through its audit (``audited``, then
``facts_of``); the ledger through its read models and kept reviews
(``from_stored``, on ``ledger.store.pages.plays``), so a ledger of any size is counted
without folding a match again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ledger.analysis.measures import COUNTS, SEVERITIES, seat_counts
from ledger.analysis.review import DealReview, review_match
from ledger.audit import AuditReport, audit_record
from ledger.events import DealScored, FivesScored
from ledger.formats.reader import MatchRecord
from ledger.rules.base import Rules
from ledger.store.log.hashing import canonical
from ledger.store.pages.plays import StoredPlay
from ledger.store.pages.readmodels import rules_for

ALL = "all"  # the preset key of the row that sums every table


@dataclass(frozen=True, slots=True)
class AuditedMatch:
    seats: tuple[str, ...]
    report: AuditReport
    reviews: Sequence[DealReview] | None = None


def audited(record: MatchRecord, analyse: bool = False) -> AuditedMatch:
    """A match file's record audited (and its deals reviewed when ``analyse``)."""
    report = audit_record(record)
    seats = tuple(record.header.seats) if record.header is not None else ()
    reviews = None
    if analyse and report.rules is not None:
        reviews = review_match(report.rules, record.events)
    return AuditedMatch(seats, report, reviews)


@dataclass(frozen=True, slots=True)
class DealFacts:
    result: str
    winner: int | None
    points: int              # what the winner scored for how the deal ended
    fives: tuple[int, ...]   # Fives points scored during the deal, per side


@dataclass(frozen=True, slots=True)
class MatchFacts:
    """What the statistics count of one match."""

    seats: tuple[str, ...]
    rules: Rules
    complete: bool
    winner: int | None
    deals: tuple[DealFacts, ...]
    # Each reviewed deal: the (seat, points the move lost in hindsight) of every decision.
    reviews: tuple[tuple[tuple[int, int], ...], ...] = ()
    # The review by what each player knew, when kept: per seat, its count of each severity.
    judged: Mapping[int, Mapping[str, int]] | None = None


def facts_of(match: AuditedMatch) -> MatchFacts | None:
    """An audited match's facts (None: its table cannot be set up, so it has no deals)."""
    rules = match.report.rules
    if rules is None or len(match.seats) != rules.seats:
        return None
    fives: dict[int, list[int]] = {}
    deals = []
    for ev in (ev for evs in match.report.derived for ev in evs):
        if isinstance(ev, FivesScored):
            fives.setdefault(ev.deal, [0] * rules.sides)[rules.side_of(ev.seat)] += ev.points
        elif isinstance(ev, DealScored):
            deals.append(DealFacts(ev.result, ev.winner, ev.points,
                                   tuple(fives.get(ev.deal, [0] * rules.sides))))
    reviews = tuple(tuple((d.seat, d.lost) for d in r.decisions)
                    for r in match.reviews or () if r.analysed)
    return MatchFacts(match.seats, rules, match.report.complete, match.report.winner,
                      tuple(deals), reviews)


def from_stored(play: StoredPlay, knowledge: Mapping[str, Any] | None = None
                ) -> MatchFacts | None:
    """A stored match's facts from its read models (None: its table cannot be set up);
    ``knowledge``: the report by what each player knew kept for it, if any."""
    rules = rules_for(play.preset, len(play.seats), canonical(play.options))
    if rules is None:
        return None
    side = [rules.side_of(s) for s in range(rules.seats)]
    deals = []
    for d in play.deals:
        fives = [0] * rules.sides
        for seat, points in enumerate(d["fives"] or ()):
            if seat < rules.seats:
                fives[side[seat]] += int(points)
        deals.append(DealFacts(d["result"], d["winner"], int(d["points"]), tuple(fives)))
    reviews = tuple(tuple(play.decisions[k]) for k in sorted(play.decisions))
    judged = None if knowledge is None else seat_counts(knowledge)
    return MatchFacts(play.seats, rules, play.complete, play.winner, tuple(deals), reviews,
                      judged)


@dataclass
class PlayerStats:
    player: str
    preset: str
    matches: int = 0
    wins: int = 0
    deals: int = 0
    points: int = 0
    outs: int = 0
    blocks: int = 0
    blocks_won: int = 0
    reviewed_deals: int = 0
    decisions: int = 0
    hindsight_lost: int = 0      # points lost in hindsight (every hand open)
    knowledge_matches: int = 0   # matches whose review by what each player knew is kept
    inaccuracies: int = 0        # named by knowledge loss (ledger.analysis.measures)
    mistakes: int = 0
    blunders: int = 0

    def count(self, severity: str) -> int:
        return int(getattr(self, COUNTS[severity]))

    @property
    def points_per_deal(self) -> float:
        return self.points / self.deals if self.deals else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player, "preset": self.preset, "matches": self.matches,
            "wins": self.wins, "deals": self.deals, "points": self.points,
            "points_per_deal": round(self.points_per_deal, 2), "outs": self.outs,
            "blocks": self.blocks, "blocks_won": self.blocks_won,
            "reviewed_deals": self.reviewed_deals, "decisions": self.decisions,
            "hindsight_lost": self.hindsight_lost,
            "knowledge_matches": self.knowledge_matches, "inaccuracies": self.inaccuracies,
            "mistakes": self.mistakes, "blunders": self.blunders,
        }


@dataclass
class StatsBook:
    """Statistics being gathered: ``add`` matches, read ``rows``."""

    table: dict[tuple[str, str], PlayerStats] = field(default_factory=dict)

    def _rows_for(self, player: str, preset: str) -> list[PlayerStats]:
        rows = []
        for key in ((player, preset), (player, ALL)):
            row = self.table.get(key)
            if row is None:
                row = self.table[key] = PlayerStats(*key)
            rows.append(row)
        return rows

    def add(self, match: AuditedMatch | MatchFacts | None) -> None:
        """Count one match (an audited one, or its facts; None counts nothing)."""
        facts = facts_of(match) if isinstance(match, AuditedMatch) else match
        if facts is None:
            return  # a match whose table cannot be set up has no deals to count
        rules = facts.rules
        side_of = [rules.side_of(s) for s in range(rules.seats)]
        winner_side = None if facts.winner is None else side_of[facts.winner]
        for seat, name in enumerate(facts.seats):
            side = side_of[seat]
            # The deals once for the seat, then into its table's row and its "all" row.
            points = outs = blocks = blocks_won = 0
            for d in facts.deals:
                won = d.winner is not None and side_of[d.winner] == side
                points += d.fives[side] + (d.points if won else 0)
                if d.result == "out" and d.winner == seat:
                    outs += 1
                elif d.result in ("block", "tie"):  # a tie is a block nobody wins
                    blocks += 1
                    blocks_won += won
            for row in self._rows_for(name, rules.preset):
                row.matches += 1
                if facts.complete and winner_side == side:
                    row.wins += 1
                row.deals += len(facts.deals)
                row.points += points
                row.outs += outs
                row.blocks += blocks
                row.blocks_won += blocks_won
                for decisions in facts.reviews:
                    row.reviewed_deals += 1
                    for by, lost in decisions:
                        if by == seat:
                            row.decisions += 1
                            row.hindsight_lost += max(lost, 0)
                _add_judged(row, facts.judged, seat)

    def rows(self) -> list[PlayerStats]:
        """Every player's rows: each table played, then ``all``; players by name."""
        return sorted(self.table.values(),
                      key=lambda r: (r.player.casefold(), r.preset == ALL, r.preset))


def _add_judged(row: PlayerStats, judged: Mapping[int, Mapping[str, int]] | None,
                seat: int) -> None:
    """A match's knowledge review counted into ``row`` (nothing without one)."""
    if judged is None:
        return
    row.knowledge_matches += 1
    for severity in SEVERITIES:
        name = COUNTS[severity]
        setattr(row, name, getattr(row, name) + judged.get(seat, {}).get(severity, 0))


def player_stats(matches: Iterable[AuditedMatch | MatchFacts | None]) -> list[PlayerStats]:
    book = StatsBook()
    for match in matches:
        book.add(match)
    return book.rows()
