"""Partial records (match-format.md, *Partial records*): one player's view of a match.

Each file comes with the truth it was made from (``*.expected.json``): the hands
that were dealt. The importer must rebuild exactly those it can, and for the
others say which tiles stay unknown, with the true tiles among its candidates.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ledger.audit import audit_record
from ledger.events import Dealt
from ledger.formats.partial import rebuild_hands
from ledger.formats.reader import read_matches
from ledger.rules import make_rules
from ledger.tiles import Tile

from .files import PARTIAL, expected, load, match_files

FILES = match_files(PARTIAL)


def test_there_are_partial_records() -> None:
    names = {p.name for p in FILES}
    assert len(names) >= 4
    assert any(expected(p)["unknown"] for p in FILES), "one record keeps tiles unknown"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_hidden_hands_and_draws_really_are_hidden(path: Path) -> None:
    """The record shows only seat 0's hand, and never another seat's draw or the stock."""
    for ev in load(path)["events"]:
        if ev["type"] == "deal":
            assert ev["hands"][0] is not None and all(h is None for h in ev["hands"][1:])
            assert "stock" not in ev
        if ev["type"] == "draw" and ev["seat"] != 0:
            assert ev["tile"] is None


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_partial_record_audits_ok_and_complete(path: Path) -> None:
    record = next(read_matches(path))
    report = audit_record(record)
    assert report.ok, [f.to_dict() for f in report.errors]
    assert report.complete
    claim = load(path)["events"][-1]
    assert claim["type"] == "match_end"
    assert report.scores == claim["scores"] and report.winner == claim["winner"]
    codes = {f.code for f in report.findings}
    assert codes <= {"hidden-tiles", "points-from-record"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_rebuilds_the_hands_it_should(path: Path) -> None:
    want = expected(path)
    record = next(read_matches(path))
    assert record.header is not None
    rules = make_rules(record.header.preset, len(record.header.seats), record.header.options)
    events, hidden = rebuild_hands(record.events, rules)
    for index, hands in want["rebuilt"].items():
        deal = events[int(index)]
        assert isinstance(deal, Dealt)
        got = [sorted(map(str, h)) if h is not None else None for h in deal.hands]
        assert got == [sorted(str(Tile.parse(t)) for t in h) for h in hands], index
    assert {(h.event, h.seat) for h in hidden} == {(u["event"], u["seat"])
                                                   for u in want["unknown"]}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_reports_the_unknown_tiles_truthfully(path: Path) -> None:
    """Known tiles are in the true hand; the true unknown ones are among the candidates."""
    want = {(u["event"], u["seat"]): {Tile.parse(t) for t in u["hand"]}
            for u in expected(path)["unknown"]}
    record = next(read_matches(path))
    assert record.header is not None
    rules = make_rules(record.header.preset, len(record.header.seats), record.header.options)
    _, hidden = rebuild_hands(record.events, rules)
    for h in hidden:
        truth = want[(h.event, h.seat)]
        assert set(h.known) <= truth
        assert h.unknown == 7 - len(h.known) > 0
        assert truth - set(h.known) <= set(h.candidates)
        assert len(h.candidates) >= h.unknown
    warned = [f for f in audit_record(record).findings if f.code == "hidden-tiles"]
    named = {(f.event, int(m.group(1))) for f in warned
             if (m := re.match(r"seat (\d)'s starting hand", f.message))}
    assert named == set(want) and len(warned) == len(want)
    for f in warned:
        assert "unseen" in f.message and "among" in f.message


def test_a_deal_nobody_revealed_is_scored_from_its_claim() -> None:
    path = PARTIAL / "selminha-2-some-unknown.json"
    want = expected(path)
    report = audit_record(next(read_matches(path)))
    claims = [i for i, ev in enumerate(load(path)["events"])
              if ev["type"] == "deal_end" and i > want["no_reveal"]]
    warned = [f for f in report.findings if f.code == "points-from-record"]
    assert [f.event for f in warned] == claims[:1]
