"""What the pages word in the reader's language: stored findings, titles, table names.

Findings read back from the store are worded again in any language.

The store keeps each finding as the audit printed it (code, event, severity and
the English sentence: ``Finding.to_dict``). To word one in another language the
page needs its template and parameters, which the audit makes afresh from the
same recorded events: the fresh findings are paired with the stored ones by
event, severity, code and English sentence, so a page shows exactly the
findings that were stored, each in the reader's words (one that finds no pair,
such as a crash of the auditor, stays as it was written).

Only a page in a language other than English, of a match with findings, asks
for this; the audit of a match takes a couple of milliseconds and is kept per
content (a digest of header and events), so stepping through a replay audits
the match once.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence

from ledger.findings import Finding
from ledger.formats.reader import MatchRecord, parse_match
from ledger.glossary import GLOSSARIES
from ledger.i18n import Language, Phrase
from ledger.scoresheet import ScoreSheet
from ledger.store.importer import safe_audit
from ledger.store.mapper import Header, match_object

Key = tuple[int | None, str, str, str]
KEPT = 256  # matches whose fresh findings are kept


def _key(f: Finding) -> Key:
    return f.event, f.severity, f.code, f.message


def reworded(stored: Sequence[Finding], fresh: Iterable[Finding]) -> tuple[Finding, ...]:
    """``stored``, each replaced by its fresh twin (same finding, with its wording)."""
    pool: dict[Key, list[Finding]] = {}
    for f in fresh:
        if f.template:
            pool.setdefault(_key(f), []).append(f)
    out = []
    for f in stored:
        twins = pool.get(_key(f))
        out.append(twins.pop(0) if twins else f)
    return tuple(out)


def record_findings(record: MatchRecord) -> list[Finding]:
    """The findings of a record as the importer's audit gives them (the reader's first)."""
    if record.header is None:
        return list(record.problems)
    return list(safe_audit(record).findings)


_lock = threading.Lock()
_kept: OrderedDict[bytes, tuple[Finding, ...]] = OrderedDict()


def _digest(header: Header, payloads: Sequence[tuple[str, str]]) -> bytes:
    h = hashlib.blake2b(header.canonical().encode(), digest_size=20)
    for kind, payload in payloads:
        h.update(b"\x00" + kind.encode() + b"\x01" + payload.encode())
    return h.digest()


def stored_findings(header: Header, payloads: Sequence[tuple[str, str]],
                    findings: Sequence[Finding]) -> tuple[Finding, ...]:
    """A stored match's findings with their wording, from its recorded rows
    ``(kind, payload)`` in order (the corrected line)."""
    if not findings:
        return tuple(findings)
    key = _digest(header, payloads)
    with _lock:
        fresh = _kept.get(key)
        if fresh is not None:
            _kept.move_to_end(key)
    if fresh is None:
        fresh = tuple(record_findings(parse_match(match_object(header, payloads))))
        with _lock:
            _kept[key] = fresh
            while len(_kept) > KEPT:
                _kept.popitem(last=False)
    return reworded(findings, fresh)


# --- titles ------------------------------------------------------------------------


def match_title(sheet: ScoreSheet, lang: Language) -> str:
    """ "Ali vs Omar", "Ali & Layla vs Omar & Rania": the sides as the match pits them."""
    sides = [side.name for side in sheet.sides]
    if not sides:
        return ""
    said: str | Phrase = sides[0]
    for side in sides[1:]:
        said = Phrase("{a} vs {b}", a=said, b=side)
    return lang.join([said])


def table_words(sheet: ScoreSheet, lang: Language) -> dict[str, str]:
    """The table's name (linked to its glossary by the page) and the rest of its label."""
    label = sheet.table_text(lang)
    said = lang.join([sheet.name_in(lang)])
    if sheet.preset in GLOSSARIES and label.startswith(said):
        return {"name": said, "rest": label[len(said):], "preset": sheet.preset}
    return {"name": "", "rest": label, "preset": ""}
