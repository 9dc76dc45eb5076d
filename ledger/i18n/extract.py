"""Babel extraction of the ledger's sentences from Python source.

Besides the usual gettext calls (``_``, ``gettext``, ``ngettext``, ``pgettext``, ``N_``), a
sentence is a template given to the calls that make findings and phrases: the engine
never imports gettext, so its templates are found here by the call that carries them.
``babel.cfg`` names this function for ``ledger/**.py`` and ``web/**.py``.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator, Mapping
from typing import IO, Any

# call name -> the positions of its msgid (two: singular and plural; a tuple starting
# with "c": a pgettext context first)
SINGLE: Mapping[str, int] = {
    "_": 0, "gettext": 0, "N_": 0,
    "Phrase": 0, "say": 0, "render": 0,  # ledger.i18n
    "finding": 3, "_problem": 4,  # findings.finding, reader._problem
    "ParseError": 1, "RulesError": 1, "TileError": 0, "ReadError": 0,
    "BadValue": 0,  # ledger.formats.values
}
PLURAL: Mapping[str, tuple[int, int]] = {"ngettext": (0, 1), "Counted": (0, 1), "say_n": (0, 1)}
CONTEXT: Mapping[str, tuple[int, int]] = {"pgettext": (0, 1)}
CTX_METHODS = frozenset({"error", "warn", "fatal"})  # the fold's ctx.error(code, template)

Message = tuple[int, str, Any, list[str]]


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        if func.attr in CTX_METHODS:
            owner = func.value
            return "ctx." + func.attr if isinstance(owner, ast.Name) and owner.id == "ctx" \
                else None
        return func.attr
    return None


def _strings(node: ast.expr) -> list[str]:
    """The literal strings an argument can be (both branches of ``a if c else b``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _strings(node.body) + _strings(node.orelse)
    return []


def messages(source: str) -> Iterator[Message]:
    """(line, keyword, message(s), comments) for every sentence of a Python source."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        if name is None:
            continue
        args = node.args
        if name.startswith("ctx."):
            if len(args) > 1:
                for text in _strings(args[1]):
                    yield node.lineno, "gettext", text, []
        elif name in SINGLE:
            at = SINGLE[name]
            if len(args) > at:
                for text in _strings(args[at]):
                    yield node.lineno, "gettext", text, []
        elif name in PLURAL:
            one, many = PLURAL[name]
            if len(args) > many:
                singular, plural = _strings(args[one]), _strings(args[many])
                if len(singular) == 1 and len(plural) == 1:
                    yield node.lineno, "ngettext", (singular[0], plural[0]), []
        elif name in CONTEXT:
            ctx_at, at = CONTEXT[name]
            if len(args) > at:
                contexts, texts = _strings(args[ctx_at]), _strings(args[at])
                if len(contexts) == 1 and len(texts) == 1:
                    yield node.lineno, "pgettext", (contexts[0], texts[0]), []


def extract_python(fileobj: IO[bytes], keywords: Collection[str], comment_tags: Collection[str],
                   options: Mapping[str, Any]) -> Iterator[Message]:
    """The Babel extraction method (``[ledger.i18n.extract.extract_python: ledger/**.py]``)."""
    source = fileobj.read().decode(options.get("encoding", "utf-8"))
    yield from messages(source)
