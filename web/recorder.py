"""A live match as the recorder's page shows it: the corrected line folded, and what comes next.

Read through the store's reads (``ledger.store.read``: ``get_match``, ``events_of``): the
rows in sequence order, corrections applied (``ledger.corrections``), folded
by the engine. The page shows the table, the hands, the score sheet, the whole
history (undone events and undos included) and the menu of what the rules
allow next (``ledger.recording.menu``).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ledger.audit import audit_events
from ledger.corrections import UNDO, standing_dicts
from ledger.engine import State
from ledger.events import Dealt, Event
from ledger.findings import Finding, Unreadable
from ledger.formats.wire import MatchHeader, event_from_dict, event_to_dict, parse_event
from ledger.i18n import Phrase
from ledger.recording import Menu, Refusal, menu, random_deal, seeded_deal
from ledger.replay import Frame, ReplayMatch, frame, labels
from ledger.rules import RulesError, make_rules
from ledger.rules.base import Rules
from ledger.scoresheet import ScoreSheet, build_sheet
from ledger.store.handles import Connection
from ledger.store.read import events_of, get_match
from ledger.tiles import tiles_of
from ledger.walk import Walk


def _chart() -> tuple[str, ...]:
    """The 28 tiles in four rows of seven: each suit from its double down, the short
    suits filling the rows (6s; 5s and 0-0; 4s and the 1s; 3s and the 2s)."""
    suit = {n: [f"{n}-{k}" for k in range(n, -1, -1)] for n in range(7)}
    return tuple(suit[6] + suit[5] + suit[0] + suit[4] + suit[1] + suit[3] + suit[2])


CHART = _chart()


class NotRecordable(ValueError):
    """The match cannot be recorded here (imported from a file, or an unknown table)."""


@dataclass(frozen=True, slots=True)
class HistoryLine:
    seq: int
    index: int          # the event's number in the corrected line (an undo: the one it took back)
    text: str
    notes: tuple[str, ...]
    undone: bool        # taken back by a later undo
    undo: bool          # this line is an undo
    phrase: Phrase | None = None          # ``text`` in any language (the page's)
    note_phrases: tuple[Phrase, ...] = ()


@dataclass(frozen=True, slots=True)
class HandLine:
    seat: int
    name: str
    side: int
    tiles: tuple[str, ...]
    hidden: int
    pips: int | None
    to_move: bool


@dataclass(frozen=True, slots=True)
class Recording:
    id: int
    origin: str
    status: str
    seats: tuple[str, ...]
    rules: Rules
    next_seq: int
    events: tuple[Event, ...]            # the corrected line
    state: State
    menu: Menu
    frame: Frame
    sheet: ScoreSheet
    hands: tuple[HandLine, ...]
    history: tuple[HistoryLine, ...]     # newest first
    last: HistoryLine | None             # the last event standing (what undo takes back)
    deal_event: dict[str, Any] | None    # a random deal ready to record, when one is due
    seed: str | None
    # The audit of the line, as the match's page and its export's audit give it (issue 29:
    # a reveal judges the passes and draws before it), the open match aside: it is being
    # recorded here.
    findings: tuple[Finding, ...] = ()

    @property
    def title(self) -> str:
        r = self.rules
        if r.teams:
            return " vs ".join(" & ".join(self.seats[s] for s in r.side_seats(i))
                               for i in range(r.sides))
        return " vs ".join(self.seats)

    @property
    def board_box(self) -> tuple[float, float, float, float]:
        """A view box tight around the tiles (the replay keeps room for a whole deal)."""
        tiles = self.frame.board.tiles
        if not tiles:
            return (-5.0, -2.0, 10.0, 4.0)
        x0 = min(t.x for t in tiles) - 0.4
        y0 = min(t.y for t in tiles) - 0.4
        x1 = max(t.x + t.width for t in tiles) + 0.4
        y1 = max(t.y + t.height for t in tiles) + 0.4
        w, h = max(x1 - x0, 14.0), max(y1 - y0, 4.0)
        return ((x0 + x1 - w) / 2, (y0 + y1 - h) / 2, w, h)

    @property
    def stock(self) -> int | None:
        st = self.state
        if not self.rules.draws or st.phase not in ("playing", "over"):
            return None
        return st.stock_left

    def name(self, seat: int | None) -> str:
        if seat is None:
            return "nobody"
        return self.seats[seat] if 0 <= seat < len(self.seats) else f"seat {seat}"


@dataclass(frozen=True, slots=True)
class RefusedGroup:
    """Refusals with the same reason, shown once: "6-5, 6-4: deal 1 must open with 6-6"."""

    tiles: tuple[str, ...]
    word: str | None     # "draw" or "pass" (no tiles)
    reason: str


def group_refusals(refused: Sequence[Refusal]) -> list[RefusedGroup]:
    groups: dict[str, list[Refusal]] = {}
    for r in refused:
        groups.setdefault(r.reason if r.tile else f"{r.what}\0{r.reason}", []).append(r)
    out = []
    for rs in groups.values():
        first = rs[0]
        out.append(RefusedGroup(tuple(r.tile for r in rs if r.tile),
                                None if first.tile else first.what, first.reason))
    return out


def _rules(match: Mapping[str, Any]) -> Rules:
    try:
        return make_rules(match["preset"], len(match["seats"]), match["options"] or {})
    except RulesError as exc:
        raise NotRecordable(f"match {match['id']} is played at a table the ledger does not "
                            f"know: {exc.message}") from None


def load_recording(conn: Connection, match_id: int, seed: str | None = None) -> Recording:
    match = get_match(conn, match_id)
    if match["origin"] != "live":
        # Before its events are read: an imported match may hold ones that cannot be.
        raise NotRecordable(f"match {match_id} was imported from a file: the ledger keeps "
                            "it as it was read, and only matches recorded here take new "
                            "events")
    rules = _rules(match)
    seats = tuple(match["seats"])
    rows = events_of(conn, match_id)
    kept = standing_dicts(rows)
    events: list[Event] = []
    derived: list[list[Event]] = []
    try:
        for r in kept:
            if r["kind"] == "derived":
                derived[-1].append(event_from_dict(r["payload"], len(seats)))
            elif r["kind"] == "recorded":
                events.append(parse_event(r["payload"], len(seats)))
                derived.append([])
        state = _fold(rules, events)
    except (ValueError, IndexError, Unreadable) as exc:  # IllegalEvent is a ValueError
        raise NotRecordable(f"match {match_id} holds an event the recorder cannot read "
                            f"(event {len(events)}): {exc}") from None
    replay = ReplayMatch(rules, seats, tuple(events), (), tuple(tuple(d) for d in derived))
    fr = frame(replay, len(events))
    header = MatchHeader(match["preset"], dict(match["options"] or {}), seats,
                         match.get("source"), match.get("started_at"))
    sheet = build_sheet(header, [d for ds in derived for d in ds], (), rules=rules,
                        match_id=str(match_id))
    history = _history(rules, seats, rows, kept, replay)
    last = next((h for h in history if not h.undone and not h.undo), None)
    m = menu(state, seats)
    deal_event = None
    if m.need in ("deal", "redeal") or m.redeal_allowed:
        number = sum(1 for ev in events if isinstance(ev, Dealt))
        dealt = (seeded_deal(rules, seed, number) if seed
                 else random_deal(rules, random.Random(secrets.randbits(64))))
        deal_event = event_to_dict(dealt)
    return Recording(
        id=match_id, origin=match["origin"], status=match["status"], seats=seats,
        rules=rules, next_seq=int(match["next_seq"]), events=tuple(events), state=state,
        menu=m, frame=fr, sheet=sheet, hands=_hands(state, seats), history=tuple(history),
        last=last, deal_event=deal_event, seed=seed, findings=_findings(rules, events))


def _findings(rules: Rules, events: Sequence[Event]) -> tuple[Finding, ...]:
    return tuple(f for f in audit_events(rules, list(events)).findings
                 if f.code != "match-unfinished")


def _fold(rules: Rules, events: Sequence[Event]) -> State:
    walk = Walk(rules, events)
    for _ in walk:  # accepted by the live API: no errors to stop at
        pass
    return walk.state


def _hands(st: State, seats: Sequence[str]) -> tuple[HandLine, ...]:
    out = []
    for s in range(st.rules.seats):
        tiles = sorted(tiles_of(st.hands[s]), key=lambda t: (t.high, t.low), reverse=True)
        out.append(HandLine(
            seat=s, name=seats[s], side=st.rules.side_of(s), tiles=tuple(map(str, tiles)),
            hidden=st.hidden[s] if st.phase != "waiting" else 0,
            pips=sum(t.pips for t in tiles) if not st.hidden[s] else None,
            to_move=st.phase == "playing" and st.to_move == s))
    return tuple(out)


def _history(rules: Rules, seats: Sequence[str], rows: Sequence[Mapping[str, Any]],
             kept: Sequence[Mapping[str, Any]], replay: ReplayMatch) -> list[HistoryLine]:
    """Every recorded row, newest first: what stands with its notes, what was taken back."""
    standing_seqs = {r["seq"] for r in kept}
    texts = {lb.index: lb for lb in labels(replay)}
    recorded = [r for r in rows if r["kind"] != "derived"]
    # The words for an undone event: the replay's, read off the event alone.
    plain = [r for r in recorded if r["type"] != UNDO]
    lone = labels(ReplayMatch(rules, tuple(seats),
                              tuple(parse_event(r["payload"], len(seats)) for r in plain)))
    plain_text = {r["seq"]: lb for r, lb in zip(plain, lone, strict=True)}
    by_index: dict[int, Phrase] = {}
    out: list[HistoryLine] = []
    for r in recorded:
        index = int(r["event"])
        if r["type"] == UNDO:
            said = Phrase("Undo: {what}", what=by_index.get(index, Phrase("event {event}",
                                                                           event=index)))
            out.append(HistoryLine(r["seq"], index, str(said), (), False, True, said))
            continue
        lb = texts.get(index) if r["seq"] in standing_seqs else None
        line = lb if lb is not None else plain_text[r["seq"]]
        phrase = line.phrase or Phrase(line.text)
        by_index[index] = phrase
        out.append(HistoryLine(r["seq"], index, line.text, lb.notes if lb is not None else (),
                               r["seq"] not in standing_seqs, False, phrase,
                               lb.note_phrases if lb is not None else ()))
    out.reverse()
    return out
