"""The review of a recorded match: best play at every step, and what each mistake cost.

For each deal whose hands (and, on tables that draw, stock order) are known,
``review_match`` gives the outcome under best play at the start and after every
move, and at each decision (a move with a choice) the value of every legal
alternative and the points the move played lost its side. Values are those of
``DealSolver`` (its module doc says what "best play" means and how ties go).

Per step, for the web: ``DealAnalyser`` answers one position at a time.

A note (why a deal is not, or not fully, analysed) is kept twice: ``note``, the English
sentence (the JSON of ``to_dict``), and ``note_phrases``, its parts as phrases that word
it in any language (``ledger.i18n``); the English is those phrases, "; "-joined.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ledger.analysis.solver import (
    MAX_NODES,
    MAX_POSITIONS,
    DealSolver,
    NotAnalysable,
    Option,
    Outcome,
    TooLarge,
    worth,
)
from ledger.engine.moves import Move, legal_moves
from ledger.engine.state import State
from ledger.events import Dealt, Drew, Event, Passed, Played
from ledger.findings import Finding
from ledger.formats.partial import rebuild_hands
from ledger.i18n.phrases import N_, Phrase, clauses
from ledger.rules.base import Rules
from ledger.tiles import ALL_TILES, Tile, mask_of
from ledger.walk import Walk

MOVE_EVENTS = (Played, Drew, Passed)

# ``progress(done, total)``: after each position of a deal is dealt with (solved or left
# out), counted per deal. ``stop()``: asked before each position; once it says stop, the
# positions not yet solved are left out with a note, as those too large to solve are.
Progress = Callable[[int, int], None]
Stop = Callable[[], bool]


# A move as the analysis words it. Each template's English is the move's own notation
# ("6-3 right", "6-6", "draw", "pass"), so an English reader sees the JSON's text; the
# tile is a parameter so a right-to-left language keeps it isolated.
_ON_END = {"left": N_("{tile} left"), "right": N_("{tile} right"), "up": N_("{tile} up"),
           "down": N_("{tile} down")}
_NOT_A_PLAY = {"draw": N_("draw"), "pass": N_("pass")}


def move_phrase(move: str | Move) -> Phrase:
    """A move (``Move`` or its text form) as a phrase, for every wording of moves: the
    ``analyse`` command's text and the web's Analysis panel."""
    m = Move.parse(move) if isinstance(move, str) else move
    if m.kind != "play":
        return Phrase(_NOT_A_PLAY[m.kind])
    if m.end is None:  # an opening tile: there is no end yet
        return Phrase("{tile}", tile=str(m.tile))
    return Phrase(_ON_END[m.end], tile=str(m.tile))


@dataclass(frozen=True, slots=True)
class Decision:
    """A move made with a choice: every legal alternative with its best-play outcome."""

    event: int                      # index of the move in the match's events
    seat: int
    played: str                     # the move made, in ``Move`` text form
    options: tuple[Option, ...]
    best: Outcome                   # what best play from here gives
    lost: int                       # what the move played cost its side (0: a best move)

    @property
    def outcome(self) -> Outcome:
        """The outcome of best play after the move made."""
        return next(o.outcome for o in self.options if str(o.move) == self.played)

    def best_moves(self, side: int) -> list[Move]:
        """The moves as good as the best for ``side`` (the mover's side)."""
        top = _worth(self.best, side)
        return [o.move for o in self.options if _worth(o.outcome, side) == top]

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "seat": self.seat,
            "played": self.played,
            "options": [{"move": str(o.move), "outcome": list(o.outcome)} for o in self.options],
            "lost": self.lost,
        }


@dataclass(frozen=True, slots=True)
class Step:
    """The position after one recorded move of a deal, valued under best play."""

    event: int
    seat: int
    move: str
    outcome: Outcome | None         # best-play outcome after the move (None: too large)
    lost: int = 0                   # the points the move lost (a decision's ``lost``)


@dataclass(frozen=True, slots=True)
class DealReview:
    deal: int                       # 0-based, as in the audit's ``deals``
    event: int                      # index of the deal's ``deal`` event
    best: Outcome | None            # best play from the start of the deal
    decisions: tuple[Decision, ...] = ()
    steps: tuple[Step, ...] = ()
    result: Outcome | None = None   # the points each side actually ended the deal with
    note: str | None = None         # why the deal is not (or not fully) analysed
    sides: int = 2
    note_phrases: tuple[Phrase, ...] = ()  # ``note`` in any language (see the module doc)

    @property
    def analysed(self) -> bool:
        """Whether any position of the deal was solved."""
        return self.best is not None or bool(self.decisions)

    @property
    def mistakes(self) -> tuple[Decision, ...]:
        return tuple(d for d in self.decisions if d.lost > 0)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "deal": self.deal,
            "best": None if self.best is None else list(self.best),
            "decisions": [d.to_dict() for d in self.decisions],
        }
        if self.result is not None:
            out["result"] = list(self.result)
        if self.note is not None:
            out["note"] = self.note
        return out


@dataclass
class _Deal:
    """A deal being reviewed while the match is folded."""

    deal: int
    event: int
    start: State
    solver: DealSolver | None
    note: Phrase | None
    # The deal's moves as recorded: (event index, state before, the move, state after).
    moves: list[tuple[int, State, Move, State]] = field(default_factory=list)
    stopped: bool = False


def review_match(rules: Rules, events: Sequence[Event | None],
                 deals: Sequence[int] | None = None,
                 budget: int = MAX_POSITIONS, *,
                 progress: Progress | None = None,
                 stop: Stop | None = None,
                 max_nodes: int = MAX_NODES) -> list[DealReview]:
    """Every deal of the record reviewed (or only ``deals``, 0-based), in order.

    ``budget`` and ``max_nodes``: the most positions a deal's solver keeps, and visits for
    one position (see ``DealSolver``).
    ``progress`` and ``stop``: see ``Progress`` and ``Stop`` (the caller's clock, if any,
    lives in them).
    """
    return list(iter_reviews(rules, events, deals, budget, progress=progress, stop=stop,
                             max_nodes=max_nodes))


def iter_reviews(rules: Rules, events: Sequence[Event | None],
                 deals: Sequence[int] | None = None,
                 budget: int = MAX_POSITIONS, *,
                 progress: Progress | None = None,
                 stop: Stop | None = None,
                 max_nodes: int = MAX_NODES) -> Iterator[DealReview]:
    def close(work: _Deal, st: State, note: Phrase | None) -> DealReview:
        return _close(work, st, note, progress, stop)

    wanted = None if deals is None else set(deals)
    rebuilt, _ = rebuild_hands(list(events))
    walk = Walk(rules, rebuilt)
    st = walk.state
    work: _Deal | None = None
    for i, ev in enumerate(rebuilt):
        if ev is None:
            if work is not None:
                yield close(work, st, Phrase("event {event} cannot be read; the analysis "
                                             "stops there", event=i))
                work = None
            return
        before = st.copy() if work is not None and isinstance(ev, MOVE_EVENTS) else None
        if isinstance(ev, Dealt) and work is not None and st.phase == "playing" and not st.fresh:
            yield close(work, st, Phrase("a new deal started before this one ended"))
            work = None
        w = walk.take()
        assert w is not None
        if not w.readable:
            if work is not None:
                yield close(work, st, Phrase("event {event}: {reason}; the analysis stops "
                                             "there", event=i, reason=_said(w.findings[-1])))
            return
        if isinstance(ev, Dealt):
            if work is not None and work.deal == st.deal:
                work = None  # a redeal replaces the deal
            if st.redeal_due or (wanted is not None and st.deal not in wanted):
                continue
            work = _open(st, i, rebuilt, budget, max_nodes)
            continue
        if work is None or before is None or work.stopped:
            if work is not None and st.phase != "playing" and not st.pending:
                yield close(work, st, None)
                work = None
            continue
        assert isinstance(ev, MOVE_EVENTS)
        _step(work, before, ev, i, st)
        if st.phase != "playing" and not st.pending:
            yield close(work, st, None)
            work = None
    if work is not None:
        yield close(work, st, None if st.phase != "playing"
                    else Phrase("the record stops before the deal ended"))


def _open(st: State, index: int, events: Sequence[Event | None], budget: int,
          max_nodes: int = MAX_NODES) -> _Deal:
    """Start reviewing the deal just dealt (``st`` is the state after its ``deal`` event)."""
    note: Phrase | None = None
    solver = None
    if st.rules.draws and st.rules.stock_size and st.stock is None:
        stock = stock_from_draws(st, events, index)
        if stock is not None:
            st.stock = stock  # our own fold: the record's draws agree with it by construction
    try:
        solver = DealSolver(st, budget, max_nodes=max_nodes)
    except NotAnalysable as exc:
        note = Phrase("cannot be analysed: {reason}", reason=solver_reason(exc))
    work = _Deal(st.deal, index, st.copy(), solver, note)
    if solver is not None and st.to_move is None:
        work.note = Phrase("cannot be analysed: who leads is not known")
        work.solver = None
    return work


def stock_from_draws(st: State, events: Sequence[Event | None], index: int
                      ) -> tuple[Tile, ...] | None:
    """The stock's order when the record omits it: the draws it shows, then what is left.

    Known only when at most one tile was never drawn.
    """
    drawn: list[Tile] = []
    for ev in events[index + 1:]:
        if isinstance(ev, Dealt):
            break
        if isinstance(ev, Drew):
            if ev.tile is None:
                return None
            drawn.append(ev.tile)
    held = mask_of(drawn)
    for h in st.hands:
        held |= h
    rest = [t for t in ALL_TILES if not held & t.bit]
    if len(drawn) + len(rest) != st.rules.stock_size or len(rest) > 1:
        return None
    return tuple(drawn + rest)


def recorded_move(before: State, ev: Played | Drew | Passed) -> Move | None:
    """The legal move a recorded event made at ``before``, or None if it made none."""
    return move_of(legal_moves(before), ev)


def move_of(legal: Sequence[Move], ev: Event) -> Move | None:
    """The move of ``legal`` a recorded play, draw or pass made, or None if none is it."""
    for move in legal:
        if isinstance(ev, Played):
            if move.kind == "play" and move.tile is ev.tile and (
                    ev.end is None or move.end is None or move.end == ev.end):
                return move
        elif isinstance(ev, Drew):
            if move.kind == "draw":
                return move
        elif move.kind == "pass":
            return move
    return None


def _step(work: _Deal, before: State, ev: Played | Drew | Passed, index: int,
          after: State) -> None:
    if work.solver is None:
        return
    move = recorded_move(before, ev)
    if move is None:
        work.note = Phrase(_NOT_LEGAL[ev.TYPE], event=index, seat=ev.seat)
        work.stopped = True
        return
    work.moves.append((index, before, move, after.copy()))


# Three sentences, not one with the move's kind in it: a language may need other words
# around a play than around a draw.
_NOT_LEGAL = {
    "play": N_("event {event}: {seat}'s play is not a legal move; the analysis of this "
               "deal stops there"),
    "draw": N_("event {event}: {seat}'s draw is not a legal move; the analysis of this "
               "deal stops there"),
    "pass": N_("event {event}: {seat}'s pass is not a legal move; the analysis of this "
               "deal stops there"),
}


def _close(work: _Deal, st: State, note: Phrase | None, progress: Progress | None = None,
           stop: Stop | None = None) -> DealReview:
    result = None
    if st.deal == work.deal and st.phase != "playing" and st.last_result is not None:
        vec = list(st.in_deal)
        res = st.last_result
        if res.winner is not None:
            vec[st.rules.side_of(res.winner)] += res.points
        result = tuple(vec)
    best: Outcome | None = None
    decisions: list[Decision] = []
    steps: list[Step] = []
    big: Phrase | None = None
    if work.solver is not None:
        best, decisions, steps, big = _solve(work.solver, work.start, work.moves, progress,
                                             stop)
    # The deal's own reason (it cannot be analysed, a move is not legal) stands alone.
    notes = (work.note,) if work.note is not None else \
        tuple(p for p in (big, note) if p is not None)
    return DealReview(
        deal=work.deal, event=work.event, best=best, decisions=tuple(decisions),
        steps=tuple(steps), result=result, note=_english(notes), sides=st.rules.sides,
        note_phrases=notes)


def _solve(solver: DealSolver, start: State, moves: Sequence[tuple[int, State, Move, State]],
           progress: Progress | None = None, stop: Stop | None = None,
           ) -> tuple[Outcome | None, list[Decision], list[Step], Phrase | None]:
    """Value the start, every decision and every position after a move.

    Two sides: from the start on (each search's bounds help the next). Max-n keeps
    exact values, and a position's subtree holds those of the positions after it:
    from the end back, so that each reuses the last, and once one is too large to
    solve, the earlier (larger) ones are not tried. The positions are the start and
    the one after each move (``progress`` counts them).
    """
    rules = start.rules
    decided: dict[int, Decision] = {}
    after: dict[int, Outcome | None] = {}
    best: Outcome | None = None
    order = list(range(len(moves)))
    backward = rules.sides > 2
    if backward:
        order.reverse()
    too_large: int | None = None  # event index of the first position that did not fit
    why: Phrase | None = None     # what made it too large
    stopped: int | None = None    # event index of the first position left out on request
    total = len(moves) + 1
    done = 0
    if progress is not None:
        progress(done, total)
    for k in order:
        index, before, move, later = moves[k]
        if too_large is None and stopped is None and stop is not None and stop():
            stopped = index
        done += 1
        if too_large is not None or stopped is not None:
            after[k] = None
            if progress is not None:
                progress(done, total)
            continue
        try:
            # Backward, what the solver keeps lies inside this position's subtree.
            after[k] = solver.outcome(later, fresh=not backward)
            if len(legal_moves(before)) > 1:
                options = tuple(solver.options(before))
                top = solver.best_of(before, options)
                played = next(o.outcome for o in options if o.move == move)
                assert before.to_move is not None
                side = rules.side_of(before.to_move)
                lost = worth(rules, top, side) - worth(rules, played, side)
                decided[k] = Decision(index, before.to_move, str(move), options, top, lost)
        except TooLarge as exc:
            too_large, why = index, solver_reason(exc)
            after.setdefault(k, None)
        if progress is not None:
            progress(done, total)
    start_left_out = False
    if too_large is None and stopped is None and stop is not None and stop():
        start_left_out = True
    elif too_large is None and stopped is None:
        try:
            best = solver.outcome(start, fresh=not backward)
        except TooLarge as exc:
            too_large, why = (moves[0][0] if moves else None), solver_reason(exc)
    if progress is not None:
        progress(total, total)
    steps = []
    for k, (index, before, move, _) in enumerate(moves):
        assert before.to_move is not None
        d = decided.get(k)
        steps.append(Step(index, before.to_move, str(move), after.get(k),
                          d.lost if d is not None else 0))
    big = None
    if too_large is not None:
        big = Phrase("the positions from the start of the deal to event {event} are too large "
                     "to solve exactly ({why}); their values are left out",
                     event=too_large, why=why)
    elif stopped is not None or start_left_out:
        big = _stopped_note(stopped, backward)
    return best, [decided[k] for k in sorted(decided)], steps, big


def _stopped_note(stopped: int | None, backward: bool) -> Phrase:
    """What was left out when the caller stopped the search (``stopped``: the event of
    the first position not solved; None: only the start was left)."""
    if stopped is None:
        return Phrase("the analysis was stopped: the start of the deal was not solved; its "
                      "value is left out")
    if backward:
        return Phrase("the analysis was stopped: the positions from the start of the deal to "
                      "event {event} were not solved; their values are left out", event=stopped)
    return Phrase("the analysis was stopped: the start of the deal and the positions from "
                  "event {event} to its end were not solved; their values are left out",
                  event=stopped)


def _english(notes: Sequence[Phrase]) -> str | None:
    """The English note of ``notes`` (None: there are none)."""
    said = clauses(notes)
    return None if said is None else str(said)


def _said(finding: Finding) -> Phrase:
    """A finding's sentence as a phrase; one without a template stays in English."""
    if finding.template:
        return Phrase(finding.template, **finding.params)
    return Phrase(finding.message)


# The solver's reasons (its exceptions' messages, ledger/analysis/solver.py) as templates:
# the solver stays free of wording, and its message is matched here. ``{limit}`` is a
# count as the solver writes it ("40,000,000").
_SOLVER_REASONS = tuple(
    (template, re.compile(re.escape(template).replace(r"\{limit\}", r"(?P<limit>[0-9,]+)")))
    for template in (
        N_("a hand of this deal stays hidden"),
        N_("a hand stays hidden at this position"),
        N_("the order of the stock is not known"),
        N_("more than {limit} positions to search (with three or four sides each for "
           "himself, few can be skipped)"),
        N_("more than {limit} positions to solve exactly (max-n keeps every one)"),
    ))


def solver_reason(exc: NotAnalysable) -> Phrase:
    """Why the solver cannot value a position, as a phrase whose English is its message.

    A message not listed in ``_SOLVER_REASONS`` (a reason added to the solver later) is
    kept as it is: in English in every language, but never lost or altered.
    """
    text = str(exc)
    for template, pattern in _SOLVER_REASONS:
        found = pattern.fullmatch(text)
        if found is not None:
            return Phrase(template, **found.groupdict())
    return Phrase(text)


def _worth(vec: Outcome, side: int) -> int:
    """``solver.worth`` read off the outcome's length (two sides: the margin)."""
    return vec[side] - vec[1 - side] if len(vec) == 2 else vec[side]


@dataclass(frozen=True, slots=True)
class StepAnalysis:
    """One step of a replay under best play: the position after the first ``step`` events."""

    step: int
    deal: int | None
    to_move: int | None
    best: Outcome | None              # best play from here (None: no deal in play, or unsolved)
    options: tuple[Option, ...] = ()  # every legal move with its outcome, when there is a choice
    played: str | None = None         # the recorded move made from here (event ``step``)
    lost: int | None = None           # what that move cost its side
    note: str | None = None
    note_phrases: tuple[Phrase, ...] = ()  # ``note`` in any language

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step, "deal": self.deal, "to_move": self.to_move,
            "best": None if self.best is None else list(self.best),
            "options": [{"move": str(o.move), "outcome": list(o.outcome)} for o in self.options],
            "played": self.played, "lost": self.lost, "note": self.note,
        }


def analyse_step(rules: Rules, events: Sequence[Event | None], step: int,
                 solvers: dict[int, DealSolver] | None = None) -> StepAnalysis:
    """Best play at one replay step (after the first ``step`` events).

    ``solvers`` (the caller keeps it, keyed by the index of a deal's ``deal`` event)
    lets the steps of one deal share one solver and its tables.
    """
    rebuilt, _ = rebuild_hands(list(events))
    if not 0 <= step <= len(rebuilt):
        raise ValueError(f"step {step} is outside the match (0 to {len(rebuilt)})")
    walk = Walk(rules, rebuilt, stop=step)
    st = walk.state
    deal_at: int | None = None
    start: State | None = None
    for w in walk:
        i, ev = w.index, w.event
        if ev is None:
            return _noted(StepAnalysis(step, None, None, None),
                          Phrase("event {event} cannot be read", event=i))
        if not w.readable:
            return _noted(StepAnalysis(step, None, None, None), _said(w.findings[-1]))
        if isinstance(ev, Dealt) and not st.redeal_due:
            deal_at = i
            if rules.draws and rules.stock_size and st.stock is None:
                stock = stock_from_draws(st, rebuilt, i)
                if stock is not None:
                    st.stock = stock
            start = st.copy()
    deal = st.deal if st.deal >= 0 else None
    if start is None or deal_at is None or st.phase != "playing":
        return _noted(StepAnalysis(step, deal, st.to_move, None),
                      Phrase("no deal is being played here"))
    cache = solvers if solvers is not None else {}
    try:
        solver = cache.get(deal_at) or cache.setdefault(deal_at, DealSolver(start))
        best = solver.outcome(st)
        moves = legal_moves(st)
        options = tuple(solver.options(st)) if len(moves) > 1 else ()
    except NotAnalysable as exc:
        return _noted(StepAnalysis(step, deal, st.to_move, None), solver_reason(exc))
    played = lost = None
    nxt = rebuilt[step] if step < len(rebuilt) else None
    if isinstance(nxt, MOVE_EVENTS):
        move = recorded_move(st, nxt)
        if move is not None:
            played = str(move)
            lost = 0
            if options and st.to_move is not None:
                side = rules.side_of(st.to_move)
                mine = next(o.outcome for o in options if o.move == move)
                lost = worth(rules, best, side) - worth(rules, mine, side)
    return StepAnalysis(step, deal, st.to_move, best, options, played, lost)


def _noted(at: StepAnalysis, note: Phrase) -> StepAnalysis:
    return replace(at, note=str(note), note_phrases=(note,))


class DealAnalyser:
    """One deal, one position at a time (for a replay that asks step by step).

    ``start`` is the engine state just after the deal's ``deal`` event. Positions are
    engine states of that deal; all share one transposition table.
    """

    def __init__(self, start: State) -> None:
        self.solver = DealSolver(start)
        self.rules = start.rules

    def outcome(self, st: State) -> Outcome:
        return self.solver.outcome(st)

    def options(self, st: State) -> list[Option]:
        return self.solver.options(st)

    def lost(self, st: State, move: Move) -> int:
        """The points ``move`` at ``st`` costs the side to move against best play."""
        seat = st.to_move
        assert seat is not None
        options = self.solver.options(st)
        best = self.solver.best_of(st, options)
        played = next(o.outcome for o in options if o.move == move)
        side = self.rules.side_of(seat)
        return worth(self.rules, best, side) - worth(self.rules, played, side)
