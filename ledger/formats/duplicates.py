"""Keys written twice in one JSON object of a match file (``{"seat": 0, "seat": 1}``).

JSON readers keep one of the two (orjson, as most, the last) and say nothing, so a record
holding one means two things at once: the reader makes it a ``duplicate-key`` finding
with the line, never a silent choice. Pure.

Finding them costs almost nothing on a record that has none: the colons of a JSON text
outside its strings are exactly its objects' keys, so a text whose colons are as many as
the keys and the colons inside strings of what orjson kept has no key twice (a colon
written ``\\u003a`` inside a string would spoil that count, and sends the text to the
exact scan below, as a count that differs does). Only then is the text scanned key by key.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from json import decoder
from typing import Any

import orjson

_ESCAPED_COLON = re.compile(rb"\\u003[aA]")
# The json module's string reader (in C), which typeshed leaves out: (text, start after the
# opening quote) -> (the string, the index after its closing quote).
_scan: Callable[[str, int], tuple[str, int]] = decoder.scanstring  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class Duplicate:
    path: tuple[str | int, ...]  # the object's place: ("events", 3), ("table", "options")
    key: str
    line: int                    # 1-based, in the text scanned


def _kept(value: Any) -> int:
    """Keys plus colons inside strings, over what the parser kept."""
    if isinstance(value, str):
        return value.count(":")
    if isinstance(value, dict):
        return sum(1 + k.count(":") + _kept(v) for k, v in value.items())
    if isinstance(value, list):
        return sum(_kept(v) for v in value)
    return 0


def may_have(data: bytes, parsed: Any) -> bool:
    """False when ``data`` (the JSON text ``parsed`` came from) has no key twice."""
    if _ESCAPED_COLON.search(data):
        return True
    try:  # orjson writes each key's colon and a string's colons as they are: in C, fast
        kept = orjson.dumps(parsed).count(b":")
    except TypeError:  # (a value it cannot write back)
        kept = _kept(parsed)
    return data.count(b":") != kept


def find(text: str) -> list[Duplicate]:
    """Every key written again in the same object of ``text`` (valid JSON), in order."""
    found: list[Duplicate] = []
    # Each open container: its path, its keys so far (None: an array) and the key or
    # index its next value takes.
    stack: list[tuple[tuple[str | int, ...], set[str] | None, list[str | int]]] = []
    line, i, n = 1, 0, len(text)
    want_key = False
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        elif c in "{[":
            path = stack[-1][0] + (stack[-1][2][0],) if stack else ()
            stack.append((path, set() if c == "{" else None, [0]))
            want_key = c == "{"
        elif c in "}]":
            stack.pop()
        elif c == ",":
            top = stack[-1]
            if top[1] is None:
                top[2][0] = int(top[2][0]) + 1
            want_key = top[1] is not None
        elif c == '"':
            value, end = _scan(text, i + 1)
            top_keys = stack[-1][1] if stack else None
            if want_key and top_keys is not None:
                if value in top_keys:
                    found.append(Duplicate(stack[-1][0], value, line))
                top_keys.add(value)
                stack[-1][2][0] = value
                want_key = False
            line += text.count("\n", i, end)  # only escaped in valid JSON; kept for safety
            i = end
            continue
        i += 1
    return found


def where(path: tuple[str | int, ...]) -> str:
    """``("table", "options")`` as "table.options", ``("events", 3, "hands")`` as
    "events[3].hands"."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out

