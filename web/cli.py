"""The ``domino-ledger`` command with ``serve``: ledger's parser plus the web server."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ledger.cli import EXIT_OK, build_parser


def _subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction[
        argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    raise RuntimeError("ledger.cli.build_parser has no subcommands")


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn
    from sqlalchemy.exc import SQLAlchemyError

    from ledger.store.db import explain
    from ledger.store.errors import StoreError
    from web.access import serving
    from web.app import create_app

    try:
        access = serving(args.host, args.open, args.private, data_folder(), args.allow_host)
        app = create_app(args.db, access=access)
    except (StoreError, SQLAlchemyError, OSError) as exc:
        print(f"domino-ledger: {explain(exc)}", file=sys.stderr)
        return 2
    _say_access(access, args.host, args.port)
    uvicorn.run(app, host=args.host, port=args.port)
    return EXIT_OK


def data_folder() -> Path:
    import platformdirs

    from ledger.store.db import APP_NAME

    return Path(platformdirs.user_data_dir(APP_NAME))


def _say_access(access: Any, host: str, port: int) -> None:
    """Who may write, said once at start (the owner token's link when keys are needed)."""
    shown = f"[{host}]" if ":" in host else host
    if access.writes_open:
        where = "anyone who reaches this address" if host not in ("127.0.0.1", "localhost") \
            else "anyone on this machine"
        print(f"domino-ledger: writes are open: {where} may import and record matches",
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
    who = serve.add_mutually_exclusive_group()
    who.add_argument("--open", action="store_true",
                     help="anyone who reaches the server may write (the default on 127.0.0.1; "
                     "elsewhere writes need the owner token and recorder keys)")
    who.add_argument("--private", action="store_true",
                     help="reading needs the owner token (or a match's recorder key) too")
    serve.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                       help="another Host name the server answers to (loopback names and "
                       "the address served are allowed already)")
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
