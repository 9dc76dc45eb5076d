"""Score sheets as JSON: one document holding every sheet asked for."""

from __future__ import annotations

from collections.abc import Iterable

import orjson

from ledger.i18n import ENGLISH, Language
from ledger.scoresheet import ScoreSheet

FORMAT = "domino-ledger-scoresheets/1"


def _sheet_dict(sheet: ScoreSheet, lang: Language) -> dict[str, object]:
    """A sheet's object; keys and codes as always, the sentences in ``lang``."""
    out = sheet.to_dict()
    if lang.code != ENGLISH.code:
        audit = dict(out["audit"])
        audit["status"] = sheet.audit.text(lang)
        audit["findings"] = [{**d, "message": lang.finding(f, seats=sheet.players)}
                             for d, f in zip(audit["findings"], sheet.audit.findings,
                                             strict=True)]
        out["audit"] = audit
    return out


def sheets_document(sheets: Iterable[ScoreSheet], lang: Language = ENGLISH) -> dict[str, object]:
    return {"format": FORMAT, "sheets": [_sheet_dict(s, lang) for s in sheets]}


def json_bytes(sheets: Iterable[ScoreSheet], lang: Language = ENGLISH) -> bytes:
    """The JSON file (UTF-8, names as written, indented for reading)."""
    return orjson.dumps(sheets_document(sheets, lang), option=orjson.OPT_INDENT_2) + b"\n"
