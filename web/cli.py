"""The ``domino-ledger`` command with ``serve``: ledger's parser plus the web server.

``serve --workers N`` (default: the machine's cores) runs N server processes that share
the port (uvicorn's supervisor); each makes its app with ``served_app``, the ledger's
URL handed over in $DOMINO_LEDGER_DB, and ends with the supervisor even when that is
killed with ``kill -9``. ``--workers 1`` serves from this one process.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ledger.cli import EXIT_OK, build_parser

if TYPE_CHECKING:
    from fastapi import FastAPI

ENV_SUPERVISOR = "DOMINO_LEDGER_SUPERVISOR"  # the pid each server process ends with
ENV_ACCESS = "DOMINO_LEDGER_SERVE_ACCESS"    # serve's access flags, for each process


def _subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction[
        argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    raise RuntimeError("ledger.cli.build_parser has no subcommands")


def served_app() -> FastAPI:
    """The app of one of ``serve --workers N``'s processes (uvicorn's factory)."""
    from ledger.jobs.worker import die_with
    from web.access import serving
    from web.app import create_app

    supervisor = os.environ.get(ENV_SUPERVISOR)
    if supervisor:
        die_with(int(supervisor))
    flags = json.loads(os.environ.get(ENV_ACCESS) or "null")
    app = create_app() if flags is None else create_app(access=serving(
        flags["host"], flags["open"], flags["private"], data_folder(), flags["allow_host"],
        flags.get("trusted_proxy", ())))
    tune_collector()
    return app


# Young objects collected at a time, and how often older ones are looked at again.
COLLECTOR_THRESHOLDS = (10_000, 10, 10)


def tune_collector() -> None:
    """The cyclic garbage collector of a server process, once its app is made.

    What start-up made (modules, the app, its routes) lives as long as the process, and
    the collector went over all of it again and again: about 1 ms of every replay
    page's 6 (benchmarks/load.py's mix), most of it in full collections. Frozen, it is
    never looked at again; a page's own objects are freed by their reference counts,
    so collecting young objects less often costs little memory.
    """
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from ledger.store.errors import StoreError, database_errors
    from ledger.store.handles import ENV_VAR, explain, open_db
    from web.access import serving
    from web.app import create_app
    from web.serve_workers import GRACEFUL_SECONDS

    workers = args.workers or os.cpu_count() or 1
    # One tuple: mypy cannot read a starred call inside an except clause's own tuple.
    refused: tuple[type[BaseException], ...] = (StoreError, *database_errors(), OSError)
    try:
        access = serving(args.host, args.open, args.private, data_folder(), args.allow_host,
                         args.trusted_proxy)
        if workers == 1:
            app = create_app(args.db, access=access)
            tune_collector()
        else:  # opened once here: a new ledger is made (migrated) before any worker runs
            open_db(args.db).dispose()
    except ValueError as exc:  # a --trusted-proxy that is no address
        print(f"domino-ledger: {exc}", file=sys.stderr)
        return 2
    except refused as exc:
        print(f"domino-ledger: {explain(exc)}", file=sys.stderr)
        return 2
    _say_access(access, args.host, args.port)
    if workers == 1:
        # The app alone reads forwarding headers (web.access.open_to), from the proxies it
        # is told to trust; uvicorn's own would take them from any process on 127.0.0.1.
        uvicorn.run(app, host=args.host, port=args.port, proxy_headers=False,
                    timeout_graceful_shutdown=GRACEFUL_SECONDS)
        return EXIT_OK
    if args.db:
        os.environ[ENV_VAR] = args.db
    os.environ[ENV_SUPERVISOR] = str(os.getpid())
    # Each server process makes the same access setting (the owner token is in the data
    # folder or $DOMINO_LEDGER_TOKEN by now).
    os.environ[ENV_ACCESS] = json.dumps({"host": args.host, "open": args.open,
                                         "private": args.private,
                                         "allow_host": args.allow_host,
                                         "trusted_proxy": args.trusted_proxy})
    from web import serve_workers  # each process on a socket of its own (its docstring)

    try:
        return serve_workers.run(args.host, args.port, workers)
    except OSError as exc:
        print(f"domino-ledger: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2


def _workers(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"--workers must be 1 or more, not {n}")
    return n


def data_folder() -> Path:
    import platformdirs

    from ledger.store.handles import APP_NAME

    return Path(platformdirs.user_data_dir(APP_NAME))


def _say_access(access: Any, host: str, port: int) -> None:
    """Who may write, said once at start (the owner token's link when keys are needed)."""
    shown = f"[{host}]" if ":" in host else host
    if access.writes_open:
        where = "anyone who reaches this address" if access.open_to_all \
            else "anyone on this machine"
        print(f"domino-ledger: writes are open: {where} may import and record matches",
              file=sys.stderr)
        if not access.open_to_all:
            trusted = ", ".join(access.trusted_proxies) or "none (--trusted-proxy ADDRESS)"
            print(f"domino-ledger: a request a proxy forwards from another machine needs the "
                  f"owner token (trusted proxies: {trusted}; see docs/security.md)",
                  file=sys.stderr)
        return
    print(f"domino-ledger: {access.mode} mode: imports and new matches need the owner token "
          f"({'reading too' if access.mode == 'private' else 'reading is open'})",
          file=sys.stderr)
    print(f"domino-ledger: owner token: {access.owner_token}", file=sys.stderr)
    print(f"domino-ledger: open http://{shown}:{port}/?token={access.owner_token} once in "
          "your browser to sign it in", file=sys.stderr)


def build_full_parser() -> argparse.ArgumentParser:
    parser = build_parser()
    serve = _subcommands(parser).add_parser("serve", help="run the web app and its JSON API")
    serve.add_argument("--db", metavar="URL", default=None,
                       help="database URL (default: $DOMINO_LEDGER_DB, else ledger.db in the "
                       "user's data folder)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
    serve.add_argument("--workers", type=_workers, default=None, metavar="N",
                       help="server processes sharing the port (default: one per core; "
                       "1: this process alone)")
    who = serve.add_mutually_exclusive_group()
    who.add_argument("--open", action="store_true",
                     help="anyone who reaches the server may write (the default on 127.0.0.1; "
                     "elsewhere writes need the owner token and recorder keys)")
    who.add_argument("--private", action="store_true",
                     help="reading needs the owner token (or a match's recorder key) too")
    serve.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                       help="another Host name the server answers to (loopback names and "
                       "the address served are allowed already)")
    serve.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDRESS",
                       help="a reverse proxy (address or network) whose X-Forwarded-For / "
                       "Forwarded headers are believed: the address it forwards for decides "
                       "open (this machine) or keys (default: $DOMINO_LEDGER_TRUSTED_PROXY, "
                       "comma-separated; none: a forwarded request is another machine's)")
    serve.set_defaults(func=cmd_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_full_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
