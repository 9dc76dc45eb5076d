"""Matches the export tests run over: generated ones for every table, and the samples.

Generated matches (ledger.sim.generator) cover every preset and seat count of
``all_tables()`` plus the one-deal target 0; the files under sample_matches/
join in as soon as they exist.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from ledger.audit import AuditReport, audit_record
from ledger.formats.reader import MatchRecord, parse_match, read_matches
from ledger.rules import all_tables
from ledger.sim.generator import generate_match

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_matches"

# Two Arabic names: one plain, one with short vowels (harakat) and a final alef maqsura,
# so that joining, marks and right-to-left order all show.
ALI = "علي الحسن"
LAYLA = "لَيْلى"


def generated_tables() -> list[tuple[str, int, dict[str, object]]]:
    tables = [(p, n, dict(o)) for p, n, o in all_tables()]
    # one deal decides (match-format.md: target 0), on a table with and one without teams
    tables += [("casual-arena", 2, {"target": 0}), ("domena", 4, {"target": 0})]
    return tables


def table_id(table: tuple[str, int, dict[str, object]]) -> str:
    preset, seats, options = table
    extra = "-".join(f"{k}={v}" for k, v in options.items())
    return f"{preset}-{seats}" + (f"-{extra}" if extra else "")


@functools.cache
def generated(preset: str, seats: int, options_key: tuple[tuple[str, object], ...],
              seed: int = 7) -> dict[str, Any]:
    return generate_match(preset, seats, dict(options_key), seed=seed)


def generated_match(table: tuple[str, int, dict[str, object]], seed: int = 7) -> dict[str, Any]:
    preset, seats, options = table
    return generated(preset, seats, tuple(sorted(options.items())), seed)


def audited(obj: dict[str, Any]) -> tuple[MatchRecord, AuditReport]:
    record = parse_match(obj)
    return record, audit_record(record)


def sample_files() -> list[Path]:
    if not SAMPLES.is_dir():
        return []
    # *.expected.json beside a faulty sample is its expected audit, not a match
    return sorted(p for p in SAMPLES.rglob("*")
                  if p.is_file() and p.name.endswith((".json", ".jsonl", ".jsonl.gz"))
                  and not p.name.endswith(".expected.json"))


def sample_records() -> list[MatchRecord]:
    """Every sample match that has a readable header (a broken sample is its owner's test)."""
    out = []
    for path in sample_files():
        out += [r for r in read_matches(path) if r.header is not None]
    return out
