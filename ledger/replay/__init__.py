"""Replay: the table after each step of a match, as data ready to draw.

Step ``n`` is the table after the first ``n`` recorded events (step 0: before
anything happened; the last step: after the last event), so event ``n - 1`` is
the one just done. A frame holds the line of tiles laid out for drawing (every
tile with its place and which way it lies), the open ends, the Fives count,
the hands as one perspective sees them, the stock, whose turn it is and the
scores. ``labels`` turns the whole record into one readable line per event.

Every line of text is also a ``Phrase`` (``phrase``, ``result_phrase``...), so
a page words it in its reader's language; ``text`` is the English.

The package holds, one module each: the match as the replay reads it (``window``),
what a frame holds (``frames``), the tiles' layout (``geometry``), the fold to a step
(``fold``) and the replay in words (``wording``); their public names are here.

Pure: no I/O. A frame folds the events of one deal only when it is given the
state at the start of that deal (``Snapshot``); without one it folds from the
start of the match, which gives the same frame.
"""

from __future__ import annotations

from ledger.replay.fold import frame
from ledger.replay.frames import (
    Board,
    Box,
    Frame,
    HandView,
    PlacedTile,
    SeatOutOfRange,
    StepOutOfRange,
)
from ledger.replay.window import ReplayMatch, Snapshot, deal_span
from ledger.replay.wording import DealLine, EventLabel, deal_ends, deals, labels

__all__ = ["Board", "Box", "DealLine", "EventLabel", "Frame", "HandView", "PlacedTile",
           "ReplayMatch", "SeatOutOfRange", "Snapshot", "StepOutOfRange", "deal_span",
           "deal_ends", "deals", "frame", "labels"]
