"""A one-event change to a legal match is caught at that event, or explained.

Each mutator changes one event of a random legal match (a tile, a seat, an end,
the kind of move, a dropped or duplicated event, a claim) and says, before the
audit runs, which outcomes are acceptable and why:

- ``at-site``: the audit reports an error at the first event that differs (for a
  duplicate that is the copy; for a dropped event, the one that moved into its place);
- ``later``: the changed event is itself legal (the referee of tests/property/referee.py
  says so, from the rule text), so the record only contradicts itself at a later
  event that depends on it; where the contradiction must come by a known event
  (the deal's reveal), ``later_until`` bounds it;
- ``harmless``: the change gives an equivalent legal record: the audit is clean and
  complete with the same deals, scores and winner, a strict re-fold
  (``ledger.engine.fold``) accepts it, and where nothing of the state can differ
  (``same_state``) it ends in the very same State.

An error *before* the change, or an outcome the mutator did not expect, fails.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from ledger.audit import AuditReport, audit_record
from ledger.engine import State, fold
from ledger.events import Event
from ledger.rules.base import Rules
from ledger.tiles import ALL_TILES, Tile

from .corpus import Table, match_dict, parse, rules_of, seeds, tables
from .referee import END_NAMES, Referee

Raw = dict[str, Any]
DELTAS = st.sampled_from((-5, -2, -1, 1, 2, 5))


@dataclass
class Case:
    kind: str
    site: int
    events: list[Raw]
    expect: dict[str, str]  # acceptable outcome -> why it is acceptable
    later_until: int | None = None
    same_state: bool = False
    warnings: tuple[str, ...] = ()  # codes the harmless change may add, at the site


@dataclass
class Match:
    table: Table
    obj: dict[str, Any]
    raw: list[Raw]
    events: list[Event]
    rules: Rules
    report: AuditReport
    final: State
    data: st.DataObject

    def referee_at(self, index: int) -> Referee:
        """The referee's view of the position just before event ``index``."""
        preset, seats, _ = self.table
        referee = Referee(preset, seats)
        for ev in self.events[:index]:
            referee.feed(ev)
        return referee

    def pick(self, label: str, predicate: Callable[[int, Raw], bool]) -> int | None:
        found = [i for i, e in enumerate(self.raw) if predicate(i, e)]
        return self.data.draw(st.sampled_from(found), label=label) if found else None

    def first_after(self, index: int, kind: str) -> int:
        return next((i for i in range(index, len(self.raw)) if self.raw[i]["type"] == kind),
                    len(self.raw) - 1)

    def replaced(self, index: int, new: Raw | None) -> list[Raw]:
        out = copy.deepcopy(self.raw)
        if new is None:
            del out[index]
        else:
            out[index] = new
        return out


def _is(*kinds: str) -> Callable[[int, Raw], bool]:
    return lambda i, e: e["type"] in kinds


def _tile(text: str) -> Tile:
    return Tile.parse(text)


def _opening(m: Match, i: int) -> bool:
    return m.raw[i]["type"] == "play" and not m.referee_at(i).line


# Reasons, written once: the classification the tests hold the auditor to.
ILLEGAL = "the changed event breaks a rule where it stands"
ALTERNATIVE = ("the changed event is another legal move there (the referee agrees), so "
               "the record goes wrong only at a later event that depended on the original "
               "one: a play of the displaced tile, a play on an end whose number changed, "
               "a pass or draw that became illegal, a block that now comes sooner or later, "
               "the reveal of the hands or the deal and match claims")
ALT_TILE = ("another legal tile: the displaced tile stays in the hand, so a play of "
            "either tile or, at the latest, the deal's reveal contradicts it")
SAME_LINE = ("a legal record that gives the same results: the end chosen leaves numbers "
             "that every later play still fits (for instance both ends showed the same "
             "number) and, in Fives, the same counts")
OPTIONAL_CLAIM = ("reveal, deal_end and match_end are optional claims (match-format.md) "
                  "that the rules already computed: dropping or repeating one changes nothing")
REDEALT = ("a deal replaced by a redeal before any play (seed 002: 4 or more doubles) "
           "leaves no trace in the state")


# --- mutators: one per kind of change ---------------------------------------------------


def play_tile(m: Match) -> Case | None:
    i = m.pick("play", _is("play"))
    if i is None:
        return None
    e = m.raw[i]
    old = _tile(e["tile"])
    referee = m.referee_at(i)
    # Half the time another tile the seat may legally lay there, if it has one.
    legal = [t for kind, t, end in referee.moves() if t is not None and t is not old
             and kind == "play" and end == e.get("end")]
    anything = [t for t in ALL_TILES if t is not old]
    pool = m.data.draw(st.sampled_from((anything, legal) if legal else (anything,)),
                       label="pool")
    new = m.data.draw(st.sampled_from(sorted(pool)), label="tile")
    mutated = {**e, "tile": str(new)}
    if referee.is_legal_play(e["seat"], new, e.get("end")):
        return Case("play-tile", i, m.replaced(i, mutated), {"later": ALT_TILE},
                    later_until=m.first_after(i, "reveal"))
    return Case("play-tile", i, m.replaced(i, mutated), {"at-site": ILLEGAL})


def play_end(m: Match) -> Case | None:
    i = m.pick("play with end", lambda i, e: e["type"] == "play" and "end" in e)
    if i is None:
        return None
    e = m.raw[i]
    end = m.data.draw(st.sampled_from([n for n in END_NAMES if n != e["end"]]), label="end")
    case = m.replaced(i, {**e, "end": end})
    if m.referee_at(i).is_legal_play(e["seat"], _tile(e["tile"]), end):
        return Case("play-end", i, case, {"later": ALTERNATIVE, "harmless": SAME_LINE})
    return Case("play-end", i, case, {"at-site": ILLEGAL + " (the tile does not fit that end)"})


def play_end_omitted(m: Match) -> Case | None:
    i = m.pick("play with end", lambda i, e: e["type"] == "play" and "end" in e)
    if i is None:
        return None
    e = m.raw[i]
    mutated = {k: v for k, v in e.items() if k != "end"}
    referee = m.referee_at(i)
    tile = _tile(e["tile"])
    if not referee.may_omit_end(tile):
        return Case("end-omitted", i, m.replaced(i, mutated),
                    {"at-site": "the choice of end matters, so the record must name it"})
    first = next(n for n in END_NAMES if ("play", tile, n) in referee.moves())
    if first == e["end"]:
        return Case("end-omitted", i, m.replaced(i, mutated),
                    {"harmless": "the tile goes on the first end it fits, the one recorded"},
                    same_state=True)
    return Case("end-omitted", i, m.replaced(i, mutated),
                {"later": ALTERNATIVE, "harmless": SAME_LINE})


def opening_end(m: Match) -> Case | None:
    i = m.pick("opening", lambda i, e: e["type"] == "play" and "end" not in e
               and _opening(m, i))
    if i is None:
        return None
    end = m.data.draw(st.sampled_from(END_NAMES), label="end")
    return Case("opening-end", i, m.replaced(i, {**m.raw[i], "end": end}),
                {"harmless": "an end on the first tile changes nothing (rules-decisions.md)"},
                same_state=True, warnings=("end-on-opening",))


def opening_flip(m: Match) -> Case | None:
    i = m.pick("opening", lambda i, e: e["type"] == "play" and _opening(m, i)
               and not _tile(e["tile"]).is_double)
    if i is None:
        return None
    tile = _tile(m.raw[i]["tile"])
    return Case("opening-flip", i, m.replaced(i, {**m.raw[i], "tile": f"{tile.low}-{tile.high}"}),
                {"later": ALTERNATIVE + " (the opening tile laid the other way round)",
                 "harmless": SAME_LINE})


def draw_tile(m: Match) -> Case | None:
    i = m.pick("draw", _is("draw"))
    if i is None:
        return None
    e = m.raw[i]
    old = _tile(e["tile"])
    new = m.data.draw(st.sampled_from([None, *(t for t in ALL_TILES if t is not old)]),
                      label="tile")
    if new is None:
        return Case("draw-tile", i, m.replaced(i, {**e, "tile": None}),
                    {"harmless": "an unseen draw takes the next tile of the listed stock"},
                    same_state=True)
    return Case("draw-tile", i, m.replaced(i, {**e, "tile": str(new)}),
                {"at-site": "draws take the stock in its listed order"})


def seat(m: Match) -> Case | None:
    i = m.pick("move", _is("play", "draw", "pass"))
    if i is None:
        return None
    e = m.raw[i]
    other = m.data.draw(st.sampled_from([s for s in range(m.rules.seats) if s != e["seat"]]),
                        label="seat")
    return Case("seat", i, m.replaced(i, {**e, "seat": other}),
                {"at-site": "a seat moving out of turn (or leading when it may not)"})


def swap_kind(m: Match) -> Case | None:
    i = m.pick("move", _is("play", "draw", "pass"))
    if i is None:
        return None
    e = m.raw[i]
    kinds = [k for k in ("play", "draw", "pass") if k != e["type"]]
    kind = m.data.draw(st.sampled_from(kinds), label="new kind")
    new: Raw = {"type": kind, "seat": e["seat"]}
    if kind == "draw":
        new["tile"] = None
    elif kind == "play":
        if e["type"] == "draw":
            new["tile"] = e["tile"]  # the tile it drew: still in the stock
        else:
            new["tile"] = str(m.data.draw(st.sampled_from(ALL_TILES), label="tile"))
            end = m.data.draw(st.sampled_from((None, *END_NAMES)), label="end")
            if end is not None:
                new["end"] = end
    reasons = {
        ("play", "pass"): "a pass while holding a tile that fits (the one it played)",
        ("play", "draw"): "a draw while holding a tile that fits, or with nothing to draw",
        ("draw", "pass"): "a pass while the stock still has tiles",
        ("draw", "play"): "a play of a tile still in the stock",
        ("pass", "draw"): "a draw at a table without a stock, or from an empty one",
        ("pass", "play"): "the seat passed, so no tile it holds fits",
    }
    return Case(f"{e['type']}->{kind}", i, m.replaced(i, new),
                {"at-site": reasons[(e["type"], kind)]})


def _redealt(m: Match, i: int) -> bool:
    return m.raw[i]["type"] == "deal" and i + 1 < len(m.raw) and m.raw[i + 1]["type"] == "deal"


def _needs_redeal(m: Match, hands: list[list[str] | None]) -> bool:
    return m.rules.redeal_doubles is not None and any(
        sum(_tile(t).is_double for t in h) >= m.rules.redeal_doubles for h in hands if h)


def _any_event(m: Match) -> int | None:
    """An event of a kind chosen first, so that rare kinds (reveal, match_end) come up."""
    kind = m.data.draw(st.sampled_from(sorted({e["type"] for e in m.raw})), label="kind")
    return m.pick("event", _is(kind))


def drop(m: Match) -> Case | None:
    i = _any_event(m)
    assert i is not None
    kind = m.raw[i]["type"]
    events = m.replaced(i, None)
    if kind in ("reveal", "deal_end", "match_end"):
        return Case(f"drop {kind}", i, events, {"harmless": OPTIONAL_CLAIM}, same_state=True)
    if _redealt(m, i):
        return Case("drop redealt deal", i, events, {"harmless": REDEALT}, same_state=True)
    reasons = {
        "play": "the next seat now moves out of turn (or a reveal comes mid-deal)",
        "draw": "the seat's next move uses the tile it never drew: the next draw is not "
                "the stock's next tile, the play is of a tile not in hand, a pass leaves "
                "a tile to draw, or a reveal comes mid-deal",
        "pass": "the next seat now moves out of turn",
        "deal": "a play with no deal being played",
    }
    return Case(f"drop {kind}", i, events, {"at-site": reasons[kind]})


def duplicate(m: Match) -> Case | None:
    i = _any_event(m)
    assert i is not None
    e = m.raw[i]
    events = copy.deepcopy(m.raw)
    events.insert(i + 1, copy.deepcopy(e))
    kind = e["type"]
    if kind in ("reveal", "deal_end"):
        return Case(f"repeat {kind}", i + 1, events, {"harmless": OPTIONAL_CLAIM},
                    same_state=True)
    if kind == "deal" and _needs_redeal(m, e["hands"]):
        return Case("repeat deal", i + 1, events,
                    {"harmless": "a deal that must be reshuffled, reshuffled into itself"},
                    same_state=True)
    reasons = {
        "play": "the same seat moves twice (or after the deal or match ended)",
        "draw": "a draw after a fitting draw, or of a tile that is not the stock's next",
        "pass": "the same seat moves twice",
        "deal": "a redeal the rules did not call for",
        "match_end": "nothing may follow the match's end (issue 15), a second match_end "
                     "included",
    }
    return Case(f"repeat {kind}", i + 1, events, {"at-site": reasons[kind]})


def claim(m: Match) -> Case | None:
    i = m.pick("claim", _is("deal_end", "match_end"))
    assert i is not None
    e = m.raw[i]
    draw = m.data.draw
    wrong = {"at-site": "a claim that differs from what the rules computed"}
    if e["type"] == "deal_end":
        field_ = draw(st.sampled_from(("points", "winner", "result", "no points")), label="field")
        if field_ == "no points":
            return Case("deal_end no points", i, m.replaced(i, {**e, "points": None}),
                        {"harmless": "points are optional in a deal_end claim"},
                        same_state=True)
        if field_ == "points":
            delta = draw(DELTAS, label="delta")
            return Case("deal_end points", i, m.replaced(i, {**e, "points": e["points"] + delta}),
                        wrong)
        if field_ == "winner":
            choices = [s for s in (None, *range(m.rules.seats)) if s != e["winner"]]
            winner = draw(st.sampled_from(choices), label="winner")
            return Case("deal_end winner", i, m.replaced(i, {**e, "winner": winner}), wrong)
        result = draw(st.sampled_from([r for r in ("out", "block", "tie") if r != e["result"]]))
        return Case("deal_end result", i, m.replaced(i, {**e, "result": result}), wrong)
    field_ = draw(st.sampled_from(("scores", "winner", "no scores")), label="field")
    if field_ == "no scores":
        return Case("match_end no scores", i, m.replaced(i, {**e, "scores": None}),
                    {"harmless": "scores are optional in a match_end claim"}, same_state=True)
    if field_ == "scores":
        j = draw(st.integers(0, len(e["scores"]) - 1), label="side")
        scores = list(e["scores"])
        scores[j] += draw(DELTAS, label="delta")
        return Case("match_end scores", i, m.replaced(i, {**e, "scores": scores}), wrong)
    choices = [s for s in (None, *range(m.rules.seats)) if s != e["winner"]]
    winner = draw(st.sampled_from(choices), label="winner")
    events = m.replaced(i, {**e, "winner": winner})
    if (winner is not None and e["winner"] is not None
            and m.rules.side_of(winner) == m.rules.side_of(e["winner"])):
        return Case("match_end partner", i, events,
                    {"harmless": "with teams the winner names a side: the partner is the "
                                 "same winner (match-format.md, audit report `winner`)"},
                    same_state=True)
    return Case("match_end winner", i, events, wrong)


def deal_swap(m: Match) -> Case | None:
    i = m.pick("deal", _is("deal"))
    assert i is not None
    e = m.raw[i]
    slots = [(s, k) for s, h in enumerate(e["hands"]) for k in range(len(h))]
    slots += [("stock", k) for k in range(len(e.get("stock") or ()))]
    a = m.data.draw(st.sampled_from(slots), label="from")
    # Two holders (a swap inside one hand changes nothing), or two places in the stock.
    b = m.data.draw(st.sampled_from([x for x in slots if x != a and (
        x[0] != a[0] or a[0] == "stock")]), label="to")
    new = copy.deepcopy(e)

    def cell(slot: tuple[int | str, int]) -> tuple[list[str], int]:
        who, k = slot
        return (new["stock"] if who == "stock" else new["hands"][who]), k

    (la, ka), (lb, kb) = cell(a), cell(b)
    la[ka], lb[kb] = lb[kb], la[ka]
    events = m.replaced(i, new)
    until = m.first_after(i, "reveal")
    end = next((j for j in range(i + 1, len(m.raw)) if m.raw[j]["type"] == "deal"), len(m.raw))
    draws = sum(1 for j in range(i + 1, end) if m.raw[j]["type"] == "draw")
    moved = ("a deal is any split of the 28 tiles, so the change shows only where a moved "
             "tile is used (a play, a draw, the lead, a redeal) or, at the latest, at the "
             "deal's reveal")
    if _redealt(m, i) and _needs_redeal(m, new["hands"]):
        return Case("deal swap", i, events, {"harmless": REDEALT}, same_state=True)
    if a[0] == b[0] == "stock" and min(a[1], b[1]) >= draws:
        return Case("deal swap", i, events,
                    {"harmless": "two stock tiles that nobody draws in this deal"})
    return Case("deal swap", i, events, {"later": moved}, later_until=until)


MUTATORS = (play_tile, play_end, play_end_omitted, opening_end, opening_flip, draw_tile, seat,
            swap_kind, drop, duplicate, claim, deal_swap)


# --- the check ----------------------------------------------------------------------


def _outcome(report: AuditReport, site: int) -> tuple[str, int | None]:
    errors = [f.event for f in report.findings if f.severity == "error"]
    if not errors:
        return "harmless", None
    assert None not in errors, f"a match-level error: {report.findings}"
    first = min(e for e in errors if e is not None)
    return ("at-site" if first == site else "later" if first > site else "earlier"), first


def _check(m: Match, case: Case) -> None:
    obj = {**m.obj, "events": case.events}
    record = parse(obj)
    assert not record.problems, f"{case.kind}: the mutated record no longer parses"
    report = audit_record(record)
    outcome, first = _outcome(report, case.site)
    event(f"{case.kind}: {outcome}")
    where = (f"{case.kind} at event {case.site}: got {outcome} (first error at {first}), "
             f"expected {sorted(case.expect)}; findings {report.findings}")
    assert outcome in case.expect, where
    if outcome == "later" and case.later_until is not None:
        assert first is not None and first <= case.later_until, where
    if outcome == "harmless":
        assert report.complete, f"{where}: not complete"
        assert (report.deals, report.scores, report.winner) == (
            m.report.deals, m.report.scores, m.report.winner), f"{where}: other results"
        assert all(f.event == case.site and f.code in case.warnings for f in report.findings), \
            f"{where}: unexpected warnings"
        events = [ev for ev in record.events if ev is not None]
        state = fold(m.rules, events)  # strict: raises IllegalEvent at a broken rule
        if case.same_state:
            # Whether a match_end was folded (State.closed) is the record's, not the match's.
            assert _unclosed(state) == _unclosed(m.final), f"{where}: another final state"


def _unclosed(state: State) -> State:
    out = state.copy()
    out.closed = False
    return out


@settings(max_examples=50, deadline=None)
@given(table=tables(), seed=seeds, data=st.data())
def test_a_one_event_change_is_caught_at_that_event_or_explained(
        table: Table, seed: int, data: st.DataObject) -> None:
    obj = match_dict(table, seed)
    record = parse(obj)
    events = [ev for ev in record.events if ev is not None]
    rules = rules_of(table)
    report = audit_record(record)
    assert report.ok and report.complete
    m = Match(table, obj, obj["events"], events, rules, report, fold(rules, events), data)
    for mutate in MUTATORS:
        case = mutate(m)
        if case is not None:
            _check(m, case)
