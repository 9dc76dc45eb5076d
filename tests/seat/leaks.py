"""What the exhaustive seat test reads: a ledger of every sample and a generated match
of every table, the oracle of what a viewer knew, and the worst analysis body a deal
could have (every legal option of every move listed, every move a mistake).

The oracle is ledger.analysis.knowledge (the Analysis panel's own account of what each
seat had seen), not ledger.seatview, the projection under test; the spectator knew what
every seat knew (the table and the hands shown), so its share is the seats' common part.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ledger.analysis.knowledge import iter_knowledge
from ledger.analysis.review import DealReview, Decision, Step
from ledger.analysis.solver import Option
from ledger.engine.fold import advance
from ledger.engine.moves import Move, legal_moves
from ledger.engine.state import State
from ledger.events import Dealt, Drew, Event, HandsRevealed, Passed, Played
from ledger.findings import Unreadable
from ledger.formats.partial import rebuild_hands
from ledger.jobs.deal_analysis import Task, body_of
from ledger.rules import all_tables
from ledger.rules.base import Rules
from ledger.sim.generator import generate_match

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_matches"


SMALL = frozenset({"casual-arena-2-one-round.json", "domena-4-one-round.json",
                   "selminha-2-abandon.json"})


def label(path: Path) -> str:
    """A file's name in the test's ids: "faulty/bad-deal.json", "domena-2.json"."""
    return f"{path.parent.name}/{path.name}" if path.parent.name in ("faulty", "partial") \
        else path.name


def walked_whole(name: str) -> bool:
    """The files every step of which the default run walks (the small and odd ones)."""
    return "/" in name or name in SMALL


def match_files(tmp: Path | None) -> list[Path]:
    """Every sample match file (faulty and partial ones too) and one generated match of
    every table and seat count (written to ``tmp``; None: only named)."""
    files = sorted(SAMPLES.glob("*.json")) + sorted(SAMPLES.glob("*.jsonl"))
    files += sorted(SAMPLES.glob("*.jsonl.gz"))
    for sub in ("faulty", "partial"):
        files += sorted(p for p in (SAMPLES / sub).glob("*.json")
                        if not p.name.endswith(".expected.json"))
    for n, (preset, seats, options) in enumerate(all_tables()):
        path = (tmp or Path(".")) / f"generated-{preset}-{seats}-{n}.json"
        if tmp is not None:
            path.write_text(json.dumps(generate_match(preset, seats, options, seed=1200 + n)),
                            encoding="utf-8")
        files.append(path)
    return files


@dataclass(frozen=True)
class Known:
    """Per step, the tiles each viewer knew in the deal on the table (the oracle)."""

    seats: list[list[frozenset[str]]]   # [step][seat]

    def of(self, step: int, seat: int | None) -> frozenset[str]:
        at = self.seats[min(step, len(self.seats) - 1)]
        if seat is None:
            common = at[0]
            for s in at[1:]:
                common &= s
            return common
        return at[seat]


def oracle(rules: Rules, events: Sequence[Event | None]) -> Known:
    """The knowledge after every step; past the last readable event the table stays as
    it was, and what the events listed after it show is added (the replay lists them)."""
    per_step = [[frozenset(str(t) for t in s.seen) for s in k.seats]
                for k in iter_knowledge(rules, events)]
    rebuilt, _ = rebuild_hands(list(events))
    for i in range(len(per_step) - 1, len(rebuilt)):
        ev = rebuilt[i]
        last = [set(s) for s in per_step[-1]]
        if isinstance(ev, Dealt):
            for s, hand in enumerate(ev.hands[:rules.seats]):
                last[s].update(str(t) for t in hand or ())
        elif isinstance(ev, Played):
            for s in last:
                s.add(str(ev.tile))
        elif isinstance(ev, Drew) and ev.tile is not None and ev.seat < rules.seats:
            last[ev.seat].add(str(ev.tile))
        elif isinstance(ev, HandsRevealed):
            for s in last:
                s.update(str(t) for h in ev.hands for t in h or ())
        per_step.append([frozenset(s) for s in last])
    return Known(per_step)


def _move(ev: Event) -> Move | None:
    if isinstance(ev, Played):
        return Move("play", ev.tile, ev.end)
    if isinstance(ev, Drew):
        return Move("draw")
    if isinstance(ev, Passed):
        return Move("pass")
    return None


def worst_reviews(rules: Rules, events: Sequence[Event | None]) -> Iterator[DealReview]:
    """Each deal reviewed as badly for privacy as it could be: every move a decision
    listing every legal move of the mover's hand, each a mistake."""
    rebuilt, _ = rebuild_hands(list(events))
    st = State(rules)
    deal: tuple[int, int] | None = None
    decisions: list[Decision] = []
    steps: list[Step] = []
    sides = rules.sides
    for i, ev in enumerate(rebuilt):
        if ev is None:
            break
        move = _move(ev)
        options = legal_moves(st) if move is not None else []
        mover = st.to_move   # a review's decision is the seat to move's (a wrong one too)
        if isinstance(ev, Dealt) and deal is not None:
            yield _review(deal, decisions, steps, sides)
        try:
            advance(st, ev, i, [], [])
        except Unreadable:
            break
        if isinstance(ev, Dealt):
            deal, decisions, steps = (st.deal, i), [], []
        if move is None or deal is None:
            continue
        seat = mover if mover is not None else getattr(ev, "seat", 0)
        outs = [Option(m, tuple(k if s == 0 else 0 for s in range(sides)))
                for k, m in enumerate(options, start=1)]
        if outs:
            decisions.append(Decision(i, seat, str(move), tuple(outs), outs[-1].outcome, 1))
        steps.append(Step(i, seat, str(move), tuple([0] * sides), 1 if outs else 0))
    if deal is not None:
        yield _review(deal, decisions, steps, sides)


def _review(deal: tuple[int, int], decisions: list[Decision], steps: list[Step],
            sides: int) -> DealReview:
    number, event = deal
    return DealReview(number, event, tuple([0] * sides), tuple(decisions), tuple(steps),
                      tuple([0] * sides), None, sides)


def worst_bodies(match_id: int, preset: str, options: dict[str, object],
                 seats: Sequence[str], rules: Rules,
                 events: Sequence[Event | None]) -> dict[int, dict[str, object]]:
    """The Analysis panel's body of each deal (1-based), built as the server builds it."""
    task = Task(match_id, 0, preset, options, tuple(seats), tuple(events))
    out = {}
    for review in worst_reviews(rules, events):
        out[review.deal + 1] = body_of(Task(match_id, review.deal, preset, options,
                                            tuple(seats), task.events), review)
    return out
