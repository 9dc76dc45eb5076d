"""The phrase of findings stored without one (migration 0006 fills them in).

Before 0006 a match row kept each finding as the audit's report only (``to_dict``):
its English sentence, no template or parameters, so a page in another language had to
audit the match again to word it. The match's own events give its findings again,
each with its phrase; a stored finding takes the phrase of its fresh twin (same event,
severity, code and sentence). What is stored is never replaced by what the rules say
now: a finding without a twin (an engine that changed its mind since) stays as it was,
and ``verify`` names the difference, as it did before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ledger.formats.reader import parse_match
from ledger.store.imports.importer import safe_audit
from ledger.store.log.mapper import Header, finding_json, match_object, reported
from ledger.store.log.verify import live_fold

Key = tuple[object, object, object, object]


def _key(f: Mapping[str, Any]) -> Key:
    return f.get("event"), f.get("severity"), f.get("code"), f.get("message")


def phrased(stored: Sequence[Mapping[str, Any]],
            fresh: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``stored``, each with the phrase of its fresh twin (``finding_json`` form)."""
    pool: dict[Key, list[Mapping[str, Any]]] = {}
    for f in fresh:
        if "wording" in f:
            pool.setdefault(_key(f), []).append(f)
    out: list[dict[str, Any]] = []
    for f in stored:
        twins = pool.get(_key(f))
        out.append(dict(f) if "wording" in f or not twins
                   else {**f, "wording": twins.pop(0)["wording"]})
    return out


def fresh_findings(origin: str, header: Header, rows: Sequence[Any]) -> list[dict[str, Any]]:
    """A stored match's findings as the rules give them now, phrases included, from its
    event rows in order (``kind``, ``type``, ``payload``, ``recorded_index``): the
    importer's audit, or the live fold (what ``verify`` compares them with)."""
    if origin == "live":
        return [dict(f) for f in live_fold(header, list(rows))[1]]
    record = parse_match(match_object(header, [(r.kind, r.payload) for r in rows]))
    return [finding_json(f) for f in safe_audit(record).findings]


def needs_phrase(stored: Sequence[Mapping[str, Any]]) -> bool:
    return any("wording" not in f for f in stored)


def unphrased(stored: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The findings as a ledger of before 0006 keeps them (going down to it)."""
    return [reported(dict(f)) for f in stored]
