"""The hash chain: every event row carries SHA-256 of its content and of the row before.

A match's chain starts from its header (the genesis hash), so editing a
match's seats or table also breaks its first event. Match ids are left out:
the chain can be computed before the database hands out an id, and a ledger
copied elsewhere verifies the same. Everything is computed in Python so that
SQLite and PostgreSQL store byte-identical chains.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

import orjson

from ledger.formats.wire import FORMAT

_GENESIS = b"domino-ledger/1 genesis\n"
_CONTENT = b"domino-ledger/1 content\n"


_dumps = orjson.dumps
_SORTED = orjson.OPT_SORT_KEYS
_sha256 = hashlib.sha256


def canonical(value: object) -> str:
    """The one JSON spelling of a value that the ledger hashes and stores."""
    return _dumps(value, option=_SORTED).decode()


def header_object(preset: str, options: Mapping[str, Any], seats: Iterable[str],
                  source: Mapping[str, Any] | None, started_at: str | None) -> dict[str, Any]:
    return {"format": FORMAT, "table": {"rules": preset, "options": dict(options)},
            "seats": list(seats), "source": None if source is None else dict(source),
            "started_at": started_at}


def genesis(header_json: str) -> bytes:
    return hashlib.sha256(_GENESIS + header_json.encode()).digest()


def stamp(when: datetime) -> str:
    """A recorded time as hashed: naive UTC to the microsecond."""
    return when.strftime("%Y-%m-%dT%H:%M:%S.%f")


SALT = 16  # bytes of a row's salt


def event_hash(prev: bytes, seq: int, recorded_index: int, kind: str, type_: str,
               recorded_at: str, payload: str, salt: bytes | None = None) -> bytes:
    """A row's hash. A salted row (every row appended live) has its salt hashed before
    its payload: without the salt, which a reader gets only with the payload, the hash
    of a hidden tile cannot be found by trying the 28 (docs/security.md). An unsalted
    row (imports, rows stored before migration 0010) keeps the first form; a payload is
    canonical JSON, which never starts with ``#``, so the two forms cannot meet."""
    mark = "" if salt is None else f"#{salt.hex()}\n"
    body = f"\n{seq}\n{recorded_index}\n{kind}\n{type_}\n{recorded_at}\n{mark}{payload}"
    return _sha256(prev + body.encode()).digest()


# The same hash from bytes, for the importer's hot loop (millions of rows): the part of a
# row's hashed text that many rows share (kind, type and time) is encoded once, and the
# payload is hashed as the canonical JSON bytes it was encoded from. The result is
# ``event_hash``'s, byte for byte (tests/store/test_import_rows.py).


def row_head(kind: str, type_: str, recorded_at: str) -> bytes:
    """What ``event_hash`` hashes between a row's recorded index and its payload."""
    return f"\n{kind}\n{type_}\n{recorded_at}\n".encode()


def event_hash_from(prev: bytes, seq: int, recorded_index: int, head: bytes,
                    payload: bytes) -> bytes:
    """``event_hash`` with ``head = row_head(kind, type_, recorded_at)`` and the payload
    as UTF-8 bytes."""
    return _sha256(b"%b\n%d\n%d%b%b" % (prev, seq, recorded_index, head, payload)).digest()


def content_hash(header_json: str, payloads: Iterable[str]) -> bytes:
    """Identity of a match for de-duplication: its header and recorded events, canonical."""
    h = content_hasher(header_json)
    for p in payloads:
        h.update(b"\n")
        h.update(p.encode())
    return h.digest()


def content_hasher(header_json: str) -> hashlib._Hash:
    """``content_hash`` begun: feed it ``b"\\n" + payload`` for each recorded event
    (UTF-8 bytes), then take ``digest()``."""
    return hashlib.sha256(_CONTENT + header_json.encode())
