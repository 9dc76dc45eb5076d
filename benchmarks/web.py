"""Server time of the replay page and of the replay JSON at random steps of random matches.

    python benchmarks/web.py [--matches 20000] [--requests 400] [--db artifacts/bench-web.db]

Fills a SQLite ledger with generated matches (every table of the seeds, through
the store's importer; kept and reused when it already holds enough), serves the
app with uvicorn on a free localhost port, and asks for random steps of random
matches, half of them in one seat's view. Server time is measured inside the
server, from the request's arrival to the last byte of its response (an ASGI
wrapper around the app); the round trip as the client saw it is printed too.
Goal: p95 <= 20 ms for both. The matches list (a random filter, a page anywhere in
the ledger) is timed the same way.
"""

from __future__ import annotations

import argparse
import random
import socket
import statistics
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from sqlalchemy import func, select, text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ledger.formats.reader import MatchRecord, parse_match  # noqa: E402
from ledger.sim.generator import generate_corpus  # noqa: E402
from ledger.store import snapshots  # noqa: E402
from ledger.store.db import open_db, writing  # noqa: E402
from ledger.store.importer import import_records  # noqa: E402
from ledger.store.models import MATCHES, SNAPSHOTS, SUMMARIES  # noqa: E402

Scope = dict[str, Any]
Message = dict[str, Any]
ASGI = Callable[[Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
                Awaitable[None]]


class Timed:
    """The app, noting how long each request took inside the server."""

    def __init__(self, app: ASGI) -> None:
        self.app = app
        self.times: list[tuple[str, float]] = []

    async def __call__(self, scope: Scope, receive: Callable[[], Awaitable[Message]],
                       send: Callable[[Message], Awaitable[None]]) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()

        async def timed_send(message: Message) -> None:
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                self.times.append((scope["path"], time.perf_counter() - start))

        await self.app(scope, receive, timed_send)


def _records(count: int, seed: int) -> Iterator[MatchRecord]:
    for i, obj in enumerate(generate_corpus(count, seed=seed)):
        yield parse_match(obj, i, "generated", i + 1)


def fill(db: Path, want: int) -> int:
    """Make sure the ledger holds ``want`` matches; how many it holds."""
    engine = open_db(f"sqlite:///{db}")
    with engine.connect() as conn:
        have = int(conn.execute(select(func.count()).select_from(MATCHES)).scalar_one())
    if have < want:
        print(f"filling {db} with {want - have} generated matches (once; it is kept)...",
              flush=True)
        started = time.perf_counter()
        done = 0
        with writing(engine) as session:
            for _ in import_records(session, _records(want - have, seed=1000 + have)):
                done += 1
                if done % 1000 == 0:
                    rate = done / (time.perf_counter() - started)
                    print(f"  {done} imported, {rate:.0f}/s", flush=True)
        have = want
    with engine.begin() as conn:
        # The snapshots per deal are a cache; fill it where the importer left it empty.
        missing = [r.id for r in conn.execute(text(
            "SELECT id FROM matches WHERE id NOT IN (SELECT DISTINCT match_id FROM snapshots)"))]
        for match_id in missing:
            snapshots.fill(conn, match_id)
        if missing:
            print(f"  snapshots written for {len(missing)} matches", flush=True)
        count = int(conn.execute(select(func.count()).select_from(SNAPSHOTS)).scalar_one())
        print(f"  {count} snapshots", flush=True)
    engine.dispose()
    return have


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=400, help="per kind (page, JSON)")
    parser.add_argument("--db", type=Path, default=ROOT / "artifacts" / "bench-web.db")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    args.db.parent.mkdir(parents=True, exist_ok=True)
    stored = fill(args.db, args.matches)

    from web.app import create_app

    db_url = f"sqlite:///{args.db}"
    engine = open_db(db_url)
    with engine.connect() as conn:
        steps = {r.match_id: r.events for r in conn.execute(
            select(SUMMARIES.c.match_id, SUMMARIES.c.events))}
    engine.dispose()
    rng = random.Random(args.seed)
    ids = sorted(steps)

    timed = Timed(create_app(db_url))
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(timed, host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    results: dict[str, tuple[list[float], list[float]]] = {}
    lists = [{}, {"table": "domena"}, {"audit": "ok"}, {"result": "won"}, {"player": "Ali"},
             {"player": "Noor", "table": "selminha"}, {"player": "nobody at all"}]
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            for kind, path in (("page", "/matches/{id}/replay"),
                               ("json", "/api/matches/{id}/replay"),
                               ("list", "/matches")):
                for _ in range(20):  # warm up: imports, template compilation, caches
                    client.get(path.format(id=rng.choice(ids)), params={"step": 1})
                timed.times.clear()
                round_trips: list[float] = []
                for _ in range(args.requests):
                    match_id = rng.choice(ids)
                    params: dict[str, int | str] = {"step": rng.randint(0, steps[match_id])}
                    if kind == "list":  # a filter, and a page anywhere in the ledger
                        params = {**rng.choice(lists), "before": match_id}
                    elif rng.random() < 0.5:
                        params["seat"] = 0
                    started = time.perf_counter()
                    res = client.get(path.format(id=match_id), params=params)
                    round_trips.append(time.perf_counter() - started)
                    if res.status_code != 200:
                        raise SystemExit(f"{res.request.url}: HTTP {res.status_code}")
                results[kind] = ([t for _, t in timed.times], round_trips)
    finally:
        server.should_exit = True
        thread.join(timeout=10)

    print(f"\n{stored} matches stored; {args.requests} requests per kind at random steps "
          "(half of them in one seat's view)")
    print(f"{'':22}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}   round trip p50/p95 ms")
    for kind, label in (("page", "replay page (HTML)"), ("json", "replay JSON"),
                        ("list", "matches list, filtered")):
        server_t, trip = results[kind]
        ms = [t * 1000 for t in server_t]
        trip_ms = [t * 1000 for t in trip]
        print(f"{label:22}{statistics.median(ms):9.2f}{_pct(ms, 0.95):9.2f}{max(ms):9.2f}"
              f"   {statistics.median(trip_ms):.2f} / {_pct(trip_ms, 0.95):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
