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
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ledger.analysis.forkpool import fork_map
from ledger.analysis.full_deals import (
    Act,
    DealSpace,
    DealtFacts,
    FullDeal,
    Kind,
    facts_for,
    space_of,
)
from ledger.analysis.positions import slots_for, solve, solve_many, with_hands
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
# Tables where K = 200 takes more than about 10 s a deal on a two-core machine: the K that
# fits, measured by benchmarks/review.py on a quiet machine (3 seeded matches each, their
# first deal and their second and third: the median deal of each within 10 s; `analyse`
# shows the K it used). A later deal costs more than the first on most of these tables:
# its leader may open with any tile, and each sample of that first decision is the whole
# deal searched from each of seven openings. Three or four seats each for himself: every
# sample is a max-n search of its own.
TABLE_SAMPLES: dict[tuple[str, int, bool], int] = {  # (preset, seats, teams)
    ("sahrat-draw", 4, False): 3,
    ("casual-arena", 4, False): 20,
    ("selminha", 3, False): 16,
    ("casual-arena", 3, False): 100,
    ("sahrat-fives", 2, False): 100,
    # Its early decisions are not reviewed (TABLE_LIMITS), which costs the same at any K.
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
    samples: int                     # samples solved (every one drawn, or 0)
    unsolved: int = 0                # 1: a sample could not be solved: not reviewed
    seed: int = 0
    exact: bool = False              # every consistent deal was solved (``count`` of them)
    count: int | None = None
    why: Why | None = None           # why it is not reviewed

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
    """The deals drawn per decision on ``rules``' table unless asked otherwise."""
    return TABLE_SAMPLES.get((rules.preset, rules.seats, rules.teams), DEFAULT_SAMPLES)


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
# Every question of the match (a decision, or one side of a chance event for luck) is a
# task of its own: draw its K deals (seeded by the match, the event and the use), solve
# them one after another, and stop at the first that cannot be solved within the limit:
# the question is then not valued at all (never valued from the samples that happened
# to be small). The tasks of a whole match are spread over the cores (``forkpool``,
# which also works in the web's daemonic worker); a task depends on nothing but itself,
# so the numbers are the same on one core or several.


@dataclass(frozen=True, slots=True)
class _Question:
    """``k`` deals to draw (from ``seed``: match hash, event, use) and solve from ``st``."""

    st: State
    seat: int
    c: DealSpace | None                # None: whole deals from the state before the deal
    seed: tuple[str, int, str]
    k: int
    drawn: tuple[tuple[int, Tile | None], ...] = ()
    options: bool = False


@dataclass(frozen=True, slots=True)
class _Answer:
    """Per sample drawn: each option's value for the mover's side (``options``), else the
    outcome vector; None when a sample could not be solved (``note``: why)."""

    values: list[Any] | None
    note: str | None = None
    count: int | None = None           # every consistent deal was solved: how many
    why: Why | None = None


def _answer(q: _Question, limit: int) -> _Answer:
    count = None
    try:
        if q.c is None:
            states = _whole_deals(q)
        else:
            states, count = _drawn_states(q, q.c)
    except Inconsistent as exc:
        said = str(exc)
        return _Answer(None, said, why=Why(_inconsistent(q.st, said), detail=said))
    rules = q.st.rules
    side = rules.side_of(q.seat)
    seen: dict[Any, Any] = {}
    out: list[Any] = []
    for key, st in states:
        got = seen.get(key)
        if got is None:
            solved = solve(st, options=q.options, max_nodes=limit, slots=_slots(st, limit))
            if solved.note is not None or solved.outcome is None:
                return _Answer(None, solved.note, why=of_note(solved.why, solved.note, limit))
            if q.options:
                legal = legal_moves(st)
                if [o.move for o in solved.options] != legal:  # pragma: no cover
                    return _Answer(None, "the options solved are not the legal moves")
                got = [worth(rules, o.outcome, side) for o in solved.options]
            else:
                got = solved.outcome
            seen[key] = got
        out.append(got)
    return _Answer(out, None, count)


def _inconsistent(st: State, said: str) -> str:
    """The reason (``unreviewed.REASONS``) a question's deals could not be drawn."""
    rules = st.rules
    if rules.draws and rules.stock_size and st.stock is None:
        return "stock"  # the record names no stock: its draws cannot be placed in it
    return "draws" if "draws recorded" in said else "facts"


def _slots(st: State, limit: int) -> int:
    """The table's room for a search of at most ``limit`` positions: no more than it can
    fill (a table is zeroed for every sample: 4-seat Fives would clear 256 MiB each)."""
    room = slots_for(st)
    if limit >= MAX_NODES:
        return room
    return min(room, max(1 << 16, 1 << (2 * limit - 1).bit_length()))


def _drawn_states(q: _Question, c: DealSpace) -> tuple[list[tuple[Any, State]], int | None]:
    """The positions to solve: every consistent deal when there are no more than ``k``
    (then their number too: the values are exact), else ``k`` drawn uniformly. Deals that
    differ only in the past (which tile a seat was dealt or drew and has laid) make the
    same position: its key is the hands held and the stock still to draw."""
    count = c.count()
    if count == 0:
        raise Inconsistent("no deal fits what is known of the hands")
    deals = list(c.every_deal()) if count <= q.k else c.samples(q.k, rng_for(*q.seed))
    out = []
    for d in deals:
        st = c.state_of(q.st, d)
        rest = st.stock[st.stock_pos:] if st.stock is not None else ()
        out.append(((tuple(st.hands), rest), st))
    return out, (count if count <= q.k else None)


def _whole_deals(q: _Question) -> list[tuple[Any, State]]:
    """Before the deal: whole deals, folded as the table would (a redeal is drawn again)."""
    rules = q.st.rules
    rng = rng_for(*q.seed)
    out: list[tuple[Any, State]] = []
    tries = 0
    while len(out) < q.k and tries < 20 * q.k:
        tries += 1
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
        out.append((tuple(tiles), st))
    return out


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
                           sample_limit: int | None = None) -> Iterator[KnowledgeDeal]:
    """Each deal's knowledge review (and, with ``luck``, each seat's luck), in order.

    ``key``: the match's hash (the seed of every draw). ``samples``: deals drawn per
    question. ``workers``: processes solving the whole match's questions (default: one
    per core; the numbers do not depend on it). ``only``: review only the decisions at
    these events. Each sample's solve may visit at most ``sample_limit`` positions
    (default: the table's, ``table_limit``) and never more than ``max_nodes``.
    """
    wanted = None if deals is None else set(deals)
    limit = min(max_nodes, table_limit(rules) if sample_limit is None else sample_limit)
    plans = [_plan(work, key, samples, luck, only)
             for work in _deals(rules, events, wanted)]
    questions = [q for p in plans for q in p.questions]
    answers = fork_map(lambda i: _answer(questions[i], limit), len(questions), workers)
    for p in plans:
        yield _finish(p, [next(answers) for _ in p.questions])


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
        q = plan.ask(_Question(m.before, m.seat, c, (key, m.index, ""), k, m.drawn, True))
        plan.decisions.append((m, q, seed))
    if luck:
        _plan_luck(plan, key, k)
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
                                 why=got.why or Why("other", detail=got.note))
    stats = [_mean_se([r[j] for r in rows]) for j in range(len(legal))]
    opts = tuple(Expected(str(mv), _r(mu), _r(se)) for mv, (mu, se) in zip(legal, stats,
                                                                           strict=True))
    best = max(range(len(legal)), key=lambda j: stats[j][0])
    lost, lost_se = _mean_se([r[best] - r[played] for r in rows])
    return KnowledgeDecision(m.index, m.seat, str(m.move), opts, _r(lost), _r(lost_se),
                             len(rows), 0, seed, got.count is not None, got.count)


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
    return DecisionSamples(deal, step, seat, facts, tuple(space.samples(k, rng_for(seed, step))),
                           False, None, seed)


__all__ = ["DEFAULT_SAMPLES", "TABLE_LIMITS", "TABLE_SAMPLES", "TOO_DEEP", "DecisionSamples",
           "Expected", "Facts", "KnowledgeDeal", "KnowledgeDecision", "Luck", "NoSuchDecision",
           "SeatLuck", "decision_samples", "decisions_of", "default_samples",
           "iter_knowledge_reviews", "sampled_state", "seat_facts", "seat_space", "table_limit",
           "values_over"]
