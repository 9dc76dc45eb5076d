"""What the web tests share: where the samples are and what the test server is."""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_matches"
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def sample_files(root: Path = SAMPLES) -> list[Path]:
    """Every match file of the samples: the clean ones and the faulty and partial ones."""
    files = sorted(root.glob("*.json")) + sorted(root.glob("*.jsonl"))
    for sub in ("faulty", "partial"):
        files += sorted(p for p in (root / sub).glob("*.json")
                        if not p.name.endswith(".expected.json"))
    return files


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    url: str
    db_url: str
    samples: Path   # the copy of sample_matches/ that the ledger was filled from
    ids: dict[str, int] = field(default_factory=dict)  # sample file name -> ledger id

    def id_of(self, name: str) -> int:
        return self.ids[name]

    def sample(self, name: str) -> dict[str, Any]:
        """A sample match as it was imported (read from the copy, not from the tree)."""
        return dict(json.loads((self.samples / name).read_text(encoding="utf-8")))
