"""What-if: the same plays scored under another table."""

from __future__ import annotations

import pytest

from ledger.analysis.whatif import WhatIfError, what_if
from ledger.events import Drew
from ledger.formats.reader import parse_match
from ledger.sim.generator import generate_match
from tests.analysis.test_review import SHORT


def test_same_plays_other_scoring() -> None:
    # SHORT under Sahrat Domino (draw), 2 seats: its first deal is led by the highest
    # double (6-6, seed 001), the plays are all legal, and going out scores the other
    # hand as in Arab Block (2). Sahrat's target is 100, so that match goes on.
    w = what_if(parse_match(SHORT), "sahrat-draw")
    assert w.stop is None and w.legal_until is None
    ((n, a, b),) = w.side_by_side()
    assert n == 1 and a is not None and b is not None
    assert (a.result, a.winner, a.points) == (b.result, b.winner, b.points) == ("out", 0, 2)
    assert w.original.complete and not w.other.complete
    assert w.original.target == 0 and w.other.target == 100


def test_stops_where_a_play_is_illegal_there() -> None:
    # Domena for two draws from the boneyard; Arab Block never draws (seed 003): the
    # first draw of the record is where the plays stop being legal.
    record = parse_match(generate_match("domena", 2, {}, seed=5))
    first_draw = next(i for i, ev in enumerate(record.events) if isinstance(ev, Drew))
    w = what_if(record, "arab-block")
    assert w.legal_until == first_draw
    assert w.stop is not None and w.stop.code == "no-stock"
    finished_before = sum(1 for d in w.original.deals)  # every deal the record finished
    assert len(w.replayed) < finished_before  # the later deals are only rescored
    obj = w.to_dict()
    assert obj["legal_until"] == first_draw and obj["stop"]["event"] == first_draw


def test_a_table_that_cannot_seat_the_match() -> None:
    record = parse_match(generate_match("domena", 4, {}, seed=1))
    with pytest.raises(WhatIfError, match="2"):
        what_if(record, "arab-block")
