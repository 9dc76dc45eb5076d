"""Replay: the table after each step of a match, as data ready to draw.

Step ``n`` is the table after the first ``n`` recorded events (step 0: before
anything happened; the last step: after the last event), so event ``n - 1`` is
the one just done. A frame holds the line of tiles laid out for drawing (every
tile with its place and which way it lies), the open ends, the Fives count,
the hands as one perspective sees them, the stock, whose turn it is and the
scores. ``labels`` turns the whole record into one readable line per event.

Every line of text is also a ``Phrase`` (``phrase``, ``result_phrase``...), so
a page words it in its reader's language; ``text`` is the English.

Pure: no I/O. A frame folds the events of one deal only when it is given the
state at the start of that deal (``Snapshot``); without one it folds from the
start of the match, which gives the same frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ledger.engine.board import fitting_ends, fives_count
from ledger.engine.fold import advance
from ledger.engine.state import CLOSED, END_NAMES, State
from ledger.events import (
    Abandoned,
    BlockClaimed,
    BlockDetected,
    BotSeated,
    DealEndClaimed,
    DealScored,
    Dealt,
    DrawAgreed,
    Drew,
    Event,
    FivesScored,
    HandsRevealed,
    MatchEndClaimed,
    MatchEnded,
    Passed,
    Played,
    Resigned,
)
from ledger.findings import Finding, Unreadable
from ledger.formats.partial import rebuild_hands
from ledger.i18n.phrases import Phrase
from ledger.rules.base import Rules
from ledger.seatview import EVERYONE, Sight, Viewer, as_seen, sight
from ledger.tiles import Tile, tiles_of

# --- the match as the replay reads it ------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReplayMatch:
    """A recorded match: its table, its players and its events (``None``: unreadable).

    A match may come with only some of its events loaded (``window``: the events
    ``[start, stop)``, whole deals; ``None`` outside it): enough for the frames of
    those deals when the fold can start at a snapshot. ``types`` then still names
    every event, so steps and deals are counted right.
    """

    rules: Rules
    seats: tuple[str, ...]
    events: tuple[Event | None, ...]
    findings: tuple[Finding, ...] = ()
    # Per recorded event, what the rules derived from it (as the audit keeps them);
    # empty when unknown: the labels then leave the derived part out.
    derived: tuple[tuple[Event, ...], ...] = ()
    types: tuple[str, ...] = ()    # each event's wire type ("" unreadable); default: read off
    window: tuple[int, int] | None = None   # the events loaded; None: all of them

    def __post_init__(self) -> None:
        if not self.types:
            object.__setattr__(self, "types", tuple(
                ev.TYPE if ev is not None else "" for ev in self.events))

    @staticmethod
    def of(rules: Rules, seats: Sequence[str], events: Sequence[Event | None],
           findings: Sequence[Finding] = (),
           derived: Sequence[Sequence[Event]] = ()) -> ReplayMatch:
        # Partial records: show every hand the importer can work out, as the audit does.
        rebuilt, _ = rebuild_hands(list(events))
        return ReplayMatch(rules, tuple(seats), tuple(rebuilt), tuple(findings),
                           tuple(tuple(d) for d in derived))

    @staticmethod
    def windowed(rules: Rules, seats: Sequence[str], types: Sequence[str], start: int,
                 loaded: Sequence[Event | None], findings: Sequence[Finding] = (),
                 derived: Sequence[Sequence[Event]] = ()) -> ReplayMatch:
        """Only the events ``loaded`` from index ``start`` on: whole deals, hands rebuilt."""
        rebuilt, _ = rebuild_hands(list(loaded))
        stop = start + len(rebuilt)
        events: list[Event | None] = [None] * len(types)
        events[start:stop] = rebuilt
        return ReplayMatch(rules, tuple(seats), tuple(events), tuple(findings),
                           tuple(tuple(d) for d in derived), tuple(types), (start, stop))

    @property
    def last_step(self) -> int:
        return len(self.types)

    def deal_starts(self) -> list[int]:
        """The step at which each deal (a redeal included) has just been dealt."""
        return [i + 1 for i, t in enumerate(self.types) if t == "deal"]

    def deal_span(self, step: int) -> tuple[int, int]:
        return deal_span(self.types, step)


def deal_span(types: Sequence[str], step: int) -> tuple[int, int]:
    """Event indexes ``[start, stop)`` of the deal on the table at ``step``.

    ``types`` are the events' wire types. ``start`` is the deal's deal event (0
    before the first deal), ``stop`` the next deal event or the end of the record.
    """
    start = 0
    for i in range(min(step, len(types)) - 1, -1, -1):
        if types[i] == "deal":
            start = i
            break
    stop = len(types)
    for i in range(max(step, start + 1), len(types)):
        if types[i] == "deal":
            stop = i
            break
    return start, stop


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The state just before recorded event ``index``.

    The store keeps one per deal, taken just after the deal event; one taken before
    the deal event does as well.
    """

    index: int
    state: State


# --- what a frame holds ----------------------------------------------------------------

# The board is laid out in half-tile units: a tile is 2 long and 1 wide. The line
# starts at (0, 0); the left arm snakes up and to the left, the right arm down and
# to the right, and a Fives spinner's up and down arms take the other two corners,
# so that no arm ever runs into another.


@dataclass(frozen=True, slots=True)
class PlacedTile:
    tile: str
    x: float          # top left corner, half-tile units
    y: float
    vertical: bool    # the long side runs up and down
    first: int        # the number on the left half (top half when vertical)
    second: int       # the number on the right half (bottom half when vertical)
    arm: str          # "open" for the opening tile, else the end it was laid on
    step: int         # the step at which it was laid

    @property
    def width(self) -> int:
        return 1 if self.vertical else 2

    @property
    def height(self) -> int:
        return 2 if self.vertical else 1

    @property
    def is_double(self) -> bool:
        return self.first == self.second


@dataclass(frozen=True, slots=True)
class Box:
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True, slots=True)
class Board:
    tiles: tuple[PlacedTile, ...]
    box: Box                             # the same for every step of one deal
    ends: tuple[tuple[str, int], ...]    # open ends: ("left", 3), ...
    spinner: int | None                  # the Fives spinner's number, once laid
    fives: int | None                    # the Fives count of the open ends (Fives only)


@dataclass(frozen=True, slots=True)
class HandView:
    seat: int
    name: str
    side: int
    tiles: tuple[str, ...]     # tiles face up (the seat's own, or all when all are open)
    hidden: int                # tiles face down
    seen: tuple[str, ...]      # of the face-down ones, those this seat saw shown
    pips: int | None           # pips of the face-up tiles when nothing is face down
    bot: bool
    to_move: bool
    leader: bool


@dataclass(frozen=True, slots=True)
class Frame:
    step: int
    last_step: int
    event: int | None          # index of the event just done (None at step 0)
    deal: int                  # 1-based number of the deal on the table (0: none yet)
    phase: str                 # waiting, playing, over, ended
    board: Board
    hands: tuple[HandView, ...]
    perspective: int | None    # the seat whose view this is; None: all hands open
    stock: int | None          # tiles left to draw (None: this table has no stock)
    stock_tiles: tuple[str, ...] | None   # shown only with all hands open, when recorded
    turn: int | None
    scores: tuple[int, ...]
    in_deal: tuple[int, ...]   # Fives points scored during this deal, per side
    teams: bool
    deal_steps: tuple[int, ...]           # the first step of every deal
    readable: bool             # False: the record cannot be read up to this step
    stopped_at: int | None     # the event where the fold stopped, if it did
    findings: tuple[Finding, ...]         # findings of the event just done
    result: str | None         # how the deal (or the match) ended, once it has
    result_phrase: Phrase | None = None   # ``result`` in any language
    viewer: Viewer = EVERYONE  # whose view: a seat, the table only, or all hands
    sight: Sight | None = None  # the tiles the viewer had seen in this deal by this step

    @property
    def prev_deal_step(self) -> int | None:
        before = [s for s in self.deal_steps if s < self.step]
        return before[-1] if before else None

    @property
    def next_deal_step(self) -> int | None:
        return next((s for s in self.deal_steps if s > self.step), None)


class StepOutOfRange(ValueError):
    def __init__(self, step: int, last: int) -> None:
        super().__init__(f"step {step} does not exist: this match has steps 0 to {last}")
        self.step = step
        self.last = last


class SeatOutOfRange(ValueError):
    def __init__(self, seat: int, seats: int) -> None:
        super().__init__(f"seat {seat} does not exist: this match has seats 0 to {seats - 1}")
        self.seat = seat
        self.seats = seats


# --- laying the line out ---------------------------------------------------------------

_DIR = {"right": (1, 0), "left": (-1, 0), "up": (0, -1), "down": (0, 1)}
ROW = 10.0       # how far from the centre a row may reach before it turns
INNER = 1.5      # rows coming back stop this far from the centre line (clear of up/down)
COLUMN = 5.0     # how far the spinner's up and down arms go before they turn
CONNECT = 2.0    # the length of the short leg between two rows
MIN_BOX = Box(-9.0, -4.0, 18.0, 8.0)
PAD = 0.5

# Each arm follows a path of legs: ("row"/"col", direction, bound) runs until a
# tile would pass ``bound`` on its axis; ("link", direction, 0) runs CONNECT long.
Leg = tuple[str, str, float]


def _zigzag(out: str, turn: str, back_bound: float, out_bound: float) -> list[Leg]:
    back = {"right": "left", "left": "right", "up": "down", "down": "up"}[out]
    return [("row", out, out_bound), ("link", turn, 0.0), ("row", back, back_bound),
            ("link", turn, 0.0)]


_PATHS: dict[str, list[Leg]] = {
    "right": _zigzag("right", "down", INNER, ROW),
    "left": _zigzag("left", "up", -INNER, -ROW),
    "up": [("col", "up", -COLUMN), *_zigzag("right", "up", INNER, ROW)],
    "down": [("col", "down", COLUMN), *_zigzag("left", "down", -INNER, -ROW)],
}


class _Arm:
    """One arm of the line: where the next tile goes and which way the line runs."""

    def __init__(self, name: str, x: float, y: float, half_width: float) -> None:
        self.name = name
        self.x, self.y = x, y
        self.leg = 0
        self.run = 0.0                 # length laid on the current leg
        self.half_width = half_width   # of the last tile, across the line

    def _legs(self, k: int) -> Leg:
        path = _PATHS[self.name]
        if k < len(path):
            return path[k]
        first = 1 if self.name in ("up", "down") else 0
        cycle = path[first:]
        return cycle[(k - first) % len(cycle)]

    def _fits(self, leg: Leg, length: float) -> bool:
        kind, direction, bound = leg
        if self.run == 0:
            return True  # every leg takes at least one tile
        if kind == "link":
            return self.run < CONNECT
        dx, dy = _DIR[direction]
        end = self.x + dx * length if dx else self.y + dy * length
        return end <= bound if (dx > 0 or dy > 0) else end >= bound

    def lay(self, tile: Tile, match: int, step: int) -> PlacedTile:
        length = 1.0 if tile.is_double else 2.0
        leg = self._legs(self.leg)
        if not self._fits(leg, length):
            dx, dy = _DIR[leg[1]]
            self.leg += 1
            leg = self._legs(self.leg)
            nx, ny = _DIR[leg[1]]
            # The corner: step back half a tile-width and out to the edge of the last
            # tile, so that the new tile's first half touches the last one's open half.
            self.x += -0.5 * dx + self.half_width * nx
            self.y += -0.5 * dy + self.half_width * ny
            self.run = 0.0
        dx, dy = _DIR[leg[1]]
        horizontal_line = dx != 0
        across = 2.0 if tile.is_double else 1.0
        along = length
        other = tile.other(match)
        if horizontal_line:
            x0 = self.x if dx > 0 else self.x - along
            y0 = self.y - across / 2
            vertical = tile.is_double
            first, second = (match, other) if dx > 0 else (other, match)
        else:
            x0 = self.x - across / 2
            y0 = self.y if dy > 0 else self.y - along
            vertical = not tile.is_double
            first, second = (match, other) if dy > 0 else (other, match)
        self.x += dx * along
        self.y += dy * along
        self.run += along
        self.half_width = across / 2
        return PlacedTile(str(tile), x0, y0, vertical, first, second, self.name, step)


class _Layout:
    """The line of one deal, laid tile by tile as the plays come."""

    def __init__(self) -> None:
        self.tiles: list[PlacedTile] = []
        self.arms: dict[str, _Arm] = {}

    def open(self, tile: Tile, first: int, step: int) -> None:
        if tile.is_double:
            placed = PlacedTile(str(tile), -0.5, -1.0, True, first, first, "open", step)
            half_along, half_side = 0.5, 1.0
        else:
            placed = PlacedTile(str(tile), -1.0, -0.5, False, first, tile.other(first),
                                "open", step)
            half_along, half_side = 1.0, 0.5
        self.tiles.append(placed)
        self.arms = {
            "left": _Arm("left", -half_along, 0.0, half_side),
            "right": _Arm("right", half_along, 0.0, half_side),
            "up": _Arm("up", 0.0, -1.0, 0.5),
            "down": _Arm("down", 0.0, 1.0, 0.5),
        }

    def lay(self, tile: Tile, end: str, match: int, step: int) -> None:
        self.tiles.append(self.arms[end].lay(tile, match, step))

    def box(self) -> Box:
        """Around every tile, centred on them, and never smaller than ``MIN_BOX``."""
        if not self.tiles:
            return MIN_BOX
        x0 = min(t.x for t in self.tiles) - PAD
        y0 = min(t.y for t in self.tiles) - PAD
        x1 = max(t.x + t.width for t in self.tiles) + PAD
        y1 = max(t.y + t.height for t in self.tiles) + PAD
        w, h = max(x1 - x0, MIN_BOX.width), max(y1 - y0, MIN_BOX.height)
        return Box((x0 + x1 - w) / 2, (y0 + y1 - h) / 2, w, h)


# --- folding to a step ---------------------------------------------------------------


@dataclass
class _Fold:
    state: State
    layout: _Layout = field(default_factory=_Layout)
    stopped_at: int | None = None
    findings: list[Finding] = field(default_factory=list)
    reveal: HandsRevealed | None = None


def _apply(fold: _Fold, ev: Event | None, index: int) -> list[Finding]:
    """Fold one event, laying its tile out; the findings it raised."""
    found: list[Finding] = []
    if ev is None or fold.stopped_at is not None:
        return found
    st = fold.state
    placed: tuple[Tile, int, int] | None = None
    if isinstance(ev, Played) and st.phase == "playing":
        if st.table == 0:
            placed = (ev.tile, -1, ev.tile.low if ev.reversed else ev.tile.high)
        else:
            fits = fitting_ends(st, ev.tile)
            if ev.end is not None:
                end = END_NAMES.index(ev.end)
            elif fits:
                end = fits[0]  # what the fold does when the record names no end
            else:
                end = -1
            if end >= 0 and st.ends[end] != CLOSED:
                placed = (ev.tile, end, st.ends[end])
    out: list[Event] = []
    try:
        advance(st, ev, index, out, found)
    except Unreadable as stop:
        found.append(stop.finding)
        fold.stopped_at = index
        return found
    if isinstance(ev, Dealt):
        fold.layout = _Layout()
        fold.reveal = None
    elif isinstance(ev, HandsRevealed):
        fold.reveal = ev
    if placed is not None:
        tile, end, number = placed
        if end < 0:
            fold.layout.open(tile, number, index + 1)
        else:
            fold.layout.lay(tile, END_NAMES[end], number, index + 1)
    return found


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
    if snapshot is not None and snapshot.index <= min(step, start + 1):
        fold = _Fold(snapshot.state.copy())
        first = snapshot.index
    else:
        fold = _Fold(State(match.rules))
        first = 0
    at_step: State | None = fold.state.copy() if step == first else None
    reveal: HandsRevealed | None = None
    stopped: int | None = None
    found: list[Finding] = []
    if match.window is not None and stop > first and not (
            match.window[0] <= first and stop <= match.window[1]):
        raise ValueError(f"step {step} needs events {first} to {stop - 1}, but only "
                         f"{match.window[0]} to {match.window[1] - 1} are loaded")
    for i in range(first, stop):
        got = _apply(fold, match.events[i], i)
        if i == step - 1:
            at_step = fold.state.copy()
            reveal = fold.reveal
            stopped = fold.stopped_at
            found = got
    if at_step is None:  # the fold stopped before the step (an unreadable record)
        at_step = fold.state.copy()
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
    result = _result_text(match, st)
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


def _side_name(match: ReplayMatch, side: int) -> str | Phrase:
    rules = match.rules
    names = [match.seats[s] for s in rules.side_seats(side) if s < len(match.seats)]
    return " & ".join(names) if names else Phrase("side {index}", index=side)


def _seat_name(match: ReplayMatch, seat: int | None) -> str | Phrase:
    if seat is None:
        return Phrase("nobody")
    return match.seats[seat] if 0 <= seat < len(match.seats) else Phrase("seat {seat}",
                                                                           seat=seat)


def _gain(points: int) -> str:
    # "+12" as one piece: the sign stays with its number in a right-to-left sentence.
    return f"+{points}"


def _scores(scores: Sequence[int]) -> str:
    return "–".join(map(str, scores))


def _result_text(match: ReplayMatch, st: State) -> Phrase | None:
    if st.phase == "ended":
        if st.winner is None:
            if st.end_reason == "abandon":
                return Phrase("Match abandoned")
            if st.end_reason == "agree_draw":
                return Phrase("Match drawn by agreement")
            return Phrase("Match over with no winner")
        side = match.rules.side_of(st.winner)
        return Phrase("Match won by {name}", name=_side_name(match, side))
    if st.phase == "over" and st.last_result is not None and not st.pending:
        r = st.last_result
        if r.winner is None:
            return Phrase("Deal {deal} blocked: a tie, nobody scores", deal=st.deal + 1)
        name = _seat_name(match, r.winner)
        what = (Phrase("{name} went out, {gain}", name=name, gain=_gain(r.points))
                if r.result == "out" else
                Phrase("{name} won the block, {gain}", name=name, gain=_gain(r.points)))
        return Phrase("Deal {deal}: {what}", deal=st.deal + 1, what=what)
    if st.phase == "over":
        return Phrase("Deal {deal} is over ({result})", deal=st.deal + 1, result=st.over)
    return None


# --- the event list ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EventLabel:
    index: int
    step: int                      # the step that shows the table after this event
    type: str
    deal: int                      # 1-based deal number (0: before the first deal)
    seat: int | None
    text: str
    notes: tuple[str, ...]         # what the rules derived from it
    severity: str | None           # the worst finding at this event
    findings: tuple[Finding, ...]
    deal_result: str | None = None  # the deal's result, on the event that ended it
    phrase: Phrase | None = None   # ``text`` in any language
    note_phrases: tuple[Phrase, ...] = ()


def _deal_numbers(types: Sequence[str], stop: int) -> list[int]:
    """The 1-based deal of each of the first ``stop`` events (a redeal keeps its number)."""
    out: list[int] = []
    deal = 0
    prev_dealt = False
    for t in types[:stop]:
        if t == "deal":
            deal = deal if prev_dealt else deal + 1
        out.append(deal)
        if t:  # an unreadable event does not break a redeal's run
            prev_dealt = t == "deal"
    return out


def labels(match: ReplayMatch, start: int = 0, stop: int | None = None,
           seen: Sight | None = None) -> list[EventLabel]:
    """One line per recorded event (those ``[start, stop)``), with what the rules derived
    and what is wrong.

    ``seen``: as one viewer saw them (ledger.seatview): nothing after its step, another
    seat's drawn tile unnamed, no finding that names a tile it had not seen.
    """
    stop = len(match.types) if stop is None else min(stop, len(match.types))
    if seen is not None:
        stop = min(stop, seen.step)
    by_event: dict[int, list[Finding]] = {}
    for f in match.findings:
        if f.event is not None and start <= f.event < stop:
            by_event.setdefault(f.event, []).append(f)
    numbers = _deal_numbers(match.types, stop)
    out: list[EventLabel] = []
    for i in range(start, stop):
        ev = match.events[i] if seen is None else as_seen(match.events[i], i, seen)
        found = tuple(by_event.get(i, ()))
        if seen is not None:
            found = seen.findings(found)
        severity = ("error" if any(f.severity == "error" for f in found)
                    else "warning" if found else None)
        derived = match.derived[i] if i < len(match.derived) else ()
        redeal = ev is not None and i > 0 and isinstance(ev, Dealt) and numbers[i - 1] == numbers[i]
        phrase = (_event_text(match, ev, redeal) if ev is not None
                  else Phrase("(unreadable event)"))
        scored = [d for d in derived if isinstance(d, DealScored)]
        notes = tuple(n for n in (_derived_text(match, d) for d in derived) if n is not None)
        out.append(EventLabel(
            index=i, step=i + 1, type=ev.TYPE if ev is not None else "unreadable",
            deal=numbers[i], seat=getattr(ev, "seat", None), text=str(phrase),
            notes=tuple(str(n) for n in notes),
            severity=severity, findings=found,
            deal_result=str(_derived_text(match, scored[-1])) if scored else None,
            phrase=phrase, note_phrases=notes))
    return out


@dataclass(frozen=True, slots=True)
class DealLine:
    """One deal in the replay's list of deals: where it starts and how it ended."""

    deal: int          # 1-based; 0 for what comes before the first deal
    first_step: int    # the step just after its (first) deal event
    last_step: int
    result: str | None
    result_phrase: Phrase | None = None   # ``result`` in any language


def deals(match: ReplayMatch, upto: int | None = None) -> list[DealLine]:
    """Every deal of the record, from the events' types and the derived results only.

    ``upto``: only the deals begun by that step, each as it stood then (a viewer at a
    step has not seen how the deal on the table ends).
    """
    numbers = _deal_numbers(match.types, len(match.types) if upto is None
                            else min(upto, len(match.types)))
    out: list[DealLine] = []
    for i, n in enumerate(numbers):
        if not out or out[-1].deal != n:
            out.append(DealLine(n, i + 1, i + 1, None))
        line = out[-1]
        derived = match.derived[i] if i < len(match.derived) else ()
        scored = [d for d in derived if isinstance(d, DealScored)]
        phrase = _derived_text(match, scored[-1]) if scored else line.result_phrase
        out[-1] = DealLine(n, line.first_step, i + 1, None if phrase is None else str(phrase),
                           phrase)
    return out


def _tiles_text(hand: Sequence[Tile] | None) -> str | Phrase:
    if hand is None:
        return Phrase("hidden")
    return " ".join(str(t) for t in hand) if hand else Phrase("no tiles")


def _series(items: Sequence[Phrase]) -> Phrase | str:
    """ "a; b; c" (each a phrase of its own)."""
    if not items:
        return ""
    out = items[0]
    for item in items[1:]:
        out = Phrase("{a}; {b}", a=out, b=item)
    return out


def _event_text(match: ReplayMatch, ev: Event, redeal: bool) -> Phrase:
    def name(seat: int) -> str | Phrase:
        return _seat_name(match, seat)

    if isinstance(ev, Dealt):
        if ev.stock:
            return (Phrase("Reshuffled and dealt again, {count} in the stock",
                           count=len(ev.stock)) if redeal else
                    Phrase("Tiles dealt, {count} in the stock", count=len(ev.stock)))
        return Phrase("Reshuffled and dealt again") if redeal else Phrase("Tiles dealt")
    if isinstance(ev, Played):
        who, tile = name(ev.seat), str(ev.tile)
        if ev.end == "left":
            return Phrase("{name} plays {tile} on the left", name=who, tile=tile)
        if ev.end == "right":
            return Phrase("{name} plays {tile} on the right", name=who, tile=tile)
        if ev.end == "up":
            return Phrase("{name} plays {tile} on the spinner's up arm", name=who, tile=tile)
        if ev.end == "down":
            return Phrase("{name} plays {tile} on the spinner's down arm", name=who, tile=tile)
        return Phrase("{name} plays {tile}", name=who, tile=tile)
    if isinstance(ev, Drew):
        if ev.tile:
            return Phrase("{name} draws {tile}", name=name(ev.seat), tile=str(ev.tile))
        return Phrase("{name} draws a tile", name=name(ev.seat))
    if isinstance(ev, Passed):
        return Phrase("{name} passes", name=name(ev.seat))
    if isinstance(ev, BlockClaimed):
        return Phrase("Block claimed")
    if isinstance(ev, HandsRevealed):
        return Phrase("Hands shown: {hands}", hands=_series([
            Phrase("{name} {tiles}", name=name(s), tiles=_tiles_text(h))
            for s, h in enumerate(ev.hands)]))
    if isinstance(ev, DealEndClaimed):
        who = Phrase("no winner") if ev.winner is None else \
            Phrase("{name} wins", name=name(ev.winner))
        if ev.points is not None:
            return Phrase("Record: deal ends ({result}), {who} {points}", result=ev.result,
                          who=who, points=ev.points)
        return Phrase("Record: deal ends ({result}), {who}", result=ev.result, who=who)
    if isinstance(ev, BotSeated):
        return Phrase("A bot takes over {name}'s seat", name=name(ev.seat))
    if isinstance(ev, Resigned):
        return Phrase("{name} resigns", name=name(ev.seat))
    if isinstance(ev, Abandoned):
        if ev.reason:
            return Phrase("Match abandoned: {reason}", reason=ev.reason)
        return Phrase("Match abandoned")
    if isinstance(ev, DrawAgreed):
        return Phrase("Draw agreed")
    if isinstance(ev, MatchEndClaimed):
        who = Phrase("no winner") if ev.winner is None else \
            Phrase("{name} wins", name=name(ev.winner))
        if ev.scores:
            return Phrase("Record: match ends, {who} at {scores}", who=who,
                          scores=_scores(ev.scores))
        return Phrase("Record: match ends, {who}", who=who)
    return Phrase(ev.TYPE)  # an event type of its own: its wire name, never translated


def _derived_text(match: ReplayMatch, ev: Event) -> Phrase | None:
    if isinstance(ev, FivesScored):
        return Phrase("Fives: {name} {gain}", name=_seat_name(match, ev.seat),
                      gain=_gain(ev.points))
    if isinstance(ev, BlockDetected):
        return Phrase("Blocked: nobody can play")
    if isinstance(ev, DealScored):
        scores = _scores(ev.scores)
        if ev.winner is None:
            return Phrase("Deal {deal} tied, nobody scores ({scores})", deal=ev.deal + 1,
                          scores=scores)
        name = _seat_name(match, ev.winner)
        what = (Phrase("{name} goes out, {gain} ({scores})", name=name,
                       gain=_gain(ev.points), scores=scores) if ev.result == "out" else
                Phrase("{name} wins the block, {gain} ({scores})", name=name,
                       gain=_gain(ev.points), scores=scores))
        return Phrase("Deal {deal}: {what}", deal=ev.deal + 1, what=what)
    if isinstance(ev, MatchEnded):
        scores = _scores(ev.scores)
        if ev.winner is None:
            return Phrase("Match over, no winner ({scores})", scores=scores)
        side = match.rules.side_of(ev.winner)
        return Phrase("Match won by {name} ({scores})", name=_side_name(match, side),
                      scores=scores)
    return None


__all__ = [
    "Board", "Box", "DealLine", "EventLabel", "Frame", "HandView", "PlacedTile", "ReplayMatch",
    "SeatOutOfRange", "Snapshot", "StepOutOfRange", "deal_span", "deals", "frame", "labels",
]
