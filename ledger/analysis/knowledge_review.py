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
(``sampling.seed_of``), so a review gives the same numbers every time. Each sample's
search may visit at most the table's limit of positions (``TABLE_LIMITS``); a decision
one of whose samples is beyond it is not reviewed (counted, never valued), and likewise a
chance event for luck. Every decision or chance event not valued says why
(``unreviewed.Why``: "limit reached after N positions", "no stock known", ...). A
position blocked at the root or finished is valued at once, without a search
(``positions``). The questions of a whole match are spread over the cores
(``forkpool``), with the same numbers as on one.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ledger.analysis.forkpool import JobPool
from ledger.analysis.full_deals import (
    Act,
    DealSpace,
    DealtFacts,
    FullDeal,
    Kind,
    facts_for,
    space_of,
)
from ledger.analysis.measures import THRESHOLDS
from ledger.analysis.positions import (
    SMALL_SLOTS,
    Solved,
    slots_for,
    solve,
    solve_many,
    with_hands,
)
from ledger.analysis.review import move_of
from ledger.analysis.sampling import Constraints, Inconsistent, rng_for
from ledger.analysis.solver import MAX_NODES, worth
from ledger.analysis.unreviewed import Why, of_note
from ledger.engine.moves import Move, legal_moves
from ledger.engine.state import CLOSED, State
from ledger.events import Dealt, Drew, Event, Passed, Played
from ledger.findings import Unreadable
from ledger.formats.partial import rebuild_hands
from ledger.rules.base import HAND_SIZE, Rules
from ledger.tiles import ALL_TILES, Tile
from ledger.walk import Walk, step_into

DEFAULT_SAMPLES = 200
# Sequential sampling (issue 35): every table's decision draws up to ``DEFAULT_SAMPLES``
# deals (the cap; ``--samples`` or $DOMINO_LEDGER_KNOWLEDGE_SAMPLES sets another), BATCH
# at a time, and stops once the 95% t interval of its paired loss (best option's value
# less the played one's, per sample) lies within one severity band (``measures``): more
# samples could not change its label. A decision near a band's edge runs to the cap.
BATCH = 20
# Samples one job solves: a batch is split so that both cores work on one decision.
CHUNK = 10
CONFIDENCE = 0.95
# Luck needs no label, so it keeps a fixed K: 200 where it fits, else the K each of these
# tables had before sequential sampling (what fitted about 10 s a deal on two cores).
LUCK_SAMPLES: dict[tuple[str, int, bool], int] = {  # (preset, seats, teams)
    ("sahrat-draw", 4, False): 3,
    ("casual-arena", 4, False): 20,
    ("selminha", 3, False): 16,
    ("casual-arena", 3, False): 100,
    ("sahrat-fives", 2, False): 100,
    ("sahrat-fives", 4, False): 40,
}
# The most positions one sample's search may visit, on tables where a decision's samples
# early in a deal cannot be solved in time (``benchmarks/review.py``): such a decision
# is not reviewed (``unreviewed.Why``: "limit reached after N positions"), never valued
# from the samples that happened to fit.
# About 4 million positions a second here: 1 million is about a quarter of a second
# (4-seat Fives: a decision with 19 tiles held or fewer fits, one with 20 or more not).
TABLE_LIMITS: dict[tuple[str, int, bool], int] = {
    ("sahrat-fives", 4, False): 1_000_000,
}
# The label every failure had before each said why (kept for readers of old reports).
TOO_DEEP = "too deep to solve in time"
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
    knowledge_lost: float | None     # best mean - played mean (None: not reviewed)
    lost_stderr: float | None        # its standard error (paired over the samples)
    samples: int                     # samples solved (every one drawn, or 0): K used
    unsolved: int = 0                # 1: a sample could not be solved: not reviewed
    seed: int = 0
    exact: bool = False              # every consistent deal was solved (``count`` of them)
    count: int | None = None
    why: Why | None = None           # why it is not reviewed
    cap: int = 0                     # the most samples it could have drawn
    settled: bool = False            # its label holds at 95% confidence (or it is exact)

    def to_dict(self) -> dict[str, Any]:
        """What the JSON says of the sampling: K used, the cap, settled, the loss's SE."""
        return {"samples": self.samples, "cap": self.cap, "settled": self.settled,
                "knowledge_lost_stderr": self.lost_stderr, "exact": self.exact,
                "count": self.count}

    @property
    def reviewed(self) -> bool:
        """False when it could not be valued (``why`` says why; then nothing is valued)."""
        return self.knowledge_lost is not None

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
    stderr: float = 0.0               # of after - before (their samples are independent)
    exact: bool = False               # both sides counted every consistent deal

    @property
    def luck(self) -> float:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class SeatLuck:
    seat: int
    events: tuple[Luck, ...]
    result: int | None                # the deal's actual value for the seat's side
    unvalued: int = 0                 # chance events not valued (left out)
    not_valued: tuple[tuple[int, Why], ...] = ()  # each one's event and why

    @property
    def luck(self) -> float:
        return sum(e.luck for e in self.events)

    @property
    def adjusted(self) -> float | None:
        return None if self.result is None else self.result - self.luck

    @property
    def luck_stderr(self) -> float:
        """The luck's standard error: its events' errors, independent, added in squares."""
        return math.sqrt(sum(e.stderr ** 2 for e in self.events))

    @property
    def luck_exact(self) -> bool:
        """Every chance event valued over every consistent deal: no sampling error."""
        return bool(self.events) and not self.unvalued and all(e.exact for e in self.events)

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "luck": _r(self.luck), "result": self.result,
                "luck_stderr": _r(self.luck_stderr), "luck_exact": self.luck_exact,
                "adjusted": None if self.adjusted is None else _r(self.adjusted),
                "unvalued": self.unvalued,
                "not_valued": [{"event": e, **why.to_dict()} for e, why in self.not_valued],
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
    """The most deals drawn per decision on ``rules``' table unless asked otherwise (the
    same on every table: a decision stops earlier once its label is settled)."""
    del rules
    return DEFAULT_SAMPLES


def luck_samples(rules: Rules, samples: int = DEFAULT_SAMPLES) -> int:
    """The deals drawn per chance event for luck: the table's, no more than ``samples``."""
    return min(samples, LUCK_SAMPLES.get((rules.preset, rules.seats, rules.teams),
                                         DEFAULT_SAMPLES))


def table_limit(rules: Rules) -> int:
    """The most positions one sample's search may visit on ``rules``' table."""
    return TABLE_LIMITS.get((rules.preset, rules.seats, rules.teams), MAX_NODES)


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
    by_rank: bool = False             # the leader opens with the best tile dealt
    moves: list[_Move] = field(default_factory=list)
    drawn: list[tuple[int, Tile | None]] = field(default_factory=list)
    acts: list[Act] = field(default_factory=list)  # every public move, as knowledge.py's
    end: State | None = None
    note: str | None = None


def _deals(rules: Rules, events: Sequence[Event | None],
           wanted: set[int] | None) -> Iterator[_Deal]:
    rebuilt, _ = rebuild_hands(list(events))
    walk = Walk(rules, rebuilt, stop_at_none=True)
    st = walk.state
    work: _Deal | None = None
    while True:
        pre = st.copy()
        w = walk.take()
        if w is None:
            break
        i, ev = w.index, w.event
        if not w.readable:
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
            # With a hand hidden the leader is not known yet, but the rule still holds.
            work = _Deal(st.deal, i, pre, st.copy(), st.must_open,
                         st.must_open is not None or st.to_move is None)
            continue
        if work is None or work.end is not None or not isinstance(ev, MOVES):
            continue
        if pre.phase == "playing" and (pre.table or isinstance(ev, Played)):
            # Every move, also while the leader is unknown (a hand hidden): the facts.
            tile = ev.tile if isinstance(ev, Played) else _drawn(pre, st, ev.seat) \
                if isinstance(ev, Drew) else None
            work.acts.append(Act(i, ev.seat, _KIND[type(ev)], tile,
                                 tuple(n for n in pre.ends if n != CLOSED)))
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


def seat_facts(work: _Deal, upto: int, seat: int) -> DealtFacts:
    """Every fact ``seat`` knew before event ``upto`` of how ``work``'s deal was dealt
    (``full_deals``): its own hand and draws, every public move, the opening."""
    start = work.start
    hand = None if start.hidden[seat] else start.hands[seat]
    return facts_for(start.rules, seat, upto, hand, work.acts, work.opening, work.by_rank)


_KIND: dict[type, Kind] = {Played: "play", Drew: "draw", Passed: "pass"}


def _drawn(pre: State, st: State, seat: int) -> Tile | None:
    got = st.hands[seat] & ~pre.hands[seat]
    return next((t for t in ALL_TILES if got & t.bit), None)


def seat_space(work: _Deal, upto: int, seat: int) -> DealSpace:
    """The full deals consistent with what ``seat`` knew before event ``upto``."""
    return space_of(seat_facts(work, upto, seat))


def sampled_state(st: State, seat: int, c: Constraints | DealSpace, deal: Any,
                  drawn: Sequence[tuple[int, Tile | None]] = ()) -> State:
    """``st`` with the other hands and the stock of one sampled deal (a ``FullDeal`` of a
    ``DealSpace``; or, for hand-made cases, a ``sampling.Deal`` of the hands held now)."""
    if isinstance(c, DealSpace):
        assert isinstance(deal, FullDeal)
        return c.state_of(st, deal)
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
#
# Every question of the match (a decision, or one side of a chance event for luck) draws
# its deals (seeded by the match, the event and the use) and solves them in jobs of
# ``CHUNK`` samples: (question, first sample, end). A decision asks ``BATCH`` samples at a
# time and stops once its label is settled (``_settled``) or its cap is reached; luck asks
# its K at once. Jobs are spread over the cores (``forkpool.JobPool``, which also works in
# the web's daemonic worker) as they free up, so the samples of one decision are solved on
# both. Sample i of a question is the same deal whichever process draws it (each draws the
# question's deals in order from its seed), so the numbers do not depend on the workers.
# The first sample that cannot be solved within the limit leaves its question not valued
# at all (never valued from the samples that happened to be small).


@dataclass(frozen=True, slots=True)
class _Question:
    """Up to ``k`` deals to draw (from ``seed``: match hash, event, use) and solve from
    ``st``. ``played``: for a decision, the index of the move played among the legal ones
    (what sequential sampling judges); -1 for luck, which draws all ``k``."""

    st: State
    seat: int
    c: DealSpace | None                # None: whole deals from the state before the deal
    seed: tuple[str, int, str]
    k: int
    drawn: tuple[tuple[int, Tile | None], ...] = ()
    options: bool = False
    played: int = -1


@dataclass(frozen=True, slots=True)
class _Answer:
    """Per sample drawn: each option's value for the mover's side (``options``), else the
    outcome vector; None when a sample could not be solved (``note``: why)."""

    values: list[Any] | None
    note: str | None = None
    count: int | None = None           # every consistent deal was solved: how many
    why: Why | None = None
    settled: bool = False              # a decision: its label holds at 95% confidence
    cap: int = 0


def sample_rng(seed: tuple[str, int, str], i: int) -> random.Random:
    """The random source of sample ``i`` of the question seeded by ``seed`` (match hash,
    event, use): each sample its own, so any process draws sample i alone, the same deal."""
    key, event, part = seed
    return rng_for(key, event, f"{part}#{i}")


@dataclass
class _Drawn:
    """One question's deals as this process draws them, and the values solved here."""

    q: _Question
    count: int | None                  # every consistent deal is listed: how many
    listed: list[FullDeal] = field(default_factory=list)
    seen: dict[Any, Any] = field(default_factory=dict)

    def states(self, start: int, end: int) -> list[tuple[Any, State]]:
        """The positions of samples ``start`` to ``end`` (fewer where there are no more).
        Deals that differ only in the past (which tile a seat was dealt or drew and has
        laid) make the same position: its key is the hands held and the stock still to
        draw."""
        q, c = self.q, self.q.c
        if c is None:
            return [got for i in range(start, end)
                    if (got := _whole_deal(q, sample_rng(q.seed, i))) is not None]
        deals = self.listed[start:end] if self.count is not None else \
            [c.sample(sample_rng(q.seed, i)) for i in range(start, end)]
        out = []
        for d in deals:
            st = c.state_of(q.st, d)
            rest = st.stock[st.stock_pos:] if st.stock is not None else ()
            out.append(((tuple(st.hands), rest), st))
        return out


def _draws(q: _Question) -> _Drawn:
    if q.c is None:
        return _Drawn(q, None)
    count = q.c.count()
    if count == 0:
        raise Inconsistent("no deal fits what is known of the hands")
    if count <= q.k:
        return _Drawn(q, count, list(q.c.every_deal()))
    return _Drawn(q, None)


def _chunk(q: _Question, cache: dict[int, _Drawn], qi: int, start: int, end: int,
           limit: int) -> _Answer:
    """The values of samples ``start`` to ``end`` of question ``qi`` (fewer when there
    are no more deals), drawn and solved in this process."""
    try:
        drawn = cache.get(qi)
        if drawn is None:
            if len(cache) > 64:  # a worker keeps the questions it is working on
                cache.pop(next(iter(cache)))
            drawn = cache[qi] = _draws(q)
        states = drawn.states(start, end)
    except Inconsistent as exc:
        said = str(exc)
        return _Answer(None, said, why=Why(_inconsistent(q.st, said), detail=said))
    rules = q.st.rules
    side = rules.side_of(q.seat)
    out: list[Any] = []
    for key, st in states:
        got = drawn.seen.get(key)
        if got is None:
            solved = _solve_sample(st, q.options, limit)
            if solved.note is not None or solved.outcome is None:
                return _Answer(None, solved.note, why=of_note(solved.why, solved.note, limit))
            if q.options:
                legal = legal_moves(st)
                if [o.move for o in solved.options] != legal:  # pragma: no cover
                    return _Answer(None, "the options solved are not the legal moves")
                got = [worth(rules, o.outcome, side) for o in solved.options]
            else:
                got = solved.outcome
            drawn.seen[key] = got
        out.append(got)
    return _Answer(out, None, drawn.count)


def _answer(q: _Question, limit: int) -> _Answer:
    """Every sample of ``q`` (its K, no early stop), in this process."""
    got = _chunk(q, {}, 0, 0, q.k, limit)
    return _Answer(got.values, got.note, got.count, got.why, cap=q.k)


@dataclass
class _Run:
    """One question's jobs: what has been asked, what has come back."""

    q: _Question
    sequential: bool
    asked: int = 0
    waiting: int = 0
    parts: dict[int, list[Any]] = field(default_factory=dict)
    count: int | None = None
    short: bool = False                # a job came back with fewer deals than asked
    answer: _Answer | None = None      # set once the question is done
    told: bool = False                 # its answer has been given

    def next_jobs(self) -> list[tuple[int, int]]:
        """The jobs of the next batch (all the rest for luck or an exact decision)."""
        top = self.q.k if self.count is None else min(self.q.k, self.count)
        step = BATCH if self.sequential and self.q.played >= 0 and self.count is None \
            else top
        end = min(top, self.asked + step)
        jobs = [(i, min(end, i + CHUNK)) for i in range(self.asked, end, CHUNK)]
        self.asked = end
        self.waiting += len(jobs)
        return jobs

    def took(self, start: int, end: int, got: _Answer) -> bool:
        """Takes one job's answer; True when the question needs another batch."""
        if self.answer is not None:
            return False
        self.waiting -= 1
        if got.values is None:
            self.answer = _Answer(None, got.note, why=got.why, cap=self.q.k)
            return False
        self.count = got.count
        self.short = self.short or len(got.values) < end - start
        self.parts[start] = got.values
        if self.waiting:
            return False
        rows = [v for a in sorted(self.parts) for v in self.parts[a]]
        top = self.q.k if self.count is None else min(self.q.k, self.count)
        exact = self.count is not None  # every consistent deal is solved, none left out
        settled = exact or (self.q.played >= 0 and _settled(rows, self.q.played))
        if len(rows) >= top or self.short or (self.sequential and settled and not exact):
            self.answer = _Answer(rows, None, self.count, settled=settled, cap=self.q.k)
            return False
        return True


# Two-sided 97.5% points of Student's t for 1 to 30 degrees of freedom (beyond: the
# Cornish-Fisher expansion, within 0.001 there).
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201,
         2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074,
         2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t975(df: int) -> float:
    """Student's t quantile at 0.975 for ``df`` degrees of freedom."""
    if df <= len(_T975):
        return _T975[max(df, 1) - 1]
    z = 1.959964
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


def _band(x: float) -> int:
    """Which severity band a loss falls in (0: none, 1: inaccuracy, ...)."""
    return sum(x >= t for t in THRESHOLDS.values())


def _settled(rows: Sequence[Sequence[float]], played: int) -> bool:
    """Whether the 95% t interval of the paired loss (the best option's value less the
    played one's, sample by sample; the best by the means so far) lies within one band."""
    n = len(rows)
    if n < 2:
        return False
    width = len(rows[0])
    means = [sum(r[j] for r in rows) / n for j in range(width)]
    best = max(range(width), key=lambda j: means[j])
    mean, se = _mean_se([r[best] - r[played] for r in rows])
    half = t975(n - 1) * se
    return _band(mean - half) == _band(mean + half)


def _solve_all(questions: Sequence[_Question], limit: int, workers: int | None,
               sequential: bool) -> Iterator[tuple[int, _Answer]]:
    """Each question's answer (its index first), as questions finish."""
    cache: dict[int, _Drawn] = {}
    runs = [_Run(q, sequential) for q in questions]

    def task(job: tuple[int, int, int]) -> _Answer:
        qi, start, end = job
        return _chunk(questions[qi], cache, qi, start, end, limit)

    with JobPool(task, workers) as pool:
        for qi, run in enumerate(runs):
            for a, b in run.next_jobs():
                pool.submit((qi, a, b))
        while pool.pending:
            (qi, a, b), got = pool.next_done()
            run = runs[qi]
            if run.took(a, b, got):
                for a2, b2 in run.next_jobs():
                    pool.submit((qi, a2, b2))
            elif run.answer is not None and not run.told:
                run.told = True  # later jobs of a question that failed are not read
                yield qi, run.answer
    for qi, run in enumerate(runs):  # nothing asked (k = 0)
        if not run.told:
            yield qi, run.answer or _Answer([], None, cap=run.q.k)


def _inconsistent(st: State, said: str) -> str:
    """The reason (``unreviewed.REASONS``) a question's deals could not be drawn."""
    rules = st.rules
    if rules.draws and rules.stock_size and st.stock is None:
        return "stock"  # the record names no stock: its draws cannot be placed in it
    return "draws" if "draws recorded" in said else "facts"


# A sample's search on a table that keeps few positions (``positions.SMALL_SLOTS``) first
# runs with that small table, which most samples fit; one that visits more than
# GROW_AFTER positions searches again what the small table dropped, so it starts again with
# GROWN_SLOTS (measured on early decisions: 2.8 million positions with 2^15 slots, 1.5 with
# 2^22, and for 4-seat Sahrat Draw 30 million against 11.5, 9.3 s against 3.7). The table
# keeps bounds or exact values, so its room changes the time, never a value; the visits
# of the first try are the price (about a twentieth of a second).
GROW_AFTER = 1 << 18
GROWN_SLOTS = 1 << 22


def _solve_sample(st: State, options: bool, limit: int, grow_after: int = GROW_AFTER) -> Solved:
    """``positions.solve`` of one sample, the table grown for a large search."""
    small = _slots(st, limit)
    if small != SMALL_SLOTS or limit <= grow_after:
        return solve(st, options=options, max_nodes=limit, slots=small)
    got = solve(st, options=options, max_nodes=grow_after, slots=small)
    if got.why != "limit":
        return got
    return solve(st, options=options, max_nodes=limit, slots=GROWN_SLOTS)


def _slots(st: State, limit: int) -> int:
    """The table's room for a search of at most ``limit`` positions: no more than it can
    fill (a table is zeroed for every sample: 4-seat Fives would clear 256 MiB each)."""
    room = slots_for(st)
    if limit >= MAX_NODES:
        return room
    return min(room, max(1 << 16, 1 << (2 * limit - 1).bit_length()))


def _whole_deal(q: _Question, rng: random.Random) -> tuple[Any, State] | None:
    """Before the deal: a whole deal, folded as the table would (a redeal is drawn again,
    up to 20 times)."""
    rules = q.st.rules
    for _ in range(20):
        tiles = list(ALL_TILES)
        rng.shuffle(tiles)
        hands = tuple(tuple(tiles[s * HAND_SIZE:(s + 1) * HAND_SIZE])
                      for s in range(rules.seats))
        st = q.st.copy()
        try:
            step_into(st, Dealt(hands=hands, stock=tuple(tiles[rules.seats * HAND_SIZE:])))
        except Unreadable:
            continue
        if st.redeal_due or st.to_move is None:
            continue
        return tuple(tiles), st
    return None


@dataclass
class _Plan:
    """One deal's questions, and how their answers make its review."""

    work: _Deal
    questions: list[_Question] = field(default_factory=list)
    # move, its question (or why it has none), seed
    decisions: list[tuple[_Move, int | Why, int]] = field(default_factory=list)
    # seat, event, the questions before and after (or why there is none before)
    chances: list[tuple[int, int, int | Why, int | Why]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def ask(self, q: _Question) -> int:
        self.questions.append(q)
        return len(self.questions) - 1


def iter_knowledge_reviews(rules: Rules, events: Sequence[Event | None], key: str,
                           samples: int = DEFAULT_SAMPLES, deals: Sequence[int] | None = None,
                           *, luck: bool = False, max_nodes: int = MAX_NODES,
                           workers: int | None = None, only: Collection[int] | None = None,
                           sample_limit: int | None = None,
                           sequential: bool = True) -> Iterator[KnowledgeDeal]:
    """Each deal's knowledge review (and, with ``luck``, each seat's luck), in order.

    ``key``: the match's hash (the seed of every draw). ``samples``: the most deals drawn
    per decision (``sequential``: fewer once its label is settled at 95%; else all) and,
    no more than the table's ``LUCK_SAMPLES``, per chance event. ``workers``: processes
    solving the whole match's samples (default: one per core; the numbers do not depend
    on it). ``only``: review only the decisions at these events. Each sample's solve may
    visit at most ``sample_limit`` positions (default: the table's, ``table_limit``) and
    never more than ``max_nodes``.
    """
    wanted = None if deals is None else set(deals)
    limit = min(max_nodes, table_limit(rules) if sample_limit is None else sample_limit)
    plans = [_plan(work, key, samples, luck, only)
             for work in _deals(rules, events, wanted)]
    questions = [q for p in plans for q in p.questions]
    answers: dict[int, _Answer] = {}
    done = 0
    at = 0  # the first question of plans[done]
    for qi, got in _solve_all(questions, limit, workers, sequential):
        answers[qi] = got
        while done < len(plans) and all(
                at + j in answers for j in range(len(plans[done].questions))):
            p = plans[done]
            yield _finish(p, [answers.pop(at + j) for j in range(len(p.questions))])
            at += len(p.questions)
            done += 1
    for p in plans[done:]:  # deals with no question
        yield _finish(p, [])


def _plan(work: _Deal, key: str, k: int, luck: bool,
          only: Collection[int] | None) -> _Plan:
    plan = _Plan(work, notes=[work.note] if work.note else [])
    for m in work.moves:
        if not m.choice or (only is not None and m.index not in only):
            continue
        seed = rng_for(key, m.index).getrandbits(32)
        try:
            c = seat_space(work, m.index, m.seat)
        except Inconsistent as exc:
            plan.notes.append(f"event {m.index}: {exc}")
            own = bool(m.before.hidden[m.seat])
            plan.decisions.append((m, Why("own-hand" if own else "facts", detail=str(exc)), seed))
            continue
        played = legal_moves(m.before).index(m.move)
        q = plan.ask(_Question(m.before, m.seat, c, (key, m.index, ""), k, m.drawn, True,
                               played))
        plan.decisions.append((m, q, seed))
    if luck:
        _plan_luck(plan, key, luck_samples(work.start.rules, k))
    return plan


def _finish(plan: _Plan, answers: Sequence[_Answer]) -> KnowledgeDeal:
    work = plan.work
    rules = work.start.rules
    notes = plan.notes
    out = []
    for m, q, seed in plan.decisions:
        got = _Answer(None, None, why=q) if isinstance(q, Why) else answers[q]
        if got.values is None and got.note is not None and (got.why is None
                                                            or got.why.code != "limit"):
            notes.append(f"event {m.index}: {got.note}")
        out.append(_decision(rules, m, got, seed))
    forced = tuple((m.index, m.seat) for m in work.moves if not m.choice)
    seat_luck = _seat_luck(plan, answers) if plan.chances else ()
    return KnowledgeDeal(work.deal, work.index, tuple(out), forced, seat_luck,
                         "; ".join(notes) or None)


def _mean_se(vals: Sequence[float]) -> tuple[float, float]:
    n = len(vals)
    mean = sum(vals) / n
    if n < 2:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in vals) / (n - 1)
    return mean, math.sqrt(var / n)


def _decision(rules: Rules, m: _Move, got: _Answer, seed: int) -> KnowledgeDecision:
    legal = legal_moves(m.before)
    rows: list[list[int]] = got.values or []
    played = legal.index(m.move)
    if got.values is None or not rows:
        opts = tuple(Expected(str(mv), None, None) for mv in legal)
        return KnowledgeDecision(m.index, m.seat, str(m.move), opts, None, None, 0, 1, seed,
                                 why=got.why or Why("other", detail=got.note), cap=got.cap)
    stats = [_mean_se([r[j] for r in rows]) for j in range(len(legal))]
    opts = tuple(Expected(str(mv), _r(mu), _r(se)) for mv, (mu, se) in zip(legal, stats,
                                                                           strict=True))
    best = max(range(len(legal)), key=lambda j: stats[j][0])
    lost, lost_se = _mean_se([r[best] - r[played] for r in rows])
    return KnowledgeDecision(m.index, m.seat, str(m.move), opts, _r(lost), _r(lost_se),
                             len(rows), 0, seed, got.count is not None, got.count,
                             cap=got.cap, settled=got.settled)


@dataclass(frozen=True, slots=True)
class Facts:
    """A decision and what its mover knew: the position, the move made, the constraints
    on the unseen tiles, the stock places drawn so far (who, and the tile if the mover's)."""

    event: int
    deal: int
    before: State
    seat: int
    played: Move
    constraints: Constraints | DealSpace
    drawn: tuple[tuple[int, Tile | None], ...]
    deal_event: int = 0               # the index of the deal's ``deal`` event


def decisions_of(rules: Rules, events: Sequence[Event | None]) -> Iterator[Facts]:
    """Every decision of the match (a move with a choice), with what its mover knew."""
    for work in _deals(rules, events, None):
        for m in work.moves:
            if m.choice:
                c = seat_space(work, m.index, m.seat)
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


def _plan_luck(plan: _Plan, key: str, k: int) -> None:
    """The questions of each seat's luck: before and after its deal, and each draw."""
    work = plan.work
    rules = work.start.rules
    # Whole deals are drawn from the state before the deal: one the record left unfinished
    # is no start to deal from.
    before_deal: int | Why = Why("unfinished") if work.pre.phase == "playing" else \
        plan.ask(_Question(work.pre, 0, None, (key, work.index, "deal"), k))
    # After the deal: what each seat knew once it was dealt, and once the opening tile
    # the rules forced is down (it tells that nobody holds a better one).
    dealt, step = work.start, work.index + 1
    if work.opening is not None and work.moves and work.moves[0].move.tile is work.opening:
        dealt, step = work.moves[0].after, work.moves[0].index + 1
    # The record stops before the tile the rules force is down: where it lies is a fact
    # the sampled deals of the others would not keep.
    unopened = dealt.table == 0 and dealt.must_open is not None
    for seat in range(rules.seats):
        if unopened and seat != dealt.to_move:
            plan.chances.append((seat, work.index, before_deal, Why("short")))
            continue
        try:
            c = seat_space(work, step, seat)
        except Inconsistent as exc:
            plan.notes.append(f"luck of seat {seat}: {exc}")
            continue
        after = plan.ask(_Question(dealt, seat, c, (key, work.index, f"deal seat {seat}"), k))
        plan.chances.append((seat, work.index, before_deal, after))
    for m in work.moves:
        if m.move.kind != "draw":
            continue
        try:
            cb = seat_space(work, m.index, m.seat)
            ca = seat_space(work, m.index + 1, m.seat)
        except Inconsistent as exc:
            plan.notes.append(f"luck at event {m.index}: {exc}")
            continue
        jb = plan.ask(_Question(m.before, m.seat, cb, (key, m.index, "before draw"), k))
        ja = plan.ask(_Question(m.after, m.seat, ca, (key, m.index, "after draw"), k))
        plan.chances.append((m.seat, m.index, jb, ja))


def _seat_luck(plan: _Plan, answers: Sequence[_Answer]) -> tuple[SeatLuck, ...]:
    work = plan.work
    rules = work.start.rules
    result = _result(work)
    per_seat: dict[int, list[Luck]] = {s: [] for s in range(rules.seats)}
    unvalued: dict[int, list[tuple[int, Why]]] = {s: [] for s in range(rules.seats)}
    for seat, event, jb, ja in plan.chances:
        side = rules.side_of(seat)
        got_b = _Answer(None, None, why=jb) if isinstance(jb, Why) else answers[jb]
        got_a = _Answer(None, None, why=ja) if isinstance(ja, Why) else answers[ja]
        vb, va = got_b.values, got_a.values
        if not vb or not va:
            failed = got_b if not vb else got_a
            why = failed.why or Why("other", detail=failed.note)
            plan.notes.append(f"luck of seat {seat} at event {event}: not valued, {why.text}")
            unvalued[seat].append((event, why))
            continue
        before = [worth(rules, o, side) for o in vb]
        after = [worth(rules, o, side) for o in va]
        exact = got_b.count is not None and got_a.count is not None
        stderr = math.hypot(_stderr(before, got_b.count), _stderr(after, got_a.count))
        per_seat[seat].append(Luck(event, sum(before) / len(before), sum(after) / len(after),
                                   stderr, exact))
    return tuple(
        SeatLuck(s, tuple(per_seat[s]),
                 None if result is None else worth(rules, result, rules.side_of(s)),
                 len(unvalued[s]), tuple(unvalued[s]))
        for s in range(rules.seats))


def _stderr(values: Sequence[float], count: int | None) -> float:
    """The standard error of the mean of ``values`` (0 when they are every deal there is)."""
    n = len(values)
    if count is not None or n < 2:
        return 0.0
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)


def _result(work: _Deal) -> tuple[int, ...] | None:
    st = work.end
    if st is None or st.last_result is None:
        return None
    vec = list(st.in_deal)
    res = st.last_result
    if res.winner is not None:
        vec[st.rules.side_of(res.winner)] += res.points
    return tuple(vec)




# --- the samples of one decision (``domino-ledger knowledge``) ---------------------------


@dataclass(frozen=True, slots=True)
class DecisionSamples:
    """The full deals the review solves for ``seat`` before event ``step`` of ``deal``:
    every consistent one (``exact``, ``count`` of them) or ``k`` drawn uniformly."""

    deal: int
    step: int
    seat: int
    facts: DealtFacts
    deals: tuple[FullDeal, ...]
    exact: bool
    count: int | None
    seed: str

    def to_dict(self) -> dict[str, Any]:
        return {"deal": self.deal, "step": self.step, "seat": self.seat,
                "exact": self.exact, "count": self.count, "seed": self.seed,
                "samples": [d.to_dict() for d in self.deals],
                "facts": self.facts.to_dict()}


class NoSuchDecision(ValueError):
    """The deal, step or seat asked for is not in the match (the message names it)."""


def decision_samples(rules: Rules, events: Sequence[Event | None], deal: int, step: int,
                     seat: int, k: int, seed: str) -> DecisionSamples:
    """The samples of ``seat``'s knowledge before event ``step`` (an index into the match's
    events, within deal ``deal``), drawn as the review draws them with match hash ``seed``."""
    if not 0 <= seat < rules.seats:
        raise NoSuchDecision(f"seat {seat}: the table has seats 0 to {rules.seats - 1}")
    work = next(iter(_deals(rules, events, {deal})), None) if deal >= 0 else None
    if work is None:
        raise NoSuchDecision(f"deal {deal}: the match has no such deal that can be read")
    moves = [m.index for m in work.moves]
    if step not in moves:
        span = f"events {moves[0]} to {moves[-1]}" if moves else "no move"
        raise NoSuchDecision(f"event {step} is not a move of deal {deal} ({span})")
    facts = seat_facts(work, step, seat)
    space = space_of(facts)
    count = space.count()
    if count == 0:
        raise Inconsistent("no deal fits what is known of the hands")
    if count <= k:
        return DecisionSamples(deal, step, seat, facts, tuple(space.every_deal()), True,
                               count, seed)
    deals = tuple(space.sample(sample_rng((seed, step, ""), i)) for i in range(k))
    return DecisionSamples(deal, step, seat, facts, deals, False, None, seed)


__all__ = ["BATCH", "DEFAULT_SAMPLES", "LUCK_SAMPLES", "TABLE_LIMITS", "TOO_DEEP",
           "DecisionSamples",
           "Expected", "Facts", "KnowledgeDeal", "KnowledgeDecision", "Luck", "NoSuchDecision",
           "SeatLuck", "decision_samples", "decisions_of", "default_samples",
           "iter_knowledge_reviews", "luck_samples", "sample_rng", "sampled_state", "seat_facts",
           "seat_space", "t975", "table_limit", "values_over"]
