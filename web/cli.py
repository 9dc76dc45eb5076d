"""The ``domino-ledger`` command with ``serve``: ledger's parser plus the web server."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

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
    from web.app import create_app

    try:
        app = create_app(args.db)
    except (StoreError, SQLAlchemyError) as exc:
        print(f"domino-ledger: {explain(exc)}", file=sys.stderr)
        return 2
    uvicorn.run(app, host=args.host, port=args.port)
    return EXIT_OK


def build_full_parser() -> argparse.ArgumentParser:
    parser = build_parser()
    serve = _subcommands(parser).add_parser("serve", help="run the web app and its JSON API")
    serve.add_argument("--db", metavar="URL", default=None,
                       help="database URL (default: $DOMINO_LEDGER_DB, else ledger.db in the "
                       "user's data folder)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
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
