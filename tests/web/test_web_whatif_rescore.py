"""What-if answers every sample match under every other table that can seat it (issue 16).

Where the other table refuses a recorded move, the deals before it are replayed under its
rules and every later deal is rescored: played as recorded, scored as that table scores
how it ended (``ledger.analysis.rescore``). Every deal the record plays out is accounted
for, once: replayed, rescored, not scorable (hands hidden), or after that table's match
was over. A rescored deal's points are checked against the hands left as the record's
own table folded them (its ``deal_scored`` pips) and the other table's seed rules.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from webtest_support import SAMPLES, Server, sample_files

from ledger.analysis.whatif import WhatIf, what_if
from ledger.audit import audit_record
from ledger.engine.scoring import round_to_five
from ledger.events import DealScored
from ledger.formats.reader import MatchRecord, read_matches
from ledger.rules import PRESETS, make_rules


def _cases() -> list[tuple[str, int, str]]:
    cases = []
    for path in sample_files(SAMPLES):
        for i, record in enumerate(read_matches(path)):
            if record.header is None:
                continue
            seats = len(record.header.seats)
            cases += [(str(path.relative_to(SAMPLES)), i, preset) for preset in PRESETS
                      if preset != record.header.preset and seats in PRESETS[preset].seat_counts]
    return cases


CASES = _cases()


def _record(name: str, index: int) -> MatchRecord:
    return list(read_matches(SAMPLES / Path(name)))[index]


def test_the_samples_give_many_comparisons() -> None:
    assert len(CASES) > 100
    assert {preset for _, _, preset in CASES} == set(PRESETS)


@pytest.mark.parametrize(("name", "index", "preset"), CASES)
def test_every_deal_is_replayed_or_rescored(name: str, index: int, preset: str) -> None:
    record = _record(name, index)
    w = what_if(record, preset)
    played = [d.deal for d in w.original.deals]
    groups = [w.replayed, w.rescored, w.unscored, w.after_end]
    told = [d for group in groups for d in group]
    assert sorted(told) == sorted(set(told)), "a deal said twice"
    assert set(played) <= set(told) | set(w.replayed)
    if w.stop is None:
        assert not w.rescored and not w.unscored
    assert [d.deal for d in w.other.deals] == [*w.replayed, *w.rescored]
    if w.other.deals:
        assert w.other.deals[-1].totals == w.other.scores
    if w.rescored:
        _check_rescored(record, w, preset)


def _check_rescored(record: MatchRecord, w: WhatIf, preset: str) -> None:
    """Each rescored deal: the winner's points are the pips the other table counts."""
    assert record.header is not None
    rules = make_rules(preset, len(record.header.seats), {})
    scored = {d.deal + 1: d for evs in audit_record(record).derived for d in evs
              if isinstance(d, DealScored)}
    rows = {r.deal: r for r in w.other.deals}
    for deal in w.rescored:
        row, was = rows[deal], scored[deal]
        if was.result == "out":  # who went out goes out under any table
            assert (row.result, row.winner) == ("out", was.winner)
        if row.winner is None:
            assert row.points == 0
            continue
        pips = sum(was.pips[s] or 0 for s in rules.losers_of(row.winner))
        assert row.points == (round_to_five(pips) if rules.fives else pips)


def test_the_page_says_which_deals_were_rescored(server: Server) -> None:
    """Match 13 of the issue (domena-4) under Sahrat Fives: it stops at once, and the page
    still answers, deal by deal."""
    match = server.id_of("domena-4.json")
    html = httpx.get(f"{server.url}/matches/{match}/whatif",
                     params={"rules": "sahrat-fives", "lang": "en"}).text
    assert "No deal was played out" not in html
    assert 'id="whatif-deals"' in html and "were only rescored" in html
    assert html.count('<span class="badge rescored">') == 7
    api = httpx.get(f"{server.url}/api/matches/{match}/whatif",
                    params={"rules": "sahrat-fives"}).json()
    assert api["rescored"] == [1, 2, 3, 4, 5, 6, 7] and api["replayed"] == []
