"""How a typed name finds a player's name: by part of it, whatever its case and spelling.

``fold`` maps a name to the form searches compare: case folded, accents and Arabic
vowel marks (harakat) and the tatweel dropped, and the Arabic letters people write
either way made one: أ إ آ ٱ → ا, ة → ه, ى → ي (so "احمد" finds "أحمد" and "فاطمه"
finds "فاطمة"). ``matches`` says whether a typed text is part of a name. Pure.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

_ARABIC = str.maketrans({"أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "ة": "ه", "ى": "ي",
                         "ـ": None})


def fold(name: str) -> str:
    """``name`` as searches compare it (see the module's text)."""
    decomposed = unicodedata.normalize("NFKD", name.translate(_ARABIC))
    # Combining marks: Latin accents, and the Arabic harakat (fatha, kasra, shadda...).
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    # NFKD splits آ and أ into ا plus a mark: folding them first kept that from mattering.
    return " ".join(unicodedata.normalize("NFC", bare).casefold().split())


def matches(typed: str, name: str) -> bool:
    """Whether ``typed`` is part of ``name`` once both are folded ("om" finds "Omar")."""
    return fold(typed) in fold(name)


def matching(typed: str, names: Iterable[str]) -> list[str]:
    """The names of ``names`` that ``typed`` finds, in their order (none for blank text)."""
    key = fold(typed)
    if not key:
        return []
    return [n for n in names if key in fold(n)]
