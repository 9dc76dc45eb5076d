"""What the pages word in the reader's language beyond findings: titles, table names.

A stored finding carries its phrase (template and parameters, ``Finding.from_dict``),
so any language words it as it is read: nothing here audits a match again.
"""

from __future__ import annotations

from ledger.glossary import GLOSSARIES
from ledger.i18n import Language, Phrase
from ledger.scoresheet import ScoreSheet


def match_title(sheet: ScoreSheet, lang: Language) -> str:
    """ "Ali vs Omar", "Ali & Layla vs Omar & Rania": the sides as the match pits them."""
    sides = [side.name for side in sheet.sides]
    if not sides:
        return ""
    said: str | Phrase = sides[0]
    for side in sides[1:]:
        said = Phrase("{a} vs {b}", a=said, b=side)
    return lang.join([said])


def table_words(sheet: ScoreSheet, lang: Language) -> dict[str, str]:
    """The table's name (linked to its glossary by the page) and the rest of its label."""
    label = sheet.table_text(lang)
    said = lang.join([sheet.name_in(lang)])
    if sheet.preset in GLOSSARIES and label.startswith(said):
        return {"name": said, "rest": label[len(said):], "preset": sheet.preset}
    return {"name": "", "rest": label, "preset": ""}
