"""The knowledge review (ledger/analysis/knowledge_review.py) on every table.

For each table (``ledger.rules.all_tables``), deal ``--deal`` of ``--deals`` seeded random
legal matches, every decision reviewed with up to K sampled deals (``--samples``, default
the cap, 200; per table ``--k table=K``; a decision stops once its label is settled at 95%,
``--fixed K``: exactly K each, no early stop), each sample's search within
the table's limit (``TABLE_LIMITS``; ``--search-limit`` lowers it), wall clock: time per
deal, decisions per deal, decisions not reviewed (a sample too deep to solve within the
limit), samples solved per second, and the K that would fit ``--budget`` seconds (10) per
deal at that rate (time grows about linearly with K; late decisions' repeated deals are
solved once, so it is a little less). ``--match``: also a whole match of 4-seat Domena,
every deal, at K, on ``--workers`` processes (default every core) and, with
``--serial``, on one beside it; ``--luck``: with each seat's luck, as the web's report;
``--file``: that match rather than a generated one (e.g. sample_matches/domena-4.json),
timed without luck and then with it, so luck's own share shows; ``--questions``: that
match's questions one after another in this process, CPU seconds of the decisions' and
of luck's, and a digest of every answer (the same digest: the same numbers).
CPU seconds (this process and its solving workers) are shown beside the wall clock: on a
shared machine the wall clock mostly measures the others' load. The K column is the
median of the decisions' samples (min-max after it).

``--process``: the whole command instead, as a user runs it (``domino-ledger analyse FILE
--knowledge --deal N``, the seeded match written to a file; start-up, hindsight review and
all): its wall clock, the decisions' K (read from its text) and those not reviewed.
``--before [REF]``: the same, first on the tree of REF (default ``main``; an export of that
commit, ``git archive``, its C search built there), then on this one, table by table in
one run, so the machine's load weighs on both alike. ``--profile``: where a table's time
goes, in this process, one sample after another: for each decision of the deal, its first
``--profile-samples`` samples (default 3) each solved alone with a count of the positions
visited: positions per sample (median, max), time per position, and the share of samples
that reach the table's limit.

Prints numbers and the machine's load; asserts nothing about time.

    python benchmarks/review.py [--samples K] [--deals 3] [--seed 1] [--deal 0]
                                [--tables domena-4 selminha-3 ...] [--k sahrat-fives-4=2]
                                [--search-limit N] [--match] [--workers N] [--serial]
                                [--luck] [--file sample_matches/domena-4.json]
                                [--questions] [--fixed K] [--process] [--before [REF]]
                                [--profile] [--profile-samples 3]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson  # noqa: E402

from ledger.analysis.knowledge_review import (  # noqa: E402
    KnowledgeDeal,
    default_samples,
    iter_knowledge_reviews,
)
from ledger.analysis.solver import MAX_NODES  # noqa: E402
from ledger.formats.canonical import match_hash  # noqa: E402
from ledger.formats.reader import MatchRecord, parse_match  # noqa: E402
from ledger.rules import all_tables, make_rules  # noqa: E402
from ledger.sim.generator import generate_match  # noqa: E402


def table_name(preset: str, seats: int, options: dict[str, Any]) -> str:
    return f"{preset}-{seats}" + ("-teams" if options.get("teams") else "")


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def record_of(preset: str, seats: int, options: dict[str, Any], seed: int
              ) -> tuple[MatchRecord, str]:
    record = parse_match(generate_match(preset, seats, options, seed=seed))
    assert record.header is not None
    return record, match_hash(record.header, [e for e in record.events if e is not None])


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the solving workers): on a
    machine others share, the steadier measure."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def review(preset: str, seats: int, options: dict[str, Any], seed: int, deals: list[int] | None,
           k: int, limit: int, workers: int | None = None, luck: bool = False,
           sequential: bool = True) -> tuple[float, float, list[KnowledgeDeal]]:
    rules = make_rules(preset, seats, options)
    record, key = record_of(preset, seats, options, seed)
    t0, c0 = time.perf_counter(), cpu_seconds()
    got = list(iter_knowledge_reviews(rules, record.events, key, k, deals, max_nodes=limit,
                                      workers=workers, luck=luck, sequential=sequential))
    return time.perf_counter() - t0, cpu_seconds() - c0, got


# --- the whole command, this tree and another ----------------------------------------

HERE = Path(__file__).resolve().parent.parent
_SAMPLES = re.compile(r"by knowledge: expected \S+ over (\d+) deals")


def tree_of(ref: str) -> Path:
    """The tree of ``ref`` (exported with ``git archive``: nothing in the repository
    changes), its C search built in place."""
    out = Path(tempfile.mkdtemp(prefix="review-before-"))
    archive = subprocess.run(["git", "-C", str(HERE), "archive", ref], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=out,
                   check=True, capture_output=True)
    return out


def run_process(tree: Path, path: Path, deal: int, samples: int | None
                ) -> tuple[float, float, list[int], int]:
    """``analyse FILE --knowledge --deal N`` with ``tree``'s code: wall clock, CPU (the
    command and its solving workers), the K of each decision reviewed, the decisions not
    reviewed."""
    cmd = [sys.executable, "-c", "import sys; from web.cli import main; sys.exit(main())",
           "analyse", str(path), "--knowledge", "--deal", str(deal), "--lang", "en"]
    if samples is not None:
        cmd += ["--samples", str(samples)]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("DOMINO_LEDGER_KNOWLEDGE_SAMPLES", None)
    t0, c0 = time.perf_counter(), _children_cpu()
    done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=False)
    took, cpu = time.perf_counter() - t0, _children_cpu() - c0
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{tree}: {done.stderr[-2000:]}")
    ks = [int(m.group(1)) for m in _SAMPLES.finditer(done.stdout)]
    return took, cpu, ks, done.stdout.count("by knowledge: not reviewed")


def _children_cpu() -> float:
    """CPU of the processes this one has waited for, and of theirs (the workers)."""
    import resource

    got = resource.getrusage(resource.RUSAGE_CHILDREN)
    return got.ru_utime + got.ru_stime


def processes(args: argparse.Namespace, per_table: dict[str, int]) -> None:
    trees = [("after", HERE)]
    if args.before is not None:
        trees.insert(0, ("before", tree_of(args.before)))
        print(f"before: {args.before} exported to {trees[0][1]}")
    print(f"{'table':22} {'tree':6} {'K med (min-max)':>16} {'s/deal med':>10} {'max':>6} "
          f"{'CPU s med':>9} {'not reviewed':>12}  {'load':>5}")
    with tempfile.TemporaryDirectory() as tmp:
        for preset, seats, options in all_tables():
            name = table_name(preset, seats, options)
            if args.tables and name not in args.tables:
                continue
            files = []
            for n in range(args.deals):
                path = Path(tmp) / f"{name}-{args.seed + n}.json"
                path.write_bytes(orjson.dumps(generate_match(preset, seats, options,
                                                             seed=args.seed + n)))
                files.append(path)
            for label, tree in trees:
                times, cpus, ks, out, decisions = [], [], [], 0, 0
                for path in files:
                    took, cpu, got, missing = run_process(tree, path, args.deal,
                                                          per_table.get(name, args.samples))
                    times.append(took)
                    cpus.append(cpu)
                    ks += got
                    out += missing
                    decisions += len(got) + missing
                kmed = f"{statistics.median(ks):.0f} ({min(ks)}-{max(ks)})" if ks else "-"
                print(f"{name:22} {label:6} {kmed:>16} {statistics.median(times):>10.2f} "
                      f"{max(times):>6.2f} {statistics.median(cpus):>9.2f} "
                      f"{f'{out}/{decisions}':>12}  "
                      f"{os.getloadavg()[0]:>5.2f}", flush=True)


# --- where the time goes -----------------------------------------------------------


def profile(preset: str, seats: int, options: dict[str, Any], args: argparse.Namespace) -> None:
    """Positions per sample, time per position, share of samples at the table's limit."""
    from ledger.analysis import knowledge_review as kr
    from ledger.analysis.solver import DealSolver, NotAnalysable
    from ledger.analysis.solver import TooLarge as TooLargeError

    rules = make_rules(preset, seats, options)
    limit = min(args.search_limit, kr.table_limit(rules))
    nodes: list[int] = []
    secs = 0.0
    over = 0
    for n in range(args.deals):
        record, key = record_of(preset, seats, options, args.seed + n)
        for work in kr._deals(rules, record.events, {args.deal}):
            plan = kr._plan(work, key, args.profile_samples, False, None)
            for q in plan.questions:
                drawn = kr._draws(q).upto(args.profile_samples)
                for _, st in drawn:
                    t0 = time.perf_counter()
                    try:
                        solver = DealSolver(st, max_nodes=limit, native_slots=kr._slots(st, limit),
                                            shared=True, threads=1)
                        solver.options(st)
                    except TooLargeError:
                        over += 1
                        nodes.append(limit)
                        continue
                    except NotAnalysable:
                        continue
                    finally:
                        secs += time.perf_counter() - t0
                    nat = solver._native
                    nodes.append(int(nat.nodes) if nat is not None else 0)
    name = table_name(preset, seats, options)
    if not nodes:
        print(f"{name:24} no sample")
        return
    per = secs / max(1, sum(nodes)) * 1e9
    med = statistics.median(nodes)
    print(f"{name:24} samples {len(nodes):>4}  positions/sample med {med:>11,.0f}"
          f"  max {max(nodes):>12,}  ns/position {per:>6.0f}  s/sample {secs / len(nodes):>7.3f}"
          f"  at limit {over / len(nodes):>5.1%}", flush=True)


def whole_match(k: int, args: argparse.Namespace, workers: int | None) -> None:
    if args.file:
        for luck in (False, True):
            file_match(Path(args.file), k, args, workers, luck)
        return
    took, cpu, got = review("domena", 4, {}, args.seed, None, k, args.search_limit, workers,
                            args.luck)
    decisions = sum(len(d.decisions) for d in got)
    print(f"whole 4-seat Domena match (seed {args.seed}{', luck' if args.luck else ''}): "
          f"{len(got)} deals, {decisions} decisions, K={k}, workers "
          f"{workers or 'every core'}: {took:.1f} s ({cpu:.1f} s of CPU); {load()}",
          flush=True)


def questions(path: Path, k: int) -> None:
    """Each question of the file's review (luck included) in this process: CPU by kind."""
    import hashlib

    from ledger.analysis import knowledge_review as kr

    record = parse_match(orjson.loads(path.read_bytes()))
    assert record.header is not None
    rules = make_rules(record.header.preset, len(record.header.seats),
                       dict(record.header.options))
    key = match_hash(record.header, [e for e in record.events if e is not None])
    cpu = {"decisions": 0.0, "luck": 0.0}
    digest = hashlib.sha256()
    for work in kr._deals(rules, record.events, None):
        plan = kr._plan(work, key, k, True, None)
        decisions = {q for _, q, _ in plan.decisions}
        for i, q in enumerate(plan.questions):
            t0 = time.process_time()
            got = kr._answer(q, MAX_NODES)
            cpu["decisions" if i in decisions else "luck"] += time.process_time() - t0
            digest.update(repr((got.values, got.note)).encode())
    print(f"{path.name} questions, K={k}, one process: decisions {cpu['decisions']:.1f} s, "
          f"luck {cpu['luck']:.1f} s of CPU; answers {digest.hexdigest()[:16]}; {load()}",
          flush=True)


def file_match(path: Path, k: int, args: argparse.Namespace, workers: int | None,
               luck: bool) -> None:
    """The whole match of a file, every deal, as the web's report reviews it."""
    record = parse_match(orjson.loads(path.read_bytes()))
    assert record.header is not None
    rules = make_rules(record.header.preset, len(record.header.seats),
                       dict(record.header.options))
    key = match_hash(record.header, [e for e in record.events if e is not None])
    t0, c0 = time.perf_counter(), cpu_seconds()
    got = list(iter_knowledge_reviews(rules, record.events, key, k, max_nodes=args.search_limit,
                                      workers=workers, luck=luck))
    took, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    print(f"{path.name}{', luck' if luck else ''}: {len(got)} deals, "
          f"{sum(len(d.decisions) for d in got)} decisions, K={k}, workers "
          f"{workers or 'every core'}: {took:.1f} s ({cpu:.1f} s of CPU); {load()}",
          flush=True)


def other_modes(args: argparse.Namespace, per_table: dict[str, int]) -> None:
    """``--process`` / ``--before`` (the whole command), or ``--profile``."""
    if args.profile:
        print(f"profile, deal {args.deal} of {args.deals} seeded matches; {load()}")
        for preset, seats, options in all_tables():
            if not args.tables or table_name(preset, seats, options) in args.tables:
                profile(preset, seats, options, args)
    else:
        print(f"whole process, deal {args.deal} of {args.deals} seeded matches; "
              f"{os.cpu_count()} cores; {load()}")
        processes(args, per_table)
    print(load())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=None)
    ap.add_argument("--deals", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--deal", type=int, default=0)
    ap.add_argument("--tables", nargs="*")
    ap.add_argument("--k", nargs="*", default=[], metavar="TABLE=K")
    ap.add_argument("--search-limit", type=int, default=MAX_NODES)
    ap.add_argument("--budget", type=float, default=10.0)
    ap.add_argument("--match", action="store_true")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--serial", action="store_true")
    ap.add_argument("--luck", action="store_true")
    ap.add_argument("--file", default=None, help="with --match: this match file")
    ap.add_argument("--questions", action="store_true",
                    help="with --file: its questions one by one, CPU by kind")
    ap.add_argument("--fixed", type=int, default=None, metavar="K",
                    help="exactly K samples a decision (no sequential stop)")
    ap.add_argument("--process", action="store_true",
                    help="time the whole analyse command (a process per deal)")
    ap.add_argument("--before", nargs="?", const="main", default=None, metavar="REF",
                    help="with --process: first on REF's tree (default main)")
    ap.add_argument("--profile", action="store_true",
                    help="positions per sample, time per position, share at the limit")
    ap.add_argument("--profile-samples", type=int, default=3)
    args = ap.parse_args()
    per_table = {name: int(k) for name, k in (x.split("=") for x in args.k)}
    if args.fixed is not None:
        args.samples = args.fixed
    if args.process or args.before is not None or args.profile:
        other_modes(args, per_table)
        return
    print(f"knowledge review, deal {args.deal} of seeded matches; {os.cpu_count()} cores; "
          f"{load()}")
    print(f"{'table':24} {'K':>4} {'deals':>5} {'decisions':>9} {'s/deal med':>10} "
          f"{'max':>7} {'CPU s/deal':>10} {'solved/s':>9} {'not rev.':>8} "
          f"{'K for ' + str(args.budget) + ' s':>10}")
    for preset, seats, options in all_tables():
        name = table_name(preset, seats, options)
        if args.tables and name not in args.tables:
            continue
        k = per_table.get(name, args.samples or default_samples(make_rules(preset, seats,
                                                                            options)))
        times, cpus, decisions, solved, unsolved = [], [], 0, 0, 0
        used: list[int] = []
        for n in range(args.deals):
            took, cpu, got = review(preset, seats, options, args.seed + n, [args.deal], k,
                                    args.search_limit, args.workers,
                                    sequential=args.fixed is None)
            if not got:
                continue
            times.append(took)
            cpus.append(cpu)
            for d in got:
                decisions += len(d.decisions)
                solved += sum(x.samples for x in d.decisions)
                used += [x.samples for x in d.decisions if x.reviewed]
                unsolved += sum(not x.reviewed for x in d.decisions)
        if not times:
            print(f"{name:24} no deal {args.deal} in these matches")
            continue
        med = statistics.median(times)
        rate = solved / sum(times) if sum(times) else 0.0
        fits = int(args.budget / (med / k)) if med else k
        kused = f" K used {statistics.median(used):.0f} ({min(used)}-{max(used)})" if used else ""
        print(f"{name:24} {k:>4} {len(times):>5} {decisions / len(times):>9.1f} {med:>10.2f} "
              f"{max(times):>7.2f} {statistics.median(cpus):>10.2f} {rate:>9.0f} {unsolved:>8} "
              f"{fits:>10}{kused}", flush=True)
    if args.file and args.questions:
        questions(Path(args.file), args.samples or default_samples(make_rules("domena", 4)))
    if args.match:
        k = per_table.get("domena-4", args.samples or default_samples(make_rules("domena", 4)))
        whole_match(k, args, args.workers)
        if args.serial:
            whole_match(k, args, 1)
    print(load())


if __name__ == "__main__":
    main()
