"""Load: many clients at once against `domino-ledger serve --workers N`, per page kind.

    python benchmarks/load.py [--matches 3000] [--clients 50] [--seconds 15]
                              [--workers 1 2] [--kinds list match replay api append]
                              [--db artifacts/bench-load.db] [--anchor DIR]
                              [--anchor-workers N] [--anchor-db PATH]
                              [--tree-workers M] [--rounds R]

Fills a SQLite ledger with generated matches (ledger/sim, through the store's importer;
kept and reused, as benchmarks/web.py does), then for each worker count starts the real
command (`domino-ledger serve --workers N` on a free 127.0.0.1 port, a subprocess) and,
for each page kind, runs ``--clients`` clients (one keep-alive connection and one request
at a time each; ``--client raw``, the default, writes HTTP by hand, ``--client aiohttp``
uses aiohttp's client, which takes several times the CPU from the cores it shares) for
``--seconds``: the matches list with a random filter, a random match's page, a random
step of a random match's replay, the JSON list at a random offset, and live appends (each
client starts a live match and appends a generated match's events to it, one by one).
Prints requests per second, p50/p95/p99/max of the round trip, and errors (any answer but
2xx, or no answer within 30 s). The anchor comes first and the other lines are given as
ratios to it: with ``--anchor DIR``, the code of another tree (e.g. ``git archive`` of the
commit before a change, its ``serve`` run as it was: one process), else the first worker
count. With ``--anchor-workers N`` both are served at once, by N processes each (0: the
anchor's ``serve`` without the option, one process, as it was; ``--tree-workers M``: this
tree by M), and take turns kind by kind, so that the anchor and this tree meet the same
load on a shared machine; ``--rounds R`` takes R turns per kind and ends with the median
of the R ratios (requests per second, and server CPU per request).
An anchor older than this ledger's schema serves its own ledger (``--anchor-db``: the same
generated matches, imported by the anchor's own ``benchmarks/web.py`` fill).
Bounded (a fixed time per kind, one request in flight per client) and loopback only. The
clients run in this process, on the same cores as the server: their own CPU time is
printed too.

``--pg URL`` measures a PostgreSQL ledger as well (e.g.
``postgresql+psycopg://postgres@127.0.0.1:5432/test``): the same generated matches are
imported into a schema of its own (made for the run, dropped at its end), and each worker
count is served on each backend; a table of requests per second per backend, kind and
worker count ends the run, with 2 workers' ratio to 1.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import time
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ledger.sim.generator import generate_corpus  # noqa: E402

KINDS = ("list", "match", "replay", "api", "append")
# Issue 19's measure with one server process (50 clients, 6,200 matches): requests/s.
ISSUE_BEFORE = {"list": 30.0, "replay": 57.0, "append": 100.0}
LISTS: list[dict[str, str]] = [
    {}, {"table": "domena"}, {"audit": "ok"}, {"result": "won"}, {"table": "selminha"},
    {"from": "2026-01-01", "to": "2026-12-31"}, {"player": "nobody at all"}]


def _bench_web() -> Any:
    # benchmarks/web.py by path: as a module named "web" it would hide the web package.
    spec = importlib.util.spec_from_file_location("bench_web", ROOT / "benchmarks" / "web.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class Ledger:
    """What the clients pick from: match ids with their steps, and player names."""

    steps: dict[int, int]
    players: list[str]

    @classmethod
    def read(cls, db: Path | str) -> Ledger:
        if isinstance(db, str):  # a database URL (PostgreSQL)
            from sqlalchemy import create_engine, text

            engine = create_engine(db)
            try:
                with engine.connect() as c:
                    return cls._of(c.execute(text(cls._STEPS)).all(),
                                   c.execute(text(cls._PLAYERS)).all())
            finally:
                engine.dispose()
        with sqlite3.connect(db) as conn:
            return cls._of(list(conn.execute(cls._STEPS)), list(conn.execute(cls._PLAYERS)))

    _STEPS = ("SELECT m.id, s.events FROM matches m JOIN match_summaries s "
              "ON s.match_id = m.id WHERE m.origin = 'import'")
    _PLAYERS = "SELECT name FROM player_totals ORDER BY name LIMIT 50"

    @classmethod
    def _of(cls, steps: Any, players: Any) -> Ledger:
        return cls({int(i): int(n) for i, n in steps}, [r[0] for r in players])


@dataclass
class Tally:
    times: list[float] = field(default_factory=list)
    errors: int = 0
    first_error: str = ""

    def line(self, seconds: float) -> dict[str, Any]:
        ordered = sorted(self.times) or [0.0]

        def pct(q: float) -> float:
            return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

        return {"rps": len(self.times) / seconds, "p50": pct(0.5), "p95": pct(0.95),
                "p99": pct(0.99), "max": ordered[-1], "errors": float(self.errors),
                "requests": float(len(self.times))}


class Answer:
    """One answer: its status and body (as sent: decompressed only when read as JSON)."""

    __slots__ = ("status", "body", "gzipped")

    def __init__(self, status: int, body: bytes, gzipped: bool = False) -> None:
        self.status, self.body, self.gzipped = status, body, gzipped

    def json(self) -> Any:
        body = zlib.decompress(self.body, 31) if self.gzipped else self.body
        return json.loads(body) if body else None


class RawClient:
    """One keep-alive connection written by hand: a request is bytes made at once and an
    answer is read by its Content-Length (or its chunks). It costs the shared cores a
    fraction of what aiohttp's client does (``--client aiohttp``), so what is measured is
    the server; it sends what aiohttp sends (``Accept-Encoding: gzip, deflate``), so the
    server does the same work for either."""

    def __init__(self, base: str) -> None:
        host_port = base.split("://", 1)[1]
        self.host, port = host_port.rsplit(":", 1)
        self.port = int(port)
        self._stream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def get(self, path: str, params: dict[str, str] | None = None) -> Answer:
        target = f"{path}?{urlencode(params)}" if params else path
        return await self._ask(f"GET {target} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                               "Accept-Encoding: gzip, deflate\r\n\r\n".encode())

    async def post_json(self, path: str, value: Any) -> Answer:
        body = json.dumps(value).encode()
        head = (f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                "Accept-Encoding: gzip, deflate\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()
        return await self._ask(head + body)

    async def _ask(self, request: bytes) -> Answer:
        try:
            async with asyncio.timeout(30):
                if self._stream is None:
                    self._stream = await asyncio.open_connection(self.host, self.port)
                reader, writer = self._stream
                writer.write(request)
                return await _read_answer(reader)
        except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError) as exc:
            await self.close()
            raise RuntimeError(f"{type(exc).__name__}: {exc}") from None

    async def close(self) -> None:
        if self._stream is not None:
            self._stream[1].close()
            self._stream = None


async def _read_answer(reader: asyncio.StreamReader) -> Answer:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in
               (line.partition(":") for line in lines[1:] if line)}
    if "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                break
            parts.append(chunk[:-2])
        body = b"".join(parts)
    else:
        body = b""
    return Answer(status, body, headers.get("content-encoding") == "gzip" and bool(body))


class AiohttpClient:
    """The same questions through aiohttp's client (heavier on the shared cores)."""

    def __init__(self, base: str, connector: Any) -> None:
        import aiohttp

        self.session = aiohttp.ClientSession(base, connector=connector, connector_owner=False,
                                             timeout=aiohttp.ClientTimeout(total=30))

    async def get(self, path: str, params: dict[str, str] | None = None) -> Answer:
        return await self._wrap(self.session.get(path, params=params))

    async def post_json(self, path: str, value: Any) -> Answer:
        return await self._wrap(self.session.post(path, json=value))

    async def _wrap(self, asked: Any) -> Answer:
        import aiohttp

        try:
            async with asked as res:
                return Answer(res.status, await res.read())
        except (TimeoutError, aiohttp.ClientError) as exc:
            raise RuntimeError(f"{type(exc).__name__}: {exc}") from None

    async def close(self) -> None:
        await self.session.close()


Client = RawClient | AiohttpClient
Ask = Callable[[Client, random.Random], Awaitable[None]]


async def _get(client: Client, url: str, params: dict[str, str] | None = None) -> None:
    res = await client.get(url, params)
    if res.status >= 300:
        raise RuntimeError(f"GET {url} {params or ''}: HTTP {res.status}")


def _readers(ledger: Ledger) -> dict[str, Ask]:
    ids = list(ledger.steps)

    async def matches_list(s: Client, rng: random.Random) -> None:
        params = dict(rng.choice(LISTS))
        if rng.random() < 0.3 and ledger.players:
            params["player"] = rng.choice(ledger.players)
        await _get(s, "/matches", params)

    async def match(s: Client, rng: random.Random) -> None:
        await _get(s, f"/matches/{rng.choice(ids)}")

    async def replay(s: Client, rng: random.Random) -> None:
        match_id = rng.choice(ids)
        params = {"step": str(rng.randint(0, ledger.steps[match_id]))}
        if rng.random() < 0.5:
            params["seat"] = "0"
        await _get(s, f"/matches/{match_id}/replay", params)

    async def api(s: Client, rng: random.Random) -> None:
        await _get(s, "/api/matches", {"limit": "50",
                                        "offset": str(rng.randint(0, len(ids) - 50))})

    return {"list": matches_list, "match": match, "replay": replay, "api": api}


class Appender:
    """One client's live match: started, then fed a generated match's events one by one."""

    def __init__(self, source: list[dict[str, Any]]) -> None:
        self.source = source
        self.match: dict[str, Any] | None = None
        self.id = 0
        self.next = 0
        self.seq = 0

    async def __call__(self, s: Client, rng: random.Random) -> None:
        if self.match is None or self.next >= len(self.match["events"]):
            self.match = rng.choice(self.source)
            header = {"table": self.match["table"], "seats": self.match["seats"]}
            res = await s.post_json("/api/matches", header)
            if res.status != 201:
                raise RuntimeError(f"POST /api/matches: HTTP {res.status} {res.body[:200]!r}")
            body = res.json()
            self.id, self.next, self.seq = int(body["id"]), 0, int(body["next_seq"])
            return
        event = self.match["events"][self.next]
        res = await s.post_json(f"/api/matches/{self.id}/events",
                                {"expected_seq": self.seq, "event": event})
        if res.status != 201:
            self.match = None  # a fresh match next time
            raise RuntimeError(f"append to {self.id}: HTTP {res.status} {res.body[:200]!r}")
        self.next += 1
        self.seq = int(res.json()["next_seq"])


async def _client(make: Callable[[], Client], ask: Ask, seed: int, until: float,
                  tally: Tally) -> None:
    rng = random.Random(seed)
    client = make()
    try:
        while time.monotonic() < until:
            started = time.perf_counter()
            try:
                await ask(client, rng)
            except RuntimeError as exc:
                tally.errors += 1
                tally.first_error = tally.first_error or str(exc)
                continue
            tally.times.append(time.perf_counter() - started)
    finally:
        await client.close()


async def _run_kind(base: str, asks: list[Ask], seconds: float, kind_of_client: str) -> Tally:
    tally = Tally()
    connector: Any = None
    if kind_of_client == "aiohttp":
        import aiohttp

        connector = aiohttp.TCPConnector(limit=len(asks))

    def make() -> Client:
        return RawClient(base) if connector is None else AiohttpClient(base, connector)

    try:
        # A short warm-up first: imports, templates and caches of every server process.
        warm = Tally()
        await asyncio.gather(*(_client(make, a, 10_000 + i, time.monotonic() + 1.5, warm)
                               for i, a in enumerate(asks)))
        until = time.monotonic() + seconds
        await asyncio.gather(*(_client(make, a, i, until, tally) for i, a in enumerate(asks)))
    finally:
        if connector is not None:
            await connector.close()
    return tally


def _start_server(db: Path | str, workers: int | None, tree: Path | None = None
                  ) -> tuple[subprocess.Popen[bytes], str]:
    """``serve`` of this tree (or of ``tree``: its code first on the path, its command as
    it was; ``workers`` None: without the option, one process then)."""
    bench = _bench_web()
    port = bench._free_port()
    env = {**os.environ, "DOMINO_LEDGER_ANALYSIS_WORKERS": "1"}
    args = ["serve", "--port", str(port), "--db", db if isinstance(db, str) else f"sqlite:///{db}"]
    if workers is not None:
        args += ["--workers", str(workers)]
    if tree is None:
        command = [str(Path(sys.executable).parent / "domino-ledger"), *args]
    else:  # the worker processes are spawned: they are given the parent's path
        command = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv.pop(1)); "
                   "from web.cli import main; sys.exit(main(sys.argv[1:]))", str(tree), *args]
    proc = subprocess.Popen(command, env=env, cwd=tree or ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    import urllib.request

    while True:
        if proc.poll() is not None:
            raise SystemExit(f"serve --workers {workers} ended with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{base}/api/matches?limit=1", timeout=5) as res:
                if res.status == 200:
                    return proc, base
        except OSError:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            raise SystemExit(f"serve --workers {workers} did not answer in 60 s")
        time.sleep(0.2)


def _tree_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) of ``pid`` and every process under it (Linux /proc);
    None elsewhere. Per request it says more than requests per second on a shared machine."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    stats: dict[int, list[str]] = {}
    try:
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stats[int(entry.name)] = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
    except OSError:
        return None
    if pid not in stats:
        return None
    tree, grew = {pid}, True
    while grew:
        more = {p for p, f in stats.items() if int(f[1]) in tree} - tree
        tree |= more
        grew = bool(more)
    return sum(int(stats[p][11]) + int(stats[p][12]) for p in tree) / tick


def _served(proc: subprocess.Popen[bytes], base: str, kind: str, args: argparse.Namespace,
            ledger: Ledger, live: list[dict[str, Any]]) -> dict[str, Any]:
    """One kind's line, with the server's CPU per request when it can be read."""
    before = _tree_cpu(proc.pid)
    tally = _measure(base, kind, args, ledger, live)
    after = _tree_cpu(proc.pid)
    got = tally.line(args.seconds)
    if before is not None and after is not None and tally.times:
        got["cpu_ms"] = 1000 * (after - before) / len(tally.times)
    got["first_error"] = tally.first_error
    return got


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def _print_line(label: str, kind: str, got: dict[str, Any], anchor: dict[str, Any] | None
                ) -> None:
    first_error = got.get("first_error", "")
    ratio = f"  {got['rps'] / anchor['rps']:.2f}x the anchor" if anchor and anchor["rps"] else ""
    if "cpu_ms" in got:
        ratio += f"  server CPU {got['cpu_ms']:.2f} ms/req"
        if anchor and anchor.get("cpu_ms"):
            ratio += f" ({anchor['cpu_ms'] / got['cpu_ms']:.2f}x less)"
    before = ISSUE_BEFORE.get(kind)
    issue = f"  {got['rps'] / before:.1f}x issue 19's {before:g}/s" if before else ""
    print(f"{label} {kind:7s} {got['rps']:7.1f} req/s  p50 {got['p50'] * 1000:6.0f} ms"
          f"  p95 {got['p95'] * 1000:6.0f} ms  p99 {got['p99'] * 1000:6.0f} ms"
          f"  max {got['max'] * 1000:6.0f} ms  errors {got['errors']:.0f}"
          f"  ({got['requests']:.0f} requests){ratio}{issue}", flush=True)
    if first_error:
        print(f"    first error: {first_error[:300]}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--client", choices=("raw", "aiohttp"), default="raw",
                        help="the clients' HTTP: a connection each written by hand (light on "
                             "the shared cores) or aiohttp's client")
    parser.add_argument("--db", type=Path, default=ROOT / "artifacts" / "bench-load.db")
    parser.add_argument("--pg", default=None, metavar="URL",
                        help="a PostgreSQL server to measure too (a schema of its own, "
                             "dropped at the end)")
    parser.add_argument("--anchor", type=Path, default=None, metavar="DIR",
                        help="a source tree whose one-process serve is the anchor")
    parser.add_argument("--anchor-workers", type=int, default=None, metavar="N",
                        help="the anchor served by N processes too, started beside this "
                             "tree's with the same N, the two taking turns kind by kind "
                             "(so both meet the same load on a shared machine); 0: the "
                             "anchor's serve without the option (one process)")
    parser.add_argument("--tree-workers", type=int, default=None, metavar="M",
                        help="with --anchor-workers: this tree's processes (default: N)")
    parser.add_argument("--rounds", type=int, default=1, metavar="R",
                        help="with --anchor-workers: turns per kind, then the medians")
    parser.add_argument("--anchor-db", type=Path, default=None, metavar="PATH",
                        help="the anchor's own ledger, for an anchor older than this "
                             "ledger's schema: the same generated matches imported by the "
                             "anchor's code (its benchmarks/web.py fill)")
    args = parser.parse_args(argv)
    if args.anchor_workers is not None:
        if args.anchor is None:
            parser.error("--anchor-workers needs --anchor DIR")
        return _side_by_side(args)
    ledger, live = _prepare(args)
    table: dict[tuple[str, str, int | None], float] = {}
    _runs(args, "sqlite", args.db, ledger, live, table)
    if args.pg is not None:
        url, drop = _pg_ledger(args.pg, args.matches)
        try:
            _runs(args, "postgresql", url, Ledger.read(url), live, table)
        finally:
            drop()
    _print_table(args, table)
    return 0


def _runs(args: argparse.Namespace, backend: str, db: Path | str, ledger: Ledger,
          live: list[dict[str, Any]], table: dict[tuple[str, str, int | None], float]) -> None:
    anchors: dict[str, dict[str, Any]] = {}
    runs: list[tuple[str, int | None, Path | None]] = [
        (f"{backend} workers={n}", n, None) for n in args.workers]
    if args.anchor is not None and backend == "sqlite":
        runs.insert(0, ("anchor   ", None, args.anchor.resolve()))
    for label, workers, tree in runs:
        proc, base = _start_server(args.anchor_db or args.db if tree else db, workers, tree)
        try:
            for kind in args.kinds:
                cpu = resource.getrusage(resource.RUSAGE_SELF)
                got = _served(proc, base, kind, args, ledger, live)
                used = resource.getrusage(resource.RUSAGE_SELF)
                _print_line(label, kind, got, anchors.get(kind))
                spent = used.ru_utime + used.ru_stime - cpu.ru_utime - cpu.ru_stime
                print(f"    client CPU {spent:.1f} s", flush=True)
                anchors.setdefault(kind, got)
                if tree is None:
                    table[backend, kind, workers] = got["rps"]
        finally:
            _stop(proc)


def _print_table(args: argparse.Namespace, table: dict[tuple[str, str, int | None], float]
                 ) -> None:
    """Requests per second by backend and kind, a column per worker count (and the last
    count's ratio to the first): the table the closing notes quote."""
    counts = list(args.workers)
    print()
    print("| backend | kind | " + " | ".join(f"{n} worker{'s' * (n > 1)} req/s" for n in counts)
          + (f" | {counts[-1]} vs {counts[0]} |" if len(counts) > 1 else " |"))
    print("|---|---|" + "---:|" * (len(counts) + (len(counts) > 1)))
    for backend in dict.fromkeys(b for b, _, _ in table):
        for kind in args.kinds:
            got = [table.get((backend, kind, n)) for n in counts]
            cells = " | ".join("-" if g is None else f"{g:.1f}" for g in got)
            ratio = (f" | {got[-1] / got[0]:.2f}x" if len(got) > 1 and got[0] and got[-1]
                     else "")
            print(f"| {backend} | {kind} | {cells}{ratio} |", flush=True)


def _pg_ledger(server: str, want: int) -> tuple[str, Callable[[], None]]:
    """A schema of its own on ``server`` holding ``want`` generated matches: its URL, and
    what drops it."""
    from sqlalchemy import create_engine, text

    from ledger.store import db
    from ledger.store.imports.importer import import_records

    name = f"bench_load_{os.getpid()}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE SCHEMA "{name}"'))
    url = f"{server}{'&' if '?' in server else '?'}options=-csearch_path%3D{name}"
    engine = db.open_db(url, migrate=True)
    print(f"importing {want} generated matches into PostgreSQL schema {name}...", flush=True)
    with db.writing(engine) as session:
        for _ in import_records(session, _bench_web()._records(want, seed=1000)):
            pass
    engine.dispose()

    def drop() -> None:
        with admin.connect() as c:
            c.execute(text(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))
        admin.dispose()

    return url, drop


def _prepare(args: argparse.Namespace) -> tuple[Ledger, list[dict[str, Any]]]:
    args.db.parent.mkdir(parents=True, exist_ok=True)
    _bench_web().fill(args.db, args.matches)
    ledger = Ledger.read(args.db)
    live = list(generate_corpus(60, seed=77))
    print(f"{len(ledger.steps)} imported matches; {args.clients} clients, {args.seconds:g} s "
          f"per kind; {os.cpu_count()} cores", flush=True)
    return ledger, live


def _measure(base: str, kind: str, args: argparse.Namespace, ledger: Ledger,
             live: list[dict[str, Any]]) -> Tally:
    asks: list[Ask] = ([Appender(live) for _ in range(args.clients)]
                       if kind == "append" else [_readers(ledger)[kind]] * args.clients)
    try:  # the clients' loop as light as the server's
        import uvloop

        return uvloop.run(_run_kind(base, asks, args.seconds, args.client))
    except ImportError:
        return asyncio.run(_run_kind(base, asks, args.seconds, args.client))


def _side_by_side(args: argparse.Namespace) -> int:
    """The anchor and this tree, both serving the same matches at once; per kind the
    anchor's turn, then this tree's, then the load average, ``--rounds`` times."""
    ledger, live = _prepare(args)
    n = args.anchor_workers
    m = n if args.tree_workers is None else args.tree_workers
    servers = [("anchor   ", *_start_server(args.anchor_db or args.db, n or None,
                                              args.anchor.resolve()))]
    ratios: dict[str, list[tuple[float, float]]] = {}
    try:
        servers.append((f"workers={m}", *_start_server(args.db, m)))
        for _ in range(args.rounds):
            for kind in args.kinds:
                anchor: dict[str, Any] | None = None
                for label, proc, base in servers:
                    got = _served(proc, base, kind, args, ledger, live)
                    _print_line(label, kind, got, anchor)
                    if anchor is not None and anchor["rps"]:
                        ratios.setdefault(kind, []).append(
                            (got["rps"] / anchor["rps"],
                             anchor.get("cpu_ms", 0.0) / got["cpu_ms"] if got.get("cpu_ms")
                             else 0.0))
                    anchor = anchor or got
                print(f"    load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}",
                      flush=True)
    finally:
        for _label, proc, _base in servers:
            _stop(proc)
    if args.rounds > 1:
        for kind, turns in ratios.items():
            rps = sorted(r for r, _ in turns)
            print(f"median of {len(turns)} turns, {kind:7s}: {statistics.median(rps):.2f}x the "
                  f"anchor's requests/s (each: {' '.join(f'{r:.2f}' for r in rps)}); "
                  f"{statistics.median(c for _, c in turns):.2f}x less server CPU per request",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
