"""The replay in words: each event as a line (``labels``), each deal as a line with how
it ended (``deals``), the names, points and results the lines say."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ledger.engine.state import State
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
from ledger.findings import Finding
from ledger.i18n.phrases import Phrase, seat_named
from ledger.replay.window import ReplayMatch
from ledger.seatview import Sight, as_seen
from ledger.tiles import Tile


def side_name(match: ReplayMatch, side: int) -> str | Phrase:
    rules = match.rules
    names = [match.seats[s] for s in rules.side_seats(side) if s < len(match.seats)]
    return " & ".join(names) if names else Phrase("side {index}", index=side)


def seat_name(match: ReplayMatch, seat: int | None) -> str | Phrase:
    if seat is None:
        return Phrase("nobody")
    # The lines name the player (the table shows his seat); a seat without one: "seat 1".
    return match.seats[seat] if 0 <= seat < len(match.seats) else seat_named(seat)


def gain(points: int) -> str:
    # "+12" as one piece: the sign stays with its number in a right-to-left sentence.
    return f"+{points}"


def scores_text(scores: Sequence[int]) -> str:
    return "–".join(map(str, scores))


def result_text(match: ReplayMatch, st: State) -> Phrase | None:
    if st.phase == "ended":
        if st.winner is None:
            if st.end_reason == "abandon":
                return Phrase("Match abandoned")
            if st.end_reason == "agree_draw":
                return Phrase("Match drawn by agreement")
            return Phrase("Match over with no winner")
        side = match.rules.side_of(st.winner)
        return Phrase("Match won by {name}", name=side_name(match, side))
    if st.phase == "over" and st.last_result is not None and not st.pending:
        r = st.last_result
        if r.winner is None:
            return Phrase("Deal {deal} blocked: a tie, nobody scores", deal=st.deal + 1)
        name = seat_name(match, r.winner)
        what = (Phrase("{name} went out, {gain}", name=name, gain=gain(r.points))
                if r.result == "out" else
                Phrase("{name} won the block, {gain}", name=name, gain=gain(r.points)))
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
    phrase: Phrase                 # what happened, to be worded in any language
    note_phrases: tuple[Phrase, ...]  # what the rules derived from it
    severity: str | None           # the worst finding at this event
    findings: tuple[Finding, ...]
    result_phrase: Phrase | None = None  # the deal's result, on the event that ended it

    # The English words are made only when asked: a page words the phrases in its own
    # language, and making them for every event of a deal cost each replay step.
    @property
    def text(self) -> str:
        return str(self.phrase)

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(str(n) for n in self.note_phrases)

    @property
    def deal_result(self) -> str | None:
        return None if self.result_phrase is None else str(self.result_phrase)


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
            deal=numbers[i], seat=getattr(ev, "seat", None), phrase=phrase,
            note_phrases=notes, severity=severity, findings=found,
            result_phrase=_derived_text(match, scored[-1]) if scored else None))
    return out


@dataclass(frozen=True, slots=True)
class DealLine:
    """One deal in the replay's list of deals: where it starts and how it ended."""

    deal: int          # 1-based; 0 for what comes before the first deal
    first_step: int    # the step just after its (first) deal event
    last_step: int
    result_phrase: Phrase | None = None   # how it ended, to be worded in any language

    @property
    def result(self) -> str | None:
        """How it ended, in English (made only when asked, as ``EventLabel.text``)."""
        return None if self.result_phrase is None else str(self.result_phrase)


def deals(match: ReplayMatch, upto: int | None = None) -> list[DealLine]:
    """Every deal of the record, from the events' types and the derived results only.

    ``upto``: only the deals begun by that step, each as it stood then (a viewer at a
    step has not seen how the deal on the table ends).
    """
    numbers = _deal_numbers(match.types, len(match.types) if upto is None
                            else min(upto, len(match.types)))
    out: list[DealLine] = []
    # One line per deal, made when the deal is over (its result worded once, not per event).
    deal: int | None = None
    first = 0
    phrase: Phrase | None = None
    for i, n in enumerate(numbers):
        if n != deal:
            if deal is not None:
                out.append(_deal_line(deal, first, i, phrase))
            deal, first, phrase = n, i + 1, None
        derived = match.derived[i] if i < len(match.derived) else ()
        scored = [d for d in derived if isinstance(d, DealScored)]
        if scored:
            phrase = _derived_text(match, scored[-1])
    if deal is not None:
        out.append(_deal_line(deal, first, len(numbers), phrase))
    return out


def deal_ends(match: ReplayMatch) -> dict[int, int]:
    """Each deal's last step (``deals``' ``last_step``), without wording how it ended."""
    ends: dict[int, int] = {}
    for i, n in enumerate(_deal_numbers(match.types, len(match.types))):
        ends[n] = i + 1
    return ends


def _deal_line(deal: int, first: int, last: int, phrase: Phrase | None) -> DealLine:
    return DealLine(deal, first, last, phrase)


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
        return seat_name(match, seat)

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
                          scores=scores_text(ev.scores))
        return Phrase("Record: match ends, {who}", who=who)
    return Phrase(ev.TYPE)  # an event type of its own: its wire name, never translated


def _derived_text(match: ReplayMatch, ev: Event) -> Phrase | None:
    if isinstance(ev, FivesScored):
        return Phrase("Fives: {name} {gain}", name=seat_name(match, ev.seat),
                      gain=gain(ev.points))
    if isinstance(ev, BlockDetected):
        return Phrase("Blocked: nobody can play")
    if isinstance(ev, DealScored):
        scores = scores_text(ev.scores)
        if ev.winner is None:
            return Phrase("Deal {deal} tied, nobody scores ({scores})", deal=ev.deal + 1,
                          scores=scores)
        name = seat_name(match, ev.winner)
        what = (Phrase("{name} goes out, {gain} ({scores})", name=name,
                       gain=gain(ev.points), scores=scores) if ev.result == "out" else
                Phrase("{name} wins the block, {gain} ({scores})", name=name,
                       gain=gain(ev.points), scores=scores))
        return Phrase("Deal {deal}: {what}", deal=ev.deal + 1, what=what)
    if isinstance(ev, MatchEnded):
        scores = scores_text(ev.scores)
        if ev.winner is None:
            return Phrase("Match over, no winner ({scores})", scores=scores)
        side = match.rules.side_of(ev.winner)
        return Phrase("Match won by {name} ({scores})", name=side_name(match, side),
                      scores=scores)
    return None

