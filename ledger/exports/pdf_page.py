"""A printable document of the ledger: A4, the shipped font, the page's direction, a
footer "… · page N of M" in the document's language, and paragraphs drawn with the runs of
``pdf_text`` (issue 34). The score sheets and the hand records are both made on it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from fpdf import FPDF
from fpdf.line_break import Fragment

from ledger.exports.pdf_text import paragraph
from ledger.i18n import ENGLISH, Language
from ledger.i18n.phrases import FSI, PDI

FAMILY = "DejaVuSans"
GREY = (90, 90, 90)
FONTS = Path(__file__).parent / "fonts"


def font_path(bold: bool = False) -> Path:
    return FONTS / ("DejaVuSans-Bold-Subset.ttf" if bold else "DejaVuSans-Subset.ttf")


class Document(FPDF):
    words: Language = ENGLISH   # the language of the document's headings and labels
    name: str = ""              # the footer's: "domino-ledger score sheet", in ``words``

    def _preload_bidirectional_text(self, text: str, markdown: bool) -> Sequence[Fragment]:
        # Every text this document draws is one run of one direction (pdf_text ordered
        # the line): fpdf's own bidi pass over it would find that direction again, at a
        # cost that was most of a page's time.
        shaping = self.text_shaping
        if not shaping or shaping["direction"] is None or markdown:
            return super()._preload_bidirectional_text(text, markdown)
        shaping["paragraph_direction"] = shaping["fragment_direction"] = shaping["direction"]
        return self._preload_font_styles(text, markdown)

    def footer(self) -> None:
        self.set_y(-12)
        self.set_font(FAMILY, size=8)
        self.set_text_color(*GREY)
        # "{nb}": fpdf writes the page count in its place when the document is done.
        text = self.words.say("{document} · page {page} of {pages}", document=self.name,
                              page=self.page_no(), pages="{nb}")
        paragraph(self, text, self.words.rtl, 5, align="C", breaks=False)
        self.set_text_color(0, 0, 0)


def new_document(lang: Language, title: str, name: str) -> Document:
    """An empty document in ``lang``: ``title`` its metadata's, ``name`` its footer's."""
    pdf = Document(orientation="portrait", unit="mm", format="A4")
    pdf.words = lang
    pdf.name = name
    pdf.set_lang(lang.code)
    pdf.set_margins(15, 15, 15)
    pdf.set_auto_page_break(auto=True, margin=18)
    pdf.add_font(FAMILY, "", str(font_path()))
    pdf.add_font(FAMILY, "B", str(font_path(bold=True)))
    pdf.set_text_shaping(True, direction=lang.dir)
    pdf.set_title(title)
    pdf.set_creator("domino-ledger")
    return pdf


def isolate(text: str) -> str:
    """A name or verbatim value set apart (first-strong isolate ... pop directional
    isolate): one piece of its line, laid out by its own first letter's direction."""
    return f"{FSI}{text}{PDI}" if text else text


def shortened(text: str, limit: int = 48) -> str:
    """``text`` cut to ``limit`` characters, "…" last: a table cell must fit on one page."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def line(pdf: Document, text: str, size: float = 10, bold: bool = False,
         height: float = 5.5, grey: bool = False) -> None:
    """A paragraph of the page, in its direction, wrapped at spaces."""
    pdf.set_font(FAMILY, "B" if bold else "", size)
    if grey:
        pdf.set_text_color(*GREY)
    paragraph(pdf, text, pdf.words.rtl, height)
    pdf.set_text_color(0, 0, 0)


__all__ = ["FAMILY", "FONTS", "GREY", "Document", "font_path", "isolate", "line",
           "new_document", "shortened"]
