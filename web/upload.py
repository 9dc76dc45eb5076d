"""An uploaded file copied to disk in chunks: memory stays bounded whatever its size.

The import page reads the copy with ``ledger.formats.reader`` (which gunzips and caps
lines itself); here only the upload's own size is capped, before anything is read.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

CHUNK = 1 << 20
MAX_UPLOAD = 64 * 1024 * 1024  # bytes as uploaded (compressed, for a .gz)


class TooLarge(Exception):
    """The upload holds more than ``limit`` bytes (the copy stops there)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the upload is larger than {limit} bytes")
        self.limit = limit


def save_upload(src: BinaryIO, dest: Path, limit: int | None = None) -> bool:
    """Copy ``src`` to ``dest`` in chunks; whether it holds anything but white space.

    Raises TooLarge as soon as more than ``limit`` (default ``MAX_UPLOAD``) bytes have come.
    """
    limit = MAX_UPLOAD if limit is None else limit
    size = 0
    blank = True
    with dest.open("wb") as out:
        while chunk := src.read(CHUNK):
            size += len(chunk)
            if size > limit:
                raise TooLarge(limit)
            blank = blank and not chunk.strip()
            out.write(chunk)
    return not blank


def suffix(name: str) -> str:
    """The suffix the reader goes by, from the uploaded file's name."""
    lower = name.lower()
    if lower.endswith(".json"):
        return ".json"
    if lower.endswith(".gz"):
        return ".jsonl.gz"
    return ".jsonl"


