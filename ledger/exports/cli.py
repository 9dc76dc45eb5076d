"""``domino-ledger export``: score sheets (CSV, JSON, PDF) or the matches themselves."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ledger.exports.formats import SHEET_FORMATS
from ledger.i18n import Counted, Language, add_lang_option, chosen_language

if TYPE_CHECKING:  # loaded when the command runs: the parser is built for every command
    from ledger.exports.selection import Selected

MATCH = "match"  # --format match: the matches themselves, not their score sheets
# ledger.formats.writer.CONTAINERS, named here so that building the parser loads no writer
# (tests/cli checks the two agree).
CONTAINERS = (".json", ".jsonl", ".jsonl.gz")
EXIT_OK, EXIT_SKIPPED, EXIT_FAILED = 0, 1, 2


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "export", help="write score sheets (CSV, JSON, PDF) or matches as domino-match/1",
        description="Export matches: their score sheets as CSV (one row per deal), JSON or "
                    "a printable PDF, or the matches themselves as a domino-match/1 file.")
    p.add_argument("matches", nargs="*", metavar="MATCH",
                   help="match files (.json, .jsonl, .jsonl.gz) or stored match ids")
    p.add_argument("--player", help="only matches this player sat in (name, any case)")
    p.add_argument("--preset", help="only matches of this rules preset")
    p.add_argument("--since", help="only matches started on or after this date (2026-11-01)")
    p.add_argument("--db", metavar="URL", default=None,
                   help="the ledger to take stored matches from (default: $DOMINO_LEDGER_DB, "
                        "else ledger.db in the user's data folder)")
    sheets = ", ".join(SHEET_FORMATS)
    p.add_argument("--format", choices=(*SHEET_FORMATS, MATCH),
                   help=f"score sheets ({sheets}), or {MATCH} (the match file itself)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="the file to write ('-' for standard output); for --format match "
                        f"its name says the container: {', '.join(CONTAINERS)}")
    p.add_argument("--hand-record", metavar="FILE",
                   help="a printable hand record (PDF): one page per deal with the hands "
                        "as dealt, the play, the result and the review's marks")
    add_lang_option(p)
    p.set_defaults(func=cmd_export)


def _usage_error(args: argparse.Namespace) -> str | None:
    """What the command lacks: --format and -o go together, unless --hand-record alone."""
    if args.format is None and args.output is None:
        return None if args.hand_record else "give --format and -o FILE, or --hand-record FILE"
    if args.format is None or args.output is None:
        return "--format and -o FILE go together"
    return None


class _Run:
    def __init__(self) -> None:
        self.skipped = 0

    def skip(self, message: str) -> None:
        self.skipped += 1
        print(f"domino-ledger: {message}", file=sys.stderr)


def cmd_export(args: argparse.Namespace) -> int:
    from ledger.exports.select import select
    from ledger.exports.selection import Criteria, SelectionError, parse_since
    from ledger.formats.writer import WriteError, container_of

    lang = chosen_language(args)
    run = _Run()
    missing = _usage_error(args)
    if missing is not None:
        print(f"domino-ledger export: {missing}", file=sys.stderr)
        return EXIT_FAILED
    try:
        since = parse_since(args.since) if args.since is not None else None
        criteria = Criteria(player=args.player, preset=args.preset, since=since)
        if args.format == MATCH and args.output != "-":
            container_of(args.output)  # a bad file name fails before any work
        selected = list(select(args.matches, criteria, run.skip, args.db))
        if not selected:
            print("domino-ledger: " + lang.say("no match selected; nothing written"),
                  file=sys.stderr)
            return EXIT_FAILED
        count = len(selected)
        if args.hand_record:
            _write(args.hand_record, _hand_record_bytes(selected, lang))
        if args.format == MATCH:
            count = _export_matches(selected, args.output, run)
        elif args.format is not None:
            _write(args.output, _sheet_bytes(args.format, selected, lang))
    except (SelectionError, WriteError) as exc:
        print(f"domino-ledger: {exc}", file=sys.stderr)
        return EXIT_FAILED
    for written in (args.hand_record, args.output):
        if written is not None and written != "-":
            print(lang.say("wrote {matches} to {file}", file=written,
                           matches=Counted("{count} match", "{count} matches", count)),
                  file=sys.stderr)
    return EXIT_SKIPPED if run.skipped else EXIT_OK


def _hand_record_bytes(selected: list[Selected], lang: Language) -> bytes:
    from ledger.exports.files import hand_record_file

    return hand_record_file(selected, lang)


def _sheet_bytes(fmt: str, selected: list[Selected], lang: Language) -> bytes:
    from ledger.exports.files import sheet_bytes

    return sheet_bytes(fmt, selected, lang)


def _export_matches(selected: list[Selected], output: str, run: _Run) -> int:
    from ledger.exports.files import write_match_file
    from ledger.formats.writer import container_of, write_atomic

    if output == "-":
        return write_match_file(sys.stdout.buffer, selected, ".jsonl", run.skip)
    container = container_of(output)

    def fill(raw: Any) -> int:
        if container == ".jsonl.gz":
            import gzip

            # mtime 0: the same matches give the same bytes
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
                return write_match_file(gz, selected, container, run.skip)
        return write_match_file(raw, selected, container, run.skip)

    return write_atomic(output, fill)


def _write(output: str, data: bytes) -> None:
    from ledger.formats.writer import write_atomic

    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    write_atomic(output, lambda out: out.write(data))
