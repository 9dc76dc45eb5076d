"""Score sheets as JSON: one document holding every sheet asked for."""

from __future__ import annotations

from collections.abc import Iterable

import orjson

from ledger.scoresheet import ScoreSheet

FORMAT = "domino-ledger-scoresheets/1"


def sheets_document(sheets: Iterable[ScoreSheet]) -> dict[str, object]:
    return {"format": FORMAT, "sheets": [s.to_dict() for s in sheets]}


def json_bytes(sheets: Iterable[ScoreSheet]) -> bytes:
    """The JSON file (UTF-8, names as written, indented for reading)."""
    return orjson.dumps(sheets_document(sheets), option=orjson.OPT_INDENT_2) + b"\n"
