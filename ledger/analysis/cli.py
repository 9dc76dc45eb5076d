"""``domino-ledger analyse``: best play and mistakes, deal by deal.

``analyse FILE`` reads a match file (every match in it); ``analyse 42`` reads
stored match 42 from the ledger (``--db``). ``--json`` prints one object per
deal (JSON Lines)::

    {"match": 0, "deal": 0, "best": [23, 0],
     "decisions": [{"event": 5, "seat": 1, "played": "6-3 right",
                    "options": [{"move": "6-3 right", "outcome": [23, 0]}, ...],
                    "lost": 0}], "result": [17, 0]}

``best`` and each ``outcome`` are the points each side (as in the audit's
scores) ends the deal with under best play from there, Fives scores included;
``lost`` is what the move played cost its side; ``result`` is what the deal
actually gave. A deal that cannot be analysed has ``best`` null and a ``note``
(so has a position too large to solve exactly: see ``ledger.analysis.solver``).

The text output (not ``--json``, whose notes stay English) is in the language of
``--lang``, else of the locale, as ``audit``'s is.

Exit status: 0 analysed; 1 the audit finds errors in the record (the analysis is
still printed) or ``--deal`` names no deal; 2 the input cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ledger.i18n import ENGLISH, Language, Phrase, add_lang_option, chosen_language
from ledger.i18n.phrases import Worded, clauses, seat_named

if TYPE_CHECKING:
    from ledger.analysis.knowledge_review import KnowledgeDeal
    from ledger.analysis.review import DealReview
    from ledger.formats.reader import MatchRecord
    from ledger.rules.base import Rules

# The solver, the reader and the rules load when a command runs, not when the parser is
# built: every command's parser is built for each run of the command.

EXIT_OK, EXIT_FINDINGS, EXIT_UNREADABLE = 0, 1, 2

# ``analyse --all`` makes the answers the web serves (the replay's Analysis panel), which
# the ledger does not know how to make: the program that does (web.cli) sets this.
ANALYSE_ALL: Callable[[argparse.Namespace], int] | None = None


class AnalyseError(Exception):
    """The match to analyse cannot be found or read; the message says why and where."""


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "analyse", aliases=["analyze"],
        help="best play at every step of a match and the points each mistake lost",
        description="Perfect-information analysis: once a deal is over every hand is "
                    "known, so each position has an outcome under best play by every side. "
                    "Shows it for every decision, and what each move that was not the best "
                    "cost its side.")
    p.add_argument("match", metavar="MATCH|FILE", nargs="?",
                   help="a match file (.json, .jsonl, .jsonl.gz) or a stored match id")
    p.add_argument("--all", action="store_true",
                   help="every scored deal of the ledger that has no analysis yet, kept for "
                        "the web: queued for `domino-ledger worker` on a PostgreSQL ledger, "
                        "worked out here on every core on SQLite (a progress bar on stderr)")
    p.add_argument("--since", metavar="DATE",
                   help="with --all: only matches started on or after this date (2026-11-01)")
    p.add_argument("--preset", metavar="ID", help="with --all: only matches of this table")
    p.add_argument("--jobs", type=int, metavar="N",
                   help="with --all on SQLite: deals at once (default: the cores)")
    p.add_argument("--no-wait", action="store_true",
                   help="with --all on PostgreSQL: end once the deals are queued")
    p.add_argument("--deal", type=int, metavar="N",
                   help="only deal N (counted from 0, as in the JSON output)")
    p.add_argument("--json", action="store_true", help="one JSON object per deal")
    p.add_argument("--chart", action="store_true",
                   help="with --json: add each deal's swing chart (a Plotly figure)")
    p.add_argument("--db", metavar="URL", default=None,
                   help="the ledger holding stored matches (default: $DOMINO_LEDGER_DB or "
                        "the local SQLite ledger)")
    p.add_argument("--knowledge", action="store_true",
                   help="also review each decision by what the player knew: consistent "
                        "deals of the unseen tiles, each solved exactly, averaged "
                        "(docs/knowledge-review.md); the values above are hindsight")
    p.add_argument("--samples", type=int, metavar="K", default=None,
                   help="the most deals sampled per decision (implies --knowledge; "
                        "default 200; a decision stops earlier once its label is settled "
                        "at 95%%; it is shown)")
    p.add_argument("--report", action="store_true",
                   help="the match report per player instead of the deals: decisions, "
                        "forced moves, inaccuracies, mistakes and blunders by knowledge "
                        "loss, mean loss, luck, luck-adjusted result")
    p.add_argument("--search-limit", type=int, metavar="N", default=None,
                   help="with three or four seats each for himself: the most positions the "
                        "search of one position may visit before it is left out as too "
                        "large (default: the solver's MAX_NODES, about 100 s; 0: no limit)")
    add_lang_option(p)
    p.set_defaults(func=cmd_analyse)


def cmd_analyse(args: argparse.Namespace) -> int:
    from ledger.analysis.solver import MAX_NODES

    lang = chosen_language(args)
    if args.all or args.match is None:
        return _analyse_all(args, lang)
    if args.search_limit is None:
        args.search_limit = MAX_NODES
    if args.deal is not None and args.deal < 0:
        print("domino-ledger: " + lang.say("--deal counts deals from 0"), file=sys.stderr)
        return EXIT_UNREADABLE
    if args.samples is not None and args.samples < 1:
        print("domino-ledger: " + lang.say("--samples is a number of deals, 1 or more"),
              file=sys.stderr)
        return EXIT_UNREADABLE
    if args.search_limit < 0:
        print("domino-ledger: " + lang.say("--search-limit is a number of positions, 0 or more"),
              file=sys.stderr)
        return EXIT_UNREADABLE
    out = sys.stdout
    code = EXIT_OK
    try:
        for record in records(args.match, args.db):
            code = max(code, _analyse_one(record, args, out, lang))
    except AnalyseError as exc:
        print(f"domino-ledger: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    return code


def _analyse_all(args: argparse.Namespace, lang: Language) -> int:
    if not args.all or args.match is not None:
        print("domino-ledger: " + lang.say("analyse takes a match, a file or --all"),
              file=sys.stderr)
        return EXIT_UNREADABLE
    if ANALYSE_ALL is None:
        print("domino-ledger: " + lang.say("analyse --all runs from the domino-ledger "
                                           "command"), file=sys.stderr)
        return EXIT_UNREADABLE
    return ANALYSE_ALL(args)


def records(ref: str, url: str | None = None) -> Iterator[MatchRecord]:
    """The matches ``ref`` names: every match of a file, or one stored match by id."""
    from ledger.formats.reader import ReadError, read_matches

    path = Path(ref)
    if path.exists() or not ref.isdigit():
        try:
            yield from read_matches(path)
        except ReadError as exc:
            raise AnalyseError(str(exc)) from None
        return
    yield stored_record(int(ref), url)


def stored_record(match_id: int, url: str | None = None) -> MatchRecord:
    """Stored match ``match_id`` as a record, read through the store's public queries.

    The seam to the ledger: the corrected line of recorded events (undos applied), read
    like a file, so a stored match and its file analyse the same.
    """
    from ledger.store.pages.reading import reading

    with reading(url, AnalyseError, "give a match file instead") as ledger:
        return ledger.record(match_id)


def record_rules(record: MatchRecord) -> Rules | None:
    """The rules of a record's table, or None once its trouble is said on stderr (a header
    that cannot be read, a table or seat count the rules do not know)."""
    from ledger.rules import RulesError, make_rules

    where, header = record.where, record.header
    if header is None:
        problem = record.problems[0].message if record.problems else "no readable header"
        print(f"domino-ledger: {where}: {problem}", file=sys.stderr)
        return None
    try:
        return make_rules(header.preset, len(header.seats), header.options)
    except RulesError as exc:
        print(f"domino-ledger: {where}: {exc.message}", file=sys.stderr)
        return None


def _analyse_one(record: MatchRecord, args: argparse.Namespace, out: Any,
                 lang: Language = ENGLISH) -> int:
    import orjson

    from ledger.analysis.review import iter_reviews
    from ledger.analysis.swing import swing_figure
    from ledger.audit import audit_record

    where = record.where
    header = record.header
    rules = record_rules(record)
    if rules is None or header is None:
        return EXIT_UNREADABLE
    report = audit_record(record)
    seats = list(header.seats)
    deals = None if args.deal is None else [args.deal]
    found = False
    if not args.json:
        print(_match_line(record, rules, seats, report.ok, lang), file=out)
    if args.report:
        return _report_one(record, rules, seats, deals, args, out, lang, report.ok)
    # With --json each deal carries its luck per seat (and what of it was not valued).
    known = _knowledge(record, rules, deals, args,
                       luck=args.json and (args.knowledge or args.samples is not None))
    held: list[KnowledgeDeal] = []
    for review in iter_reviews(rules, record.events, deals, max_nodes=args.search_limit):
        found = True
        kd = _same_deal(known, review.deal, held)
        if args.json:
            obj = {"match": record.index, **review.to_dict()}
            if known is not None:
                obj = {"match": record.index, **_with_knowledge(review, kd, args)}
            if args.chart:
                obj["chart"] = swing_figure(review, rules, seats)
            out.write(orjson.dumps(obj).decode() + "\n")
        else:
            print(_deal_text(review, rules, seats, lang, kd, args.samples), file=out)
        out.flush()
    if args.deal is not None and not found:
        print("domino-ledger: " + lang.say("{where}: there is no deal {deal} to analyse (deals "
                                           "count from 0)", where=where, deal=args.deal),
              file=sys.stderr)
        return EXIT_FINDINGS
    return EXIT_OK if report.ok else EXIT_FINDINGS


def _match_line(record: MatchRecord, rules: Rules, seats: Sequence[str], ok: bool,
                lang: Language = ENGLISH) -> str:
    from ledger.analysis.swing import side_names

    src = record.source
    names = tuple(side_names(rules, seats))
    if isinstance(src, dict) and src:
        line = Phrase("{where} match {match} ({source}): {preset}, {sides}", where=record.where,
                      match=record.index, source=" ".join(str(v) for v in src.values()),
                      preset=rules.preset, sides=names)
    else:
        line = Phrase("{where} match {match}: {preset}, {sides}", where=record.where,
                      match=record.index, preset=rules.preset, sides=names)
    if not ok:
        line = Phrase("{line} - the audit finds errors in this record", line=line)
    return lang.word(line)


def points_text(vec: Sequence[int]) -> str:
    """Points per side as one word: "23-0"."""
    return "-".join(str(v) for v in vec)


def _deal_text(review: DealReview, rules: Rules, seats: Sequence[str],
               lang: Language = ENGLISH, known: KnowledgeDeal | None = None,
               samples: int | None = None) -> str:
    from ledger.analysis.cli_knowledge import decision_text
    from ledger.analysis.review import move_phrase

    note = clauses(review.note_phrases)
    said = Worded(lang.word(note)) if note is not None else review.note or ""
    if not review.analysed:
        return "  " + lang.say("deal {deal}: not analysed: {note}", deal=review.deal, note=said)
    best = Phrase("not solved") if review.best is None else points_text(review.best)
    if review.result is None:
        lines = ["  " + lang.say("deal {deal}: best play {best}", deal=review.deal, best=best)]
    else:
        lines = ["  " + lang.say("deal {deal}: best play {best}, played {points}",
                                 deal=review.deal, best=best, points=points_text(review.result))]
    for d in review.decisions:
        name = seat_named(d.seat, seats[d.seat] if d.seat < len(seats) else None)
        text = lang.say("event {event}: {name} played {move} -> {outcome}", event=d.event,
                        name=name, move=move_phrase(d.played), outcome=points_text(d.outcome))
        if d.lost > 0:
            tops = tuple(move_phrase(m) for m in d.best_moves(rules.side_of(d.seat)))
            mistake = lang.say("MISTAKE: lost {lost} (best {moves} -> {outcome})",
                               lost=d.lost, moves=tops, outcome=points_text(d.best))
            text += "  " + (mistake if known is None else lang.say("in hindsight: {said}",
                                                                     said=Worded(mistake)))
        lines.append("    " + text)
        k = None if known is None else known.decision(d.event)
        if k is not None:
            lines.append("      " + decision_text(k, lang))
    if review.note:
        lines.append("    " + lang.say("note: {note}", note=said))
    if known is not None and samples is not None:
        lines.insert(1, "    " + lang.say("values are hindsight (every hand known); by "
                                           "knowledge: up to {samples} deals sampled per "
                                           "decision, stopping once its label is settled at "
                                           "95%", samples=samples))
    return "\n".join(lines)


# --- by what the player knew (ledger/analysis/cli_knowledge.py) ---------------------


def _knowledge(record: MatchRecord, rules: Rules, deals: list[int] | None,
               args: argparse.Namespace, luck: bool = False) -> Iterator[KnowledgeDeal] | None:
    """The knowledge review's deals, in step with the hindsight ones (None: not asked)."""
    from ledger.analysis.cli_knowledge import samples_for
    from ledger.analysis.knowledge_review import iter_knowledge_reviews

    if not (args.knowledge or args.samples is not None or luck):
        return None
    args.samples = samples_for(rules, args.samples)
    args.seed = _match_key(record)
    return iter_knowledge_reviews(rules, record.events, args.seed, args.samples, deals,
                                  luck=luck, max_nodes=args.search_limit)


def _same_deal(known: Iterator[KnowledgeDeal] | None, deal: int,
               held: list[KnowledgeDeal]) -> KnowledgeDeal | None:
    """The knowledge review of ``deal``: both reviews go through the deals in order, and
    one read past the deal asked is ``held`` for the next."""
    if known is None:
        return None
    import itertools

    first = list(held)
    held.clear()
    for kd in itertools.chain(first, known):
        if kd.deal >= deal:
            if kd.deal == deal:
                return kd
            held.append(kd)
            return None
    return None


def _match_key(record: MatchRecord) -> str:
    """The hash of the match (its canonical form): what every sampled deal is seeded by."""
    from ledger.formats.canonical import match_hash

    assert record.header is not None
    return match_hash(record.header, [e for e in record.events if e is not None])


def _with_knowledge(review: DealReview, known: KnowledgeDeal | None,
                    args: argparse.Namespace) -> dict[str, Any]:
    from ledger.analysis.cli_knowledge import merged

    return merged(review, known, args.samples, args.seed)


def _report_one(record: MatchRecord, rules: Rules, seats: list[str], deals: list[int] | None,
                args: argparse.Namespace, out: Any, lang: Language, ok: bool) -> int:
    import orjson

    from ledger.analysis.cli_knowledge import (
        kept_report,
        report_object,
        report_text_of,
        samples_for,
    )

    def work() -> dict[str, Any]:
        from ledger.analysis.measures import hindsight_of

        known = _knowledge(record, rules, deals, args, luck=True)
        assert known is not None
        return report_object(rules, seats, list(known), args.samples, args.seed,
                             hindsight_of(rules, record.events, deals))

    stored = args.match.isdigit() and not Path(args.match).exists() and deals is None
    if stored:  # kept in the ledger by the match's head (worked out once per head)
        args.samples = samples_for(rules, args.samples)
        obj = kept_report(int(args.match), args.db, args.samples, work)
    else:
        obj = work()
    obj = {"match": record.index, **obj}
    if args.json:
        out.write(orjson.dumps(obj).decode() + "\n")
    else:
        print(report_text_of(obj, lang), file=out)
    out.flush()
    return EXIT_OK if ok else EXIT_FINDINGS
