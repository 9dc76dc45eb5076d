"""What the web tests share: where the samples are and what the test server is."""

from __future__ import annotations

import copy
import functools
import json
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

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


def wait_until_served(server: subprocess.Popen[bytes], url: str, seconds: float = 60) -> None:
    """Wait for a started ``serve`` process to answer ``url`` with 200; its stderr if it ends."""
    import httpx

    deadline = time.monotonic() + seconds
    while True:
        assert server.poll() is None, server.stderr.read() if server.stderr else ""
        try:
            if httpx.get(url, timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, f"serve did not answer {url}"
        time.sleep(0.2)


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn on a free localhost port (its lifespan run); its address."""
    import uvicorn

    port = free_port()
    # A live match's follow streams (web.follow) end within the grace, as under `serve`.
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            lifespan="on", timeout_graceful_shutdown=2)
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=20)


def keep_local(context: Any, outside: list[str]) -> None:
    """Let the pages of a browser ``context`` reach this machine only: any other request is
    refused and its address added to ``outside``, which the test asserts empty."""

    def guard(route: Any) -> None:
        host = urlparse(route.request.url).hostname
        if route.request.url.startswith(("data:", "blob:")) or host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.route("**/*", guard)


def ledger_with(folder: Path, name: str) -> tuple[str, int]:
    """A SQLite ledger of its own in ``folder`` holding the sample ``name``: its URL and the
    match's id."""
    from ledger.store import db
    from ledger.store.imports.importer import import_file

    url = f"sqlite:///{folder / 'ledger.db'}"
    engine = db.open_db(url)
    try:
        with db.writing(engine) as session:
            (got,) = import_file(session, str(SAMPLES / name))
    finally:
        engine.dispose()
    assert got.id is not None
    return url, got.id


@dataclass
class Server:
    url: str
    db_url: str
    samples: Path   # the copy of sample_matches/ that the ledger was filled from
    ids: dict[str, int] = field(default_factory=dict)  # sample file name -> ledger id
    app: Any = None  # the FastAPI app behind ``url`` (its state: the analysis jobs)

    def id_of(self, name: str) -> int:
        return self.ids[name]

    def sample(self, name: str) -> dict[str, Any]:
        """A sample match as it was imported (read from the copy, not from the tree)."""
        return dict(json.loads((self.samples / name).read_text(encoding="utf-8")))


def without_worded(body: Any) -> Any:
    """A served analysis without what the server words per request (``*_worded``): the
    English fields, exactly as they were before any wording was added beside them."""
    if isinstance(body, dict):
        return {k: without_worded(v) for k, v in body.items() if not k.endswith("_worded")}
    if isinstance(body, list):
        return [without_worded(v) for v in body]
    return body


def analysed(client: Any, match_id: int, deal: int, seconds: float = 1200, **params: Any
             ) -> tuple[Any, list[dict[str, Any]]]:
    """Ask for a deal's analysis until it is no longer 202 (as the panel does): the last
    answer and every 202 body before it. The server ends every job (time limit, then a
    kill); the guard (``seconds``) only keeps a broken server from hanging the run."""
    pending: list[dict[str, Any]] = []
    guard = time.monotonic() + seconds
    while True:
        res = client.get(f"/api/matches/{match_id}/analysis", params={"deal": deal, **params})
        if res.status_code != 202:
            return res, pending
        pending.append(res.json())
        if time.monotonic() > guard:
            raise RuntimeError(f"deal {deal} of match {match_id} is still being analysed")
        time.sleep(0.1)


def expected_report(name: str) -> dict[str, Any]:
    """``analyse FILE --report``'s object for a sample, worked out here in one process at
    the samples the test servers are set to (tests/conftest.py); once per test process."""
    from ledger.jobs.service import Settings

    return copy.deepcopy(_report(name, Settings.from_env().knowledge_samples))


@functools.cache
def _report(name: str, samples: int | None) -> dict[str, Any]:
    from ledger.analysis.cli_knowledge import report_object, samples_for
    from ledger.analysis.knowledge_review import iter_knowledge_reviews
    from ledger.analysis.measures import hindsight_of
    from ledger.formats.canonical import match_hash
    from ledger.formats.reader import read_matches
    from ledger.rules import make_rules

    (record,) = read_matches(SAMPLES / name)
    assert record.header is not None
    h = record.header
    rules = make_rules(h.preset, len(h.seats), dict(h.options))
    seed = match_hash(h, [e for e in record.events if e is not None])
    k = samples_for(rules, samples)
    deals = list(iter_knowledge_reviews(rules, record.events, seed, k, luck=True, workers=1))
    return report_object(rules, h.seats, deals, k, seed, hindsight_of(rules, record.events))
