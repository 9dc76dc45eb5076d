"""The knowledge review within time: each sample's search has a limit (a decision beyond it
is not reviewed, never valued), and a whole match's questions spread over the cores give
the numbers one core gives (ledger/analysis/knowledge_review.py, forkpool.py)."""

from __future__ import annotations

import multiprocessing
import os
from functools import cache
from multiprocessing.connection import Connection

import pytest

from ledger.analysis.cli_knowledge import decision_text, match_report, report_object, report_text
from ledger.analysis.forkpool import WorkerFailed, fork_map
from ledger.analysis.knowledge_review import (
    KnowledgeDeal,
    default_samples,
    iter_knowledge_reviews,
    luck_samples,
    table_limit,
)
from ledger.analysis.solver import MAX_NODES
from ledger.rules import make_rules
from tests.analysis.helpers import generated_match

K = 40  # as many as a first deal fits in a test's time


@cache
def _fives_first_deal() -> KnowledgeDeal:
    """Deal 0 of a seeded 4-seat Sahrat Fives match, with the table's defaults."""
    rules, record, key = generated_match("sahrat-fives", 4, 1)
    (deal,) = iter_knowledge_reviews(rules, record.events, key, K, [0])
    return deal


def test_four_seat_fives_has_a_limit_and_luck_its_own_k() -> None:
    rules = make_rules("sahrat-fives", 4, {})
    assert table_limit(rules) < MAX_NODES
    # Decisions: every table the same cap (a decision stops earlier once settled); luck,
    # which needs no label, keeps the K that fits the table.
    assert default_samples(rules) == default_samples(make_rules("domena", 4, {})) == 200
    assert 1 < luck_samples(rules) < 200 and luck_samples(rules, 8) == 8
    assert luck_samples(make_rules("domena", 4, {})) == 200
    # Tables whose samples are solved in time keep no limit but the solver's.
    assert table_limit(make_rules("domena", 4, {})) == MAX_NODES


@pytest.mark.slow(reason="a four-seat Fives deal reviewed to its limits: 7-14 s")
def test_a_fives_deal_marks_its_early_decisions_not_reviewed() -> None:
    deal = _fives_first_deal()
    rules = make_rules("sahrat-fives", 4, {})
    k = K
    first, last = deal.decisions[0], deal.decisions[-1]
    # The first decisions hold 27 tiles: tens of millions of positions a sample.
    assert not first.reviewed and first.knowledge_lost is None and first.samples == 0
    assert all(o.expected is None for o in first.options)
    assert first.why is not None and first.why.code == "limit"
    assert first.why.positions == table_limit(rules)
    assert decision_text(first) == ("by knowledge: not reviewed: limit reached after "
                                    f"{table_limit(rules):,} positions")
    assert last.reviewed and last.cap == k and (
        last.samples <= k and last.samples % 20 in (0, k % 20) and last.settled
        or last.samples == k or last.exact and last.samples == last.count)
    reviewed = [d.reviewed for d in deal.decisions]
    assert reviewed.count(False) >= 3 and reviewed.count(True) >= 3
    # Counted per player, never valued.
    reports = match_report(rules, ["a", "b", "c", "d"], [deal])
    assert sum(p.not_reviewed for p in reports) == reviewed.count(False)
    assert sum(p.valued for p in reports) == reviewed.count(True)
    obj = report_object(rules, ["a", "b", "c", "d"], [deal], k, "seed")
    assert obj["not_reviewed"] == reviewed.count(False)
    assert obj["not_reviewed_why"] == [{"code": "limit", "positions": table_limit(rules),
                                        "text": "limit reached after 1,000,000 positions",
                                        "count": reviewed.count(False)}]
    assert "decisions not reviewed: limit reached after 1,000,000 positions" in \
        report_text(reports, k)
    assert "too deep" not in report_text(reports, k)


def test_the_limit_changes_no_value_of_a_decision_it_lets_through() -> None:
    deal = _fives_first_deal()
    rules, record, key = generated_match("sahrat-fives", 4, 1)
    late = [d for d in deal.decisions if d.reviewed][-4:]
    (free,) = iter_knowledge_reviews(rules, record.events, key, K, [0],
                                     only={d.event for d in late}, sample_limit=MAX_NODES,
                                     workers=1)
    assert list(free.decisions) == late


def test_a_lower_limit_leaves_a_decision_out_whole() -> None:
    """Never valued from the samples that happened to fit: one too deep, none counted."""
    rules, record, key = generated_match("sahrat-fives", 4, 1)
    deal = _fives_first_deal()
    d = next(x for x in deal.decisions if x.reviewed)
    (low,) = iter_knowledge_reviews(rules, record.events, key, K, [0],
                                    only={d.event}, sample_limit=1000, workers=1)
    (got,) = low.decisions
    assert not got.reviewed and got.unsolved == 1 and got.samples == 0
    assert got.why is not None and got.why.to_dict() == {
        "code": "limit", "positions": 1000, "text": "limit reached after 1,000 positions"}


@pytest.mark.slow(reason="a four-seat match reviewed twice: 5-10 s")
def test_a_whole_match_on_two_processes_equals_one() -> None:
    rules, record, key = generated_match("domena", 4, 3)
    serial = list(iter_knowledge_reviews(rules, record.events, key, 6, luck=True, workers=1))
    spread = list(iter_knowledge_reviews(rules, record.events, key, 6, luck=True, workers=2))
    assert len(serial) > 1 and serial == spread
    assert sum(len(d.decisions) for d in serial) > 10
    assert all(s.events for d in serial for s in d.luck)


# --- forkpool ----------------------------------------------------------------------------


def _square(i: int) -> tuple[int, int]:
    return i * i, os.getpid()


def test_fork_map_answers_in_order_from_other_processes() -> None:
    got = list(fork_map(_square, 40, 2))
    assert [v for v, _ in got] == [i * i for i in range(40)]
    assert os.getpid() not in {pid for _, pid in got}
    assert [v for v, pid in fork_map(_square, 5, 1)] == [0, 1, 4, 9, 16]


def _fails_at_3(i: int) -> int:
    if i == 3:
        raise ValueError("three")
    return i


def test_fork_map_raises_what_a_worker_raised() -> None:
    with pytest.raises(WorkerFailed, match="ValueError: three"):
        list(fork_map(_fails_at_3, 10, 2))


def test_fork_map_stopped_early_leaves_no_worker() -> None:
    it = fork_map(_square, 100, 2)
    value, pid = next(it)
    assert value == 0
    it.close()
    with pytest.raises(ProcessLookupError):  # ended and reaped
        os.kill(pid, 0)


def _in_a_daemon(conn: Connection) -> None:
    conn.send([v for v, _ in fork_map(_square, 6, 2)])


def test_fork_map_works_in_a_daemonic_process() -> None:
    """The web's analysis worker is a daemonic process: multiprocessing will not start
    children there, forkpool does."""
    ctx = multiprocessing.get_context("fork")
    ours, theirs = ctx.Pipe()
    proc = ctx.Process(target=_in_a_daemon, args=(theirs,), daemon=True)
    proc.start()
    try:
        assert ours.poll(60)
        assert ours.recv() == [0, 1, 4, 9, 16, 25]
    finally:
        proc.join(10)
    assert proc.exitcode == 0
