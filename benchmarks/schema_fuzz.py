"""Server errors from input: schemathesis against the app's own OpenAPI, 5xx counted.

    python benchmarks/schema_fuzz.py [--examples 50] [--seed 19] [--backend sqlite|postgres]

Serves the app (uvicorn on a free 127.0.0.1 port, a fresh ledger holding the sample
matches) and runs ``schemathesis run`` on its ``/openapi.json`` (phases examples,
coverage and fuzzing; the ``not_a_server_error`` check), bounded by ``--examples`` per
operation and a fixed seed. The server counts every answer it gives by status (an ASGI
wrapper), so the count does not depend on schemathesis' report: it prints the requests
served, the 5xx among them and the operations that gave them. Issue 19 found 262 such
500s on SQLite and 417 on PostgreSQL. Loopback only; nothing is kept.

Then (issue 32) what a schema never generates: every parameter of every operation, and
of the pages the schema leaves out, set to NUL, a text holding NUL, 20,000 characters,
``NaN`` and ``Infinity``; every JSON body with ``NaN``, ``Infinity``, ``-Infinity`` and
``1e400`` put in for each of its values, and NUL and 20,000-character strings (the
``doors`` pass; ``--no-doors`` leaves it out).
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import uvicorn
from sqlalchemy import create_engine, text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PG = os.environ.get("DOMINO_LEDGER_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
Scope = dict[str, Any]
Message = dict[str, Any]


def _route(scope: Scope) -> str:
    """The route a request asked for, as one line: numbers folded (one route counts once,
    whatever the id), control characters shown, long parts cut."""
    path = re.sub(r"/-?\d+", "/N", scope["path"])
    path = "/".join(p if len(p) <= 40 else f"{p[:8]}…({len(p)} chars)" for p in path.split("/"))
    return f"{scope['method']} {path.encode('unicode_escape').decode('ascii')}"


class Counted:
    """The app, counting its answers by status and the 5xx by route."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.statuses: Counter[int] = Counter()
        self.failing: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Callable[[], Awaitable[Message]],
                       send: Callable[[Message], Awaitable[None]]) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.statuses[message["status"]] += 1
                if message["status"] >= 500:
                    # Numbers folded so that one route counts once, whatever the id.
                    self.failing[_route(scope)] += 1
            await send(message)

        try:
            await self.app(scope, receive, counted)
        except Exception:  # uvicorn answers 500 for it; count it here as well
            self.statuses[500] += 1
            self.failing[_route(scope)] += 1
            raise


def _ledger(backend: str, folder: Path) -> tuple[str, Callable[[], None]]:
    from ledger.store.db import open_db, writing
    from ledger.store.imports.importer import import_file

    if backend == "sqlite":
        url, done = f"sqlite:///{folder / 'ledger.db'}", (lambda: None)
    else:
        schema = f"fuzz_{os.getpid()}_{secrets.token_hex(3)}"
        admin = create_engine(PG, isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.execute(text(f'CREATE SCHEMA "{schema}"'))
        url = f"{PG}?options=-csearch_path%3D{schema}"

        def done() -> None:
            with admin.connect() as c:
                c.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            admin.dispose()
    engine = open_db(url, migrate=True)
    with writing(engine) as session:
        for path in sorted((ROOT / "sample_matches").glob("*.json")):
            list(import_file(session, str(path)))
    engine.dispose()
    return url, done


BAD_TEXT = ["\x00", "a\x00b", "x" * 20_000, "NaN", "Infinity", "-1e400"]
BAD_NUMBERS = ["NaN", "Infinity", "-Infinity", "1e400"]
BODIES = {"/api/matches": {"table": {"rules": "domena", "options": {"target": 100}},
                           "seats": ["Ali", "Omar"], "started_at": "2026-01-01T00:00:00Z"},
          "/api/matches/{match_id}/events": {"expected_seq": 0,
                                             "event": {"type": "pass", "seat": 0}}}
PAGES = {"/matches": ["player", "table", "from", "to", "result", "audit", "sort", "order"],
         "/players": ["player", "table", "sort", "order"], "/matches/1": ["review"],
         "/matches/1/replay": ["step", "seat"], "/matches/1/whatif": ["rules", "target"],
         "/glossary/domena": [], "/record": ["seed"], "/import": []}
PATHS = ["/assets/{v}/{v}", "/assets/x/{v}", "/glossary/{v}", "/matches/{v}", "/static/{v}",
         "/matches/1/sheet.{v}"]


def _bodies(template: Any, put: Callable[[Any], Any]) -> list[Any]:
    """``template`` with each of its values (and itself) replaced by ``put(value)``."""
    out = [put(template)]
    if isinstance(template, dict):
        for k, v in template.items():
            out += [{**template, k: b} for b in _bodies(v, put)]
    elif isinstance(template, list):
        for i, v in enumerate(template):
            out += [[*template[:i], b, *template[i + 1:]] for b in _bodies(v, put)]
    return out


def doors_pass(base: str, schema: dict[str, Any]) -> tuple[int, int]:
    """The requests no schema makes (the module's text); their answers are counted by the
    server's wrapper. Returns how many were sent, and how many lost their connection
    with no answer (the server dropped it: a NaN in a 422 that could not be written)."""
    import json

    import httpx

    marker = "\u2063MARK\u2063"
    sent = dropped = 0
    with httpx.Client(base_url=base, timeout=60) as client:
        def ask(method: str, path: str, **kw: Any) -> None:
            nonlocal sent, dropped
            sent += 1
            try:
                client.request(method, path, **kw)
            except httpx.TransportError:
                dropped += 1

        def get(path: str, params: dict[str, str] | None = None) -> None:
            ask("GET", path, params=params)
        for path, ops in schema["paths"].items():
            for method, op in ops.items():
                names = [p["name"] for p in op.get("parameters", []) if p["in"] == "query"]
                url = path.replace("{match_id}", "1")
                for name in names:
                    for value in BAD_TEXT:
                        if method == "get":
                            get(url, {name: value})
                for value in BAD_TEXT:
                    if "{match_id}" in path and method == "get":
                        get(path.replace("{match_id}", value.replace("\x00", "%00")))
                if path in BODIES and method == "post":
                    raw = [json.dumps(b).replace(json.dumps(marker), n)
                           for n in BAD_NUMBERS for b in _bodies(BODIES[path], lambda _: marker)]
                    raw += [json.dumps(b) for t in ("\x00", "y" * 20_000)
                            for b in _bodies(BODIES[path], lambda _, t=t: t)]  # type: ignore[misc]
                    for body in raw:
                        ask("POST", url, content=body,
                            headers={"content-type": "application/json"})
        for page, names in PAGES.items():
            for name in names:
                for value in BAD_TEXT:
                    get(page, {name: value})
        for pattern in PATHS:
            for value in ("%00", "%00x", "z" * 20_000):
                get(pattern.format(v=value))
    return sent, dropped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=50)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--no-doors", action="store_true",
                        help="leave out the pass of NUL, long texts and non-finite numbers")
    args = parser.parse_args(argv)
    from web.app import create_app

    with tempfile.TemporaryDirectory() as tmp:
        url, done = _ledger(args.backend, Path(tmp))
        app = Counted(create_app(url))
        with __import__("socket").socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                               log_level="critical"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        began = time.monotonic()
        try:
            run = subprocess.run(
                [str(Path(sys.executable).parent / "schemathesis"), "run",
                 f"http://127.0.0.1:{port}/openapi.json", "--checks", "not_a_server_error",
                 "--phases", "examples,coverage,fuzzing", "--max-examples", str(args.examples),
                 "--seed", str(args.seed), "--workers", "1", "--no-color"],
                capture_output=True, text=True, timeout=1800, check=False)
            doors, dropped = (0, 0) if args.no_doors else doors_pass(
                f"http://127.0.0.1:{port}", app.app.openapi())
        finally:
            server.should_exit = True
            thread.join(20)
            done()
    served = sum(app.statuses.values())
    fives = sum(n for status, n in app.statuses.items() if status >= 500)
    print(f"{args.backend}: {served} requests in {time.monotonic() - began:.0f} s, "
          f"{fives} answered 5xx; by status {dict(sorted(app.statuses.items()))}")
    print(f"doors pass: {doors} requests (NUL, 20,000 characters, NaN/Infinity) among them, "
          f"{dropped} of them with their connection dropped")
    for route, n in app.failing.most_common():
        print(f"  {n:5d}  {route}")
    summary = [ln for ln in run.stdout.splitlines() if "passed" in ln or "failed" in ln]
    print("schemathesis:", summary[-1].strip() if summary else run.stdout[-300:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
