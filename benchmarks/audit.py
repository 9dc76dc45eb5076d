"""Audit throughput, whole process, against python-chess reading and replaying PGN.

Generates (once, kept in --workdir) a seeded corpus of random legal matches
(>= --events events, 250,000 by default) as JSON Lines, and a seeded corpus of
random chess games (>= --chess-moves plies, 150,000) as PGN. In the same run it
times, as a person waits for them, whole processes: the anchor, python-chess
reading each game (``chess.pgn.read_game``) and pushing its mainline moves on a
``Board``; then ``domino-ledger audit --json`` of the corpus with ``--jobs 1``
and with the default (every core). The ratio is events per second over moves
per second, by wall time and by CPU time (the process and its workers).

Prints numbers; asserts nothing about time. ``--reports FILE`` writes the audit
reports (one ``to_dict()`` per line) so that two versions of the engine can be
compared byte for byte; ``--profile`` prints a cProfile of one audit pass.

    python benchmarks/audit.py [--events 250000] [--chess-moves 150000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import os
import pstats
import random
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ledger.audit import audit_record  # noqa: E402
from ledger.formats.reader import read_matches  # noqa: E402
from ledger.sim.generator import generate_corpus  # noqa: E402

CHESS_MAX_PLIES = 300  # random games rarely end sooner by mate; cap them like a long game


def write_corpus(path: Path, min_events: int, seed: int) -> tuple[int, int, str]:
    """Matches cycling through every table until ``min_events``; (matches, events, sha256)."""
    matches = events = 0
    digest = hashlib.sha256()
    with path.open("wb") as out:
        for match in generate_corpus(10**9, seed=seed):
            line = orjson.dumps(match) + b"\n"
            out.write(line)
            digest.update(line)
            matches += 1
            events += len(match["events"])
            if events >= min_events:
                break
    return matches, events, digest.hexdigest()


def audit_file(path: Path, reports: list[bytes] | None = None) -> tuple[int, int, int]:
    """Audit every match of the file; (matches, events, matches not ok)."""
    matches = events = faulty = 0
    for record in read_matches(path):
        report = audit_record(record)
        matches += 1
        events += len(record.events)
        faulty += not report.ok
        if reports is not None:
            report_dict = report.to_dict()
            report_dict.pop("file", None)  # a temporary path: not part of the comparison
            reports.append(orjson.dumps(report_dict))
    return matches, events, faulty


def write_pgn_corpus(path: Path, min_moves: int, seed: int) -> tuple[int, int]:
    """Seeded random legal games written as PGN until ``min_moves`` plies; (games, moves)."""
    rng = random.Random(seed)
    games = moves = 0
    with path.open("w", encoding="utf-8") as out:
        while moves < min_moves:
            board = chess.Board()
            while not board.is_game_over(claim_draw=False) and board.ply() < CHESS_MAX_PLIES:
                board.push(rng.choice(list(board.legal_moves)))
            game = chess.pgn.Game.from_board(board)
            game.headers["Event"] = f"random game {games}"
            print(game, file=out, end="\n\n")
            games += 1
            moves += board.ply()
    return games, moves


def replay_pgn(path: Path) -> tuple[int, int]:
    """python-chess reading every game and replaying its mainline; (games, moves)."""
    games = moves = 0
    with path.open(encoding="utf-8") as handle:
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            board = game.board()
            for move in game.mainline_moves():
                board.push(move)
                moves += 1
            games += 1
    return games, moves


def best_of(repeat: int, run: Callable[[], tuple[int, ...]]) -> tuple[float, tuple[int, ...]]:
    """The best CPU time of ``repeat`` runs: the machine is shared, so wall time says more
    about the neighbours than about the code (both sides are timed the same way)."""
    best = float("inf")
    result: tuple[int, ...] = ()
    for _ in range(repeat):
        start = time.process_time()
        result = run()
        best = min(best, time.process_time() - start)
    return best, result


def whole_process(argv: list[str], repeat: int) -> tuple[float, float]:
    """The best wall and CPU seconds (the process and its workers) of ``repeat`` runs."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=False)
        took = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = min(wall, took)
        cpu = min(cpu, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return wall, cpu


def cached(path: Path, make: Callable[[Path], object]) -> Path:
    if not path.is_file():
        part = path.with_suffix(".part")
        make(part)
        part.rename(path)
    return path


def command() -> list[str]:
    script = shutil.which("domino-ledger")
    return [script] if script else [sys.executable, "-m", "web.cli"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=250_000, help="minimum corpus size")
    parser.add_argument("--chess-moves", type=int, default=150_000,
                        help="minimum plies of the PGN corpus")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3, help="timed passes; the best counts")
    parser.add_argument("--reports", type=Path, help="write the audit reports (JSON Lines)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/domino-ledger-bench"),
                        help="where the generated corpora are kept between runs")
    parser.add_argument("--profile", action="store_true", help="cProfile one audit pass")
    parser.add_argument("--in-process", action="store_true",
                        help="also time read_matches + audit_record inside this process")
    parser.add_argument("--replay-pgn", type=Path, help=argparse.SUPPRESS)  # the chess child
    args = parser.parse_args(argv)
    if args.replay_pgn:
        replay_pgn(args.replay_pgn)
        return 0

    args.workdir.mkdir(parents=True, exist_ok=True)
    corpus = cached(args.workdir / f"audit-{args.seed}-{args.events}.jsonl",
                    lambda p: write_corpus(p, args.events, args.seed))
    n_matches = n_events = 0
    digest = hashlib.sha256()
    with corpus.open("rb") as fh:
        for line in fh:
            digest.update(line)
            n_matches += 1
            n_events += len(orjson.loads(line)["events"])
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpu(s), load average "
          f"{os.getloadavg()[0]:.1f} at start; best of {args.repeat}")
    print(f"corpus: {n_matches} matches, {n_events} events, "
          f"{os.path.getsize(corpus) / 1e6:.1f} MB, sha256 {digest.hexdigest()[:16]}")

    reports: list[bytes] = []
    audit_file(corpus, reports)  # the reports to compare
    faulty = sum(b'"ok":false' in r for r in reports)
    print(f"audit: {faulty} of {len(reports)} matches not ok, reports sha256 "
          f"{hashlib.sha256(b''.join(reports)).hexdigest()[:16]}")
    if args.reports:
        args.reports.write_bytes(b"\n".join(reports) + b"\n")
    if args.profile:
        prof = cProfile.Profile()
        prof.runcall(audit_file, corpus)
        stats = io.StringIO()
        pstats.Stats(prof, stream=stats).sort_stats("tottime").print_stats(25)
        print(stats.getvalue())
    if args.in_process:
        seconds, (_, events, _) = best_of(args.repeat, lambda: audit_file(corpus))
        print(f"in process (read_matches + audit_record): {seconds:.3f} s CPU, "
              f"{events / seconds:,.0f} events/s")

    pgn = cached(args.workdir / f"chess-{args.seed}-{args.chess_moves}.pgn",
                 lambda p: write_pgn_corpus(p, args.chess_moves, args.seed))
    n_games, n_moves = replay_pgn(pgn)
    print(f"chess corpus: {n_games} games, {n_moves} moves, {os.path.getsize(pgn) / 1e6:.1f} MB")
    wall, cpu = whole_process([sys.executable, __file__, "--replay-pgn", str(pgn)], args.repeat)
    theirs, theirs_cpu = n_moves / wall, n_moves / cpu
    print(f"anchor: python-chess {chess.__version__} reading and replaying the PGN, whole "
          f"process: {wall:.2f} s wall, {cpu:.2f} s CPU, {theirs:,.0f} moves/s "
          f"({theirs_cpu:,.0f} per CPU second)")
    cmd = command()
    for jobs in ("1", None):
        argv_ = [*cmd, "audit", "--json", str(corpus)] + (["--jobs", jobs] if jobs else [])
        wall, cpu = whole_process(argv_, args.repeat)
        ours, ours_cpu = n_events / wall, n_events / cpu
        label = f"--jobs {jobs}" if jobs else "default --jobs (every core)"
        print(f"domino-ledger audit --json, {label}, whole process: {wall:.2f} s wall, "
              f"{cpu:.2f} s CPU, {ours:,.0f} events/s ({ours_cpu:,.0f} per CPU second); "
              f"ratio to the anchor {ours / theirs:.1f}x wall, {ours_cpu / theirs_cpu:.1f}x CPU")
    print(f"load average {os.getloadavg()[0]:.1f} at the end (other work on the machine "
          "shares its cores: wall times count it)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
