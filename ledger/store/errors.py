"""What the store refuses, as domain errors (the web turns them into HTTP answers).

An event that breaks a rule is the engine's own ``IllegalEvent`` (with the
finding); a value that cannot be read is ``BadInput`` with the reader's code.
"""

from __future__ import annotations


class StoreError(Exception):
    code = "store-error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class MatchNotFound(StoreError):
    code = "match-not-found"

    def __init__(self, match_id: int) -> None:
        super().__init__(f"there is no match {match_id} in the ledger")
        self.match_id = match_id


class Conflict(StoreError):
    """Someone else appended first (or the match takes no more events): re-read and retry."""

    code = "conflict"

    def __init__(self, message: str, next_seq: int | None = None) -> None:
        super().__init__(message)
        self.next_seq = next_seq


class MatchClosed(Conflict):
    code = "match-closed"


class BadInput(StoreError):
    """A header or event that cannot be read (``code`` is the reader's finding code)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class SchemaOutOfDate(StoreError):
    code = "schema-out-of-date"
