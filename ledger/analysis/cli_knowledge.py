"""``analyse --knowledge`` / ``--samples K`` / ``--report``: the review by what each player
knew, beside the hindsight one, and the match report per player.

JSON: each decision of a deal's object gains ``knowledge_lost`` (and its standard error
``knowledge_lost_stderr``, and ``samples``: how many sampled deals were solved, ``cap``:
the most it could draw, ``settled``: its label held at 95% confidence when it stopped;
``exact`` true and ``count``, their number, when every consistent deal was solved), its
``severity`` by it and ``hindsight_lost`` (``lost`` again, by its measure's name), each
option ``expected`` and ``stderr``; a decision that could not be valued (a sampled deal
beyond the table's limit, no stock known, ...) is not reviewed: ``knowledge_lost`` null,
``not_reviewed``: why, in English ("limit reached after 1,000,000 positions"), and
``not_reviewed_why``: ``{"code", "text", "positions"?, "detail"?}``
(``ledger.analysis.unreviewed``); the deal gains ``samples`` (the most deals drawn per decision),
``seed`` (the match hash every draw is seeded from) and, with ``--json``, ``luck``: per
seat its luck in the deal (``unvalued``: chance events not valued, ``not_valued``: each
one's event and why) and ``luck_not_valued`` (their sum). ``--report`` prints one object
per match: ``{"match": 0, "samples": K, "seed": ..., "thresholds": {...},
"not_reviewed": n, "not_reviewed_why": [...], "luck_not_valued": n, "report": [{"seat":
0, "player": ..., ...}, ...], "judged": [...], "deals": [...]}``: per player
``decisions``, ``forced``, ``inaccuracies``, ``mistakes``, ``blunders``,
``knowledge_lost`` (summed), ``mean_knowledge_lost``, ``not_reviewed`` (decisions not
valued) and ``not_reviewed_why`` (how many for each reason), ``luck``, ``result``,
``luck_adjusted``, ``named``: every decision named a mistake of some severity (deal,
event, played, best, loss, severity, ``kind`` "error_of_play", and how the loss was
measured: ``samples``, ``knowledge_lost_stderr``, ``exact``, ``count``), ``unlucky``: every
decision that was the best bet by knowledge yet lost in hindsight (``kind`` "bad_luck",
``measures.kind_of``), and ``bad_luck`` their number; the object's ``not_reviewed``
sums the players'; ``deals`` holds each deal's luck per seat as above.

Severity by knowledge loss, in the points the table plays for (the margin between the
sides on two-side tables, the mover's own points with three or four sides each for
himself): an inaccuracy from ``INACCURACY`` points, a mistake from ``MISTAKE``, a
blunder from ``BLUNDER`` (docs/knowledge-review.md), as ``ledger.analysis.measures``
defines them for every page. Each named decision carries its hindsight loss beside
(``hindsight_lost``, labelled so), and ``judged`` lists every decision of the match
under both measures (``measures.Judged``): what the Analysis panel shows per move.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ledger.i18n import ENGLISH, Counted, Language, Phrase, seat_named
from ledger.i18n import review_phrases as said
from ledger.i18n.phrases import N_

if TYPE_CHECKING:
    from ledger.analysis.knowledge_review import KnowledgeDeal, KnowledgeDecision
    from ledger.analysis.review import DealReview
    from ledger.rules.base import Rules

from ledger.analysis.measures import (
    BAD_LUCK,
    BLUNDER,
    ERROR_OF_PLAY,
    INACCURACY,
    KIND_LABELS,
    MISTAKE,
    SEVERITIES,
    THRESHOLDS,
    Judged,
    kind_of,
    severity,
)
from ledger.analysis.unreviewed import REASONS, Why, counted


def samples_for(rules: Rules, asked: int | None) -> int:
    """The deals drawn per decision: ``asked``, else the table's default."""
    from ledger.analysis.knowledge_review import default_samples

    return asked if asked is not None else default_samples(rules)


def merged(review: DealReview, known: KnowledgeDeal | None, samples: int,
           seed: str) -> dict[str, Any]:
    """``review.to_dict()`` with the knowledge review's values beside the hindsight ones."""
    out = review.to_dict()
    out["samples"] = samples
    out["seed"] = seed
    if known is None:
        return out
    for d in out["decisions"]:
        k = known.decision(d["event"])
        if k is None:
            continue
        d["knowledge_lost"] = k.knowledge_lost
        d["knowledge_lost_stderr"] = k.lost_stderr
        d["hindsight_lost"] = d["lost"]  # the two measures, named as every page names them
        d["severity"] = severity(k.knowledge_lost)
        # K used (sequential: fewer than the cap once the label is settled), the cap,
        # ``settled``; ``exact`` with ``count`` when every consistent deal was solved.
        d.update(k.to_dict())
        if not k.reviewed and k.why is not None:
            d["not_reviewed"] = k.why.text
            d["not_reviewed_why"] = k.why.to_dict()
        for o in d["options"]:
            e = k.expected_of(o["move"])
            o["expected"] = None if e is None else e.expected
            o["stderr"] = None if e is None else e.stderr
    if known.luck:
        out["luck"] = [s.to_dict() for s in known.luck]
        out["luck_not_valued"] = sum(s.unvalued for s in known.luck)
    if known.note:
        out["knowledge_note"] = known.note
    return out


def decision_text(d: KnowledgeDecision, lang: Language = ENGLISH) -> str:
    """A decision's knowledge line: expected value of the move played and the loss."""
    from ledger.analysis.review import move_phrase

    if d.knowledge_lost is None:
        why = d.why.phrase() if d.why is not None else Phrase(REASONS["other"])
        return lang.say("by knowledge: not reviewed: {why}", why=why)
    played = d.expected_of(d.played)
    exp = _num(played.expected if played is not None else None)
    said = severity(d.knowledge_lost)
    over = Counted("{count} deal", "{count} deals", d.samples)
    if d.exact and d.count:  # every consistent deal was solved: no sample, no error
        over = Counted("the {count} consistent deal (exact)",
                       "all {count} consistent deals (exact)", d.count)
    if said is None:
        return lang.say("by knowledge: expected {expected} over {deals}, lost {lost} ± "
                        "{stderr}", expected=exp, deals=over, lost=_num(d.knowledge_lost),
                        stderr=_num(d.lost_stderr))
    tops = tuple(move_phrase(m) for m in d.best_moves())
    return lang.say("by knowledge: expected {expected} over {deals}, lost {lost} ± "
                    "{stderr}: {severity} (best bet {moves})", expected=exp, deals=over,
                    lost=_num(d.knowledge_lost), stderr=_num(d.lost_stderr),
                    severity=Phrase(_SEVERITY[said]), moves=tops)


_SEVERITY = {"inaccuracy": N_("an inaccuracy"), "mistake": N_("a mistake"),
             "blunder": N_("a blunder")}


def _num(x: float | None) -> str:
    return "?" if x is None else f"{x:.1f}"


@dataclass
class PlayerReport:
    """One seat's match report."""

    seat: int
    player: str
    decisions: int = 0
    forced: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SEVERITIES, 0))
    lost: float = 0.0                  # knowledge loss summed over its decisions
    valued: int = 0                    # decisions with a knowledge value
    luck: float = 0.0
    result: float = 0.0
    luck_deals: int = 0
    luck_var: float = 0.0              # the luck's variance (its deals' errors squared)
    luck_exact: bool = True            # every deal's luck counted every consistent deal
    mistakes: list[dict[str, Any]] = field(default_factory=list)   # errors of play
    not_reviewed: int = 0              # decisions not valued
    whys: list[Why | dict[str, Any]] = field(default_factory=list)  # why, each
    unlucky: list[dict[str, Any]] = field(default_factory=list)    # bad luck

    @staticmethod
    def of_dict(d: Mapping[str, Any]) -> PlayerReport:
        """The report ``to_dict`` wrote."""
        p = PlayerReport(d["seat"], d["player"], d["decisions"], d["forced"])
        p.counts = {"inaccuracy": d["inaccuracies"], "mistake": d["mistakes"],
                    "blunder": d["blunders"]}
        p.lost = d["knowledge_lost"]
        mean = d["mean_knowledge_lost"]
        p.valued = 0 if mean is None else (round(p.lost / mean) if mean else p.decisions)
        p.luck, p.result = d["luck"], d["result"]
        p.luck_var = d.get("luck_stderr", 0.0) ** 2
        p.luck_exact = d.get("luck_exact", False)
        p.mistakes = list(d["named"])
        p.not_reviewed = d.get("not_reviewed", 0)
        p.whys = [{**w} for w in d.get("not_reviewed_why", ()) for _ in range(w["count"])]
        p.unlucky = list(d.get("unlucky", ()))
        return p

    @property
    def luck_stderr(self) -> float:
        return math.sqrt(self.luck_var)

    @property
    def mean_lost(self) -> float | None:
        return None if not self.valued else self.lost / self.valued

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat, "player": self.player, "decisions": self.decisions,
            "forced": self.forced, "inaccuracies": self.counts["inaccuracy"],
            "mistakes": self.counts["mistake"], "blunders": self.counts["blunder"],
            "knowledge_lost": round(self.lost, 4),
            "mean_knowledge_lost": None if self.mean_lost is None else round(self.mean_lost, 4),
            "not_reviewed": self.not_reviewed, "not_reviewed_why": counted(self.whys),
            "luck": round(self.luck, 4), "luck_stderr": round(self.luck_stderr, 4),
            "luck_exact": self.luck_exact and self.luck_deals > 0, "result": self.result,
            "luck_adjusted": round(self.result - self.luck, 4),
            "named": self.mistakes, "bad_luck": len(self.unlucky), "unlucky": self.unlucky,
        }


def match_report(rules: Rules, seats: Sequence[str], deals: Sequence[KnowledgeDeal],
                 hindsight: Mapping[int, int] | None = None) -> list[PlayerReport]:
    """Per seat: decisions, forced moves, severities, mean knowledge loss, luck, result
    (``hindsight``: each decision's hindsight loss by its event, shown beside)."""
    hindsight = hindsight or {}
    out = [PlayerReport(s, seats[s] if s < len(seats) else f"seat {s}")
           for s in range(rules.seats)]
    for deal in deals:
        for _event, seat in deal.forced:
            out[seat].forced += 1
        for d in deal.decisions:
            p = out[d.seat]
            p.decisions += 1
            if d.knowledge_lost is None:
                p.not_reviewed += 1
                p.whys.append(d.why or Why("other"))
                continue
            p.valued += 1
            p.lost += d.knowledge_lost
            said = severity(d.knowledge_lost)
            kind = kind_of(d.knowledge_lost, hindsight.get(d.event))
            entry = {"deal": deal.deal, "event": d.event, "played": d.played,
                     "best": d.best_moves(), "knowledge_lost": d.knowledge_lost,
                     "hindsight_lost": hindsight.get(d.event), "severity": said, "kind": kind,
                     # how its cost was measured: K used, its SE, or exact over count deals
                     "samples": d.samples, "exact": d.exact, "count": d.count,
                     "knowledge_lost_stderr": None if d.lost_stderr is None
                     else round(d.lost_stderr, 4)}
            if said is not None:
                p.counts[said] += 1
                p.mistakes.append(entry)
            elif kind == BAD_LUCK:
                p.unlucky.append(entry)
        for s in deal.luck:
            if s.result is None:
                continue
            p = out[s.seat]
            p.luck += s.luck
            p.luck_var += s.luck_stderr ** 2
            p.luck_exact = p.luck_exact and s.luck_exact
            p.result += s.result
            p.luck_deals += 1
    return out


# The version of the kept reports: changed whenever what a report holds changes.
REPORT_VERSION = "6"


def report_object(rules: Rules, seats: Sequence[str], deals: Sequence[KnowledgeDeal],
                  samples: int, seed: str,
                  hindsight: Mapping[int, int] | None = None) -> dict[str, Any]:
    """The report's JSON (``--report --json``, and what the ledger keeps); ``hindsight``:
    each decision's hindsight loss by its event (``measures.hindsight_losses``)."""
    reports = match_report(rules, seats, deals, hindsight)
    # Each with its sampling: K used, the cap, whether its label was settled, the SE.
    judged = [{**Judged(deal.deal, d.event, d.seat, d.played, d.knowledge_lost,
                        (hindsight or {}).get(d.event),
                        None if d.why is None else d.why.to_dict()).to_dict(), **d.to_dict()}
              for deal in deals for d in deal.decisions]
    luck = [{"deal": deal.deal, "luck": [s.to_dict() for s in deal.luck],
             "luck_not_valued": sum(s.unvalued for s in deal.luck)} for deal in deals]
    return {"samples": samples, "seed": seed, "thresholds": dict(THRESHOLDS),
            "not_reviewed": sum(p.not_reviewed for p in reports),
            "not_reviewed_why": counted(w for p in reports for w in p.whys),
            "luck_not_valued": sum(d["luck_not_valued"] for d in luck),
            "report": [p.to_dict() for p in reports], "judged": judged, "deals": luck}


def report_text_of(obj: Mapping[str, Any], lang: Language = ENGLISH) -> str:
    """``report_object``'s text."""
    return report_text([PlayerReport.of_dict(p) for p in obj["report"]], obj["samples"], lang)


def kept_report(match_id: int, url: str | None, samples: int,
                work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """A stored match's report as the ledger keeps it for the match's head and ``samples``;
    worked out (``work``) and kept when it has none."""
    from ledger.store import db
    from ledger.store.jobs import analyses, knowledge_reviews

    engine = db.open_db(url)
    try:
        with db.read_session(engine) as session:
            at = analyses.head(session.connection(), match_id)
            got = None if at is None else knowledge_reviews.get(
                session.connection(), match_id, at, samples, REPORT_VERSION)
        if got is not None or at is None:
            return got if got is not None else work()
        obj = work()
        with db.writing(engine) as s:
            knowledge_reviews.put(db.write_connection(s), match_id, at, samples,
                                  REPORT_VERSION, obj)
            s.commit()
        return obj
    finally:
        engine.dispose()


def report_text(reports: Sequence[PlayerReport], samples: int,
                lang: Language = ENGLISH) -> str:
    lines = ["  " + lang.say("report by what each player knew (up to {samples} deals sampled "
                             "per decision, stopping once its label is settled at 95%; "
                             "inaccuracy from {a}, mistake from {b}, blunder from {c} points "
                             "lost)", samples=samples, a=INACCURACY, b=MISTAKE, c=BLUNDER)]
    lines += ["  " + lang.word(legend) for legend in said.luck_legend(samples)]
    for p in reports:
        who = seat_named(p.seat, p.player)
        counts = (said.decisions(p.decisions), said.forced_moves(p.forced),
                  said.inaccuracies(p.counts["inaccuracy"]),
                  said.mistakes(p.counts["mistake"]), said.blunders(p.counts["blunder"]))
        exact = p.luck_exact and p.luck_deals > 0
        lines.append("    " + lang.say(
            "{player}: {tally}, mean loss {mean} per decision, luck {luck}, result {total}, "
            "luck-adjusted {adjusted}", player=who, tally=counts, mean=_num(p.mean_lost),
            luck=said.luck_phrase(p.luck, p.luck_stderr, exact), total=_num(p.result),
            adjusted=said.luck_phrase(p.result - p.luck, p.luck_stderr, exact)))
        for w in counted(p.whys):
            lines.append("      " + lang.word(said.not_reviewed(w["count"],
                                                               Why.of_dict(w).phrase())))
        for m in sorted([*p.mistakes, *p.unlucky], key=lambda m: m["event"]):
            lines.append("      " + lang.word(mistake_phrase(m, who)))
    return "\n".join(lines)


def mistake_phrase(m: Mapping[str, Any], who: object = "?") -> Phrase:
    """A report's line for a named mistake (an error of play) or a bad-luck decision:
    ``who`` (``seat_named``) played it; what it cost, ``review_phrases.cost_phrase``."""
    from ledger.analysis.review import move_phrase

    cost = said.cost_phrase(move_phrase(m["played"]), [move_phrase(b) for b in m["best"]],
                            m["knowledge_lost"], m.get("hindsight_lost"), said.measured(m))
    if m.get("kind", ERROR_OF_PLAY) == BAD_LUCK:
        return Phrase("deal {deal}, event {event}: {kind} for {player}, the best bet by what "
                      "the player knew: {cost}", deal=m["deal"], event=m["event"],
                      kind=Phrase(KIND_LABELS[BAD_LUCK]), player=who, cost=cost)
    return Phrase("deal {deal}, event {event}: {kind} by {player}, {severity}: {cost}",
                  deal=m["deal"], event=m["event"], kind=Phrase(KIND_LABELS[ERROR_OF_PLAY]),
                  player=who, severity=Phrase(_SEVERITY[m["severity"]]), cost=cost)


__all__ = ["BLUNDER", "INACCURACY", "MISTAKE", "REPORT_VERSION", "PlayerReport",
           "decision_text", "kept_report", "match_report", "merged", "mistake_phrase",
           "report_object", "report_text", "report_text_of", "samples_for", "severity"]
