"""Start-up time of every ``domino-ledger`` command: the whole process, as a person waits.

Each command runs as its own process (the installed ``domino-ledger`` script, else
``python -m web.cli``) on a small input, ``--repeat`` times; the best wall and CPU times
are printed, next to a bare ``python -c pass`` (the interpreter's own start, the anchor of
the same run). ``serve`` is timed to its first answered request. The commands that open
the ledger use a fresh SQLite file in a temporary folder.

``--before DIR`` adds a column: the same commands run from another source tree
(``git archive <commit> | tar -x -C DIR``, the code before a change), in the same run.

Prints numbers; asserts nothing about time.

    python benchmarks/startup.py [--repeat 7] [--before DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_matches" / "casual-arena-2.json"


def command() -> list[str]:
    script = shutil.which("domino-ledger")
    return [script] if script else [sys.executable, "-m", "web.cli"]


def timed(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    """The best wall and CPU seconds (the child's user + system) of ``repeat`` runs."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        run()
        took = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = min(wall, took)
        cpu = min(cpu, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return wall, cpu


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_once(cmd: list[str], db: str, env: dict[str, str]) -> None:
    """Start ``serve``, wait for its first answer, stop it."""
    port = _free_port()
    proc = subprocess.Popen([*cmd, "serve", "--db", db, "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/matches",
                                            timeout=5) as answer:
                    answer.read()
                return
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError("serve ended before it answered") from None
                time.sleep(0.02)
        raise RuntimeError("serve did not answer within 60 s")
    finally:
        proc.terminate()
        proc.wait()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7, help="runs per command; the best counts")
    ap.add_argument("--before", type=Path, help="another source tree to time side by side")
    args = ap.parse_args(argv)
    # Side by side, both trees run the same way: python -m web.cli.
    cmd = [sys.executable, "-m", "web.cli"] if args.before else command()
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    with tempfile.TemporaryDirectory(prefix="ledger-startup-") as tmp:
        db = f"sqlite:///{tmp}/ledger.db"
        subprocess.run([*cmd, "import", str(SAMPLE), "--db", db], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        out = f"{tmp}/out"
        cases: list[tuple[str, list[str]]] = [
            ("python -c pass (anchor)", [sys.executable, "-c", "pass"]),
            ("--help", [*cmd, "--help"]),
            ("audit FILE", [*cmd, "audit", str(SAMPLE)]),
            ("audit --json FILE", [*cmd, "audit", "--json", str(SAMPLE)]),
            ("analyse --help", [*cmd, "analyse", "--help"]),
            ("whatif FILE", [*cmd, "whatif", str(SAMPLE), "--rules", "sahrat-draw"]),
            ("stats FILE", [*cmd, "stats", str(SAMPLE)]),
            ("export FILE --format csv", [*cmd, "export", str(SAMPLE), "--format", "csv",
                                          "-o", out]),
            ("import FILE (stored already)", [*cmd, "import", str(SAMPLE), "--db", db]),
            ("verify", [*cmd, "verify", "--db", db]),
            ("db current", [*cmd, "db", "current", "--db", db]),
        ]
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpu(s), load average "
              f"{os.getloadavg()[0]:.1f}; best of {args.repeat}; command: {' '.join(cmd)}")
        before_env = {**env, "PYTHONPATH": str(args.before)} if args.before else env
        print(f"{'command':32} {'wall s':>7} {'cpu s':>7} {'x anchor':>8}"
              + (f"  {'before: wall s':>14} {'cpu s':>7}" if args.before else ""))
        anchor = 0.0
        for name, argv_ in cases:
            def run(argv_: list[str] = argv_, env_: dict[str, str] = env) -> None:
                subprocess.run(argv_, env=env_, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            wall, cpu = timed(run, args.repeat)
            anchor = anchor or wall
            line = f"{name:32} {wall:7.3f} {cpu:7.3f} {wall / anchor:8.1f}"
            if args.before:
                old = argv_ if argv_[0] == sys.executable else \
                    [sys.executable, "-m", "web.cli", *argv_[len(cmd):]]
                b_wall, b_cpu = timed(lambda old=old: run(old, before_env), args.repeat)
                line += f"  {b_wall:14.3f} {b_cpu:7.3f}"
            print(line, flush=True)
        wall, cpu = timed(lambda: serve_once(cmd, db, env), max(1, args.repeat // 2))
        print(f"{'serve (to its first answer)':32} {wall:7.3f} {cpu:7.3f} {wall / anchor:8.1f}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
