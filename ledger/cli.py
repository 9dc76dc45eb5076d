"""The ``domino-ledger`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import orjson

from ledger.audit import AuditReport, audit_record
from ledger.exports import commands as exports
from ledger.findings import Finding
from ledger.formats.reader import MatchRecord, ReadError, read_matches
from ledger.store import commands as store_commands

EXIT_OK, EXIT_FINDINGS, EXIT_UNREADABLE = 0, 1, 2


def _summary(report: AuditReport, seats: Sequence[str]) -> str:
    where = report.path or ""
    if report.line is not None:
        where += f":{report.line}"
    errors = len(report.errors)
    warnings = len(report.findings) - errors
    status = "ok" if report.ok else "FAULTY"
    src = report.source
    label = ""
    if isinstance(src, dict) and src:
        label = " (" + " ".join(str(v) for v in src.values()) + ")"
    lines = [f"{where} match {report.match}{label}: {status}, {errors} error(s), "
             f"{warnings} warning(s)"]
    if report.rules is not None:
        scores = ", ".join(str(s) for s in report.scores or [])
        if report.winner is not None:
            name = seats[report.winner] if report.winner < len(seats) else "?"
            result = f"winner seat {report.winner} ({name})"
        else:
            result = "no winner"
        state = "complete" if report.complete else "not complete"
        lines.append(f"  {report.rules.preset}, {report.rules.seats} seats, "
                     f"{len(report.deals)} deal(s), scores {scores}, {result}, {state}")
    for f in report.findings:
        at = "match" if f.event is None else f"event {f.event}"
        lines.append(f"  {f.severity} at {at} [{f.code}] {_message(f)}")
    return "\n".join(lines)


def _message(finding: Finding) -> str:
    """The message without the "event N: " the reader puts first (the line says it)."""
    prefix = f"event {finding.event}: "
    return finding.message.removeprefix(prefix) if finding.event is not None else finding.message


def _where(report: AuditReport, event: int | None) -> str:
    parts = [report.path or "<match>"]
    if report.line is not None:
        parts.append(f"line {report.line}")
    if event is not None:
        parts.append(f"event {event}")
    return ", ".join(parts)


def _audit(record: MatchRecord) -> AuditReport:
    """The audit of one match; a crash of the auditor becomes a finding, not a traceback."""
    try:
        return audit_record(record)
    except Exception as exc:  # one bad match must not stop the others
        return AuditReport(match=record.index, source=record.source, path=record.path,
                           line=record.line, findings=[Finding(
                               None, "error", "internal-error",
                               f"the auditor failed on this match ({type(exc).__name__}: "
                               f"{exc}); this is a bug in domino-ledger, please report it")])


def cmd_audit(args: argparse.Namespace) -> int:
    code = EXIT_OK
    out = sys.stdout
    for path in args.files:
        try:
            for record in read_matches(path):
                report = _audit(record)
                if args.json:
                    out.write(orjson.dumps(report.to_dict()).decode() + "\n")
                else:
                    seats = record.header.seats if record.header else ()
                    print(_summary(report, seats), file=out)
                if not report.ok:
                    code = max(code, EXIT_FINDINGS)
                    if args.strict:
                        first = report.errors[0]
                        out.flush()
                        print(f"domino-ledger: stopped at {_where(report, first.event)}: "
                              f"{_message(first)} [{first.code}]", file=sys.stderr)
                        return EXIT_FINDINGS
        except ReadError as exc:
            print(f"domino-ledger: {exc}", file=sys.stderr)
            if args.strict:
                return EXIT_UNREADABLE
            code = EXIT_UNREADABLE
    return code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="domino-ledger",
                                     description="Record, audit and replay domino matches.")
    sub = parser.add_subparsers(dest="command", required=True)
    audit = sub.add_parser("audit", help="check match files against the rules")
    audit.add_argument("files", nargs="+", help="domino-match/1 files (.json, .jsonl, .jsonl.gz)")
    audit.add_argument("--json", action="store_true", help="one JSON report per match")
    audit.add_argument("--strict", action="store_true", help="stop at the first error")
    audit.set_defaults(func=cmd_audit)
    # Other parts of the ledger add their subcommands here: each module has
    # register(subparsers). web/cli.py extends this parser with `serve`.
    exports.register(sub)
    store_commands.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        return 130  # the shell's code for Ctrl-C, without a traceback


if __name__ == "__main__":
    sys.exit(main())
