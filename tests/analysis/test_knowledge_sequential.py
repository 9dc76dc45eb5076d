"""Sequential sampling (issue 35): a decision draws samples in batches and stops once the
95% t interval of its paired loss lies within one severity band, else at its cap; the
values it gives are those of the fixed-K review of the same seed cut at the K it used;
and the grown table of a large sample's search gives the exact values
(ledger/analysis/knowledge_review.py)."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from ledger.analysis.knowledge_review import (
    BATCH,
    KnowledgeDeal,
    _Answer,
    _Question,
    _Run,
    _settled,
    _solve_sample,
    decision_samples,
    decisions_of,
    iter_knowledge_reviews,
    t975,
    values_over,
)
from ledger.analysis.measures import INACCURACY
from ledger.analysis.positions import solve
from ledger.analysis.solver import MAX_NODES
from ledger.engine.state import State
from ledger.rules import make_rules
from tests.analysis.helpers import brute_options, generated_match
from tests.analysis.test_solver_random import _random_positions

CAP = 60  # three batches: enough to see a decision stop early and one run to the cap


@cache
def _review(preset: str, seats: int, seed: int, sequential: bool, k: int = CAP
            ) -> KnowledgeDeal:
    rules, record, key = generated_match(preset, seats, seed)
    (deal,) = iter_knowledge_reviews(rules, record.events, key, k, [0], workers=2,
                                     sequential=sequential)
    return deal


def _sampled(deal: KnowledgeDeal) -> list[Any]:
    return [d for d in deal.decisions if d.reviewed and not d.exact]


def test_some_decisions_stop_early_settled_others_run_to_the_cap() -> None:
    deal = _review("domena", 4, 2, True)
    sampled = _sampled(deal)
    assert sampled
    early = [d for d in sampled if d.samples < CAP]
    assert early, "no decision stopped before its cap"
    for d in early:
        # Stopped at the end of a batch, and only because its label was settled.
        assert d.samples % BATCH == 0 and d.settled and d.cap == CAP
        assert d.lost_stderr is not None
        lo = d.knowledge_lost - t975(d.samples - 1) * d.lost_stderr
        hi = d.knowledge_lost + t975(d.samples - 1) * d.lost_stderr
        # (rounded to 4 places: a bound may sit that close to a threshold)
        assert (hi < INACCURACY + 1e-3) or (lo >= INACCURACY - 1e-3)
    for d in sampled:
        assert d.samples == CAP or d.settled
        assert d.to_dict() == {"samples": d.samples, "cap": CAP, "settled": d.settled,
                               "knowledge_lost_stderr": d.lost_stderr, "exact": False,
                               "count": None}


def test_without_sequential_every_decision_runs_to_its_k() -> None:
    deal = _review("domena", 4, 2, False)
    assert all(d.samples == CAP for d in _sampled(deal))


def test_a_stopped_decision_has_the_values_of_its_first_k_samples_solved_one_by_one() -> None:
    """The same seed draws the same deals in the same order: sample i is the same deal
    whichever way the samples are asked (batches, jobs of ten, two workers). Checked
    against the deals ``domino-ledger knowledge`` lists for the decision, each solved on
    its own here (``values_over``), and against the review with K fixed at the K used."""
    deal = _review("domena", 4, 2, True)
    rules, record, key = generated_match("domena", 4, 2)
    facts = {f.event: f for f in decisions_of(rules, record.events)}
    sampled = _sampled(deal)
    for d in [x for x in sampled if x.samples < CAP][:2] + [x for x in sampled
                                                            if x.samples == CAP][:1]:
        listed = decision_samples(rules, record.events, 0, d.event, d.seat, d.samples, key)
        assert not listed.exact and len(listed.deals) == d.samples
        legal, rows = values_over(facts[d.event], listed.deals, workers=1)
        assert all(r is not None for r in rows)
        means = [round(sum(r[j] for r in rows if r is not None) / len(rows), 4)
                 for j in range(len(legal))]
        assert [o.expected for o in d.options] == means
        (fixed,) = iter_knowledge_reviews(rules, record.events, key, d.samples, [0],
                                          only={d.event}, workers=1, sequential=False)
        (same,) = fixed.decisions
        assert same.options == d.options and same.knowledge_lost == d.knowledge_lost
        assert same.lost_stderr == d.lost_stderr and same.samples == d.samples


def test_the_rule_settles_a_clear_label_and_not_one_on_a_threshold() -> None:
    # Played option 0; option 1 better by 3 every time: an inaccuracy, certainly.
    assert _settled([[0, 3]] * 20, 0)
    # The played option is the best every time: nothing to name.
    assert _settled([[4, 1]] * 20, 0)
    # Losses of 0 and 4 half the time: a mean of 2 on the inaccuracy threshold.
    assert not _settled([[0, 0], [0, 4]] * 10, 0)
    # The same far from any threshold's reach, once enough samples narrow it.
    assert not _settled([[0, 0], [0, 1], [0, 6]] * 2, 0)
    assert _settled([[0, 0], [0, 1], [0, 2]] * 40, 0)
    assert not _settled([[0, 1]], 0)  # one sample has no interval


def test_t_quantiles() -> None:
    assert t975(1) == 12.706 and t975(30) == 2.042
    assert t975(60) == pytest.approx(2.000, abs=1e-3)
    assert t975(120) == pytest.approx(1.980, abs=1e-3)


def test_the_cap_from_the_environment_is_every_decisions_k() -> None:
    """Tests set $DOMINO_LEDGER_KNOWLEDGE_SAMPLES (8): one batch, every decision to it."""
    deal = _review("domena", 4, 2, True, 8)
    assert all(d.samples == 8 and d.cap == 8 for d in _sampled(deal))


# --- the grown table -----------------------------------------------------------------


@pytest.mark.parametrize(("preset", "seats"), [
    ("domena", 2), ("sahrat-draw", 2), ("sahrat-draw", 4), ("selminha", 3),
    ("casual-arena", 4)])
def test_a_search_started_again_with_a_grown_table_gives_the_exact_values(
        preset: str, seats: int) -> None:
    held = {2: 7, 3: 8, 4: 9}[seats]
    found = _random_positions(preset, seats, {}, held, 3)
    assert len(found) >= 2
    grown = 0
    for _, st in found:
        # Past 8 positions the first search stops and the grown one answers.
        grown += solve(st, options=True, max_nodes=8).why == "limit"
        got = _solve_sample(st, True, MAX_NODES, grow_after=8)
        assert [(str(o.move), o.outcome) for o in got.options] == brute_options(st)
    assert grown, "no position was large enough to grow its table"



def test_each_batch_asks_every_sample_once_in_jobs_of_ten() -> None:
    rules = make_rules("domena", 4, {})
    q = _Question(State(rules), 0, None, ("key", 0, ""), 45, played=0)
    run = _Run(q, True)
    assert run.next_jobs() == [(0, 10), (10, 20)]
    # Answers in any order; a label not settled (a loss of 0 or 4: mean 2) asks more.
    assert not run.took(10, 20, _Answer([[0, 0], [0, 4]] * 5))
    assert run.took(0, 10, _Answer([[0, 4], [0, 0]] * 5))
    assert run.next_jobs() == [(20, 30), (30, 40)]
    run.took(20, 30, _Answer([[0, 0], [0, 4]] * 5))
    assert run.took(30, 40, _Answer([[0, 4], [0, 0]] * 5))
    assert run.next_jobs() == [(40, 45)]  # up to the cap
    assert not run.took(40, 45, _Answer([[0, 0]] * 5))
    assert run.answer is not None and run.answer.values is not None
    assert len(run.answer.values) == 45 and not run.answer.settled
    # Luck asks all its K at once.
    luck = _Run(_Question(State(rules), 0, None, ("key", 0, "deal"), 25), True)
    assert luck.next_jobs() == [(0, 10), (10, 20), (20, 25)]
