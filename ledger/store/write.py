"""Every write the app makes to the ledger, in one place: import, start, append, undo.

The web's upload and the live recorder call these and nothing below them. An upload
is copied in chunks to an anonymous temporary file (memory stays bounded whatever its
size, and its own size is capped before anything is read), then read as a stream under
the name it was uploaded with, so every record and every error names that file, never
a temporary path. Each match is stored in its own transaction (``import_records``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Mapping
from typing import IO, Any

from sqlmodel import Session

from ledger.formats.reader import MatchRecord, read_stream
from ledger.store.imports.importer import Imported, import_records
from ledger.store.recording.live import Appended, Started, append, rotate_key, start_keyed
from ledger.store.recording.writer import Writer

__all__ = ["CHUNK", "MAX_UPLOAD", "Appended", "EmptyUpload", "Imported", "Started",
           "TooLarge", "append", "copy_upload", "import_bytes", "rotate_key", "start_keyed", "undo",
           "Writer"]

CHUNK = 1 << 20
MAX_UPLOAD = 64 * 1024 * 1024  # bytes as uploaded (compressed, for a .gz)


class TooLarge(Exception):
    """The upload holds more than ``limit`` bytes (the copy stops there)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the upload is larger than {limit} bytes")
        self.limit = limit


class EmptyUpload(Exception):
    """The upload holds nothing but white space."""


def copy_upload(src: IO[bytes] | bytes, dest: IO[bytes], limit: int) -> bool:
    """Copy ``src`` to ``dest`` in chunks; whether it holds anything but white space.
    TooLarge as soon as more than ``limit`` bytes have come."""
    if isinstance(src, bytes):
        if len(src) > limit:
            raise TooLarge(limit)
        dest.write(src)
        return bool(src.strip())
    size = 0
    blank = True
    while chunk := src.read(CHUNK):
        size += len(chunk)
        if size > limit:
            raise TooLarge(limit)
        blank = blank and not chunk.strip()
        dest.write(chunk)
    return not blank


def import_bytes(session: Session, data: IO[bytes] | bytes, name: str,
                 limit: int | None = None) -> Iterator[tuple[MatchRecord, Imported]]:
    """Read, audit and store every match of an uploaded file named ``name``; yield each
    record with what became of it.

    TooLarge or EmptyUpload before anything is stored; ReadError if the file cannot be
    read at all. A name ending in ``.json`` holds one match, any other one per line;
    gzip is found by its first bytes.
    """
    limit = MAX_UPLOAD if limit is None else limit
    with tempfile.TemporaryFile() as copy:
        if not copy_upload(data, copy, limit):
            raise EmptyUpload(name)
        copy.seek(0)
        for record in read_stream(copy, name, document=name.lower().endswith(".json")):
            for got in import_records(session, (record,)):
                yield record, got


def undo(session: Session, match_id: int, target: int,
         expected_seq: int | None = None) -> Appended:
    """Take back recorded event ``target`` of a live match (an ``undo`` event appended:
    the ledger forgets nothing, ``ledger.corrections``)."""
    event: Mapping[str, Any] = {"type": "undo", "event": target}
    return append(session, match_id, event, expected_seq)
