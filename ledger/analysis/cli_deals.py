"""``domino-ledger knowledge FILE --deal N --step K --seat S``: the deals the review solves.

For the decision of seat ``S`` before event ``K`` of deal ``N`` (deals counted from 0 as in
``analyse --json``; ``K`` an index into the match file's ``events``, a move of that deal;
seats as in the file), the full deals consistent with every fact the seat knew
(``ledger.analysis.full_deals``): every one when there are no more than ``--samples``
(``exact``, with their ``count``), else that many drawn uniformly, seeded by ``--seed``
(default: the match's hash, as ``analyse --knowledge`` seeds them, so with the same K the
samples are the very deals the review solves). ``--json`` prints one object per match:
``samples`` (each ``hands``, as dealt, one list of tiles per seat, and ``stock`` in drawing
order, empty on a table without a stock), ``exact``, ``count`` (null unless exact),
``seed``, and ``facts`` (what the seat knew: its hand, the moves it saw, the opening).

Exit status: 0 printed; 2 the input cannot be read, or the deal, step or seat is not in it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ledger.analysis.cli import EXIT_OK, EXIT_UNREADABLE, AnalyseError, record_rules, records
from ledger.i18n import Language, add_lang_option, chosen_language


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "knowledge",
        help="the full deals consistent with what one seat knew at one decision",
        description="The deals the review by knowledge solves for one decision: every "
                    "one when few enough, else a uniform sample.")
    p.add_argument("match", metavar="MATCH|FILE",
                   help="a match file (.json, .jsonl, .jsonl.gz) or a stored match id")
    p.add_argument("--deal", type=int, required=True, metavar="N",
                   help="the deal, counted from 0 as in `analyse --json`")
    p.add_argument("--step", type=int, required=True, metavar="K",
                   help="the event (an index into the file's events) the seat decides before")
    p.add_argument("--seat", type=int, required=True, metavar="S", help="the seat, from 0")
    p.add_argument("--samples", type=int, default=None, metavar="M",
                   help="deals to draw (default: the table's, as `analyse --knowledge`)")
    p.add_argument("--seed", default=None, metavar="X",
                   help="what the draws are seeded by (default: the match's hash)")
    p.add_argument("--json", action="store_true", help="one JSON object per match")
    p.add_argument("--db", metavar="URL", default=None,
                   help="the ledger holding stored matches (default: $DOMINO_LEDGER_DB or "
                        "the local SQLite ledger)")
    add_lang_option(p)
    p.set_defaults(func=cmd_knowledge)


def cmd_knowledge(args: argparse.Namespace) -> int:
    lang = chosen_language(args)
    if args.samples is not None and args.samples < 1:
        print("domino-ledger: " + lang.say("--samples is a number of deals, 1 or more"),
              file=sys.stderr)
        return EXIT_UNREADABLE
    code = EXIT_OK
    try:
        for record in records(args.match, args.db):
            code = max(code, _one(record, args, lang))
    except AnalyseError as exc:
        print(f"domino-ledger: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    return code


def _one(record: Any, args: argparse.Namespace, lang: Language) -> int:
    import orjson

    from ledger.analysis.knowledge_review import NoSuchDecision, decision_samples, default_samples
    from ledger.analysis.sampling import Inconsistent
    from ledger.formats.canonical import match_hash

    where, header = record.where, record.header
    rules = record_rules(record)
    if rules is None or header is None:
        return EXIT_UNREADABLE
    seed = args.seed if args.seed is not None else \
        match_hash(header, [e for e in record.events if e is not None])
    k = args.samples if args.samples is not None else default_samples(rules)
    try:
        got = decision_samples(rules, record.events, args.deal, args.step, args.seat, k, seed)
    except (NoSuchDecision, Inconsistent) as exc:
        print(f"domino-ledger: {where}: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    if args.json:
        obj = {"match": record.index, **got.to_dict()}
        sys.stdout.write(orjson.dumps(obj).decode() + "\n")
        return EXIT_OK
    head = (lang.say("every consistent deal: {count}", count=got.count) if got.exact else
            lang.say("{count} deals drawn uniformly (seed {seed})", count=len(got.deals),
                     seed=seed))
    print(lang.say("deal {deal}, {seat} before event {step}", deal=args.deal,
                   seat=args.seat, step=args.step) + ": " + head)
    seats = list(header.seats)
    for i, d in enumerate(got.deals, 1):
        parts = [f"{seats[s]}: {' '.join(str(t) for t in h)}" for s, h in enumerate(d.hands)]
        if d.stock:
            parts.append(lang.say("stock") + ": " + " ".join(str(t) for t in d.stock))
        print(f"{i:>4}  " + " | ".join(parts))
    return EXIT_OK
