"""domino-match/1 objects <-> domain values: "cannot parse" lives here, never "not allowed"."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from operator import itemgetter
from typing import Any

from ledger.events import (
    ENDS,
    Abandoned,
    BlockClaimed,
    BotSeated,
    DealEndClaimed,
    Dealt,
    DrawAgreed,
    Drew,
    Event,
    HandsRevealed,
    MatchEndClaimed,
    Passed,
    Played,
    Resigned,
    new_dealt,
    new_revealed,
)
from ledger.formats import values
from ledger.i18n.phrases import Phrase, english
from ledger.tiles import TILE_BY_TEXT, Tile, TileError

FORMAT = "domino-match/1"
MAX_REASON = 2000  # characters of an abandonment's reason
RESULTS = ("out", "block", "tie")


class ParseError(ValueError):
    """A value of the file cannot be read; ``code`` is the finding code. ``template`` and
    ``params`` word the message in any language (ledger.i18n)."""

    def __init__(self, code: str, template: str, /, **params: object) -> None:
        message = english(template, params)
        super().__init__(message)
        self.code = code
        self.message = message
        self.template = template
        self.params = params

    def phrase(self) -> Phrase:
        return Phrase(self.template, None, **self.params)


@dataclass(frozen=True, slots=True)
class MatchHeader:
    preset: str   # the rules preset's id (the file's "table": {"rules": ...})
    options: dict[str, object]
    seats: tuple[str, ...]
    source: dict[str, object] | None = None
    started_at: str | None = None
    extra: dict[str, object] = field(default_factory=dict)


def parse_header(obj: object) -> MatchHeader:
    if not isinstance(obj, dict):
        raise ParseError("bad-format", "a match must be a JSON object, not {kind}",
                         kind=_kind(obj))
    fmt = obj.get("format")
    if fmt != FORMAT:
        raise ParseError("bad-format", "format is {value}; this reader reads {format}",
                         value=repr(fmt), format=repr(FORMAT))
    table = obj.get("table")
    if not isinstance(table, dict) or not isinstance(table.get("rules"), str):
        raise ParseError("bad-format", "table.rules must name a rules preset (a string)")
    options = table.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise ParseError("bad-format", "table.options must be an object")
    seats = obj.get("seats")
    if not isinstance(seats, list) or not seats or not all(isinstance(s, str) for s in seats):
        raise ParseError("bad-format", "seats must be a list of player names")
    source = obj.get("source")
    if source is not None and not isinstance(source, dict):
        raise ParseError("bad-format", "source must be an object")
    started = obj.get("started_at")
    if started is not None and not isinstance(started, str):
        raise ParseError("bad-format", "started_at must be an ISO 8601 string")
    if not isinstance(obj.get("events"), list):
        raise ParseError("bad-format", "events must be a list")
    _check_header(table["rules"], options, seats, source, started)
    return MatchHeader(table["rules"], dict(options), tuple(seats), source, started)


def _check_header(rules: str, options: dict[str, object], seats: list[str],
                  source: dict[str, object] | None, started: str | None) -> None:
    """What the ledger can store (``values``): every way in reads its header here."""
    if len(seats) > values.MAX_SEATS:
        raise ParseError("bad-seat-count", "{seats} seats: no table is played by more than "
                         "{limit}", seats=len(seats), limit=values.MAX_SEATS)
    code = "bad-format"
    try:
        values.check_text("table.rules", rules, values.MAX_PRESET)
        values.check_json("table.options", options)
        code = "bad-name"
        for seat, name in enumerate(seats):
            values.check_name(seat, name)
        code = "bad-format"
        if source is not None:
            values.check_json("source", source)
        if started is not None:
            values.check_time("started_at", started)
    except values.BadValue as exc:
        raise ParseError(code, exc.template, **exc.params) from None


def _kind(value: object) -> Phrase:
    kind = type(value)
    if kind is dict:
        return Phrase("an object")
    if kind is list:
        return Phrase("a list")
    if kind is str:
        return Phrase("a string")
    if kind is bool:
        return Phrase("a boolean")
    if kind is int or kind is float:
        return Phrase("a number")
    if value is None:
        return Phrase("null")
    return Phrase("a value")


def _tile(value: object, what: str | Phrase) -> Tile:
    try:
        return Tile.parse(value)
    except TileError as exc:
        raise ParseError("bad-tile", "{what}: {reason}", what=what,
                         reason=Phrase(exc.template, None, **exc.params)) from None


def _seat(obj: Mapping[str, Any], seats: int, key: str = "seat") -> int:
    value = obj.get(key)
    if type(value) is not int:
        raise ParseError("bad-event", "{key} must be a seat number, not {value}", key=key,
                         value=repr(value))
    if not 0 <= value < seats:
        raise ParseError("bad-seat", "seat {index} does not exist: the seats are 0 to {last}",
                         index=value, last=seats - 1)
    return value


def _opt_seat(obj: Mapping[str, Any], seats: int, key: str) -> int | None:
    return None if obj.get(key) is None else _seat(obj, seats, key)


def _exact(values: list[Any]) -> tuple[Tile, ...]:
    """A list of tiles written in exact notations ("6-3", "36", "[3:6]", ...): one lookup
    each, all in one C call; KeyError or TypeError for anything else."""
    if len(values) > 1:
        tiles: tuple[Tile, ...] = itemgetter(*values)(TILE_BY_TEXT)
        return tiles
    return (TILE_BY_TEXT[values[0]],) if values else ()


def _tiles(values: list[Any], what: str | Phrase) -> tuple[Tile, ...]:
    """A list of tiles: exact notations by one lookup each, anything else as ``_tile`` reads it."""
    try:
        return _exact(values)
    except (KeyError, TypeError):
        return tuple(_tile(t, what) for t in values)


def _hands(value: object, what: str) -> tuple[tuple[Tile, ...] | None, ...]:
    if not isinstance(value, list):
        raise ParseError("bad-event", "{key} must be a list of hands", key=what)
    hands: list[tuple[Tile, ...] | None] = []
    keep = hands.append
    for s, hand in enumerate(value):
        if hand is None:
            keep(None)
        elif isinstance(hand, list):
            try:  # exact notations (what ``_tiles`` tries first); _exact, inlined
                keep(itemgetter(*hand)(TILE_BY_TEXT) if len(hand) > 1 else _exact(hand))
            except (KeyError, TypeError):  # the words of an error are built only here
                keep(_tiles(hand, Phrase("{key} of {seat}", key=what, seat=s)))
        else:
            raise ParseError("bad-event", "{key} of {seat} must be a list of tiles or null",
                             key=what, seat=s)
    return tuple(hands)


# Plays, draws and passes repeat from match to match (a seat, a tile, an end), and so do
# the claims of a deal's end (a result, a winner, points); events are immutable values:
# one object per distinct wire form serves every match, so the reader builds no dataclass
# for them. Only events without "at" are kept, and no more than _MOVE_CACHE_MAX of each
# kind per seat count (the seats, tiles, ends and points that occur keep them far
# smaller). A cache holds the events read for one seat count, so a seat or winner it gives
# back is in range.
#
# A move is kept under the values of its object's keys when they are exactly "type" and
# "seat", then "tile", then "end" (the shapes the writer gives a pass, a draw or a play,
# told apart by their number): _MOVE_KEYS, by the number of keys, fetches them in one C
# call. Any other shape (one with "at", say) gets no key and is read as it comes. A deal
# end's key is (result, winner, points), in a cache of its own.
_Kept = dict[tuple[object, ...], Event]
_MOVE_CACHE: dict[int, tuple[_Kept, _Kept]] = {}  # seat count -> (moves, deal ends)
_MOVE_CACHE_MAX = 8192
_MOVE_CACHES_MAX = 8  # seat counts with a cache: the tables have 2, 3 or 4 seats
_MOVES = frozenset({"play", "draw", "pass"})
_NO_KEY = type  # a "key" (the dict class) under which no event is ever kept
_MOVE_KEYS: tuple[Callable[[dict[str, Any]], object], ...] = (
    _NO_KEY, _NO_KEY, itemgetter("type", "seat"), itemgetter("type", "seat", "tile"),
    itemgetter("type", "seat", "tile", "end"), _NO_KEY, _NO_KEY, _NO_KEY)


def parse_event(obj: object, seats: int) -> Event:
    """One event object of the file, or ParseError."""
    events, errors = parse_events([obj], seats)
    if errors:
        raise errors[0][1]
    event = events[0]
    assert event is not None
    return event


def parse_events(objs: list[Any], seats: int
                 ) -> tuple[list[Event | None], list[tuple[int, ParseError]]]:
    """Every event of a match (``None`` where one cannot be read) and the errors, with
    their positions: the reader's hot loop, so the caches are looked up inline."""
    events: list[Event | None] = []
    errors: list[tuple[int, ParseError]] = []
    keep = events.append
    caches = _MOVE_CACHE.get(seats)
    if caches is None:
        caches = ({}, {})
        if len(_MOVE_CACHE) < _MOVE_CACHES_MAX:  # else this match's own, for a bad header
            _MOVE_CACHE[seats] = caches
    moves, claims = caches
    for obj in objs:  # an event's position is len(events)
        key: Any
        claim: tuple[object, ...] | None
        if type(obj) is dict:
            if "seat" in obj:
                try:
                    key = _MOVE_KEYS[len(obj)](obj)
                    known = moves.get(key)
                except (KeyError, IndexError, TypeError):  # another shape, or a list
                    known = key = None                     # where a seat, tile or end goes
                # The key's seat may be 1.0 or True where 1 was kept: only an int is a seat.
                if known is not None and type(key[1]) is int:
                    keep(known)
                    continue
                claim = None
            elif obj.get("type") == "deal_end" and obj.get("at") is None:
                key = None
                winner = obj.get("winner")
                points = obj.get("points")
                claim = (obj.get("result"), winner, points)
                try:
                    known = claims.get(claim)
                except TypeError:  # a list or an object where a result goes
                    known = claim = None
                # Again 1.0 or True may stand where 1 was kept: only ints are read.
                if known is not None and (winner is None or type(winner) is int) and (
                        points is None or type(points) is int):
                    keep(known)
                    continue
            else:
                key = claim = None
        else:
            key = claim = None
        try:
            event = _parse_event(obj, seats)
        except ParseError as exc:
            errors.append((len(events), exc))
            keep(None)
            continue
        if type(key) is tuple and key[0] in _MOVES:
            if len(moves) < _MOVE_CACHE_MAX:
                moves[key] = event
        elif claim is not None and len(claims) < _MOVE_CACHE_MAX:
            claims[claim] = event
        keep(event)
    return events, errors


def _parse_event(obj: object, seats: int) -> Event:
    if not isinstance(obj, dict):
        raise ParseError("bad-event", "an event must be an object, not {kind}", kind=_kind(obj))
    kind = obj.get("type")
    at = obj.get("at")
    if at is not None:
        if not isinstance(at, str):
            raise ParseError("bad-event", "at must be an ISO 8601 string")
        try:
            values.check_time("at", at)
        except values.BadValue as exc:
            raise ParseError("bad-event", exc.template, **exc.params) from None
    reader = _READERS.get(kind) if isinstance(kind, str) else None
    if reader is None:
        raise ParseError("unknown-event-type", "unknown event type {value}", value=repr(kind))
    return reader(obj, seats, at)


def _read_deal(o: Mapping[str, Any], seats: int, at: str | None) -> Event:
    stock = o.get("stock")
    if stock is not None:
        if not isinstance(stock, list):
            raise ParseError("bad-event", "stock must be a list of tiles")
        stock = _tiles(stock, "stock")
    return new_dealt(_hands(o.get("hands"), "hands"), stock, at)


def _read_play(o: Mapping[str, Any], seats: int, at: str | None) -> Event:
    seat = _seat(o, seats)
    raw = o.get("tile")
    tile = _tile(raw, "tile")
    end = o.get("end")
    if end is not None and end not in ENDS:
        raise ParseError("bad-event", "end must be left, right, up or down, not {value}",
                         value=repr(end))
    reversed_ = tile.high != tile.low and _first_number(raw) == tile.low
    return Played(seat=seat, tile=tile, end=end, reversed=reversed_, at=at)


def _first_number(raw: object) -> int | None:
    if isinstance(raw, list):
        return raw[0] if raw and type(raw[0]) is int else None
    if isinstance(raw, str):
        digits = [c for c in raw if c.isdigit()]
        return int(digits[0]) if digits else None
    return None


def _read_draw(o: Mapping[str, Any], seats: int, at: str | None) -> Event:
    raw = o.get("tile")
    return Drew(seat=_seat(o, seats), tile=None if raw is None else _tile(raw, "tile"), at=at)


def _read_deal_end(o: Mapping[str, Any], seats: int, at: str | None) -> Event:
    result = o.get("result")
    if result not in RESULTS:
        raise ParseError("bad-event", "result must be out, block or tie, not {value}",
                         value=repr(result))
    points = o.get("points")
    if points is not None and (type(points) is not int or not _in_64_bits(points)):
        raise ParseError("bad-event", "points must be a whole number, not {value}",
                         value=_short(points))
    return DealEndClaimed(result=result, winner=_opt_seat(o, seats, "winner"), points=points,
                          at=at)


def _in_64_bits(n: int) -> bool:
    return values.INT_MIN <= n <= values.INT_MAX


def _short(value: object) -> str:
    """A value as a sentence shows it: a whole number of thousands of digits is cut."""
    text = repr(value) if not isinstance(value, int) or value.bit_length() <= 64 else \
        f"a number of {value.bit_length()} bits"
    return text if len(text) <= 60 else text[:57] + "..."


def _read_match_end(o: Mapping[str, Any], seats: int, at: str | None) -> Event:
    scores = o.get("scores")
    if scores is not None:
        if not isinstance(scores, list) or not all(type(s) is int and _in_64_bits(s)
                                                   for s in scores):
            raise ParseError("bad-event", "scores must be a list of whole numbers")
        scores = tuple(scores)
    return MatchEndClaimed(winner=_opt_seat(o, seats, "winner"), scores=scores, at=at)


def _read_abandon(o: Mapping[str, Any], seats: int, at: str | None) -> Event:
    reason = o.get("reason")
    if reason is not None:
        reason = str(reason)
        try:
            values.check_text("reason", reason, MAX_REASON)
        except values.BadValue as exc:
            raise ParseError("bad-event", exc.template, **exc.params) from None
    return Abandoned(reason=reason, at=at)


_READERS = {
    "deal": _read_deal,
    "play": _read_play,
    "draw": _read_draw,
    "pass": lambda o, n, at: Passed(seat=_seat(o, n), at=at),
    "block": lambda o, n, at: BlockClaimed(at=at),
    "reveal": lambda o, n, at: new_revealed(_hands(o.get("hands"), "reveal"), at),
    "deal_end": _read_deal_end,
    "bot": lambda o, n, at: BotSeated(seat=_seat(o, n), at=at),
    "resign": lambda o, n, at: Resigned(seat=_seat(o, n), at=at),
    "abandon": _read_abandon,
    "agree_draw": lambda o, n, at: DrawAgreed(at=at),
    "match_end": _read_match_end,
}


# --- writing ---------------------------------------------------------------------


def _hand_out(hand: Sequence[Tile] | None) -> list[str] | None:
    return None if hand is None else [str(t) for t in hand]


def event_to_dict(ev: Event) -> dict[str, Any]:
    """The canonical wire object of an event (recorded or derived)."""
    out: dict[str, Any] = {"type": ev.TYPE}
    if isinstance(ev, Dealt):
        out["hands"] = [_hand_out(h) for h in ev.hands]
        if ev.stock is not None:
            out["stock"] = [str(t) for t in ev.stock]
    elif isinstance(ev, Played):
        out["seat"] = ev.seat
        out["tile"] = f"{ev.tile.low}-{ev.tile.high}" if ev.reversed else str(ev.tile)
        if ev.end is not None:
            out["end"] = ev.end
    elif isinstance(ev, Drew):
        out["seat"] = ev.seat
        out["tile"] = None if ev.tile is None else str(ev.tile)
    elif isinstance(ev, HandsRevealed):
        out["hands"] = [_hand_out(h) for h in ev.hands]
    else:
        for f in fields(ev):  # not __dataclass_fields__: it lists the ClassVars too
            if f.name != "at":
                value = getattr(ev, f.name)
                out[f.name] = list(value) if isinstance(value, tuple) else value
    if ev.at is not None:
        out["at"] = ev.at
    return out


def event_from_dict(obj: Mapping[str, Any], seats: int) -> Event:
    """Read back any event ``event_to_dict`` writes, derived ones included."""
    from ledger.events import DERIVED_TYPES

    cls = DERIVED_TYPES.get(str(obj.get("type")))
    if cls is None:
        return parse_event(dict(obj), seats)
    kwargs = {k: (tuple(v) if isinstance(v, list) else v) for k, v in obj.items() if k != "type"}
    return cls(**kwargs)  # type: ignore[arg-type]
