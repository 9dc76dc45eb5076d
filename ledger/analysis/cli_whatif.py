"""``domino-ledger whatif``: a recorded match scored under another table, sheets side by side.

``whatif FILE --rules sahrat-draw`` compares every match of a file; ``whatif 42 --rules
...`` stored match 42 (``--db``). ``--option NAME=VALUE`` sets an option of the other
table (``target=150``, ``teams=true``); otherwise it plays by its own defaults. The text
gives each deal's row under both tables, the final scores, and the first recorded event
the other table does not allow, where its sheet stops (``ledger.analysis.whatif``).
``--json`` prints one object per match: ``WhatIf.to_dict()`` with ``match`` and ``rules``.

Exit status: 0 compared (whether or not the other table allows every move); 2 the input
cannot be read, or the other table cannot seat the match.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

import orjson

from ledger.analysis.cli import (
    EXIT_OK,
    EXIT_UNREADABLE,
    AnalyseError,
    points_text,
    records,
)
from ledger.i18n import Language, add_lang_option, chosen_language
from ledger.i18n.phrases import Worded
from ledger.rules import PRESETS

if TYPE_CHECKING:  # loaded when the command runs (see ledger.analysis.cli)
    from ledger.analysis.whatif import WhatIf
    from ledger.formats.reader import MatchRecord
    from ledger.scoresheet import DealRow, ScoreSheet


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "whatif", aliases=["what-if"],
        help="a recorded match scored under another table's rules, sheets side by side",
        description="Replays the recorded moves under another table for as long as they are "
                    "legal there, and shows both score sheets deal by deal.")
    p.add_argument("match", metavar="MATCH|FILE",
                   help="a match file (.json, .jsonl, .jsonl.gz) or a stored match id")
    p.add_argument("--rules", required=True, choices=sorted(PRESETS), metavar="PRESET",
                   help=f"the other table: {', '.join(sorted(PRESETS))}")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   type=_option, help="an option of the other table (target=150, teams=true); "
                                      "may be repeated")
    p.add_argument("--json", action="store_true", help="one JSON object per match")
    p.add_argument("--db", metavar="URL", default=None,
                   help="the ledger holding stored matches (default: $DOMINO_LEDGER_DB or "
                        "the local SQLite ledger)")
    add_lang_option(p)
    p.set_defaults(func=cmd_whatif)


def _option(text: str) -> tuple[str, object]:
    """``NAME=VALUE``: a whole number, true/false, else the text as written."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE")
    if value.lstrip("-").isdigit():
        return name, int(value)
    if value.lower() in ("true", "false"):
        return name, value.lower() == "true"
    return name, value


def cmd_whatif(args: argparse.Namespace) -> int:
    from ledger.analysis.whatif import WhatIfError, what_if

    lang = chosen_language(args)
    options = dict(args.option)
    out = sys.stdout
    try:
        for record in records(args.match, args.db):
            if record.header is None:
                problem = record.problems[0].message if record.problems else "no readable header"
                print(f"domino-ledger: {record.where}: {problem}", file=sys.stderr)
                return EXIT_UNREADABLE
            try:
                w = what_if(record, args.rules, options)
            except WhatIfError as exc:
                print(f"domino-ledger: {record.where}: {lang.word(exc.said)}", file=sys.stderr)
                return EXIT_UNREADABLE
            if args.json:
                obj = {"match": record.index, "rules": args.rules, **w.to_dict()}
                out.write(orjson.dumps(obj).decode() + "\n")
            else:
                print(compared(record, w, lang), file=out)
            out.flush()
    except AnalyseError as exc:
        print(f"domino-ledger: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    return EXIT_OK


def compared(record: MatchRecord, w: WhatIf, lang: Language) -> str:
    """The two sheets as text: a heading, a row per deal, the final line, the stop."""
    a, b = w.original, w.other
    lang = lang.seated(a.players)  # the stop's finding names the seat's player
    left_head = lang.say("as recorded ({table})", table=a.name_in(lang))
    right_head = lang.say("under {table}", table=b.name_in(lang))
    rows: list[tuple[str, str, str]] = [("", left_head, right_head)]
    for n, mine, theirs in w.side_by_side():
        rows.append((str(n), _cell(mine, lang), _cell(theirs, lang)))
    rows.append((lang.say("final"), _final(a, lang), _final(b, lang)))
    width = [max(len(r[k]) for r in rows) for k in range(2)]
    lines = [lang.say("{where} match {match}: {players}", where=record.where,
                      match=record.index, players=" · ".join(a.players))]
    lines += [f"  {n:>{width[0]}}  {left:<{width[1]}}  |  {right}" for n, left, right in rows]
    if w.stop is not None:
        lines.append("  " + lang.say("under {table} the record stops at event {event}: "
                                     "{reason}", table=b.name_in(lang), event=w.stop.event,
                                     reason=Worded(lang.finding(w.stop))))
    lines += ["  " + lang.word(said) for said in w.verdict(b.name_in(lang))]
    return "\n".join(line.rstrip() for line in lines)


def _cell(row: DealRow | None, lang: Language) -> str:
    if row is None:
        return "–"
    result = lang.translations.pgettext("result", row.result)
    totals = points_text(row.totals)
    if row.winner_name is None:
        return lang.say("{result}, nobody scores: {totals}", result=result, totals=totals)
    return lang.say("{result}, {winner} +{points}: {totals}", result=result,
                    winner=row.winner_name, points=row.points, totals=totals)


def _final(sheet: ScoreSheet, lang: Language) -> str:
    scores = points_text(sheet.scores)
    if sheet.winner_name is not None:
        return lang.say("{winner} won, {scores}", winner=sheet.winner_name, scores=scores)
    if sheet.complete:
        return lang.say("no winner, {scores}", scores=scores)
    return lang.say("not finished, {scores}", scores=scores)
