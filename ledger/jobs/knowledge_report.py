"""A match's report by what each player knew (issue 14), as the web asks for it and shows it.

The report is the one ``domino-ledger analyse MATCH --report`` keeps
(``ledger.analysis.cli_knowledge.report_object``): worked out off the request by the
analyses backend as a job of kind ``knowledge`` (``task``, then ``build_report`` in a
worker process, one deal after another for its progress) and kept in the ledger by the
match's head and the number of deals sampled per decision. ``shown`` lays it out for the
match page: the numbers per player and every named mistake with the replay step it opens.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ledger.analysis.cli_knowledge import (
    REPORT_VERSION,
    PlayerReport,
    report_object,
    samples_for,
)
from ledger.analysis.measures import (
    BLUNDER,
    ERROR_OF_PLAY,
    INACCURACY,
    KINDS,
    MISTAKE,
    SEVERITIES,
    hindsight_of,
)
from ledger.analysis.review import Progress
from ledger.formats.canonical import match_hash
from ledger.jobs.deal_analysis import Task
from ledger.rules import make_rules
from ledger.store.handles import Connection
from ledger.store.jobs.analyses import Head
from ledger.store.jobs.jobqueue import JobKey
from ledger.store.read import ReplayUnavailable, load_match

KNOWLEDGE = "knowledge"
KNOWLEDGE_DEAL = -1   # the job key's deal for a whole match's knowledge report
VERSION = REPORT_VERSION
THRESHOLDS = {"inaccuracy": INACCURACY, "mistake": MISTAKE, "blunder": BLUNDER}


def job_key(match_id: int, samples: int, at: Head) -> JobKey:
    """A match's review as a job: its key's part is the deals sampled per decision."""
    return JobKey(KNOWLEDGE, match_id, samples, at.last_seq, at.hash, VERSION)


def task(conn: Connection, match_id: int, samples: int | None = None) -> Task:
    """What a worker needs to review the match as stored now (ReplayUnavailable: no rules)."""
    match = load_match(conn, match_id, everything=True)
    if match.replay is None or match.rules is None:
        raise ReplayUnavailable(match_id, match.header.preset)
    h = match.header
    events = tuple(match.replay.events)
    seed = match_hash(match.wire_header, [e for e in events if e is not None])
    return Task(match_id, KNOWLEDGE_DEAL, h.preset, dict(h.options), tuple(h.seats), events,
                kind=KNOWLEDGE, samples=samples_for(match.rules, samples), seed=seed)


def build_report(task: Task, progress: Progress | None = None) -> dict[str, Any]:
    """The report of ``task``'s match, saying after each deal how many are done."""
    from ledger.analysis.knowledge_review import iter_knowledge_reviews

    rules = make_rules(task.preset, len(task.seats), dict(task.options))
    total = task.dealt
    if progress is not None:
        progress(0, total)
    deals = []
    # The whole match's questions over every core: forkpool forks its workers itself, as
    # multiprocessing will not from the server's worker (a daemonic process).
    for deal in iter_knowledge_reviews(rules, task.events, task.seed, task.samples,
                                       luck=True):
        deals.append(deal)
        if progress is not None:
            progress(len(deals), total)
    return report_object(rules, task.seats, deals, task.samples, task.seed,
                         hindsight_of(rules, task.events))


def shown(report: dict[str, Any], match_id: int) -> dict[str, Any]:
    """The report as the match page lays it out: players, and every named mistake (an error
    of play) and bad-luck decision (in the order of the match, each with its ``kind``) with
    the replay address of the step that shows it (event e is shown at step e + 1), and why
    decisions were not reviewed (``not_reviewed_why``: a count per reason)."""
    mistakes = []
    for p in report["report"]:
        for m in [*p["named"], *p.get("unlucky", ())]:
            mistakes.append({"hindsight_lost": None, "kind": ERROR_OF_PLAY, **m,
                             "seat": p["seat"],
                             "player": p["player"],
                             "step": m["event"] + 1,
                             "href": f"/matches/{match_id}/replay?step={m['event'] + 1}"})
    mistakes.sort(key=lambda m: (m["event"], m["seat"]))
    not_reviewed = report.get("not_reviewed", sum(p.get("not_reviewed", 0)
                                                  for p in report["report"]))
    return {"samples": report["samples"], "players": report["report"],
            "not_reviewed": not_reviewed,
            "not_reviewed_why": list(report.get("not_reviewed_why", ())),
            "mistakes": mistakes, "thresholds": report.get("thresholds", THRESHOLDS),
            "severities": SEVERITIES, "kinds": KINDS}


@dataclass
class PlayerReview:
    """A player's knowledge reviews summed over matches (of one table, or every one)."""

    matches: int = 0
    valued: int = 0          # decisions with a knowledge value
    lost: float = 0.0        # knowledge loss summed over them
    luck: float = 0.0

    @property
    def mean_knowledge_lost(self) -> float | None:
        return None if not self.valued else self.lost / self.valued


def player_reviews(kept: Mapping[int, tuple[str, bool, Mapping[str, Any]]]
                   ) -> dict[tuple[str, str], PlayerReview]:
    """Per (player, table) and (player, "all"): the reviews kept for the matches' current
    heads, of the matches whose audit is ok (as /players counts)."""
    out: dict[tuple[str, str], PlayerReview] = {}
    for preset, ok, body in kept.values():
        if not ok:
            continue
        for d in body["report"]:
            p = PlayerReport.of_dict(d)
            for key in ((p.player, preset), (p.player, "all")):
                r = out.setdefault(key, PlayerReview())
                r.matches += 1
                r.valued += p.valued
                r.lost += p.lost
                r.luck += p.luck
    return out


__all__ = ["KNOWLEDGE", "KNOWLEDGE_DEAL", "THRESHOLDS", "VERSION", "PlayerReview",
           "build_report", "job_key", "player_reviews", "shown", "task"]
