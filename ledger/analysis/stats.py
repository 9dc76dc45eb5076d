"""Player statistics across audited matches, overall and per table (preset).

The input is any iterable of ``AuditedMatch``: the seats' names, the audit report
(its derived events carry every deal's result) and, optionally, the deal reviews
of ``review_match`` (for mistakes). The store will hand these over from the
ledger; ``audited`` makes one from a match file's record.

Per player and preset: matches played, matches won, deals played out, points
scored (the points the player's side took in those deals, Fives scores
included) and their average per deal, deals won by going out, blocked deals
(and those the player won), and, where the deals were reviewed, mistakes and
the points they lost.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ledger.analysis.review import DealReview, review_match
from ledger.audit import AuditReport, audit_record
from ledger.events import DealScored, FivesScored
from ledger.formats.reader import MatchRecord

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
    mistakes: int = 0
    points_lost: int = 0

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
            "mistakes": self.mistakes, "points_lost": self.points_lost,
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

    def add(self, match: AuditedMatch) -> None:
        rules = match.report.rules
        if rules is None or len(match.seats) != rules.seats:
            return  # a match whose table cannot be set up has no deals to count
        derived = [ev for evs in match.report.derived for ev in evs]
        fives: dict[int, list[int]] = {}
        for ev in derived:
            if isinstance(ev, FivesScored):
                fives.setdefault(ev.deal, [0] * rules.sides)[rules.side_of(ev.seat)] += ev.points
        scored = [ev for ev in derived if isinstance(ev, DealScored)]
        reviews = {r.deal: r for r in match.reviews or () if r.analysed}
        winner_side = (None if match.report.winner is None
                       else rules.side_of(match.report.winner))
        for seat, name in enumerate(match.seats):
            side = rules.side_of(seat)
            for row in self._rows_for(name, rules.preset):
                row.matches += 1
                if match.report.complete and winner_side == side:
                    row.wins += 1
                for d in scored:
                    row.deals += 1
                    row.points += fives.get(d.deal, [0] * rules.sides)[side]
                    if d.winner is not None and rules.side_of(d.winner) == side:
                        row.points += d.points
                    if d.result == "out" and d.winner == seat:
                        row.outs += 1
                    if d.result in ("block", "tie"):  # a tie is a block nobody wins
                        row.blocks += 1
                        if d.winner is not None and rules.side_of(d.winner) == side:
                            row.blocks_won += 1
                for review in reviews.values():
                    row.reviewed_deals += 1
                    for decision in review.decisions:
                        if decision.seat != seat:
                            continue
                        row.decisions += 1
                        if decision.lost > 0:
                            row.mistakes += 1
                            row.points_lost += decision.lost

    def rows(self) -> list[PlayerStats]:
        """Every player's rows: each table played, then ``all``; players by name."""
        return sorted(self.table.values(),
                      key=lambda r: (r.player.casefold(), r.preset == ALL, r.preset))


def player_stats(matches: Iterable[AuditedMatch]) -> list[PlayerStats]:
    book = StatsBook()
    for match in matches:
        book.add(match)
    return book.rows()
