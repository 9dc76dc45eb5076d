"""Review by what the player knew: the expected value of every option, and luck.

The hindsight review (``review.py``) values a move knowing every hand. Here, at each
decision, ``samples`` deals of the tiles the mover had not seen are drawn uniformly
among those consistent with what it knew (``sampling.py``), each is solved exactly
from the position (``positions.solve_many``), and each option's value for the mover's
side is averaged: ``expected`` and its standard error. The value of an outcome is the
one the hindsight review uses (``solver.worth``: the margin on two-side tables, the
mover's own points with three or four sides, where the other seats answer by the
max-n tie rule). ``knowledge_lost`` is the best option's mean minus the played one's.

Luck (gnubg's way): for each seat, the expected value of its position just before
each chance event that reached it (its deal, each of its draws) against just after,
by the same sampling from what the seat knew then; summed, it is the seat's luck in
the deal, and its result less its luck is the luck-adjusted result. Before the deal
nothing is known: whole deals are drawn (a deal the table would redeal is drawn again).

Every draw is seeded by the match's hash, the event and what it is for
(``sampling.seed_of``), so a review gives the same numbers every time. A sample the
solver cannot value (too large) is left out, never guessed: each value says how many
samples it rests on.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ledger.analysis.knowledge import Knowledge, iter_knowledge
from ledger.analysis.positions import Solved, solve_many, with_hands
from ledger.analysis.review import move_of
from ledger.analysis.sampling import Constraints, Inconsistent, constraints, rng_for, sample
from ledger.analysis.solver import MAX_NODES, worth
from ledger.engine.fold import _rank as opening_rank
from ledger.engine.fold import advance
from ledger.engine.moves import Move, legal_moves
from ledger.engine.state import State
from ledger.events import Dealt, Drew, Event, Passed, Played
from ledger.findings import Unreadable
from ledger.formats.partial import rebuild_hands
from ledger.rules.base import HAND_SIZE, Rules
from ledger.tiles import ALL_TILES, Tile

DEFAULT_SAMPLES = 200
# Tables where K = 200 takes more than about 10 s a deal on a two-core machine: the K that
# fits, measured by benchmarks/review.py (first deals of seeded matches, on a machine
# shared with others: load average 8 to 12 on 2 cores; `analyse` shows the K it used).
# Three or four seats each for himself: every sample is a max-n search of its own.
TABLE_SAMPLES: dict[tuple[str, int, bool], int] = {  # (preset, seats, teams)
    ("sahrat-draw", 4, False): 6,
    ("casual-arena", 4, False): 7,
    ("selminha", 3, False): 20,
    ("casual-arena", 3, False): 25,
    ("sahrat-fives", 2, False): 60,
    ("selminha", 4, False): 140,
    ("casual-arena", 4, True): 140,
    ("sahrat-partner", 4, False): 160,
    ("sahrat-fives", 4, False): 2,
}
ALL = (1 << 28) - 1
MOVES = (Played, Drew, Passed)


@dataclass(frozen=True, slots=True)
class Expected:
    """One option of a decision: its mean value for the mover's side over the samples."""

    move: str
    expected: float | None
    stderr: float | None


@dataclass(frozen=True, slots=True)
class KnowledgeDecision:
    event: int
    seat: int
    played: str
    options: tuple[Expected, ...]
    knowledge_lost: float | None     # best mean - played mean (None: no sample solved)
    lost_stderr: float | None        # its standard error (paired over the samples)
    samples: int                     # samples solved
    unsolved: int = 0                # samples left out (too large to solve)
    seed: int = 0

    def best_moves(self) -> list[str]:
        vals = [o.expected for o in self.options if o.expected is not None]
        if not vals:
            return []
        top = max(vals)
        return [o.move for o in self.options if o.expected == top]

    def expected_of(self, move: str) -> Expected | None:
        return next((o for o in self.options if o.move == move), None)


@dataclass(frozen=True, slots=True)
class Luck:
    """One chance event's luck for one seat: expected value after minus before."""

    event: int                        # the deal event, or the draw
    before: float
    after: float

    @property
    def luck(self) -> float:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class SeatLuck:
    seat: int
    events: tuple[Luck, ...]
    result: int | None                # the deal's actual value for the seat's side

    @property
    def luck(self) -> float:
        return sum(e.luck for e in self.events)

    @property
    def adjusted(self) -> float | None:
        return None if self.result is None else self.result - self.luck

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "luck": _r(self.luck), "result": self.result,
                "adjusted": None if self.adjusted is None else _r(self.adjusted),
                "events": [{"event": e.event, "before": _r(e.before), "after": _r(e.after)}
                           for e in self.events]}


@dataclass(frozen=True, slots=True)
class KnowledgeDeal:
    deal: int
    event: int
    decisions: tuple[KnowledgeDecision, ...] = ()
    forced: tuple[tuple[int, int], ...] = ()   # (event, seat) of moves without a choice
    luck: tuple[SeatLuck, ...] = ()
    note: str | None = None

    def decision(self, event: int) -> KnowledgeDecision | None:
        return next((d for d in self.decisions if d.event == event), None)


def default_samples(rules: Rules) -> int:
    """The deals drawn per decision on ``rules``' table unless asked otherwise."""
    return TABLE_SAMPLES.get((rules.preset, rules.seats, rules.teams), DEFAULT_SAMPLES)


def _r(x: float) -> float:
    return round(x, 4)


# --- walking the match ----------------------------------------------------------------


@dataclass
class _Move:
    index: int
    before: State
    after: State
    move: Move
    seat: int
    drawn: tuple[tuple[int, Tile | None], ...]  # each stock place drawn so far: who, what
    choice: bool

    @property
    def drawers(self) -> tuple[int, ...]:
        return tuple(s for s, _ in self.drawn)


@dataclass
class _Deal:
    deal: int
    index: int
    pre: State                        # the state before the deal event
    start: State
    opening: Tile | None              # the tile the rules made the leader open with
    moves: list[_Move] = field(default_factory=list)
    drawn: list[tuple[int, Tile | None]] = field(default_factory=list)
    end: State | None = None
    note: str | None = None


def _deals(rules: Rules, events: Sequence[Event | None],
           wanted: set[int] | None) -> Iterator[_Deal]:
    rebuilt, _ = rebuild_hands(list(events))
    st = State(rules)
    work: _Deal | None = None
    for i, ev in enumerate(rebuilt):
        if ev is None:
            break
        pre = st.copy()
        try:
            advance(st, ev, i, [], [])
        except Unreadable:
            if work is not None:
                work.note = f"event {i} cannot be read; the review stops there"
            break
        if isinstance(ev, Dealt):
            if work is not None and work.end is None and work.deal != st.deal:
                work.note = "a new deal started before this one ended"
                yield work
            work = None
            if st.redeal_due or (wanted is not None and st.deal not in wanted):
                continue
            work = _Deal(st.deal, i, pre, st.copy(), st.must_open)
            continue
        if work is None or work.end is not None or not isinstance(ev, MOVES):
            continue
        if pre.phase == "playing" and pre.to_move is not None:
            legal = legal_moves(pre)
            move = move_of(legal, ev)
            if move is None:
                work.note = f"event {i}: a move that is not legal; the review stops there"
                work.end = pre
                yield work
                work = None
                continue
            work.moves.append(_Move(i, pre, st.copy(), move, pre.to_move,
                                    tuple(work.drawn), len(legal) > 1))
            if isinstance(ev, Drew):
                work.drawn.append((ev.seat, ev.tile))
        if st.phase != "playing" and not st.pending:
            work.end = st.copy()
            yield work
            work = None
    if work is not None:
        if work.end is None:
            work.note = work.note or "the record stops before the deal ended"
        yield work


# --- what a seat knew, as constraints on the unseen tiles --------------------------------


def seat_constraints(work: _Deal, st: State, know: Knowledge, seat: int,
                     drawers: Sequence[int]) -> Constraints:
    """What ``seat`` knew at ``st`` (``know`` is the knowledge at that step) of the tiles it
    had not seen, with the opening rule's facts (``_Deal.opening``) while they still hold."""
    rules = st.rules
    if st.hidden[seat]:
        raise Inconsistent(f"seat {seat}'s own hand is not in the record")
    mine = know.seats[seat]
    others = [s for s in range(rules.seats) if s != seat]
    seen = sum(t.bit for t in mine.seen)
    if st.hands[seat] & ~seen or st.table & ~seen:  # pragma: no cover - knowledge.py's promise
        raise Inconsistent(f"seat {seat}'s knowledge misses its own hand or the table")
    unseen = ALL & ~seen
    sizes = [st.hands[s].bit_count() + st.hidden[s] for s in others]
    lacks = [mine.lacks_of(s) for s in others]
    in_rest = 0
    opening = work.opening
    # The best tile dealt opens, so once it is on the table no hand was dealt a better
    # one. Once another seat has drawn, a better tile may have reached its hand: from
    # then on only the voids are used (docs/knowledge-review.md).
    if opening is not None and st.table & opening.bit and all(s == seat for s in drawers):
        rank = opening_rank(opening)
        in_rest = sum(t.bit for t in ALL_TILES if opening_rank(t) > rank)
    return constraints(unseen, others, sizes, lacks, in_rest=in_rest,
                       max_doubles=rules.redeal_doubles or 0)


def sampled_state(st: State, seat: int, c: Constraints, deal: Any,
                  drawn: Sequence[tuple[int, Tile | None]]) -> State:
    """``st`` with the other hands and the stock of one sampled deal."""
    rules = st.rules
    hands = list(st.hands)
    for k, s in enumerate(c.seats):
        hands[s] = deal.hands[k]
    stock: tuple[Tile, ...] | None = None
    if rules.draws and rules.stock_size:
        # The stock places already drawn: the seat's own draws as they were; another
        # seat's, a tile of that seat's sampled hand (or, past those, one on the table).
        # They only label who drew what for the search's keys; the rest is the future.
        used = 0
        spare = {s: hands[s] for s in range(rules.seats)}
        prefix: list[Tile] = []
        table = [t for t in ALL_TILES if st.table & t.bit]
        for s, tile in drawn:
            if s == seat and tile is not None and not used & tile.bit:
                got = tile
            else:
                pool = [t for t in ALL_TILES if spare[s] & t.bit and not used & t.bit] or \
                    [t for t in table if not used & t.bit]
                got = pool[0]
            used |= got.bit
            spare[s] &= ~got.bit
            prefix.append(got)
        stock = (*prefix, *deal.rest)
        if len(prefix) != st.stock_pos or len(stock) != rules.stock_size:
            raise Inconsistent(f"{len(prefix)} draws recorded, the stock is at {st.stock_pos}")
    return with_hands(st, hands, stock)


# --- the review ------------------------------------------------------------------------


@dataclass
class _Job:
    """``k`` sampled positions of one question, as indices into the batch."""

    seat: int
    slots: list[int]
    unsolved: int = 0


def _sampled(batch: list[State], keys: dict[Any, int], st: State, seat: int, c: Constraints,
             rng: random.Random, k: int, drawn: Sequence[tuple[int, Tile | None]]) -> _Job:
    job = _Job(seat, [])
    for _ in range(k):
        d = sample(c, rng)
        key = (id(st), d.hands, d.rest)
        slot = keys.get(key)
        if slot is None:
            slot = keys[key] = len(batch)
            batch.append(sampled_state(st, seat, c, d, drawn))
        job.slots.append(slot)
    return job


def iter_knowledge_reviews(rules: Rules, events: Sequence[Event | None], key: str,
                           samples: int = DEFAULT_SAMPLES, deals: Sequence[int] | None = None,
                           *, luck: bool = False, max_nodes: int = MAX_NODES,
                           workers: int | None = None,
                           only: Collection[int] | None = None) -> Iterator[KnowledgeDeal]:
    """Each deal's knowledge review (and, with ``luck``, each seat's luck), in order.

    ``key``: the match's hash (the seed of every draw). ``samples``: deals drawn per
    question. ``workers``: processes solving (default: one per core). ``only``: review
    only the decisions at these events.
    """
    knows = list(iter_knowledge(rules, events))
    wanted = None if deals is None else set(deals)
    for work in _deals(rules, events, wanted):
        yield _review_deal(work, knows, key, samples, luck, max_nodes, workers, only)


def _review_deal(work: _Deal, knows: Sequence[Knowledge], key: str, k: int, luck: bool,
                 max_nodes: int, workers: int | None,
                 only: Collection[int] | None = None) -> KnowledgeDeal:
    rules = work.start.rules
    batch: list[State] = []
    keys: dict[Any, int] = {}
    decisions: list[tuple[_Move, _Job, int]] = []
    notes: list[str] = [work.note] if work.note else []
    drawn_so_far = {m.index: list(m.drawn) for m in work.moves}
    for m in work.moves:
        if not m.choice or m.index >= len(knows) or (only is not None and m.index not in only):
            continue
        try:
            c = seat_constraints(work, m.before, knows[m.index], m.seat, m.drawers)
            rng = rng_for(key, m.index)
            seed = rng_for(key, m.index).getrandbits(32)
            job = _sampled(batch, keys, m.before, m.seat, c, rng, k, drawn_so_far[m.index])
        except Inconsistent as exc:
            notes.append(f"event {m.index}: {exc}")
            continue
        decisions.append((m, job, seed))
    solved = solve_many(batch, options=True, max_nodes=max_nodes, workers=workers) \
        if batch else []
    out = []
    for m, job, seed in decisions:
        out.append(_decision(rules, m, job, solved, seed))
    forced = tuple((m.index, m.seat) for m in work.moves if not m.choice)
    seat_luck = _luck(work, knows, key, k, max_nodes, workers, drawn_so_far, notes) \
        if luck else ()
    return KnowledgeDeal(work.deal, work.index, tuple(out), forced, seat_luck,
                         "; ".join(notes) or None)


def _mean_se(vals: Sequence[float]) -> tuple[float, float]:
    n = len(vals)
    mean = sum(vals) / n
    if n < 2:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in vals) / (n - 1)
    return mean, math.sqrt(var / n)


def _decision(rules: Rules, m: _Move, job: _Job, solved: Sequence[Solved],
              seed: int) -> KnowledgeDecision:
    legal = legal_moves(m.before)
    side = rules.side_of(m.seat)
    rows: list[list[int]] = []
    unsolved = 0
    for slot in job.slots:
        got = solved[slot]
        if got.note is not None or len(got.options) != len(legal):
            unsolved += 1
            continue
        assert [o.move for o in got.options] == legal
        rows.append([worth(rules, o.outcome, side) for o in got.options])
    played = legal.index(m.move)
    if not rows:
        opts = tuple(Expected(str(mv), None, None) for mv in legal)
        return KnowledgeDecision(m.index, m.seat, str(m.move), opts, None, None, 0,
                                 unsolved, seed)
    stats = [_mean_se([r[j] for r in rows]) for j in range(len(legal))]
    opts = tuple(Expected(str(mv), _r(mu), _r(se)) for mv, (mu, se) in zip(legal, stats,
                                                                           strict=True))
    best = max(range(len(legal)), key=lambda j: stats[j][0])
    lost, lost_se = _mean_se([r[best] - r[played] for r in rows])
    return KnowledgeDecision(m.index, m.seat, str(m.move), opts, _r(lost), _r(lost_se),
                             len(rows), unsolved, seed)


@dataclass(frozen=True, slots=True)
class Facts:
    """A decision and what its mover knew: the position, the move made, the constraints
    on the unseen tiles, the stock places drawn so far (who, and the tile if the mover's)."""

    event: int
    deal: int
    before: State
    seat: int
    played: Move
    constraints: Constraints
    drawn: tuple[tuple[int, Tile | None], ...]
    deal_event: int = 0               # the index of the deal's ``deal`` event


def decisions_of(rules: Rules, events: Sequence[Event | None]) -> Iterator[Facts]:
    """Every decision of the match (a move with a choice), with what its mover knew."""
    knows = list(iter_knowledge(rules, events))
    for work in _deals(rules, events, None):
        for m in work.moves:
            if m.choice and m.index < len(knows):
                c = seat_constraints(work, m.before, knows[m.index], m.seat, m.drawers)
                yield Facts(m.index, work.deal, m.before, m.seat, m.move, c, m.drawn,
                            work.index)


def values_over(f: Facts, deals: Sequence[Any], *, max_nodes: int = MAX_NODES,
                workers: int | None = None) -> tuple[list[Move], list[list[int] | None]]:
    """The legal moves at ``f`` and, per deal given, each one's value for the mover's side
    (None: that deal could not be solved)."""
    rules = f.before.rules
    legal = legal_moves(f.before)
    side = rules.side_of(f.seat)
    batch = [sampled_state(f.before, f.seat, f.constraints, d, f.drawn) for d in deals]
    rows: list[list[int] | None] = []
    for got in solve_many(batch, options=True, max_nodes=max_nodes, workers=workers):
        if got.note is not None or len(got.options) != len(legal):
            rows.append(None)
        else:
            rows.append([worth(rules, o.outcome, side) for o in got.options])
    return legal, rows


def _luck(work: _Deal, knows: Sequence[Knowledge], key: str, k: int, max_nodes: int,
          workers: int | None, drawn_so_far: dict[int, list[tuple[int, Tile | None]]],
          notes: list[str]) -> tuple[SeatLuck, ...]:
    rules = work.start.rules
    batch: list[State] = []
    keys: dict[Any, int] = {}
    # Before the deal: whole deals, folded as the table would (a redeal is drawn again).
    rng = rng_for(key, work.index, "deal")
    before_deal: list[int] = []
    tries = 0
    while len(before_deal) < k and tries < 20 * k:
        tries += 1
        tiles = list(ALL_TILES)
        rng.shuffle(tiles)
        hands = tuple(tuple(tiles[s * HAND_SIZE:(s + 1) * HAND_SIZE])
                      for s in range(rules.seats))
        st = work.pre.copy()
        try:
            advance(st, Dealt(hands=hands, stock=tuple(tiles[rules.seats * HAND_SIZE:])),
                    None, [], [])
        except Unreadable:
            continue
        if st.redeal_due or st.to_move is None:
            continue
        before_deal.append(len(batch))
        batch.append(st)
    questions: list[tuple[int, int, _Job, _Job]] = []   # seat, event, before, after
    # After the deal: what each seat knew once it was dealt, and once the opening tile
    # the rules forced is down (it tells that nobody holds a better one).
    dealt, step = work.start, work.index + 1
    if work.opening is not None and work.moves and work.moves[0].move.tile is work.opening:
        dealt, step = work.moves[0].after, work.moves[0].index + 1
    for seat in range(rules.seats):
        try:
            c = seat_constraints(work, dealt, knows[step], seat, ())
            after = _sampled(batch, keys, dealt, seat, c,
                             rng_for(key, work.index, f"deal seat {seat}"), k, [])
        except Inconsistent as exc:
            notes.append(f"luck of seat {seat}: {exc}")
            continue
        questions.append((seat, work.index, _Job(seat, before_deal), after))
    for m in work.moves:
        if m.move.kind != "draw" or m.index + 1 >= len(knows):
            continue
        drawn_before = drawn_so_far[m.index]
        drawn_after = drawn_so_far.get(m.index + 1) or _drawn_after(work, m)
        try:
            cb = seat_constraints(work, m.before, knows[m.index], m.seat, m.drawers)
            ca = seat_constraints(work, m.after, knows[m.index + 1], m.seat,
                                  (*m.drawers, m.seat))
            jb = _sampled(batch, keys, m.before, m.seat, cb,
                          rng_for(key, m.index, "before draw"), k, drawn_before)
            ja = _sampled(batch, keys, m.after, m.seat, ca,
                          rng_for(key, m.index, "after draw"), k, drawn_after)
        except Inconsistent as exc:
            notes.append(f"luck at event {m.index}: {exc}")
            continue
        questions.append((m.seat, m.index, jb, ja))
    solved = solve_many(batch, max_nodes=max_nodes, workers=workers) if batch else []
    result = _result(work)
    per_seat: dict[int, list[Luck]] = {s: [] for s in range(rules.seats)}
    for seat, event, jb, ja in questions:
        side = rules.side_of(seat)
        vb = [worth(rules, solved[i].outcome, side) for i in jb.slots  # type: ignore[arg-type]
              if solved[i].outcome is not None]
        va = [worth(rules, solved[i].outcome, side) for i in ja.slots  # type: ignore[arg-type]
              if solved[i].outcome is not None]
        if not vb or not va:
            notes.append(f"luck of seat {seat} at event {event}: no sample solved")
            continue
        per_seat[seat].append(Luck(event, sum(vb) / len(vb), sum(va) / len(va)))
    return tuple(
        SeatLuck(s, tuple(per_seat[s]),
                 None if result is None else worth(rules, result, rules.side_of(s)))
        for s in range(rules.seats))


def _drawn_after(work: _Deal, m: _Move) -> list[tuple[int, Tile | None]]:
    """The stock places drawn once ``m`` (a draw) is made."""
    tile = m.after.stock[m.after.stock_pos - 1] if m.after.stock else None
    mine = m.after.hands[m.seat] & ~m.before.hands[m.seat]
    if tile is None and mine:
        tile = next(t for t in ALL_TILES if mine & t.bit)
    return [*m.drawn, (m.seat, tile)]


def _result(work: _Deal) -> tuple[int, ...] | None:
    st = work.end
    if st is None or st.last_result is None:
        return None
    vec = list(st.in_deal)
    res = st.last_result
    if res.winner is not None:
        vec[st.rules.side_of(res.winner)] += res.points
    return tuple(vec)


__all__ = ["DEFAULT_SAMPLES", "TABLE_SAMPLES", "Expected", "Facts", "KnowledgeDeal",
           "KnowledgeDecision", "Luck", "SeatLuck", "decisions_of", "default_samples",
           "iter_knowledge_reviews", "sampled_state", "seat_constraints", "values_over"]
