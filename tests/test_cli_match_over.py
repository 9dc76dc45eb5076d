"""An event after ``match_end`` (issue 15), read leniently and strictly by ``audit``.

The sample casual-arena-2.json ends with its ``match_end``; a ``bot`` takeover appended
after it was accepted silently before. Lenient reading reports it (``match-over``) and
goes on to the next match; ``--strict`` stops there, naming file, line and event.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_matches" / "casual-arena-2.json"


def _audit(*args: str | Path, lang: str = "C.UTF-8") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8", "LC_ALL": lang}
    return subprocess.run([sys.executable, "-m", "ledger.cli", "audit", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


def _night(tmp_path: Path) -> tuple[Path, int]:
    """Three matches: good, good plus a bot after its match_end, good; the bot's index."""
    good = json.loads(SAMPLE.read_text(encoding="utf-8"))
    assert good["events"][-1]["type"] == "match_end"
    over = {**good, "events": [*good["events"], {"type": "bot", "seat": 1}]}
    path = tmp_path / "night.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in (good, over, good)), encoding="utf-8")
    return path, len(good["events"])


def test_lenient_audit_flags_the_event_after_match_end(tmp_path: Path) -> None:
    path, bot = _night(tmp_path)
    done = _audit("--json", path)
    assert done.returncode == 1, done.stderr
    reports = [json.loads(row) for row in done.stdout.splitlines()]
    assert [r["ok"] for r in reports] == [True, False, True]  # the third is still audited
    assert reports[1]["findings"] == [{
        "event": bot, "severity": "error", "code": "match-over",
        "message": "an event after the recorded end of the match: nothing may follow "
                   "the match's end"}]
    # The result stays the one the match_end closed.
    assert reports[1]["scores"] == reports[0]["scores"] and reports[1]["complete"]


def test_strict_audit_stops_at_the_event_after_match_end(tmp_path: Path) -> None:
    path, bot = _night(tmp_path)
    done = _audit("--strict", "--json", path)
    assert done.returncode == 1
    assert [json.loads(row)["match"] for row in done.stdout.splitlines()] == [0, 1]
    assert done.stderr.strip() == (
        f"domino-ledger: stopped at {path}, line 2, event {bot}: an event after the recorded "
        "end of the match: nothing may follow the match's end [match-over]")


def test_match_over_in_arabic(tmp_path: Path) -> None:
    path, bot = _night(tmp_path)
    done = _audit("--lang", "ar", path)
    assert done.returncode == 1
    line = next(row for row in done.stdout.splitlines() if "match-over" in row)
    assert "نهاية المباراة" in line and "follow" not in line
