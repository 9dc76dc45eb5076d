"""Import throughput and memory: generated matches into SQLite and into PostgreSQL.

Generates a seeded corpus (``generate_corpus``) as JSON Lines, once, into the
work folder, and imports it with the real command (``domino-ledger import``,
several matches per transaction, a savepoint each, bulk event inserts, hashes
in Python) into a fresh database per run: a new SQLite file, or a new schema of the local PostgreSQL
database ``test``. Each run is its own process, so its peak memory is its own.
Two input sizes show whether memory grows with the input (it should not).

Each import is run a second time as a person runs it (``domino-ledger import``, a whole
process, into a new ledger) and compared with the anchor of the same run: ``domino-ledger
audit --json`` of the same file (default ``--jobs``), whole process.

Prints numbers; asserts nothing about time. Events are the file's (recorded)
events; rows add the derived events the ledger stores next to them. CPU is
given per event for the writing process and for the worker that reads and
audits (``--jobs``): on a busy machine wall time says less than CPU time.

Measured (issue 15; 2 cores shared with other sessions, load average 2.7-5.4; 1,000
matches, 219,158 events, 233,429 rows, SQLite, ``--jobs 2``; the branch point and the
change alternated, four runs each): the writing process 9.7-12.0 -> 5.4-8.9 us CPU an
event; the whole import 5.5-7.9 -> 4.3-7.1 s CPU against the audit's 0.8-1.5 s;
wall times swung with the load (audit 0.8-2.3 s). Where the CPU goes and the floor on
two cores: docs/scaling.md, "Importing one large file".

    python benchmarks/import.py [--sizes 10000 20000] [--backends sqlite postgres]
                                [--jobs 1] [--seed 3] [--workdir /tmp/domino-ledger-bench]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PG = os.environ.get("DOMINO_LEDGER_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def corpus(workdir: Path, sizes: list[int], seed: int) -> dict[int, Path]:
    """JSON Lines files of the first n matches of one seeded corpus, for each n."""
    from ledger.sim.generator import generate_corpus

    biggest = max(sizes)
    full = workdir / f"corpus-{seed}-{biggest}.jsonl"
    if not full.is_file():
        print(f"generating {biggest} matches into {full} ...", file=sys.stderr, flush=True)
        tmp = full.with_suffix(".part")
        with tmp.open("wb") as out:
            for match in generate_corpus(biggest, seed=seed):
                out.write(orjson.dumps(match) + b"\n")
        tmp.rename(full)
    files = {biggest: full}
    for n in sizes:
        if n == biggest:
            continue
        part = workdir / f"corpus-{seed}-{biggest}-first-{n}.jsonl"
        if not part.is_file():
            with full.open("rb") as src, part.open("wb") as out:
                for _, line in zip(range(n), src, strict=False):
                    out.write(line)
        files[n] = part
    return files


# --- one run, in its own process -----------------------------------------------------


def child(url: str, path: str, jobs: int, result: str) -> None:
    from sqlalchemy import func, select

    from ledger.store import db
    from ledger.store.models import EVENTS, MATCHES
    from web.cli import main

    db.open_db(url, migrate=True).dispose()
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    events = sum(len(orjson.loads(line)["events"]) for line in open(path, "rb"))  # noqa: SIM115
    before = resource.getrusage(resource.RUSAGE_SELF)
    cpu0 = before.ru_utime + before.ru_stime
    t0 = time.perf_counter()
    code = main(["import", path, "--db", url, "--no-progress", "--jobs", str(jobs)])
    wall = time.perf_counter() - t0
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    engine = db.make_engine(url)
    with engine.connect() as c:
        matches = c.execute(select(func.count()).select_from(MATCHES)).scalar_one()
        rows = c.execute(select(func.count()).select_from(EVENTS)).scalar_one()
    engine.dispose()
    Path(result).write_text(json.dumps({
        "exit": code, "wall": wall, "events": events, "matches": matches, "rows": rows,
        "cpu_writer": me.ru_utime + me.ru_stime - cpu0,
        "cpu_workers": kids.ru_utime + kids.ru_stime,
        "rss_before": base / 1024, "rss_peak": me.ru_maxrss / 1024,
        "rss_worker": kids.ru_maxrss / 1024}))


# --- the driver ------------------------------------------------------------------------


def audit_times(path: Path, repeat: int = 3) -> tuple[float, float]:
    """The anchor: ``domino-ledger audit --json`` of the same file, whole process (best
    wall and CPU seconds of ``repeat`` runs, its workers included)."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "web.cli", "audit", "--json", str(path)],
                       cwd=ROOT, stdout=subprocess.DEVNULL, check=False)
        took = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = min(wall, took)
        cpu = min(cpu, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return wall, cpu



def fresh_url(backend: str, workdir: Path, tag: str) -> tuple[str, object]:
    if backend == "sqlite":
        path = workdir / f"{tag}.db"
        for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            p.unlink(missing_ok=True)
        return f"sqlite:///{path}", path
    from sqlalchemy import create_engine, text

    admin = create_engine(PG, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'DROP SCHEMA IF EXISTS "{tag}" CASCADE'))
        c.execute(text(f'CREATE SCHEMA "{tag}"'))
    admin.dispose()
    return f"{PG}?options=-csearch_path%3D{tag}", tag


def drop(backend: str, handle: object) -> None:
    if backend == "sqlite":
        assert isinstance(handle, Path)
        for p in (handle, Path(f"{handle}-wal"), Path(f"{handle}-shm")):
            p.unlink(missing_ok=True)
        return
    from sqlalchemy import create_engine, text

    admin = create_engine(PG, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'DROP SCHEMA IF EXISTS "{handle}" CASCADE'))
    admin.dispose()


def run(backend: str, n: int, path: Path, jobs: int, workdir: Path) -> dict[str, float]:
    tag = f"bench_{backend}_{n}_{jobs}_{os.getpid()}"
    url, handle = fresh_url(backend, workdir, tag)
    result = workdir / f"{tag}.json"
    try:
        size = 0
        subprocess.run([sys.executable, __file__, "--child", url, str(path), str(jobs),
                        str(result)], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        out: dict[str, float] = json.loads(result.read_text())
        # The same import again as a person runs it, whole process, into a new ledger.
        drop(backend, handle)
        url, handle = fresh_url(backend, workdir, tag)
        if backend == "postgres":  # a server ledger is migrated beforehand, not by import
            subprocess.run([sys.executable, "-m", "web.cli", "db", "upgrade", "--db", url],
                           check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "web.cli", "import", str(path), "--db", url,
                        "--no-progress", "--jobs", str(jobs)], check=True, cwd=ROOT,
                       stdout=subprocess.DEVNULL)
        out["whole_wall"] = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out["whole_cpu"] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        if backend == "sqlite":
            size = sum(Path(f"{handle}{s}").stat().st_size for s in ("", "-wal", "-shm")
                       if Path(f"{handle}{s}").exists())
        out["db_mib"] = size / 2**20
        return out
    finally:
        result.unlink(missing_ok=True)
        drop(backend, handle)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 20_000])
    ap.add_argument("--backends", nargs="+", default=["sqlite", "postgres"],
                    choices=["sqlite", "postgres"])
    ap.add_argument("--jobs", type=int, nargs="+", default=[1],
                    help="worker processes per run (0: everything in one process)")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/domino-ledger-bench"))
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        url, path, jobs, result = args.child
        child(url, path, int(jobs), result)
        return
    args.workdir.mkdir(parents=True, exist_ok=True)
    files = corpus(args.workdir, args.sizes, args.seed)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpu(s), load average "
          f"{os.getloadavg()[0]:.1f} at start")
    head = (f"{'backend':9} {'jobs':>4} {'matches':>7} {'events':>9} {'rows':>9} {'secs':>7} "
            f"{'events/s':>9} {'matches/s':>9} {'writer':>9} {'worker':>9} {'peak':>9} "
            f"{'worker':>8} {'db':>7}")
    print(head)
    print(f"{'':9} {'':>4} {'':>7} {'':>9} {'':>9} {'':>7} {'':>9} {'':>9} "
          f"{'cpu us/ev':>9} {'cpu us/ev':>9} {'MiB':>9} {'MiB':>8} {'MiB':>7}")
    audits = {n: audit_times(files[n]) for n in sorted(args.sizes)}
    ratios: list[str] = []
    for backend in args.backends:
        for jobs in args.jobs:
            for n in sorted(args.sizes):
                r = run(backend, n, files[n], jobs, args.workdir)
                wall, cpu = audits[n]
                ratios.append(f"{backend} --jobs {jobs}, {n} matches: import "
                              f"{r['whole_wall']:.1f} s, audit {wall:.1f} s wall: "
                              f"{r['whole_wall'] / wall:.1f}x; CPU {r['whole_cpu']:.1f} s "
                              f"against {cpu:.1f} s: {r['whole_cpu'] / cpu:.1f}x")
                if r["exit"] != 0 or r["matches"] != n:
                    print(f"  run failed: exit {r['exit']}, {r['matches']} of {n} stored")
                ev = r["events"]
                print(f"{backend:9} {jobs:>4} {r['matches']:>7} {ev:>9} {r['rows']:>9} "
                      f"{r['wall']:>7.1f} {ev / r['wall']:>9.0f} {n / r['wall']:>9.1f} "
                      f"{r['cpu_writer'] / ev * 1e6:>9.2f} {r['cpu_workers'] / ev * 1e6:>9.2f} "
                      f"{r['rss_peak']:>9.0f} {r['rss_worker']:>8.0f} {r['db_mib']:>7.0f}",
                      flush=True)
    print("import against the anchor, `domino-ledger audit --json` (default --jobs) of the "
          "same file in the same run, whole processes:")
    for line in ratios:
        print("  " + line)
    print(f"load average {os.getloadavg()[0]:.1f} at the end (other work on the machine "
          "shares its cores)")


if __name__ == "__main__":
    main()
