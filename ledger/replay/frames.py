"""What a frame holds: the tiles laid out, the board, the hands as one viewer sees
them, and the steps and seats that do not exist."""

from __future__ import annotations

from dataclasses import dataclass

from ledger.findings import Finding
from ledger.i18n.phrases import Phrase
from ledger.seatview import EVERYONE, Sight, Viewer

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
