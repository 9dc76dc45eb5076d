"""``domino-ledger worker``, and ``analyse --all``'s work: both make the answers the web
serves, through this job service (``ledger.jobs.queue``)."""

from __future__ import annotations

import argparse


def _concurrency(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"--concurrency must be 1 or more, not {n}")
    return n


def analyse_all(args: argparse.Namespace) -> int:
    from ledger.jobs.queue import analyse_all as run

    return run(args)


def cmd_worker(args: argparse.Namespace) -> int:
    from ledger.jobs.queue import cmd_worker as run

    return run(args)


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # `analyse` belongs to ledger.analysis, a layer under the jobs: its --all is handed
    # the queue's work here rather than importing it.
    from ledger.analysis import cli as analysis_cli

    analysis_cli.ANALYSE_ALL = analyse_all
    worker = subcommands.add_parser(
        "worker", help="work out the analyses queued in a PostgreSQL ledger",
        description="Takes analysis jobs from the PostgreSQL ledger's queue and keeps their "
                    "answers in it, on any machine that reaches the database. A job whose "
                    "worker died (not heard of for --lease seconds) is taken again by "
                    "another. SIGTERM or Ctrl-C: no new job; the running ones end first.")
    worker.add_argument("--db", metavar="URL", default=None,
                        help="the PostgreSQL ledger (default: $DOMINO_LEDGER_DB)")
    worker.add_argument("--concurrency", type=_concurrency, default=1, metavar="N",
                        help="jobs worked at once, each in a solver process of its own "
                        "(default 1)")
    worker.add_argument("--lease", type=float, default=30.0, metavar="SECONDS",
                        help="a job whose worker has not been heard of for this long is "
                        "taken again (default 30)")
    worker.set_defaults(func=cmd_worker)
