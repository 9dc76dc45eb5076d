"""Random legal matches for every table: the corpus of property tests and benchmarks.

Seeded: the same seed gives the same match. Every move is drawn from the
engine's legal moves, and the claims a site would log (deal_end, match_end)
are the engine's own results, so a generated match audits clean.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from ledger.engine.moves import legal_moves
from ledger.engine.state import State
from ledger.events import DealEndClaimed, DealScored, Dealt, Event, MatchEndClaimed, MatchEnded
from ledger.findings import Finding
from ledger.formats.wire import FORMAT, event_to_dict
from ledger.rules import all_tables, make_rules
from ledger.rules.base import HAND_SIZE
from ledger.tiles import ALL_TILES
from ledger.walk import step_into

NAMES = ("Ali", "Omar", "Layla", "Rania", "Joao", "Bia", "Lucia", "Mateo", "Salim", "Noor")
MAX_DEALS = 60


def generate_match(preset: str, seats: int, options: dict[str, object] | None = None,
                   seed: int = 0, reveal: bool = True) -> dict[str, Any]:
    """One complete match as a domino-match/1 object."""
    rng = random.Random(seed)
    rules = make_rules(preset, seats, options or {})
    st = State(rules)
    events: list[Event] = []

    def fold(ev: Event) -> list[Event]:
        out: list[Event] = []
        findings: list[Finding] = []
        step_into(st, ev, len(events), out, findings)
        if any(f.severity == "error" for f in findings):
            raise AssertionError(f"generator made an illegal event {ev}: {findings}")
        events.append(ev)
        return out

    for _ in range(MAX_DEALS):
        derived = fold(_deal(rng, seats))
        while st.redeal_due:
            derived = fold(_deal(rng, seats))
        while st.phase == "playing":
            moves = legal_moves(st)
            move = rng.choice(moves)
            seat = st.to_move
            assert seat is not None
            stock_tile = st.stock[st.stock_pos] if move.kind == "draw" and st.stock else None
            derived = fold(move.event(seat, stock_tile))
        scored = next(d for d in derived if isinstance(d, DealScored))
        if reveal:
            from ledger.events import HandsRevealed

            fold(HandsRevealed(hands=tuple(tuple(st.hand(s)) for s in range(seats))))
        fold(DealEndClaimed(result=scored.result, winner=scored.winner, points=scored.points))
        if any(isinstance(d, MatchEnded) for d in derived) or st.phase == "ended":
            break
    if st.phase == "ended":
        fold(MatchEndClaimed(winner=st.winner, scores=tuple(st.scores)))
    names = rng.sample(NAMES, seats)
    table: dict[str, Any] = {"rules": preset}
    if options:
        table["options"] = dict(options)
    return {
        "format": FORMAT,
        "source": {"site": "domino-ledger-generator", "id": f"{preset}-{seats}-{seed}"},
        "table": table,
        "seats": names,
        "events": [event_to_dict(e) for e in events],
    }


def _deal(rng: random.Random, seats: int) -> Dealt:
    tiles = list(ALL_TILES)
    rng.shuffle(tiles)
    hands = tuple(tuple(sorted(tiles[s * HAND_SIZE:(s + 1) * HAND_SIZE], reverse=True))
                  for s in range(seats))
    return Dealt(hands=hands, stock=tuple(tiles[seats * HAND_SIZE:]))


def generate_corpus(count: int, seed: int = 0) -> Iterator[dict[str, Any]]:
    """``count`` matches cycling through every table of the seeds."""
    tables = all_tables()
    for i in range(count):
        preset, seats, options = tables[i % len(tables)]
        yield generate_match(preset, seats, options, seed=seed * 1_000_003 + i)
