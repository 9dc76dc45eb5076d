"""One step of the replay in a real browser (Debian's chromium): drawn from the steps the
page holds (web/static/js/replay.js) against the anchor of the same run, the old server
round trip (fetch the step's page, parse it, swap #replay in: what replay.js did before
issue 15), both timed in the page with performance.now() and both including the layout
of the new step.

A fresh SQLite ledger holds the samples named; the app is served by uvicorn on a free
loopback port. For each match and view: ``--steps`` presses of → from step 1 (the held
draw, window.replayDrawTimes), then as many round trips over the same steps. Also timed:
the answer of one deal's steps (/matches/N/replay/frames), as the page asks for it.

Prints numbers; asserts nothing about time.

    python benchmarks/replay_step.py [--steps 60] [--sample sahrat-fives-4.json ...]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

# The old stepping (replay.js before issue 15): one page per step, fetched and swapped.
ROUND_TRIP = """async ([first, count, seat]) => {
  const out = [];
  for (let step = first; step < first + count; step += 1) {
    const t0 = performance.now();
    const url = `${location.pathname}?step=${step}` + (seat ? `&seat=${seat}` : "");
    const res = await fetch(url, { headers: { Accept: "text/html" } });
    const doc = new DOMParser().parseFromString(await res.text(), "text/html");
    document.getElementById("replay").replaceWith(doc.getElementById("replay"));
    void document.getElementById("replay").offsetHeight;
    out.push(performance.now() - t0);
  }
  return out;
}"""

FRAMES = """async ([step, seat]) => {
  const t0 = performance.now();
  const view = seat ? `&seat=${seat}` : "";
  const res = await fetch(`${location.pathname}/frames?step=${step}${view}`);
  const body = await res.json();
  return [performance.now() - t0, body.frames.length];
}"""


@contextmanager
def serving(db_url: str) -> Iterator[str]:
    import uvicorn

    from web.app import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    server = uvicorn.Server(uvicorn.Config(create_app(db_url), host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)


def ledger(folder: Path, samples: list[str]) -> tuple[str, dict[str, int]]:
    from ledger.store.db import open_db, writing
    from ledger.store.imports.importer import import_file

    url = f"sqlite:///{folder / 'ledger.db'}"
    engine = open_db(url)
    ids = {}
    for name in samples:
        with writing(engine) as session:
            ids[name] = next(g.id for g in import_file(session, str(ROOT / "sample_matches" / name))
                             if g.id is not None)
    engine.dispose()
    return url, ids


def summary(times: list[float]) -> str:
    times = sorted(times)
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return (f"median {statistics.median(times):7.2f} ms   p95 {p95:7.2f} ms   "
            f"max {times[-1]:7.2f} ms")


def run(page: Any, base: str, match_id: int, seat: str, steps: int) -> None:
    address = f"{base}/matches/{match_id}/replay?step=1" + (f"&seat={seat}" if seat else "")
    page.goto(address)
    page.wait_for_function("() => window.replayDrawTimes !== undefined")
    page.wait_for_load_state("networkidle")
    answer, held = page.evaluate(FRAMES, [1, seat])
    for _ in range(steps):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => document.getElementById('replay').dataset.step === "
                           f"'{1 + steps}'")
    drawn = list(page.evaluate("window.replayDrawTimes"))
    page.goto(address)
    trips = list(page.evaluate(ROUND_TRIP, [2, steps, seat]))
    view = {"": "all hands", "table": "table"}.get(seat, f"seat {seat}")
    print(f"  match {match_id}, {view}: {len(drawn)} presses, {len(drawn)} steps drawn")
    print(f"    held step (browser)      {summary(drawn)}")
    print(f"    server round trip (old)  {summary(trips)}")
    ratio = statistics.median(trips) / statistics.median(drawn)
    print(f"    ratio of medians         {ratio:7.1f}x"
          f"   (one deal's {held} steps answered in {answer:.0f} ms, asked ahead)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--sample", action="append",
                        default=None, help="sample_matches/ file (repeatable)")
    args = parser.parse_args()
    samples = args.sample or ["sahrat-fives-4.json", "domena-2.json"]
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        url, ids = ledger(Path(tmp), samples)
        with serving(url) as base, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 950})
            print(f"replay step, {args.steps} steps per view; load average "
                  f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
            for name in samples:
                print(name)
                for seat in ("", "1"):
                    run(page, base, ids[name], seat, args.steps)
            browser.close()
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
