"""Folding to a step: the table after ``step`` recorded events, as one viewer sees it
(``frame``), from the start of the match or of the deal's ``Snapshot``."""

from __future__ import annotations

from ledger.engine.board import fitting_ends, fives_count
from ledger.engine.state import CLOSED, END_NAMES, State
from ledger.events import (
    Dealt,
    Event,
    HandsRevealed,
    Played,
)
from ledger.findings import Finding
from ledger.replay.frames import (
    Board,
    Box,
    Frame,
    HandView,
    PlacedTile,
    SeatOutOfRange,
    StepOutOfRange,
)
from ledger.replay.geometry import MIN_BOX, Layout
from ledger.replay.window import ReplayMatch, Snapshot, deal_span
from ledger.replay.wording import result_text
from ledger.seatview import EVERYONE, Viewer, sight
from ledger.tiles import Tile, tiles_of
from ledger.walk import Walk, Walked


class _Fold:
    """The replay's visitor of the walk: lays each played tile out as the walk folds it."""

    def __init__(self) -> None:
        self.layout = Layout()
        self.reveal: HandsRevealed | None = None
        self.placed: tuple[Tile, int, int] | None = None

    def before(self, st: State, ev: Event, index: int) -> None:
        self.placed = None
        if isinstance(ev, Played) and st.phase == "playing":
            if st.table == 0:
                self.placed = (ev.tile, -1, ev.tile.low if ev.reversed else ev.tile.high)
                return
            fits = fitting_ends(st, ev.tile)
            if ev.end is not None:
                end = END_NAMES.index(ev.end)
            elif fits:
                end = fits[0]  # what the fold does when the record names no end
            else:
                end = -1
            if end >= 0 and st.ends[end] != CLOSED:
                self.placed = (ev.tile, end, st.ends[end])

    def after(self, walked: Walked) -> None:
        ev = walked.event
        if isinstance(ev, Dealt):
            self.layout = Layout()
            self.reveal = None
        elif isinstance(ev, HandsRevealed):
            self.reveal = ev
        if self.placed is not None:
            tile, end, number = self.placed
            if end < 0:
                self.layout.open(tile, number, walked.index + 1)
            else:
                self.layout.lay(tile, END_NAMES[end], number, walked.index + 1)


def frame(match: ReplayMatch, step: int, seat: int | None = None,
          snapshot: Snapshot | None = None, viewer: Viewer | None = None) -> Frame:
    """The table at ``step`` as ``seat`` saw it (``None``: every hand face up).

    ``viewer``, when given, says whose view it is instead of ``seat`` (the spectator's
    included: every hand face down). ``snapshot`` is the state before some event at or
    before the deal on the table at ``step``; the fold starts there instead of at the
    first event.
    """
    viewer = viewer or (EVERYONE if seat is None else Viewer.of_seat(seat))
    seat = viewer.seat
    if not 0 <= step <= match.last_step:
        raise StepOutOfRange(step, match.last_step)
    if seat is not None and not 0 <= seat < match.rules.seats:
        raise SeatOutOfRange(seat, match.rules.seats)
    start, stop = match.deal_span(step) if step else (0, 0)
    # A snapshot helps when it lies in this deal's reach: before its deal event, or
    # just after it (nothing is on the table yet, so the layout starts empty there).
    first = 0
    from_state: State | None = None
    if snapshot is not None and snapshot.index <= min(step, start + 1):
        from_state, first = snapshot.state, snapshot.index
    if match.window is not None and stop > first and not (
            match.window[0] <= first and stop <= match.window[1]):
        raise ValueError(f"step {step} needs events {first} to {stop - 1}, but only "
                         f"{match.window[0]} to {match.window[1] - 1} are loaded")
    fold = _Fold()
    walk = Walk(match.rules, match.events, from_state, first, max(stop, first),
                visitors=(fold,))
    at_step: State | None = walk.state.copy() if step == first else None
    reveal: HandsRevealed | None = None
    found: tuple[Finding, ...] = ()
    for w in walk:
        if w.index == step - 1:
            at_step, reveal, found = w.state.copy(), fold.reveal, w.findings
    stopped = walk.stopped_at if walk.stopped_at is None or walk.stopped_at < step else None
    if at_step is None:  # the walk stopped before the step (an unreadable record)
        at_step, reveal = walk.state.copy(), fold.reveal
    # Tiles laid after this step stay off the board; the box is the whole deal's.
    tiles = tuple(t for t in fold.layout.tiles if t.step <= step)
    board = _board(at_step, tiles, fold.layout.box() if fold.layout.tiles else MIN_BOX)
    event = step - 1 if step > 0 else None
    # The audit's findings when the match comes with them (they include the reader's).
    findings = (tuple(f for f in match.findings if event is not None and f.event == event)
                if match.findings else tuple(found))
    # A fold stopped before the step leaves the table of the deal it stopped in.
    seen = sight(viewer, step, match.events, start,
                 None if stopped is None or stopped >= step
                 else deal_span(match.types, max(stopped, 1))[0])
    st = at_step
    result = result_text(match, st)
    return Frame(
        step=step,
        last_step=match.last_step,
        event=event,
        deal=st.deal + 1,
        phase=st.phase,
        board=board,
        hands=_hands(match, st, viewer, reveal),
        perspective=seat,
        stock=st.stock_left if match.rules.stock_size and match.rules.draws else None,
        stock_tiles=(tuple(str(t) for t in st.stock[st.stock_pos:])
                     if viewer.everyone and st.stock is not None and st.phase != "waiting"
                     else None),
        turn=st.to_move if st.phase == "playing" else None,
        scores=tuple(st.scores),
        in_deal=tuple(st.in_deal),
        teams=match.rules.teams,
        deal_steps=tuple(match.deal_starts()),
        readable=stopped is None or step <= stopped,
        stopped_at=stopped,
        findings=seen.findings(findings),
        result=None if result is None else str(result),
        result_phrase=result,
        viewer=viewer,
        sight=seen,
    )


def _board(st: State, tiles: tuple[PlacedTile, ...], box: Box) -> Board:
    on_table = st.table != 0 and st.phase != "waiting"
    return Board(
        tiles=tiles if on_table else (),
        box=box if on_table else MIN_BOX,
        ends=tuple(st.open_ends()) if on_table else (),
        spinner=st.spinner if on_table and st.spinner != CLOSED else None,
        fives=fives_count(st) if on_table and st.rules.fives else None,
    )


def _sorted(tiles: list[Tile]) -> tuple[str, ...]:
    return tuple(str(t) for t in sorted(tiles, key=lambda t: (t.high, t.low), reverse=True))


def _hands(match: ReplayMatch, st: State, viewer: Viewer,
           reveal: HandsRevealed | None) -> tuple[HandView, ...]:
    rules = match.rules
    views = []
    for s in range(rules.seats):
        held = tiles_of(st.hands[s])
        unseen = st.hidden[s]
        shown: tuple[str, ...]
        seen: tuple[str, ...]
        if viewer.sees_hand(s):
            shown, hidden, seen = _sorted(held), unseen, ()
        else:
            shown, hidden = (), len(held) + unseen
            seen_tiles = reveal.hands[s] if reveal is not None and s < len(reveal.hands) else None
            seen = _sorted(list(seen_tiles)) if seen_tiles else ()
        views.append(HandView(
            seat=s,
            name=match.seats[s] if s < len(match.seats) else f"seat {s}",
            side=rules.side_of(s),
            tiles=shown,
            hidden=hidden,
            seen=seen,
            pips=sum(Tile.parse(t).pips for t in shown) if not hidden else None,
            bot=bool(st.bots >> s & 1),
            to_move=st.phase == "playing" and st.to_move == s,
            leader=st.phase != "waiting" and st.leader == s,
        ))
    return tuple(views)
