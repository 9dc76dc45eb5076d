"""The events of a live match as a reader without its recorder key may see them.

The deal in play stays hidden: its deal event keeps only how many tiles each hand and
the stock hold, a draw only who drew. An event taken back by an undo is left out too
(a tile tapped by mistake was in somebody's hand). Everything else, the plays on the
table, passes and what the rules derived, is the table's and stays as stored. Each row
keeps its hashes, so the chain can still be followed; ``redacted`` marks a changed row.
A changed row loses its salt too: the salt is what stops anyone trying the 28 tiles (or
a dealt hand) against the row's hash (docs/security.md), so it is published only with
the payload it guards.

The match's findings are the audit of its line (live equals import, issue 29), and the
audit of a deal in play can name tiles of hands the table has not seen: of that deal, a
reader without the key reads only the findings that name tiles the table saw
(``table_findings``); the deals before it are over, and open to everyone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import orjson

from ledger.corrections import UNDO, standing_dicts
from ledger.seatview import tiles_named

F = TypeVar("F")

HIDDEN_IN_PLAY = ("deal", "draw")


def _counted(payload: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": payload.get("type"), "redacted": True}
    if "seat" in payload:
        out["seat"] = payload["seat"]
    hands = payload.get("hands")
    if isinstance(hands, list):
        out["hand_sizes"] = [len(h) if isinstance(h, list) else None for h in hands]
    stock = payload.get("stock")
    if isinstance(stock, list):
        out["stock_size"] = len(stock)
    return out


def redact_live(rows: Sequence[Mapping[str, Any]],
                every: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` (some of the match's rows, ``every`` all of them) as the table sees them."""
    standing = {r["seq"] for r in standing_dicts(every)}
    deals = [r["seq"] for r in every
             if r["kind"] == "recorded" and r["type"] == "deal" and r["seq"] in standing]
    in_play = deals[-1] if deals else None
    out = []
    for r in rows:
        row = dict(r)
        recorded = r["kind"] == "recorded" and r["type"] != UNDO
        hide = recorded and (r["seq"] not in standing or (
            in_play is not None and r["seq"] >= in_play and r["type"] in HIDDEN_IN_PLAY))
        if hide:
            row["payload"] = _counted(r["payload"])
            row["salt"] = None
            row["redacted"] = True
        out.append(row)
    return out


def table_findings(findings: Sequence[F], every: Sequence[Mapping[str, Any]],
                   said: Callable[[F], tuple[int | None, str]]) -> list[F]:
    """``findings`` (``said``: a finding's event and sentence) as the table may read them
    while the deal in play is recorded (``every``: all the match's rows)."""
    standing = [r for r in standing_dicts(every) if r["kind"] == "recorded"]
    deals = [int(r["event"]) for r in standing if r["type"] == "deal"]
    if not deals:
        return list(findings)
    in_play = deals[-1]
    seen: set[str] = set()
    for r in standing:
        if int(r["event"]) >= in_play and r["type"] in ("play", "reveal"):
            seen |= tiles_named(orjson.dumps(r["payload"]).decode())
    out = []
    for f in findings:
        event, message = said(f)
        if (event is not None and event < in_play) or tiles_named(message) <= seen:
            out.append(f)
    return out


__all__ = ["redact_live", "table_findings"]
