"""Read models computed from a match's derived events: no database (an import's workers
compute them without loading the store's tables or SQLAlchemy).

The score sheet's deal rows, the match summary and each player's contribution to the
totals; ``ledger.store.pages.readmodels`` writes them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ledger.events import DealScored, Event, FivesScored, MatchEnded
from ledger.rules import RulesError, make_rules
from ledger.rules.base import Rules
from ledger.store.log.hashing import canonical
from ledger.store.log.mapper import Header, text_safe

TOTALS = ("matches", "complete", "wins", "deals", "deal_wins", "points", "faulty")


@lru_cache(maxsize=256)
def rules_for(preset: str, seats: int, options_json: str) -> Rules | None:
    """A stored table's rules (None: they cannot be set up), built once per table."""
    import orjson

    try:
        return make_rules(preset, seats, orjson.loads(options_json))
    except RulesError:
        return None


def rules_of(header: Header) -> Rules | None:
    return rules_for(header.preset, len(header.seats), canonical(header.options))


@dataclass
class ReadModel:
    match_id: int
    summary: dict[str, Any]
    deals: list[dict[str, Any]] = field(default_factory=list)
    totals: dict[str, Counter[str]] = field(default_factory=dict)

    def for_match(self, match_id: int) -> ReadModel:
        """The same model for the id the database gave (computed before it had one)."""
        return ReadModel(match_id, {**self.summary, "match_id": match_id},
                         [{**d, "match_id": match_id} for d in self.deals], self.totals)


def compute(match_id: int, header: Header, ok: bool, events: int, last_seq: int,
            head_hash: bytes, derived: Iterable[tuple[int, Event]]) -> ReadModel:
    """The read model of one match from its derived events ``(seq, event)`` in order."""
    rules = rules_of(header)
    seats = len(header.seats)
    side_of = rules.side_of if rules is not None else (lambda s: s)
    scores: list[int] | None = [0] * rules.sides if rules is not None else None
    fives: dict[int, list[int]] = {}
    deals: list[dict[str, Any]] = []
    winner: int | None = None
    reason: str | None = None
    complete = False
    for seq, ev in derived:
        if isinstance(ev, FivesScored):
            fives.setdefault(ev.deal, [0] * seats)[ev.seat] += ev.points
            if scores is not None:
                scores[side_of(ev.seat)] += ev.points
        elif isinstance(ev, DealScored):
            scores = list(ev.scores)  # these already count the deal's fives
            deals.append({"match_id": match_id, "deal": ev.deal, "seq": seq,
                          "result": ev.result, "winner": ev.winner, "points": ev.points,
                          "scores": list(ev.scores), "fives": fives.get(ev.deal, [0] * seats),
                          "leader": ev.leader, "pips": list(ev.pips)})
        elif isinstance(ev, MatchEnded):
            scores = list(ev.scores)
            winner, reason, complete = ev.winner, ev.reason, True
    summary = {"match_id": match_id, "events": events, "last_seq": last_seq,
               "head_hash": head_hash, "deals": len(deals), "scores": scores,
               "winner": winner, "complete": complete, "end_reason": reason}
    model = ReadModel(match_id, summary, deals)
    model.totals = contributions(header.seats, side_of, summary, deals, ok)
    return model


def contributions(seats: Sequence[str], side_of: Any, summary: Mapping[str, Any],
                   deals: Sequence[Mapping[str, Any]], ok: bool) -> dict[str, Counter[str]]:
    sides: dict[str, set[int]] = {}
    for seat, name in enumerate(seats):
        sides.setdefault(text_safe(name), set()).add(side_of(seat))
    scores = summary["scores"] or []
    won = summary["winner"]
    out: dict[str, Counter[str]] = {}
    for name, mine in sides.items():
        c: Counter[str] = Counter(matches=1)
        c["complete"] = int(summary["complete"])
        c["wins"] = int(summary["complete"] and won is not None and side_of(won) in mine)
        c["deals"] = len(deals)
        c["deal_wins"] = sum(1 for d in deals
                             if d["winner"] is not None and side_of(d["winner"]) in mine)
        c["points"] = sum(scores[s] for s in mine if s < len(scores))
        c["faulty"] = int(not ok)
        out[name] = c
    return out
