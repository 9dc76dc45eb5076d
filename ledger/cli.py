"""The ``domino-ledger`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ledger.analysis import cli as analysis_cli
from ledger.analysis import cli_deals, cli_stats, cli_whatif
from ledger.exports import cli as exports_cli
from ledger.i18n import ENGLISH, Counted, Language, Phrase, add_lang_option, chosen_language
from ledger.i18n.phrases import Worded, seat_named
from ledger.jobs import cli as jobs_cli
from ledger.store import cli as store_cli

if TYPE_CHECKING:
    from ledger.audit import AuditReport
    from ledger.findings import Finding
    from ledger.formats.reader import MatchRecord

# Every command's module is imported to build the parser, so each keeps its heavy imports
# (the rules engine, the store, SQLAlchemy, Plotly) inside the functions that run it:
# ``--help`` and ``audit`` load none of what other commands need.

EXIT_OK, EXIT_FINDINGS, EXIT_UNREADABLE = 0, 1, 2
# Findings that say no match could be read at all there: a file of nothing else is one
# that "cannot be read at all" (exit 2), as a missing one is; beside a match that could be
# read, they are that line's findings (exit 1).
UNREAD = frozenset({"bad-json", "line-too-long", "file-too-large", "empty-file"})


def _summary(report: AuditReport, seats: Sequence[str], lang: Language = ENGLISH) -> str:
    lang = lang.seated(seats)  # a finding names the seat's player: "Karim (seat 1)"
    where = report.path or ""
    if report.line is not None:
        where += f":{report.line}"
    errors = len(report.errors)
    counts = {
        "match": report.match,
        "status": Phrase("ok") if report.ok else Phrase("FAULTY"),
        "errors": Counted("{count} error(s)", "{count} error(s)", errors),
        "warnings": Counted("{count} warning(s)", "{count} warning(s)",
                            len(report.findings) - errors),
    }
    src = report.source
    if isinstance(src, dict) and src:
        lines = [lang.say("{where} match {match} ({source}): {status}, {errors}, {warnings}",
                          where=where, source=" ".join(str(v) for v in src.values()), **counts)]
    else:
        lines = [lang.say("{where} match {match}: {status}, {errors}, {warnings}", where=where,
                          **counts)]
    if report.rules is not None:
        if report.winner is not None:
            name = seats[report.winner] if report.winner < len(seats) else None
            result = Phrase("winner {name}", name=seat_named(report.winner, name))
        else:
            result = Phrase("no winner")
        state = Phrase("complete") if report.complete else Phrase("not complete")
        lines.append("  " + lang.say(
            "{preset}, {seats}, {deals}, scores {scores}, {result}, {state}",
            preset=report.rules.preset,
            seats=Counted("{count} seats", "{count} seats", report.rules.seats),
            deals=Counted("{count} deal(s)", "{count} deal(s)", len(report.deals)),
            scores=tuple(report.scores or ()), result=result, state=state))
    for f in report.findings:
        at = Phrase("match") if f.event is None else Phrase("event {event}", event=f.event)
        lines.append("  " + lang.say("{severity} at {at} [{code}] {message}", severity=f.severity,
                                     at=at, code=f.code, message=Worded(_message(f, lang))))
    return "\n".join(lines)


def _message(finding: Finding, lang: Language = ENGLISH) -> str:
    """The message without the "event N: " the reader puts first (the line says it)."""
    return lang.finding(finding, bare=True)


def _where(report: AuditReport, event: int | None) -> tuple[object, ...]:
    parts: list[object] = [report.path or "<match>"]
    if report.line is not None:
        parts.append(Phrase("line {line}", line=report.line))
    if event is not None:
        parts.append(Phrase("event {event}", event=event))
    return tuple(parts)


def _report_dict(report: AuditReport, lang: Language) -> dict[str, object]:
    """The audit --json object; its messages in ``lang`` (codes never change)."""
    out = report.to_dict()
    if lang is not ENGLISH and lang.code != ENGLISH.code:
        out["findings"] = [{**d, "message": lang.finding(f)}
                           for d, f in zip(out["findings"], report.findings, strict=True)]
    return out


def _audit(record: MatchRecord) -> AuditReport:
    """The audit of one match; a crash of the auditor becomes a finding, not a traceback."""
    from ledger.audit import AuditReport, audit_record
    from ledger.findings import finding

    try:
        return audit_record(record)
    except Exception as exc:  # one bad match must not stop the others
        return AuditReport(match=record.index, source=record.source, path=record.path,
                           line=record.line, findings=[finding(
                               None, "error", "internal-error",
                               "the auditor failed on this match ({error}); this is a bug in "
                               "domino-ledger, please report it",
                               error=f"{type(exc).__name__}: {exc}")])


class _Audited(NamedTuple):
    """One match's audit as the command prints it (plain data: a worker sends it on)."""

    text: str  # the --json line or the summary, with its line ending
    ok: bool
    stop: str | None  # with --strict and an error: the sentence that stops the command
    unread: bool = False  # no match could be read there (its findings are all ``UNREAD``)


def _audited(record: MatchRecord, args: argparse.Namespace, lang: Language) -> _Audited:
    import orjson

    report = _audit(record)
    if args.json:
        text = orjson.dumps(_report_dict(report, lang)).decode() + "\n"
    else:
        text = _summary(report, record.header.seats if record.header else (), lang) + "\n"
    stop = None
    if args.strict and not report.ok:
        first = report.errors[0]
        stop = "domino-ledger: " + lang.say(
            "stopped at {where}: {message} [{code}]", where=_where(report, first.event),
            message=Worded(_message(first, lang)), code=first.code)
    unread = record.header is None and bool(report.findings) and all(
        f.code in UNREAD for f in report.findings)
    return _Audited(text, report.ok, stop, unread)


def _audits(path: str, args: argparse.Namespace, lang: Language,
            jobs: int | None = None) -> Iterator[_Audited]:
    """Every match of a file audited, in order: here, or in ``--jobs`` forked workers."""
    from ledger.file_workers import default_jobs, in_order
    from ledger.formats.reader import read_matches

    def work(k: int, jobs: int) -> Iterator[_Audited]:
        for record in read_matches(path, part=(k, jobs)):
            yield _audited(record, args, lang)

    if jobs is None:
        jobs = default_jobs(path) if args.jobs is None else args.jobs
    return work(0, 1) if jobs <= 1 else in_order(work, jobs)


def _file_audits(path: str, args: argparse.Namespace, lang: Language
                 ) -> tuple[list[_Audited], Exception | None]:
    """One whole file's audits, and the error that stopped its reading (sent back whole)."""
    from ledger.formats.reader import ReadError

    done: list[_Audited] = []
    try:
        done.extend(_audits(path, args, lang, jobs=1))
    except ReadError as exc:
        return done, exc
    return done, None


def _replayed(done: list[_Audited], error: Exception | None) -> Iterator[_Audited]:
    yield from done
    if error is not None:
        raise error


def _each_file(args: argparse.Namespace, lang: Language
               ) -> Iterator[tuple[str, Iterator[_Audited]]]:
    """Each file with its audits, in order. Many small files go to every core a file
    each (``many_files_jobs``), a large one is split by match (``_audits``)."""
    from ledger.file_workers import in_order, many_files_jobs

    files: list[str] = args.files
    jobs = many_files_jobs(files, args.jobs)
    if jobs <= 1:
        for path in files:
            yield path, _audits(path, args, lang)
        return

    def work(k: int, n: int) -> Iterator[tuple[list[_Audited], Exception | None]]:
        for path in files[k::n]:
            yield _file_audits(path, args, lang)

    for path, (done, error) in zip(files, in_order(work, jobs), strict=True):
        yield path, _replayed(done, error)


def cmd_audit(args: argparse.Namespace) -> int:
    from ledger.formats.reader import ReadError

    code = EXIT_OK
    out = sys.stdout
    lang = chosen_language(args)
    for _path, audits in _each_file(args, lang):
        read_any = False
        try:
            for audited in audits:
                out.write(audited.text)
                read_any = read_any or not audited.unread
                if not audited.ok:
                    code = max(code, EXIT_FINDINGS)
                    if audited.stop is not None:
                        out.flush()
                        print(audited.stop, file=sys.stderr)
                        return EXIT_UNREADABLE if audited.unread else EXIT_FINDINGS
            if not read_any:  # every part of the file was past reading
                code = EXIT_UNREADABLE
        except ReadError as exc:
            print("domino-ledger: " + lang.word(Phrase(exc.template, None, **exc.params)),
                  file=sys.stderr)
            if args.strict:
                return EXIT_UNREADABLE
            code = EXIT_UNREADABLE
    return code


def _jobs_option(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of processes (0 or more)")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="domino-ledger",
                                     description="Record, audit and replay domino matches.")
    sub = parser.add_subparsers(dest="command", required=True)
    audit = sub.add_parser("audit", help="check match files against the rules")
    audit.add_argument("files", nargs="+", help="domino-match/1 files (.json, .jsonl, .jsonl.gz)")
    audit.add_argument("--json", action="store_true", help="one JSON report per match")
    audit.add_argument("--strict", action="store_true", help="stop at the first error")
    audit.add_argument("--jobs", type=_jobs_option, metavar="N", default=None,
                       help="worker processes auditing side by side, the reports in input "
                       "order: a large file's matches, or many small files a file each "
                       "(default: every core for a file over 1 MiB, or for small files "
                       "adding up to 4 MiB; 0 or 1: none)")
    add_lang_option(audit)
    audit.set_defaults(func=cmd_audit)
    # Other parts of the ledger add their subcommands here: each module has
    # register(subparsers). web/cli.py extends this parser with `serve`.
    exports_cli.register(sub)
    store_cli.register(sub)
    analysis_cli.register(sub)
    cli_whatif.register(sub)
    cli_stats.register(sub)
    cli_deals.register(sub)
    jobs_cli.register(sub)
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
