"""Which matches an export takes: match files named on the command line, or the store.

``select`` is the one seam. A MATCH that is a file is read here; anything else
is a stored match id, and ``--player``/``--preset``/``--since`` without files
select from the store (``ledger.exports.stored``). The criteria mean the same
for files and for the store (``ledger.exports.selection``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from ledger.exports.selection import Criteria, Selected, SelectionError, Skip, from_record
from ledger.exports.stored import stored_matches
from ledger.formats.reader import MatchRecord, ReadError, read_matches


def from_files(paths: Iterable[str], criteria: Criteria, skip: Skip) -> Iterator[Selected]:
    for path in paths:
        try:
            records = read_matches(path)
            for record in records:
                if record.header is None:
                    reason = record.problems[0].message if record.problems else "unreadable"
                    skip(f"{record.where}: skipped: {reason}")
                    continue
                if not criteria.accepts(record.header):
                    continue
                selected = from_record(record, _match_id(record))
                if selected is not None:
                    yield selected
        except ReadError as exc:
            raise SelectionError(str(exc)) from None


def _match_id(record: MatchRecord) -> str:
    """``file.jsonl:3`` for a line of a JSON Lines file, the file name for a .json."""
    return record.where if record.line is not None else record.path


def from_store(ids: Sequence[str], criteria: Criteria, db: str | None) -> Iterator[Selected]:
    """Stored matches by id and/or criteria (``ledger.exports.stored``)."""
    yield from stored_matches(db, ids, criteria)


def select(refs: Sequence[str], criteria: Criteria, skip: Skip,
           db: str | None = None) -> Iterator[Selected]:
    """Every match the command line names: files first as given, then stored matches
    (from the ledger at ``db``, a database URL; None: the store's default)."""
    files = [r for r in refs if Path(r).exists()]
    ids = [r for r in refs if not Path(r).exists()]
    missing = [r for r in ids if _looks_like_path(r)]
    if missing:
        raise SelectionError(f"{missing[0]}: no such file")
    if not refs and not criteria.any:
        raise SelectionError("name the matches to export: match files, stored match ids, "
                             "or --player, --preset, --since")
    yield from from_files(files, criteria, skip)
    if ids or not files:
        yield from from_store(ids, criteria, db)


def _looks_like_path(ref: str) -> bool:
    return "/" in ref or ref.endswith((".json", ".jsonl", ".gz"))
