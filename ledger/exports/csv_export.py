"""Score sheets as CSV: one row per deal, the match's columns repeated on each row.

Written for spreadsheet programs: UTF-8 with a byte order mark (so that Arabic
and accented names open intact), CRLF line ends, fixed columns whatever the
table (four side slots, the most a table has), and text cells that a
spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``) kept as text. Seats
(``led_by_seat``, ``winner_seat``, ``match_winner_seat``) count from 1, as people say
them; match files and the JSON export count from 0.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import TextIO

from ledger.i18n import ENGLISH, Language
from ledger.scoresheet import DealRow, ScoreSheet

MAX_SIDES = 4
ENCODING = "utf-8-sig"

MATCH_COLUMNS = ("match", "ledger_hash", "table", "rules", "seats", "target", "teams",
                 "players", "started_at", "source", "audit", "errors", "warnings")
DEAL_COLUMNS = ("deal", "led_by_seat", "led_by", "result", "winner_seat", "winner", "points")
SIDE_COLUMNS = tuple(f"{name}_{i}" for i in range(1, MAX_SIDES + 1)
                     for name in ("side", "fives", "total"))
END_COLUMNS = ("match_winner_seat", "match_winner", "match_end",
               *(f"final_{i}" for i in range(1, MAX_SIDES + 1)))
COLUMNS = MATCH_COLUMNS + DEAL_COLUMNS + SIDE_COLUMNS + END_COLUMNS

Cell = str | int | None
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _text(value: str | None) -> str:
    if not value:
        return ""
    # A spreadsheet runs a cell starting with = + - @ as a formula: a leading
    # apostrophe makes it show the name as written.
    return "'" + value if value.startswith(_FORMULA_START) else value


def _cell(value: Cell) -> str | int:
    if value is None:
        return ""
    return value if isinstance(value, int) else _text(value)


def _seat(index: int | None) -> int | None:
    """A seat as a spreadsheet's reader counts it, from 1 (match files and JSON: from 0)."""
    return None if index is None else index + 1


def sheet_rows(sheet: ScoreSheet, lang: Language = ENGLISH) -> list[list[str | int]]:
    """The CSV rows of one sheet (no header row); a match without deals gets one row.

    The column names and the machine values (rules, result) stay as they are in every
    language; the human labels (table, teams, audit, match end) follow ``lang``."""
    title = sheet.title
    if lang.code != ENGLISH.code:
        from ledger.glossary import table_name

        title = table_name(sheet.preset, lang.code, sheet.title)
    head: list[Cell] = [
        sheet.match_id, sheet.ledger_hash, title, sheet.preset, len(sheet.players),
        sheet.target, lang.say("yes") if sheet.teams else lang.say("no"),
        "; ".join(sheet.players), sheet.started_at, sheet.source_label, sheet.audit.text(lang),
        sheet.audit.errors, sheet.audit.warnings,
    ]
    tail: list[Cell] = [_seat(sheet.winner), sheet.winner_name, sheet.end_text(lang)]
    tail += [sheet.scores[i] if i < len(sheet.scores) else None for i in range(MAX_SIDES)]
    deals: list[DealRow | None] = list(sheet.deals) or [None]
    rows = []
    for d in deals:
        middle: list[Cell]
        if d is None:
            middle = [None] * len(DEAL_COLUMNS)
        else:
            middle = [d.deal, _seat(d.leader), d.leader_name, d.result, _seat(d.winner),
                      d.winner_name, d.points]
        for i in range(MAX_SIDES):
            if i < len(sheet.sides) and d is not None:
                middle += [sheet.sides[i].name, d.fives[i] if sheet.fives else None,
                           d.totals[i]]
            elif i < len(sheet.sides):
                middle += [sheet.sides[i].name, None, None]
            else:
                middle += [None, None, None]
        rows.append([_cell(v) for v in head + middle + tail])
    return rows


def write_csv(stream: TextIO, sheets: Iterable[ScoreSheet], lang: Language = ENGLISH) -> int:
    """Write a header row and every sheet's rows to a text stream; the number of rows."""
    writer = csv.writer(stream, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    count = 0
    for sheet in sheets:
        for row in sheet_rows(sheet, lang):
            writer.writerow(row)
            count += 1
    return count


def csv_bytes(sheets: Iterable[ScoreSheet], lang: Language = ENGLISH) -> bytes:
    """The whole CSV file, BOM included: what a download sends."""
    buffer = io.StringIO()
    write_csv(buffer, sheets, lang)
    return buffer.getvalue().encode(ENCODING)
