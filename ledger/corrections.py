"""Corrections: an ``undo`` event takes back the last event that stands.

The ledger is append-only, so a slip at the table is never erased. The
recorder appends ``{"type": "undo", "event": N}`` instead, which takes back
event N, the last event standing. The history keeps both; whatever reads the
match as it was played (the fold, the replay, the score sheet, the exports)
reads the *corrected line*: the recorded events without the undone ones and
without the undos.

Numbering follows the corrected line. Undoing event N leaves events 0 to N-1
standing, so the next event is event N again. The store numbers its rows this
way, so a finding's event number, a replay step and an exported file count the
same events. An undo may follow an undo: each takes back the event before.

``undo`` is an event type the project adds to domino-match/1 (the format
allows it). Files written for other tools carry the corrected line only.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from ledger.events import Event

UNDO = "undo"

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Undo(Event):
    """A correction: event ``event`` (the last one standing) did not happen."""

    TYPE: ClassVar[str] = UNDO
    event: int


class CorrectionError(ValueError):
    """An undo that names anything but the last event standing."""

    code = "bad-undo"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def is_undo(item: object) -> bool:
    """An undo, as a domain event or a wire object."""
    if isinstance(item, Undo):
        return True
    return isinstance(item, Mapping) and item.get("type") == UNDO


def parse_undo(obj: Mapping[str, Any], standing: int) -> Undo:
    """The undo of a wire object, checked against the number of events standing."""
    target = obj.get("event")
    if type(target) is not int:
        raise CorrectionError(f"an undo names the event it takes back by its number, not "
                              f"{target!r}")
    at = obj.get("at")
    if at is not None and not isinstance(at, str):
        raise CorrectionError("at must be an ISO 8601 string")
    check_undo(target, standing)
    return Undo(event=target, at=at)


def check_undo(target: int, standing: int) -> None:
    """Only the last event standing can be taken back (the ledger keeps the rest as played)."""
    if standing == 0:
        raise CorrectionError("there is no event to undo")
    if target != standing - 1:
        raise CorrectionError(f"only the last event can be undone: that is event "
                              f"{standing - 1}, not event {target}")


def undo_target(item: object) -> int:
    if isinstance(item, Undo):
        return item.event
    assert isinstance(item, Mapping)
    target = item.get("event")
    if type(target) is not int:
        raise CorrectionError(f"an undo names the event it takes back by its number, not "
                              f"{target!r}")
    return target


def corrected_line(events: Iterable[T]) -> list[T]:
    """The events of a record in order (domain events or wire objects), undos applied.

    Each undo must name the last event standing, numbered along the corrected
    line so far; anything else raises ``CorrectionError``.
    """
    line: list[T] = []
    for i, ev in enumerate(events):
        if is_undo(ev):
            try:
                check_undo(undo_target(ev), len(line))
            except CorrectionError as exc:
                raise CorrectionError(f"event {i} of the history: {exc.message}") from None
            line.pop()
        else:
            line.append(ev)
    return line


def standing(rows: Sequence[T], index: Callable[[T], int],
             undo: Callable[[T], bool]) -> list[T]:
    """The rows of a stored history (in sequence order) that stand.

    ``index`` gives a row's event number (a derived row carries the number of
    the event it follows from) and ``undo`` whether the row is an undo, whose
    event number is the event it takes back. A row stands unless it is an undo
    or a later undo takes back its event or one before it: an undo of event k
    can only come once every event after k is already taken back. Rows
    recorded and derived alike, or any subset read in order, filter the same.
    """
    keep: list[T] = []
    lowest: int | None = None  # the lowest event an undo after this row takes back
    for row in reversed(rows):
        if undo(row):
            k = index(row)
            lowest = k if lowest is None else min(lowest, k)
        elif lowest is None or index(row) < lowest:
            keep.append(row)
    keep.reverse()
    return keep


def standing_rows(rows: Sequence[Any]) -> list[Any]:
    """``standing`` for store rows (``recorded_index``, ``kind``, ``type`` attributes).

    Only a row stored as recorded is an undo: one the reader could not parse (an
    imported file's, kept verbatim as ``unread``) corrects nothing.
    """
    return standing(rows, lambda r: int(r.recorded_index),
                    lambda r: r.type == UNDO and r.kind == "recorded")


def standing_dicts(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """``standing`` for the event rows the store's queries give (``event``, ``type``)."""
    return standing(rows, lambda r: int(r["event"]),
                    lambda r: r["type"] == UNDO and r["kind"] == "recorded")
