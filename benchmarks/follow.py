"""Live follow (issue 33, web/follow.py): how long after an append its followers hear of
it, and what it costs them.

A fresh SQLite ledger on a server that wants keys (uvicorn on a free loopback port); a
generated live match is appended through the live API with its key, one event every
``--gap`` seconds, while ``--followers`` streams per view (the replay's: all hands
asked, the table, seat 0; and the match page's) read ``/matches/N/follow`` without it.
For each append: the seconds from the append's answer to each follower's event, and the
size of the replay's events (uncompressed: an event stream is not gzipped).

Prints numbers; asserts nothing about time.

    python benchmarks/follow.py [--appends 30] [--followers 2] [--gap 0.6]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TOKEN = "owner-token-for-the-follow-benchmark"


def _reader(url: str, params: dict[str, str], heard: list[tuple[float, int, int]],
            stop: threading.Event) -> None:
    import httpx

    with contextlib.suppress(httpx.HTTPError):  # the server stops at the end of the run
        _read(url, params, heard, stop)


def _read(url: str, params: dict[str, str], heard: list[tuple[float, int, int]],
          stop: threading.Event) -> None:
    import json

    import httpx

    data = ""
    with httpx.stream("GET", url, params=params, timeout=httpx.Timeout(5, read=60)) as res:
        for line in res.iter_lines():
            if stop.is_set():
                return
            if line.startswith("data:"):
                data += line[5:].strip()
            elif line == "" and data:
                body = json.loads(data)
                heard.append((time.monotonic(), int(body["last_step"]), len(data)))
                data = ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=30)
    parser.add_argument("--followers", type=int, default=2, help="streams per view")
    parser.add_argument("--gap", type=float, default=0.6, help="seconds between appends")
    args = parser.parse_args()

    import httpx

    from ledger.sim.generator import generate_match
    from tests.web.webtest_support import serving
    from web.access import Access, Mode
    from web.app import create_app
    from web.follow import POLL

    folder = Path(tempfile.mkdtemp(prefix="follow-bench-"))
    app = create_app(f"sqlite:///{folder / 'l.db'}",
                     access=Access(Mode.KEYS, TOKEN, ("127.0.0.1", "localhost")))
    match = generate_match("sahrat-draw", 2, {}, seed=11)
    views: dict[str, dict[str, str]] = {
        "replay, all hands asked": {"replay": "1"},
        "replay, table": {"replay": "1", "seat": "table"},
        "replay, seat 0": {"replay": "1", "seat": "0"}, "match page": {}}
    with serving(app) as base, httpx.Client(base_url=base, timeout=30) as c:
        r = c.post("/api/matches", json={"table": match["table"], "seats": match["seats"]},
                   headers={"Authorization": f"Bearer {TOKEN}"})
        mid, key = r.json()["id"], r.json()["recorder_key"]
        auth = {"Authorization": f"Bearer {key}"}

        def append(seq: int, event: dict[str, Any]) -> int:
            got = c.post(f"/api/matches/{mid}/events", json={"expected_seq": seq,
                                                               "event": event}, headers=auth)
            return int(got.json()["next_seq"])

        seq = append(0, match["events"][0])
        stop = threading.Event()
        heard: dict[str, list[list[tuple[float, int, int]]]] = {v: [] for v in views}
        for view, params in views.items():
            for _ in range(args.followers):
                got: list[tuple[float, int, int]] = []
                heard[view].append(got)
                threading.Thread(target=_reader, daemon=True, args=(
                    f"{base}/matches/{mid}/follow", {**params, "since": "1"}, got,
                    stop)).start()
        time.sleep(1.0)
        stored: dict[int, float] = {}
        for i in range(1, min(args.appends + 1, len(match["events"]))):
            seq = append(seq, match["events"][i])
            stored[i + 1] = time.monotonic()
            time.sleep(args.gap)
        time.sleep(1.0)
        stop.set()
    print(f"live follow: {len(stored)} appends, {args.followers} follower(s) per view, "
          f"poll {POLL} s, one append every {args.gap} s")
    for view, lists in heard.items():
        lags = [t - stored[step] for got in lists for t, step, _ in got if step in stored]
        sizes = [size for got in lists for _, step, size in got if step in stored]
        missed = sum(1 for got in lists for step in stored
                     if step not in {s for _, s, _ in got})
        if not lags:
            print(f"  {view:26s} nothing heard")
            continue
        q = statistics.quantiles(lags, n=20) if len(lags) > 1 else lags * 19
        size = statistics.median(sizes) / 1024
        print(f"  {view:26s} after the append: median {statistics.median(lags):.3f} s, "
              f"p95 {q[18]:.3f} s, max {max(lags):.3f} s; event {size:.1f} KB median; "
              f"steps missed {missed}")


if __name__ == "__main__":
    main()
