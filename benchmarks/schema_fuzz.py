"""Server errors from input: schemathesis against the app's own OpenAPI, 5xx counted.

    python benchmarks/schema_fuzz.py [--examples 50] [--seed 19] [--backend sqlite|postgres]

Serves the app (uvicorn on a free 127.0.0.1 port, a fresh ledger holding the sample
matches) and runs ``schemathesis run`` on its ``/openapi.json`` (phases examples,
coverage and fuzzing; the ``not_a_server_error`` check), bounded by ``--examples`` per
operation and a fixed seed. The server counts every answer it gives by status (an ASGI
wrapper), so the count does not depend on schemathesis' report: it prints the requests
served, the 5xx among them and the operations that gave them. Issue 19 found 262 such
500s on SQLite and 417 on PostgreSQL. Loopback only; nothing is kept.
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
                    path = re.sub(r"/-?\d+", "/N", scope["path"])
                    self.failing[f"{scope['method']} {path}"] += 1
            await send(message)

        try:
            await self.app(scope, receive, counted)
        except Exception:  # uvicorn answers 500 for it; count it here as well
            self.statuses[500] += 1
            self.failing[f"{scope['method']} {re.sub(r'/-?[0-9]+', '/N', scope['path'])}"] += 1
            raise


def _ledger(backend: str, folder: Path) -> tuple[str, Callable[[], None]]:
    from ledger.store.db import open_db, writing
    from ledger.store.importer import import_file

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=50)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
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
        finally:
            server.should_exit = True
            thread.join(20)
            done()
    served = sum(app.statuses.values())
    fives = sum(n for status, n in app.statuses.items() if status >= 500)
    print(f"{args.backend}: {served} requests in {time.monotonic() - began:.0f} s, "
          f"{fives} answered 5xx; by status {dict(sorted(app.statuses.items()))}")
    for route, n in app.failing.most_common():
        print(f"  {n:5d}  {route}")
    summary = [ln for ln in run.stdout.splitlines() if "passed" in ln or "failed" in ln]
    print("schemathesis:", summary[-1].strip() if summary else run.stdout[-300:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
