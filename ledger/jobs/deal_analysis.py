"""One deal's analysis as the replay's Analysis panel reads it: the route's JSON body.

The deal's review (``DealReview.to_dict()``: the best-play outcome, every decision
with its options and what the move played lost in hindsight; ``with_judged`` adds the
knowledge measure when it is served), the swing chart (a Plotly figure),
and, per step of the deal, the position's best-play outcome and what each seat knew.
Steps are the replay's: step ``s`` is the table after ``s`` events, so a move at
event ``e`` is shown at step ``e + 1``.

``build`` works it out (in a worker process: ledger.jobs.worker) from a ``Task``,
the match's table and recorded events; the body is kept as it is (in memory and in
the store) with the swing chart's sentences as phrases, and ``worded`` puts them in
the reader's language when it is served.

A deal's ``note`` (why it is not, or not fully, analysed) stays the English sentence;
``note_phrases`` holds its parts as phrases (``{"phrase", "params"}``, the swing chart's
form), and the served body adds ``note_worded``, the note in the reader's language.

Moves stay in their English notation ("6-3 right": ``played``, ``move``); the served body
adds each one worded in the reader's language beside it (``played_worded`` in decisions
and mistakes, ``move_worded`` in options and steps), as ``analyse`` words them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ledger.analysis.knowledge import iter_knowledge
from ledger.analysis.measures import judged_of
from ledger.analysis.review import DealReview, Progress, Stop, move_phrase, review_match
from ledger.analysis.solver import MAX_NODES, MAX_POSITIONS
from ledger.analysis.swing import side_names, swing_source, word_figure
from ledger.events import Dealt, Event
from ledger.i18n import Language, Phrase
from ledger.i18n.phrases import clauses, phrase_from_json, phrase_to_json
from ledger.rules import make_rules
from ledger.seatview import Sight

# The kept answers hold for this version only: bump the number whenever the answers could
# change (the solver's values or what it leaves out, or this body's shape). The solver's
# limits are part of it: what is "too large to solve" depends on them.
VERSION = f"3/{MAX_POSITIONS}/{MAX_NODES}"


@dataclass(frozen=True, slots=True)
class Task:
    """What a worker needs to analyse one deal (picklable: it crosses to another process)."""

    match_id: int
    deal: int                       # 0-based, as the review counts deals
    preset: str
    options: Mapping[str, Any]
    seats: tuple[str, ...]
    events: tuple[Event | None, ...]
    kind: str = "deal"              # or "knowledge": the whole match's knowledge report
    samples: int = 0                # knowledge: deals drawn per decision
    seed: str = ""                  # knowledge: the match's hash, every draw's seed

    @property
    def dealt(self) -> int:
        """How many deal events the record has: no deal past them can be analysed."""
        return sum(1 for ev in self.events if isinstance(ev, Dealt))


def build(task: Task, progress: Progress | None = None, stop: Stop | None = None
          ) -> dict[str, Any] | None:
    """The body for ``task``'s deal (None: the record has no such deal to analyse)."""
    rules = make_rules(task.preset, len(task.seats), dict(task.options))
    reviews = review_match(rules, task.events, deals=[task.deal], progress=progress, stop=stop)
    review = next((r for r in reviews if r.deal == task.deal), None)
    if review is None:
        return None
    return body_of(task, review)


def body_of(task: Task, review: DealReview) -> dict[str, Any]:
    """The body for ``task``'s deal, reviewed as ``review``."""
    rules = make_rules(task.preset, len(task.seats), dict(task.options))
    knowledge = []
    for k in iter_knowledge(rules, task.events):
        if k.deal is not None and k.deal > task.deal:
            break
        if k.deal == task.deal:
            knowledge.append(k.to_dict())
    seats = task.seats
    notes = {} if review.note is None else {
        "note_phrases": [phrase_to_json(p) for p in review.note_phrases]}
    return {
        **review.to_dict(),
        **notes,
        "match": task.match_id,
        "number": task.deal + 1,
        "seats": list(seats),
        "sides": side_names(rules, seats),
        "side_of": [rules.side_of(s) for s in range(len(seats))],
        "first_step": review.event + 1,
        "steps": _steps(review),
        # What lost points with every hand open: marks, never mistakes (with_judged).
        "hindsight_losses": [{"step": d.event + 1, "event": d.event, "seat": d.seat,
                              "played": d.played, "lost": d.lost} for d in review.mistakes],
        "swing": swing_source(review, rules, seats),
        "knowledge": knowledge,
    }


def with_judged(body: Mapping[str, Any], report: Mapping[str, Any] | None) -> dict[str, Any]:
    """The body with each decision under both measures (``ledger.analysis.measures``): its
    hindsight loss (``lost``, again as ``hindsight_lost``) and, from the review by what each
    player knew kept for the match (``report``; None: none kept), its ``knowledge_lost``
    and ``severity``. ``mistakes`` are the decisions that review named, each with its
    hindsight loss beside; without one there are none, and ``hindsight_losses`` lists the
    moves that lost points in hindsight (the body's own marks, which name no mistake)."""
    judged = {} if report is None else {
        d["event"]: d for d in judged_of(report) if d["deal"] == body.get("deal")}
    decisions = []
    for d in body.get("decisions", ()):
        j = judged.get(d["event"], {})
        decisions.append({**d, "hindsight_lost": d["lost"],
                          "knowledge_lost": j.get("knowledge_lost"),
                          "severity": j.get("severity")})
    mistakes = [{"step": d["event"] + 1, "event": d["event"], "seat": d["seat"],
                 "played": d["played"], "lost": d["lost"], "hindsight_lost": d["lost"],
                 "knowledge_lost": d["knowledge_lost"], "severity": d["severity"]}
                for d in decisions if d["severity"] is not None]
    losses = body.get("hindsight_losses", ())
    return {**body, "decisions": decisions, "mistakes": mistakes,
            "hindsight_losses": list(losses), "knowledge_review": report is not None}


def late(body: Mapping[str, Any], seconds: float) -> dict[str, Any]:
    """A body whose positions were left out at the time limit, saying so."""
    said = Phrase("the deal could not be solved in time (the limit is {seconds} s)",
                  seconds=f"{seconds:g}")
    note = body.get("note")
    return {**body, "note": f"{said}; {note}" if note else str(said),
            "note_phrases": [phrase_to_json(said), *body.get("note_phrases", ())],
            "late": True}


def worded(body: Mapping[str, Any], lang: Language) -> dict[str, Any]:
    """The body as served: the swing chart's sentences, the note and the moves in ``lang``."""
    def move(text: str | None) -> str | None:
        return None if text is None else lang.word(move_phrase(text))

    out = {**body, "swing": word_figure(body["swing"], lang),
           "decisions": [{**d, "played_worded": move(d["played"]),
                          "options": [{**o, "move_worded": move(o["move"])}
                                      for o in d["options"]]}
                         for d in body["decisions"]]}
    # A kept body is served as the store holds it: word only the parts it has.
    for marks in ("mistakes", "hindsight_losses"):
        if marks in body:
            out[marks] = [{**m, "played_worded": move(m["played"])} for m in body[marks]]
    if "steps" in body:
        out["steps"] = [{**s, "move_worded": move(s["move"])} for s in body["steps"]]
    if body.get("note") is not None:
        phrases = [p for p in map(phrase_from_json, body.get("note_phrases", ())) if p]
        note = clauses(phrases)
        out["note_worded"] = lang.word(note) if note is not None else body["note"]
    return out


def _steps(review: DealReview) -> list[dict[str, Any]]:
    """The deal's positions by replay step: the start, then after every move."""
    out: list[dict[str, Any]] = [{"step": review.event + 1, "event": review.event, "seat": None,
                                  "move": None, "best": _vec(review.best), "lost": 0}]
    for s in review.steps:
        out.append({"step": s.event + 1, "event": s.event, "seat": s.seat, "move": s.move,
                    "best": _vec(s.outcome), "lost": s.lost})
    return out


def _vec(outcome: Sequence[int] | None) -> list[int] | None:
    return None if outcome is None else list(outcome)


def seen_by(body: Mapping[str, Any], seen: Sight, over: bool | None = None) -> dict[str, Any]:
    """The body as one seat (or the table) saw the deal at step ``seen.step``.

    Only the moves made by then; of the decisions and mistakes, only the viewer's own
    (another seat's options would show its hand), and of what each seat knew, only the
    viewer's. The swing chart stops at the step and leaves the mistakes' marks out
    (they name the best moves of whoever made them). All hands open: the body as it is.

    ``over``: whether the deal's last move is made by the step (None: as far as the body's
    steps go). Until then every value worked out with the hands open (best play, each
    option's outcome, what a move lost by it, the chart, the result) is hindsight the
    viewer could not have: left out, ``hindsight`` false (issue 29).
    """
    viewer, step = seen.viewer, seen.step
    if viewer.everyone:
        return dict(body)
    mine = viewer.seat
    steps = [s for s in body.get("steps", ()) if s["step"] <= step]
    if over is None:
        over = len(steps) == len(body.get("steps", ()))
    out: dict[str, Any] = {
        **body,
        "view": str(viewer),
        "steps": steps,
        "decisions": [d for d in body.get("decisions", ())
                      if d["seat"] == mine and d["event"] < step],
        "mistakes": [m for m in body.get("mistakes", ())
                     if m["seat"] == mine and m["step"] <= step],
        "hindsight_losses": [m for m in body.get("hindsight_losses", ())
                             if m["seat"] == mine and m["step"] <= step],
        "knowledge": [{**k, "seats": [s for s in k["seats"] if s["seat"] == mine]}
                      for k in body.get("knowledge", ())
                      if body.get("first_step", 0) <= k["step"] <= step],
        "swing": _swing_upto(body.get("swing", {"data": [], "layout": {}}), len(steps)),
        "hindsight": over,
    }
    if not over:
        out.pop("result", None)
        out.update(_without_hindsight(out))
    return out


def _without_hindsight(body: Mapping[str, Any]) -> dict[str, Any]:
    """What a view of a deal in play keeps of the hindsight parts: the moves, no values."""
    hidden: dict[str, Any] = {"best": None, "mistakes": [], "hindsight_losses": []}
    hidden["steps"] = [{k: v for k, v in s.items() if k not in ("best", "lost")}
                       for s in body["steps"]]
    hidden["decisions"] = [
        {**{k: v for k, v in d.items() if k not in ("lost", "hindsight_lost")},
         "options": [{k: v for k, v in o.items() if k != "outcome"} for o in d["options"]]}
        for d in body["decisions"]]
    hidden["swing"] = {"data": [], "layout": body["swing"].get("layout", {})}
    return hidden


def _swing_upto(figure: Mapping[str, Any], points: int) -> dict[str, Any]:
    """The swing chart's lines up to their first ``points`` points, without mistake marks."""
    data = []
    for trace in figure.get("data", ()):
        if trace.get("mode") == "markers":
            continue
        data.append({**trace, **{k: trace[k][:points] for k in ("x", "y", "text", "customdata")
                                 if isinstance(trace.get(k), list)}})
    return {**figure, "data": data}
