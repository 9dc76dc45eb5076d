"""Generated matches for the property tests: every table of the seeds, random legal play."""

from __future__ import annotations

import functools
from typing import Any

import orjson
from hypothesis import strategies as st

from ledger.events import Event
from ledger.formats.reader import MatchRecord, parse_match
from ledger.rules import all_tables, make_rules
from ledger.rules.base import Rules
from ledger.sim.generator import generate_match

TABLES = all_tables()

# Besides each preset's default target, a short one the preset allows (match-format.md,
# rules-decisions.md "Options"): 0 is the one-round mode, and short matches keep the
# examples cheap while still crossing deal boundaries.
EXTRA_TARGETS: dict[str, tuple[int, ...]] = {
    "domena": (0, 30),
    "sahrat-draw": (0, 30),
    "sahrat-fives": (0, 40),
    "sahrat-partner": (0, 30),
    "selminha": (50,),
    "arab-block": (0, 30),
    "casual-arena": (0, 50),
}

Table = tuple[str, int, tuple[tuple[str, object], ...]]


@st.composite
def tables(draw: st.DrawFn) -> Table:
    """A (preset, seats, options) of ``all_tables()``, sometimes with a shorter target."""
    preset, seats, options = draw(st.sampled_from(TABLES))
    target = draw(st.sampled_from((None, *EXTRA_TARGETS[preset])))
    if target is not None:
        options = {**options, "target": target}
    return preset, seats, tuple(sorted(options.items()))


seeds = st.integers(min_value=0, max_value=2**32 - 1)


@functools.lru_cache(maxsize=256)
def _generated(table: Table, seed: int) -> bytes:
    preset, seats, options = table
    return orjson.dumps(generate_match(preset, seats, dict(options), seed=seed))


def match_dict(table: Table, seed: int) -> dict[str, Any]:
    """A fresh copy of the generated match, round-tripped through JSON."""
    obj: dict[str, Any] = orjson.loads(_generated(table, seed))
    return obj


def parse(obj: dict[str, Any]) -> MatchRecord:
    """The reader's view of a match object (after a JSON round trip, as a file gives it)."""
    return parse_match(orjson.loads(orjson.dumps(obj)))


def rules_of(table: Table) -> Rules:
    preset, seats, options = table
    return make_rules(preset, seats, dict(options))


def recorded_events(table: Table, seed: int) -> list[Event]:
    record = parse(match_dict(table, seed))
    assert not record.problems, record.problems
    events = [ev for ev in record.events if ev is not None]
    assert len(events) == len(record.events)
    return events
