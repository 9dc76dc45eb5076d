"""Where the sample matches are, and how to load them (for the tests of this folder)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_matches"
PARTIAL = SAMPLES / "partial"
FAULTY = SAMPLES / "faulty"


def match_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.json") if not p.name.endswith(".expected.json"))


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def lines_of(path: Path) -> list[dict[str, Any]]:
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return [json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()]


def complete_samples() -> dict[str, dict[str, Any]]:
    """Every complete sample match: name -> the match dict."""
    out = {p.name: load(p) for p in match_files(SAMPLES)}
    for path in sorted(SAMPLES.glob("*.jsonl")) + sorted(SAMPLES.glob("*.jsonl.gz")):
        for k, match in enumerate(lines_of(path)):
            out[f"{path.name}#{k + 1}"] = match
    return out


def expected(path: Path) -> dict[str, Any]:
    return load(path.with_name(path.name[: -len(".json")] + ".expected.json"))
