"""Server time of the replay page and of the replay JSON at random steps of random matches.

    python benchmarks/web.py [--matches 20000] [--requests 400] [--db artifacts/bench-web.db]

Fills a SQLite ledger with generated matches (every table of the seeds, through
the store's importer; kept and reused when it already holds enough), serves the
app with uvicorn on a free localhost port, and asks for random steps of random
matches, half of them in one seat's view. Server time is measured inside the
server, from the request's arrival to the last byte of its response (an ASGI
wrapper around the app); the round trip as the client saw it is printed too.
Goal: p95 <= 20 ms for both. The matches list (a random filter, a page anywhere in
the ledger), the players page (every stored match counted, for everyone, one table or
one player) and the what-if page (a random match under Casual Arena) are timed the same
way.

``--first-visit`` times instead what a person waits for on the match page, in Debian's
chromium (Playwright) over loopback: a first visit (empty cache) and a second one, from
navigation start to the first paint with text, DOMContentLoaded, the load event, and the
score chart drawn (Plotly fetched after the page by chart.js). The anchor of the same run
is the same page with Plotly's script put back in the page as it was before (a plain
``<script src>`` before chart.js, which holds the page until 4.8 MB arrive uncompressed).

``--light N`` prints instead the light page's numbers (issue 33): for the match page, the
replay (its whole-match chart opened as soon as the page is parsed) and the players page,
the JavaScript sent (KB, gzipped as it went over the wire) and, over Chromium's slow-4G
emulation (CDP Network.emulateNetworkConditions: 150 ms, 1.6 Mbps down, 750 kbps up),
when the page painted, was ready, loaded and had its chart drawn; each first with
``DOMINO_LEDGER_PLOTLY=full`` (before: the plotly package's whole plotly.min.js), then
with the basic partial bundle the pages load now, with the ratios. Goals: at most 600 KB
of script and the chart within 4 s. ``--matches 1`` is enough for it.
"""

from __future__ import annotations

import argparse
import os
import random
import re
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
from ledger.store.db import open_db, writing  # noqa: E402
from ledger.store.imports.importer import import_records  # noqa: E402
from ledger.store.log import snapshots  # noqa: E402
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
        self.cpu: list[float] = []

    async def __call__(self, scope: Scope, receive: Callable[[], Awaitable[Message]],
                       send: Callable[[Message], Awaitable[None]]) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        cpu = time.process_time()

        async def timed_send(message: Message) -> None:
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                self.times.append((scope["path"], time.perf_counter() - start))
                # CPU of the whole process, client thread included (it only waits here):
                # what the request costs, whatever else the machine is doing.
                self.cpu.append(time.process_time() - cpu)

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


def fill_list_copy(source: Path, target: Path, want: int) -> int:
    """A ledger of ``want`` matches for the matches list only: the source's matches and
    summaries copied over and over with new ids (no events: the list never reads them)."""
    import sqlite3

    if target.exists():
        with sqlite3.connect(target) as db:
            have = int(db.execute("SELECT count(*) FROM matches").fetchone()[0])
        if have >= want:
            return have
        target.unlink()
    open_db(f"sqlite:///{target}").dispose()  # the schema, by the store's migrations
    with sqlite3.connect(target) as db:
        db.execute("ATTACH DATABASE ? AS src", (str(source),))
        n = int(db.execute("SELECT count(*) FROM src.matches").fetchone()[0])
        copies = -(-want // n)
        print(f"copying {n} matches {copies} times into {target} (once; it is kept)...",
              flush=True)
        cols = ("origin, preset, seat_count, seats, options, source, started_at, status, ok, "
                "errors, warnings, findings, imported_from, created_at")
        for k in range(copies):
            db.execute(f"INSERT INTO matches (id, {cols}) SELECT id + ?, {cols} "
                       "FROM src.matches", (k * n,))
            db.execute("INSERT INTO match_summaries SELECT match_id + ?, events, last_seq, "
                       "head_hash, deals, scores, winner, complete, end_reason "
                       "FROM src.match_summaries", (k * n,))
        db.execute("INSERT INTO player_totals SELECT * FROM src.player_totals")
        db.commit()
        return int(db.execute("SELECT count(*) FROM matches").fetchone()[0])


def _names(db_url: str) -> list[str]:
    engine = open_db(db_url)
    with engine.connect() as conn:
        names = list(conn.execute(text("SELECT name FROM player_totals")).scalars())
    engine.dispose()
    return names


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _serve(app: ASGI) -> tuple[uvicorn.Server, threading.Thread, int]:
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    return server, thread, port


LISTS: list[dict[str, str]] = [
    {}, {"table": "domena"}, {"audit": "ok"}, {"result": "won"}, {"player": "Ali"},
    {"player": "Noor", "table": "selminha"}, {"player": "nobody at all"},
    {"from": "2026-01-01", "to": "2026-12-31"}]


def time_requests(port: int, timed: Timed, path: str,
                  params: list[dict[str, Any]]) -> tuple[list[float], list[float], list[float]]:
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
        for p in params[:20]:  # warm up: imports, template compilation, caches
            client.get(path.format(**p), params={k: v for k, v in p.items() if k != "id"})
        timed.times.clear()
        timed.cpu.clear()
        trips: list[float] = []
        for p in params:
            started = time.perf_counter()
            res = client.get(path.format(**p), params={k: v for k, v in p.items() if k != "id"})
            trips.append(time.perf_counter() - started)
            if res.status_code != 200:
                raise SystemExit(f"{res.request.url}: HTTP {res.status_code}")
    return [t for _, t in timed.times], trips, list(timed.cpu)


CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
_TIMES = """() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  return {paint: paint ? paint.startTime : null, dom: nav.domContentLoadedEventEnd,
          load: nav.loadEventEnd, bytes: performance.getEntriesByType("resource")
            .reduce((n, r) => n + r.transferSize, nav.transferSize)};
}"""


def _old_page(route: Any) -> None:
    """The match page as it was before issue 15: Plotly's script in the page, uncompressed."""
    res = route.fetch(headers={**route.request.headers, "accept-encoding": "identity"})
    body = re.sub(r'(<script src="/assets/[^"]+/js/plot\.js")',
                  r'<script src="/plotly-uncompressed.js"></script>\1', res.text())
    route.fulfill(response=res, body=body)


def first_visit(db_url: str, visits: int) -> None:
    from playwright.sync_api import sync_playwright

    from web.app import create_app
    from web.assets import asset

    timed = Timed(create_app(db_url))
    server, thread, port = _serve(timed)
    engine = open_db(db_url)
    with engine.connect() as conn:
        match_id = conn.execute(select(func.max(MATCHES.c.id))).scalar_one()
    engine.dispose()
    plotly = asset("vendor/plotly.min.js")
    assert plotly is not None
    url = f"http://127.0.0.1:{port}/matches/{match_id}"
    rows: dict[str, list[dict[str, float]]] = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            for label, old in (("anchor: Plotly in the page, as before", True),
                               ("now", False)):
                for _ in range(visits):
                    context = browser.new_context()  # an empty cache: a first visit
                    page = context.new_page()
                    if old:
                        page.route(url, _old_page)
                        page.route("**/plotly-uncompressed.js", lambda r: r.fulfill(
                            body=plotly.raw, content_type="text/javascript"))
                    for visit in ("first visit", "second visit"):
                        start = time.perf_counter()
                        page.goto(url, wait_until="load")
                        page.wait_for_selector("#score-race .main-svg", timeout=120_000)
                        chart = (time.perf_counter() - start) * 1000
                        got = page.evaluate(_TIMES)
                        rows.setdefault(f"{label}, {visit}", []).append({**got, "chart": chart})
                    context.close()
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    print(f"match page {url} over loopback, best of {visits} (ms from navigation start; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"{'':52}{'painted':>9}{'DOM ready':>10}{'loaded':>8}{'chart':>8}{'KB sent':>9}")
    for label, runs in rows.items():
        best = {k: min(r[k] for r in runs if r[k] is not None) if any(
            r[k] is not None for r in runs) else float("nan") for k in runs[0]}
        print(f"{label:52}{best['paint']:9.0f}{best['dom']:10.0f}{best['load']:8.0f}"
              f"{best['chart']:8.0f}{best['bytes'] / 1024:9.0f}")


# Chromium's "Slow 4G" (issue 33): 150 ms latency, 1.6 Mbps down, 750 kbps up.
SLOW_4G = {"offline": False, "latency": 150, "downloadThroughput": 1_600_000 / 8,
           "uploadThroughput": 750_000 / 8}
# When the page's chart first has its svg (window.__chartAt, ms from navigation start); on
# the replay the whole-match chart is opened as soon as the page is parsed, as a reader
# who wants it would.
_WATCH_CHART = """
document.addEventListener("DOMContentLoaded", () => {
  const section = document.getElementById("match-chart-section");
  if (section && !section.hidden) section.open = true;
});
new MutationObserver((_, obs) => {
  if (document.querySelector("#score-race svg.main-svg, #match-chart svg.main-svg")) {
    window.__chartAt = performance.now();
    obs.disconnect();
  }
}).observe(document, {childList: true, subtree: true});
"""
LIGHT_PAGES = (("match page", "/matches/{id}", True),
               ("replay", "/matches/{id}/replay?step=0", True),
               ("players", "/players", False))


def _visit(browser: Any, url: str, chart: bool) -> dict[str, float]:
    """One first visit (empty cache) over slow 4G: script bytes as sent (gzipped) and when
    the page painted, was ready, loaded and had its chart (ms from navigation start)."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    scripts: dict[str, int] = {}
    page.on("response", lambda res: scripts.__setitem__(
        res.url, int(res.headers.get("content-length", "0")))
        if res.request.resource_type == "script" else None)
    page.add_init_script(_WATCH_CHART)
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", SLOW_4G)
    page.goto(url, wait_until="load", timeout=180_000)
    if chart:
        page.wait_for_function("() => window.__chartAt !== undefined", timeout=180_000)
    # The first paint is noted a frame or two after it happens: wait for it (5 s at most).
    page.wait_for_function("() => performance.getEntriesByName('first-contentful-paint')"
                           ".length > 0", timeout=5_000)
    got = page.evaluate(_TIMES)
    got["chart"] = page.evaluate("window.__chartAt ?? null") if chart else None
    got["js"] = sum(scripts.values())
    context.close()
    return got


def light(db_url: str, visits: int) -> None:
    """Page weight and time to chart over slow 4G, before (the plotly package's whole
    plotly.min.js) and after (the basic partial bundle), in one run."""
    from playwright.sync_api import sync_playwright

    from web.app import create_app
    from web.assets import PLOTLY_ENV

    engine = open_db(db_url)
    with engine.connect() as conn:
        match_id = conn.execute(select(func.max(MATCHES.c.id))).scalar_one()
    engine.dispose()
    rows: dict[str, dict[str, dict[str, float | None]]] = {}
    before = os.environ.get(PLOTLY_ENV)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            for label, bundle in (("before", "full"), ("after", "")):
                os.environ[PLOTLY_ENV] = bundle  # read by the pages as they are made
                server, thread, port = _serve(create_app(db_url))  # its own page cache
                try:
                    for page_name, path, chart in LIGHT_PAGES:
                        url = f"http://127.0.0.1:{port}{path.format(id=match_id)}"
                        runs = [_visit(browser, url, chart) for _ in range(visits)]
                        rows.setdefault(page_name, {})[label] = {
                            k: statistics.median(r[k] for r in runs)
                            if runs[0][k] is not None else None for k in runs[0]}
                finally:
                    server.should_exit = True
                    thread.join(timeout=10)
            browser.close()
    finally:
        if before is None:
            os.environ.pop(PLOTLY_ENV, None)
        else:
            os.environ[PLOTLY_ENV] = before
    _light_report(rows, visits, match_id)


def _light_report(rows: dict[str, dict[str, dict[str, float | None]]], visits: int,
                  match_id: int) -> None:
    print(f"first visits over Chromium's slow 4G (latency {SLOW_4G['latency']} ms, 1.6 Mbps "
          f"down, 750 kbps up), 390x844, median of {visits}; match {match_id}")
    print("before: the plotly package's whole plotly.min.js; after: the basic partial bundle")
    print("goals: page JavaScript <= 600 KB gzipped, chart drawn <= 4 s")
    print(f"{'':12}{'':8}{'JS KB gz':>10}{'painted':>9}{'DOM ready':>10}{'loaded':>8}"
          f"{'chart ms':>10}")

    def cell(v: float | None, scale: float = 1) -> str:
        return "-" if v is None else f"{v / scale:.0f}"

    for page_name, by in rows.items():
        for label in ("before", "after"):
            r = by[label]
            print(f"{page_name if label == 'before' else '':12}{label:8}"
                  f"{cell(r['js'], 1024):>10}{cell(r['paint']):>9}{cell(r['dom']):>10}"
                  f"{cell(r['load']):>8}{cell(r['chart']):>10}")
        b, a = by["before"], by["after"]
        ratio = [f"JS x{(a['js'] or 0) / b['js']:.2f}" if b["js"] else "JS -"]
        if a["chart"] is not None and b["chart"]:
            ratio.append(f"chart x{a['chart'] / b['chart']:.2f}")
        print(f"{'':12}{'ratio':8}  after/before: {', '.join(ratio)}")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=400, help="per kind (page, JSON)")
    parser.add_argument("--db", type=Path, default=ROOT / "artifacts" / "bench-web.db")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--list-matches", type=int, default=100_000,
                        help="also time the matches list over a ledger of this many matches "
                        "(copies of the stored ones; 0: skip)")
    parser.add_argument("--first-visit", type=int, metavar="N", default=0,
                        help="only time N first visits of the match page in chromium "
                        "(the ledger needs only --matches 1)")
    parser.add_argument("--light", type=int, metavar="N", default=0,
                        help="only the light page (issue 33): script weight and time to chart "
                        "of the match page, replay and players over slow 4G, with Plotly's "
                        "whole script and with its partial bundle, N visits each "
                        "(the ledger needs only --matches 1)")
    return parser


def _report(results: dict[str, tuple[list[float], list[float], list[float]]],
            stored: int, requests: int, listed: int, cold: list[float]) -> None:
    print(f"\n{stored} matches stored; {requests} requests per kind at random steps "
          "(half of them in one seat's view)")
    load = os.getloadavg()[0]
    print(f"load average {load:.2f} on {os.cpu_count()} cores"
          + ("  (a busy machine: the slow tail is waiting for a core)"
             if load > (os.cpu_count() or 1) * 0.75 else ""))
    rows = [("page", "replay page (HTML)"), ("json", "replay JSON"),
            ("list", "matches list, filtered"), ("players", "players page"),
            ("whatif", "what-if page")]
    if listed:
        rows.append(("list-big", f"  same, {listed} matches"))
    print(f"{'':24}{'p50 ms':>8}{'p95 ms':>8}{'max ms':>8}   round trip p50/p95   "
          "CPU p50/p95 ms")
    for kind, label in rows:
        server_t, trip, cpu = results[kind]
        ms = [t * 1000 for t in server_t]
        trip_ms = [t * 1000 for t in trip]
        cpu_ms = [t * 1000 for t in cpu]
        print(f"{label:24}{statistics.median(ms):8.2f}{_pct(ms, 0.95):8.2f}{max(ms):8.2f}"
              f"   {statistics.median(trip_ms):6.2f} / {_pct(trip_ms, 0.95):6.2f}"
              f"   {statistics.median(cpu_ms):6.2f} / {_pct(cpu_ms, 0.95):6.2f}")
    print(f"players page, counting: {cold[0] * 1000:.0f} ms for every table, "
          f"{cold[1] * 1000:.0f} ms for Domena only (the answers above are kept counts)")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    args.db.parent.mkdir(parents=True, exist_ok=True)
    stored = fill(args.db, args.matches)
    if args.first_visit:
        first_visit(f"sqlite:///{args.db}", args.first_visit)
        return 0
    if args.light:
        light(f"sqlite:///{args.db}", args.light)
        return 0

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
    server, thread, port = _serve(timed)
    results: dict[str, tuple[list[float], list[float], list[float]]] = {}
    cold: list[float] = []
    try:
        for kind, path in (("page", "/matches/{id}/replay"), ("json", "/api/matches/{id}/replay")):
            params: list[dict[str, Any]] = []
            for _ in range(args.requests):
                match_id = rng.choice(ids)
                p: dict[str, Any] = {"id": match_id, "step": rng.randint(0, steps[match_id])}
                if rng.random() < 0.5:
                    p["seat"] = 0
                params.append(p)
            results[kind] = time_requests(port, timed, path, params)
        # The list: a random filter, a page anywhere in the ledger.
        params = [{"id": 0, **rng.choice(LISTS), "before": rng.choice(ids)}
                  for _ in range(args.requests)]
        results["list"] = time_requests(port, timed, "/matches", params)
        # Player statistics: every stored match counted (read models), then kept by the
        # app until the ledger changes: the first answer per table is the count itself.
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
            timed.times.clear()
            for p in ({}, {"table": "domena"}):
                client.get("/players", params=p)
            cold = [t for _, t in timed.times]
        names = _names(db_url)
        params = [{"id": 0, **rng.choice([{}, {"table": "domena"},
                                          {"player": rng.choice(names)}])}
                  for _ in range(max(20, args.requests // 10))]
        results["players"] = time_requests(port, timed, "/players", params)
        # What-if: a stored match read back and audited under two tables.
        params = [{"id": rng.choice(ids), "rules": "casual-arena"}
                  for _ in range(args.requests)]
        results["whatif"] = time_requests(port, timed, "/matches/{id}/whatif", params)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    listed = 0
    if args.list_matches:
        big = args.db.with_name("bench-list.db")
        listed = fill_list_copy(args.db, big, args.list_matches)
        timed_big = Timed(create_app(f"sqlite:///{big}"))
        server, thread, port = _serve(timed_big)
        try:
            params = [{"id": 0, **rng.choice(LISTS), "before": rng.randint(1, listed)}
                      for _ in range(args.requests)]
            results["list-big"] = time_requests(port, timed_big, "/matches", params)
        finally:
            server.should_exit = True
            thread.join(timeout=10)

    _report(results, stored, args.requests, listed, cold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
