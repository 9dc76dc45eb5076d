"""``domino-ledger stats``: player statistics across the ledger, per table and overall.

``stats`` counts every stored match (``--db``) from its read models and the reviews the
ledger keeps (a deal's Analysis on the replay page is kept once worked out); ``stats
FILE...`` counts match files instead. ``--player`` and ``--preset`` narrow it down;
``--analyse`` reviews the deals that have no review yet (best play with every hand open:
seconds a deal for tables of three or four seats each for himself), so that the points
lost in hindsight count for every deal. Inaccuracies, mistakes and blunders are those the
review by what each player knew named (``ledger.analysis.measures``), counted where the
ledger keeps one (``analyse ID --report``, the match page). ``--json`` prints one object
per row (JSON Lines), ``PlayerStats.to_dict()``.

Exit status: 0; 2 the ledger or a file cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from ledger.analysis.cli import EXIT_OK, EXIT_UNREADABLE
from ledger.glossary import table_name
from ledger.i18n import Language, add_lang_option, chosen_language
from ledger.rules import PRESETS

if TYPE_CHECKING:  # loaded when the command runs (ledger.analysis.stats loads the store)
    from ledger.analysis.stats import MatchFacts, PlayerStats


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "stats", help="player statistics across the ledger: wins, points, outs, blocks, "
                      "mistakes; per table",
        description="Per player and table (and over every table): matches, wins, deals, "
                    "points and points per deal, deals won by going out, blocked deals, "
                    "and, for the deals reviewed, mistakes and the points they lost.")
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="match files to count instead of the ledger")
    p.add_argument("--player", metavar="NAME", help="only this player (the name as seated)")
    p.add_argument("--preset", choices=sorted(PRESETS), metavar="PRESET",
                   help="only matches of this table")
    p.add_argument("--analyse", "--analyze", action="store_true",
                   help="review the deals that have no review yet (slow for tables of "
                        "three or four seats each for himself)")
    p.add_argument("--json", action="store_true", help="one JSON object per row")
    p.add_argument("--db", metavar="URL", default=None,
                   help="the ledger (default: $DOMINO_LEDGER_DB or the local SQLite ledger)")
    add_lang_option(p)
    p.set_defaults(func=cmd_stats)


def cmd_stats(args: argparse.Namespace) -> int:
    from ledger.analysis.stats import player_stats

    lang = chosen_language(args)
    try:
        facts = list(_from_files(args) if args.files else _from_ledger(args))
    except StatsError as exc:
        print(f"domino-ledger: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    rows = [r for r in player_stats(facts) if args.player is None or r.player == args.player]
    if args.json:
        for row in rows:
            sys.stdout.write(orjson.dumps(row.to_dict()).decode() + "\n")
    else:
        print(table_text(rows, lang))
    return EXIT_OK


class StatsError(Exception):
    """The ledger or a file cannot be read; the message says which and why."""


def _from_files(args: argparse.Namespace) -> Iterator[MatchFacts | None]:
    from ledger.analysis.stats import audited, facts_of
    from ledger.formats.reader import ReadError, read_matches

    for path in args.files:
        try:
            for record in read_matches(path):
                if record.header is None or (args.preset and record.header.preset != args.preset):
                    continue
                if args.player is not None and args.player not in record.header.seats:
                    continue
                yield facts_of(audited(record, analyse=args.analyse))
        except ReadError as exc:
            raise StatsError(str(exc)) from None


def _from_ledger(args: argparse.Namespace) -> Iterator[MatchFacts | None]:
    from dataclasses import replace

    from sqlalchemy.exc import SQLAlchemyError

    from ledger.analysis.cli_knowledge import REPORT_VERSION
    from ledger.analysis.review import review_match
    from ledger.analysis.stats import from_stored
    from ledger.store import db
    from ledger.store.errors import StoreError
    from ledger.store.jobs.knowledge_reviews import all_current
    from ledger.store.pages.plays import stored_plays
    from ledger.store.pages.queries import record_of

    try:
        engine = db.open_db(args.db)
    except (StoreError, SQLAlchemyError) as exc:
        raise StatsError(db.explain(exc)) from None
    try:
        with db.read_session(engine) as session:
            conn = session.connection()
            knowledge = all_current(conn, REPORT_VERSION)
            for play in stored_plays(conn, args.preset, args.player):
                kept = knowledge.get(play.match_id)
                facts = from_stored(play, None if kept is None else kept[2])
                missing = [d["deal"] for d in play.deals if d["deal"] not in play.decisions] \
                    if args.analyse else []
                if facts is not None and missing:
                    # Reviewed here, not kept: the ledger keeps what the replay worked out.
                    reviews = review_match(facts.rules, record_of(conn, play.match_id).events,
                                           deals=missing)
                    done = {r.deal: tuple((d.seat, d.lost) for d in r.decisions)
                            for r in reviews if r.analysed}
                    done.update({k: tuple(v) for k, v in play.decisions.items()})
                    facts = replace(facts, reviews=tuple(done[k] for k in sorted(done)))
                yield facts
    except (StoreError, SQLAlchemyError) as exc:
        raise StatsError(db.explain(exc)) from None
    finally:
        engine.dispose()


_COLUMNS = ("matches", "wins", "deals", "points", "points_per_deal", "outs", "blocks",
            "blocks_won", "reviewed_deals", "hindsight_lost", "inaccuracies", "mistakes",
            "blunders")


def headings(lang: Language) -> list[str]:
    """The columns' names in ``lang``, in ``_COLUMNS``' order after player and table."""
    return [lang.say("player"), lang.say("table"), lang.say("matches"), lang.say("wins"),
            lang.say("deals"), lang.say("points"), lang.say("per deal"), lang.say("outs"),
            lang.say("blocks"), lang.say("blocks won"), lang.say("deals reviewed"),
            lang.say("points lost (hindsight)"), lang.say("inaccuracies"), lang.say("mistakes"),
            lang.say("blunders")]


def cells(row: PlayerStats, lang: Language) -> list[str]:
    from ledger.analysis.stats import ALL

    table = lang.say("every table") if row.preset == ALL else table_name(row.preset, lang.code)
    values = row.to_dict()
    return [row.player, table, *(str(values[c]) for c in _COLUMNS)]


def table_text(rows: Sequence[PlayerStats], lang: Language) -> str:
    """The rows as a plain table, one line per player and table."""
    if not rows:
        return lang.say("no matches to count")
    lines = [headings(lang)] + [cells(r, lang) for r in rows]
    width = [max(len(line[k]) for line in lines) for k in range(len(lines[0]))]
    return "\n".join("  ".join(v.ljust(width[k]) if k < 2 else v.rjust(width[k])
                               for k, v in enumerate(line)).rstrip() for line in lines)
