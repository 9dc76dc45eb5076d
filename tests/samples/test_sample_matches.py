"""The complete sample matches: each is legal, complete and scores what it claims.

Two checks that do not lean on each other: the auditor (ledger/) and an
independent referee written from rules-decisions.md (referee.py) must both
accept every sample and agree on every deal's result and the final score.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ledger.audit import audit_record
from ledger.formats.reader import parse_match, read_matches
from ledger.rules import all_tables

from .files import SAMPLES, complete_samples
from .referee import referee, table_of

MATCHES = complete_samples()
ARABIC = re.compile("[\u0600-\u06ff]")
GENERATED = {".json", ".jsonl", ".gz"}


def _claim(match: dict[str, Any]) -> dict[str, Any]:
    ends = [ev for ev in match["events"] if ev["type"] == "match_end"]
    assert len(ends) == 1, "a complete sample claims its result once, at the end"
    assert match["events"][-1] is ends[0]
    return ends[0]


@pytest.mark.parametrize("name", sorted(MATCHES))
def test_sample_audits_clean_and_complete(name: str) -> None:
    match = MATCHES[name]
    report = audit_record(parse_match(match))
    assert report.findings == [], [f.to_dict() for f in report.findings]
    assert report.ok and report.complete
    claim = _claim(match)
    assert report.scores == claim["scores"]
    assert report.winner == claim["winner"]


@pytest.mark.parametrize("name", sorted(MATCHES))
def test_independent_referee_agrees(name: str) -> None:
    match = MATCHES[name]
    verdict = referee(match)  # raises Foul at any rule broken
    report = audit_record(parse_match(match))
    assert [(d["result"], d["winner"], d["points"]) for d in report.deals] == verdict.deals
    assert report.scores == verdict.scores
    assert report.winner == verdict.winner
    claim = _claim(match)
    assert claim["scores"] == verdict.scores


def test_files_read_the_same_as_their_dicts() -> None:
    """What the reader makes of each file is what the test dicts say (no line lost)."""
    count = 0
    for path in sorted(SAMPLES.glob("*.json*")):
        for record in read_matches(path):
            assert record.problems == []
            count += 1
    assert count == len(MATCHES)


def _verdicts() -> dict[str, tuple[Any, Any]]:
    return {name: (table_of(m), referee(m)) for name, m in MATCHES.items()}


def test_every_table_has_a_match_played_to_its_target() -> None:
    """One complete match per preset and seat count of the seeds, several deals each."""
    played: set[tuple[str, int, bool]] = set()
    for table, verdict in _verdicts().values():
        if verdict.ended == "target" and table.target == (150 if table.fives else 100) \
                and len(verdict.deals) >= 3:
            played.add((table.preset, table.seats, table.teams and table.preset ==
                        "casual-arena"))
    wanted = {(p, n, bool(o.get("teams"))) for p, n, o in all_tables()}
    assert wanted <= played, sorted(wanted - played)


def test_the_variants_are_there() -> None:
    verdicts = _verdicts()
    how = Counter(v.ended for _, v in verdicts.values())
    for ending in ("one-round", "resign", "abandon", "agree_draw"):
        assert how[ending] >= 1, ending
    targets = {(t.preset, t.target) for t, v in verdicts.values() if v.ended == "target"}
    assert ("selminha", 50) in targets and ("casual-arena", 50) in targets
    assert any(v.redeals for t, v in verdicts.values() if t.preset == "selminha")
    events = [ev for m in MATCHES.values() for ev in m["events"]]
    assert any(ev["type"] == "bot" for ev in events)
    timed = [m for m in MATCHES.values() if "source" in m and all("at" in ev for ev in m["events"])]
    assert timed and all(m.get("started_at") for m in timed)
    # Some record leaves out an end beyond the openings, where the format allows it (the
    # referee checked that every fitting end leaves the same open numbers).
    def endless(m: dict[str, Any]) -> int:
        plays = [ev for ev in m["events"] if ev["type"] == "play" and "end" not in ev]
        openings = sum(1 for a, b in zip(m["events"], m["events"][1:], strict=False)
                       if a["type"] == "deal" and b["type"] == "play")
        return len(plays) - openings

    assert any(endless(m) > 0 for m in MATCHES.values())


def test_names_look_like_the_tables_players() -> None:
    """Arabic names at Domena, Sahrat and the Block game; none of the generator's."""
    generator_names = {"Ali", "Layla", "Rania", "Joao", "Bia", "Lucia", "Salim", "Noor"}
    for name, match in MATCHES.items():
        seats = match["seats"]
        assert len(set(seats)) == len(seats), name
        assert not set(seats) & generator_names, name
    arabic_tables = [m for m in MATCHES.values()
                     if m["table"]["rules"] in ("domena", "sahrat-draw", "sahrat-fives",
                                                "sahrat-partner", "arab-block")]
    assert any(ARABIC.search(s) for m in arabic_tables for s in m["seats"])


def test_make_samples_regenerates_the_committed_files(tmp_path: Path) -> None:
    """The script is the source of the files: running it again changes nothing."""
    work = tmp_path / "sample_matches"
    work.mkdir()
    for script in ("make_samples.py", "faults.py"):
        shutil.copy(SAMPLES / script, work / script)
    env = {**os.environ, "PYTHONPATH": str(SAMPLES.parent)}
    subprocess.run([sys.executable, str(work / "make_samples.py")], check=True, env=env,
                   cwd=tmp_path, capture_output=True, timeout=300)
    made = {p.relative_to(work) for p in work.rglob("*") if p.suffix in GENERATED}
    committed = {p.relative_to(SAMPLES) for p in SAMPLES.rglob("*") if p.suffix in GENERATED}
    assert made == committed
    stale = [str(p) for p in sorted(made) if _content(work / p) != _content(SAMPLES / p)]
    assert not stale, f"run python sample_matches/make_samples.py: stale {stale}"


def _content(path: Path) -> bytes:
    # Compressed bytes differ between zlib builds; what they hold must not.
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data
