"""The ledger's subcommands: ``import``, ``verify``, ``rebuild`` and ``db``.

``ledger.cli.build_parser`` calls ``register``. Exit status: 0 all is well,
1 something was found (a faulty match, a broken chain), 2 a file or the
database cannot be used at all.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from ledger.store.imports.feed import Workers
    from ledger.store.imports.importer import Imported

# The database modules load only when a ledger command runs: `audit` stays quick.
ENV_VAR = "DOMINO_LEDGER_DB"

EXIT_OK, EXIT_FOUND, EXIT_UNUSABLE = 0, 1, 2


def _db_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", metavar="URL", default=None,
                   help=f"database URL (default: ${ENV_VAR}, else ledger.db in the user's "
                   "data folder)")


def register(sub: Any) -> None:
    p = sub.add_parser("import", help="audit match files and store them in the ledger")
    p.add_argument("files", nargs="+", help="domino-match/1 files (.json, .jsonl, .jsonl.gz)")
    _db_option(p)
    p.add_argument("--json", action="store_true",
                   help="one JSON object per match: its ledger id, whether it is new, ok")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="worker processes that read and audit while this one writes: a "
                   "large file's matches, or many small files a file each (default: one "
                   "per core for a file over 4 MiB, or for small files adding up to 4 MiB, "
                   "on a machine with several cores; else 0)")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("verify", help="re-hash and re-fold stored matches")
    p.add_argument("match", nargs="?", type=int, help="one match id (default: all)")
    _db_option(p)
    p.add_argument("--json", action="store_true", help="one JSON object per match")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("rebuild", help="recompute every read model from the events")
    _db_option(p)
    p.add_argument("--no-snapshots", action="store_true",
                   help="leave the snapshot cache empty (it refills as matches are read)")
    p.set_defaults(func=cmd_rebuild)

    p = sub.add_parser("db", help="the ledger's database schema")
    dbsub = p.add_subparsers(dest="db_command", required=True)
    up = dbsub.add_parser("upgrade", help="run the migrations up to a revision")
    up.add_argument("revision", nargs="?", default="head")
    _db_option(up)
    up.set_defaults(func=cmd_db_upgrade)
    down = dbsub.add_parser("downgrade", help="undo migrations down to a revision")
    down.add_argument("revision", help="a revision id, -1, or base (drops everything)")
    _db_option(down)
    down.set_defaults(func=cmd_db_downgrade)
    cur = dbsub.add_parser("current", help="show the schema revision")
    _db_option(cur)
    cur.set_defaults(func=cmd_db_current)


def _errors() -> tuple[type[BaseException], ...]:
    from sqlalchemy.exc import SQLAlchemyError

    from ledger.store.errors import StoreError

    return (StoreError, SQLAlchemyError)


def _explain(exc: BaseException) -> str:
    from ledger.store.db import explain

    return explain(exc)


def _fail(message: str) -> int:
    print(f"domino-ledger: {message}", file=sys.stderr)
    return EXIT_UNUSABLE


@contextmanager
def _ledger(url: str | None, migrate: bool | None = None) -> Iterator[Engine]:
    from ledger.store import db

    engine = db.open_db(url, migrate=migrate)
    try:
        yield engine
    finally:
        engine.dispose()


# --- import ------------------------------------------------------------------------


def _count_matches(path: str) -> int | None:
    """Lines of a JSON Lines file (a progress total); streamed, never held."""
    import gzip

    p = Path(path)
    if p.name.lower().endswith((".json", ".json.gz")):
        return None
    try:
        with p.open("rb") as raw:
            gz = raw.read(2) == b"\x1f\x8b"
            raw.seek(0)
            stream: Any = gzip.GzipFile(fileobj=raw) if gz else raw
            return int(sum(chunk.count(b"\n")
                           for chunk in iter(lambda: stream.read(1 << 20), b"")))
    except (OSError, EOFError):
        return None


def cmd_import(args: argparse.Namespace) -> int:
    try:
        with ExitStack() as stack:
            # The workers first: they read and prepare while this process loads the
            # database's libraries and opens (or creates) the ledger.
            plan = _plan(stack, args)
            # Loading SQLAlchemy (and Alembic, for a new ledger) makes some 80,000 objects
            # that live on and next to no garbage: no collections meanwhile (_import
            # freezes them and turns the collector back on).
            gc.disable()
            try:
                with _ledger(args.db) as engine:
                    return _import(engine, args, plan)
            finally:
                gc.enable()
    except _errors() as exc:
        return _fail(_explain(exc))
    except KeyboardInterrupt:
        # A match is stored whole or not at all (the open batch rolls back): the rest re-imports.
        return _fail("interrupted; the matches stored so far are complete, run the same "
                     "import again to store the rest")


def _import(engine: Engine, args: argparse.Namespace, plan: _Plan) -> int:
    import orjson
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from ledger.formats.reader import ReadError
    from ledger.store import db
    # The import makes many short-lived objects and keeps none: keep the
    # collector from re-scanning the long-lived ones over and over.
    gc.freeze()
    gc.enable()
    console = Console(stderr=True)
    show = not args.no_progress and console.is_terminal
    code = EXIT_OK
    new = old = faulty = unstored = 0
    out: TextIO = sys.stdout
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console, disable=not show) as progress, \
            db.write_session(engine) as session:
        db.bulk_writes(session)
        for path, items in _sources(session, args, plan):
            task = progress.add_task(Path(path).name, total=_count_matches(path) if show
                                     else None)
            try:
                for item in items:
                    progress.advance(task)
                    if item.id is None:
                        unstored += 1
                    elif item.new:
                        new += 1
                    else:
                        old += 1
                    if not item.ok:
                        faulty += item.id is not None
                        code = max(code, EXIT_FOUND)
                    if args.json:
                        out.write(orjson.dumps(item.to_dict()).decode() + "\n")
                    elif item.id is None or not item.ok:
                        print(_describe(item), file=out)
            except ReadError as exc:
                print(f"domino-ledger: {exc}", file=sys.stderr)
                code = EXIT_UNUSABLE
    if not args.json:
        print(f"{new} new match(es) stored, {old} already in the ledger, {faulty} flagged "
              f"faulty, {unstored} not storable", file=out)
    return code


@dataclass(frozen=True)
class _Plan:
    """How the files are shared out: ``files``, many small files read a whole file per
    worker (``jobs`` of them, or all here, in batches that go on across files); else each
    file in turn, split by match over workers. ``workers``: those started already."""

    files: bool
    jobs: int
    workers: Workers | None


def _plan(stack: ExitStack, args: argparse.Namespace) -> _Plan:
    from ledger.file_workers import many_files_jobs
    from ledger.store.imports import feed

    big = 4 * 1024 * 1024
    jobs = many_files_jobs(args.files, args.jobs, small=big, enough=big)
    if jobs > 1:
        return _Plan(True, jobs, feed.start_files(stack, args.files, jobs))
    if len(args.files) > 1 and not any(_jobs(args.jobs, p) for p in args.files):
        return _Plan(True, 0, None)
    first = _jobs(args.jobs, args.files[0])
    return _Plan(False, 0, feed.start(stack, args.files[0], first) if first > 0 else None)


def _sources(session: Any, args: argparse.Namespace, plan: _Plan
             ) -> Iterator[tuple[str, Iterator[Imported]]]:
    """Each file with what becomes of its matches, as planned (``_plan``)."""
    from ledger.store.imports.importer import import_file, import_files

    if plan.files:
        yield from import_files(session, args.files, plan.jobs, plan.workers)
        return
    for n, path in enumerate(args.files):
        yield path, import_file(session, path, jobs=_jobs(args.jobs, path),
                                workers=plan.workers if n == 0 else None)


def _jobs(asked: int | None, path: str) -> int:
    import os

    if asked is not None:
        return max(0, asked)
    try:
        big = Path(path).stat().st_size > 4 * 1024 * 1024
    except OSError:
        return 0
    # A worker per core: they read, audit and hash while this process writes.
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        os.cpu_count() or 1
    return cores if big and cores > 1 else 0


def _describe(item: Imported) -> str:
    where = item.path + ("" if item.line is None else f":{item.line}")
    if item.id is None:
        return f"{where} match {item.match}: not stored: {item.error}"
    first = next((f for f in item.findings if f["severity"] == "error"), None)
    detail = "" if first is None else f": {first['message']} [{first['code']}]"
    state = "stored" if item.new else "already stored"
    return f"{where} match {item.match}: {state} as {item.id}, FAULTY{detail}"


# --- verify, rebuild ----------------------------------------------------------------


def cmd_verify(args: argparse.Namespace) -> int:
    import orjson

    from ledger.store.log.verify import verify
    from ledger.store.models import MATCHES

    try:
        with _ledger(args.db) as engine, engine.connect() as conn:
            if args.match is not None and conn.execute(
                    MATCHES.select().where(MATCHES.c.id == args.match)).first() is None:
                return _fail(f"there is no match {args.match} in the ledger")
            code = EXIT_OK
            checked = broken = 0
            for result in verify(conn, args.match):
                checked += result.match_id != 0  # 0: the players' totals (when broken)
                if not result.ok:
                    broken += 1
                    code = EXIT_FOUND
                if args.json:
                    print(orjson.dumps(result.to_dict()).decode())
                elif not result.ok or args.match is not None:
                    print(result.describe())
            if not args.json:
                print(f"{checked} match(es) verified, {broken} broken")
            return code
    except _errors() as exc:
        return _fail(_explain(exc))


def cmd_rebuild(args: argparse.Namespace) -> int:
    from ledger.store import db
    from ledger.store.jobs import analyses, knowledge_reviews
    from ledger.store.log import snapshots
    from ledger.store.models import MATCHES
    from ledger.store.pages import readmodels

    try:
        with _ledger(args.db) as engine, db.write_session(engine) as session:
            conn = session.connection()
            count = readmodels.rebuild(conn)
            analyses.clear(conn)  # a cache: worked out again when asked for
            knowledge_reviews.clear(conn)
            snaps = 0
            if not args.no_snapshots:
                ids = [r.id for r in conn.execute(MATCHES.select().order_by(MATCHES.c.id))]
                snaps = sum(snapshots.fill(conn, i) for i in ids)
            session.commit()
        print(f"rebuilt the read models of {count} match(es); {snaps} snapshot(s)")
        return EXIT_OK
    except _errors() as exc:
        return _fail(_explain(exc))


# --- db -----------------------------------------------------------------------------


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    from ledger.store import db

    return _migrate(args, lambda e: db.upgrade(e, args.revision))


def cmd_db_downgrade(args: argparse.Namespace) -> int:
    from ledger.store import db

    return _migrate(args, lambda e: db.downgrade(e, args.revision))


def cmd_db_current(args: argparse.Namespace) -> int:
    return _migrate(args, lambda e: None)


def _migrate(args: argparse.Namespace, action: Any) -> int:
    from ledger.store import db

    try:
        engine = db.make_engine(args.db)
        try:
            action(engine)
            current = db.current_revision(engine)
        finally:
            engine.dispose()
    except _errors() as exc:
        return _fail(_explain(exc))
    head = db.head_revision()
    note = " (up to date)" if current == head else f" (latest is {head})"
    print(f"schema revision: {current or 'none'}{note}")
    return EXIT_OK
