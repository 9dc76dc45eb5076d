"""The score sheet's file formats, in one registry: the export command's ``--format``
choices, the match page's buttons and the route that serves them all read it.

A writer is named ``"module:function"`` and loaded when a sheet is written, so that
building the command's parser loads none of them (fpdf loads only for a PDF). Adding a
format is one ``register`` call (docs/architecture.md, *Add an export format*).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ledger.i18n import Language
    from ledger.scoresheet import ScoreSheet

Writer = Callable[["Sequence[ScoreSheet]", "Language"], bytes]


@dataclass(frozen=True, slots=True)
class SheetFormat:
    name: str         # the file's suffix and the command's --format value
    media_type: str   # what the web serves it as
    label: str        # the match page's button (a format's own name: not translated)
    writer: str       # "module:function", a Writer

    def write(self, sheets: Sequence[ScoreSheet], lang: Language) -> bytes:
        module, _, function = self.writer.partition(":")
        writer: Writer = getattr(import_module(module), function)
        return writer(sheets, lang)


SHEET_FORMATS: dict[str, SheetFormat] = {}


def register(fmt: SheetFormat) -> None:
    """Add a format (or replace the one of that name)."""
    SHEET_FORMATS[fmt.name] = fmt


def unregister(name: str) -> None:
    SHEET_FORMATS.pop(name, None)


register(SheetFormat("csv", "text/csv; charset=utf-8", "CSV",
                     "ledger.exports.csv_export:csv_bytes"))
register(SheetFormat("json", "application/json", "JSON",
                     "ledger.exports.json_export:json_bytes"))
register(SheetFormat("pdf", "application/pdf", "PDF", "ledger.exports.pdf_export:pdf_bytes"))
