"""What a value of a match file may hold, whatever way it comes in (a file, the API, a form).

The ledger stores names and headers in both databases and hashes them as canonical
JSON: a NUL character (PostgreSQL's text cannot hold one), a lone surrogate (not
UTF-8), a whole number beyond 64 bits or NaN (not JSON that round-trips) would make a
write fail, or a query fail for every user after it. They are refused here with a
sentence that names the field, so a bad line is that line's finding and never stops
the ones after it.
"""

from __future__ import annotations

import math
import re
from datetime import datetime

from ledger.i18n.phrases import english

MAX_NAME = 200  # characters in a player's name (PostgreSQL indexes names: under 8 KB)
MAX_SEATS = 16  # no table of the seeds seats more than 4: beyond this, nothing is set up
MAX_DEPTH = 32  # nesting of the free-form objects (source, table.options)
MAX_PRESET = 64  # characters of a rules preset id
INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1
# What no name holds: C0 and C1 controls (NUL among them) and surrogates; what no stored
# text holds: NUL and surrogates (JSON escapes the other controls).
_NOT_IN_NAMES = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


class BadValue(ValueError):
    """A value the ledger cannot hold; ``phrase`` says why (the reader adds its code)."""

    def __init__(self, template: str, /, **params: object) -> None:
        super().__init__(english(template, params))
        self.template = template
        self.params = params


def _char(found: re.Match[str]) -> str:
    return f"U+{ord(found.group()):04X}"


def check_name(seat: int, name: str) -> None:
    if len(name) > MAX_NAME:
        raise BadValue("the name of {seat} is {length} characters long; a name has at "
                       "most {limit}", seat=seat, length=len(name), limit=MAX_NAME)
    found = _NOT_IN_NAMES.search(name)
    if found is not None:
        raise BadValue("the name of {seat} holds the control character {char}, which a "
                       "name may not hold", seat=seat, char=_char(found))


def searchable(text: str) -> str:
    """A name to look for, as a query can carry it: a character no stored text holds is
    U+FFFD (no name has it, so nothing is found, where PostgreSQL refused the query)."""
    return _UNSTORABLE.sub("\ufffd", text)


def check_text(where: str, text: str, limit: int | None = None) -> None:
    """A free text (a reason, a key, a value of ``source``) as the ledger can store it."""
    if limit is not None and len(text) > limit:
        raise BadValue("{where} is {length} characters long; it may have at most {limit}",
                       where=where, length=len(text), limit=limit)
    found = _UNSTORABLE.search(text)
    if found is not None:
        raise BadValue("{where} holds the character {char}, which the ledger cannot store",
                       where=where, char=_char(found))


def check_time(where: str, value: str) -> None:
    """An ISO 8601 time ("2026-11-01T20:15:00Z"; a date alone is one too)."""
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise BadValue("{where} is not an ISO 8601 time: {value}", where=where,
                       value=repr(value[:40])) from None


def check_json(where: str, value: object) -> None:
    """A free-form JSON value (``source``, ``table.options``): numbers within 64 bits and
    finite, texts without NUL or lone surrogates, at most ``MAX_DEPTH`` deep."""
    todo: list[tuple[str, object, int]] = [(where, value, 0)]
    while todo:
        path, v, depth = todo.pop()
        if depth > MAX_DEPTH:
            raise BadValue("{where} is nested more than {limit} levels deep", where=where,
                           limit=MAX_DEPTH)
        if isinstance(v, bool):
            continue
        if isinstance(v, int) and not INT_MIN <= v <= INT_MAX:
            raise BadValue("{where} holds a whole number beyond 64 bits, which the ledger "
                           "cannot store", where=path)
        if isinstance(v, float) and not math.isfinite(v):
            raise BadValue("{where} holds {value}, which is not a JSON number", where=path,
                           value=repr(v))
        if isinstance(v, str):
            check_text(path, v)
        elif isinstance(v, dict):
            for key, item in v.items():
                check_text(path, str(key))
                todo.append((f"{path}.{str(key)[:40]}", item, depth + 1))
        elif isinstance(v, list):
            todo.extend((f"{path}[{i}]", item, depth + 1) for i, item in enumerate(v))
