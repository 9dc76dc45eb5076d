"""How a typed name finds a player's name: by part of it, whatever its case and spelling.

``fold`` maps a name to the form searches compare: case folded, accents and Arabic
vowel marks (harakat) and the tatweel dropped, and the Arabic letters people write
either way made one: أ إ آ ٱ → ا, ة → ه, ى → ي (so "احمد" finds "أحمد" and "فاطمه"
finds "فاطمة"). ``matches`` says whether a typed text is part of a name. Pure.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import lru_cache

_ARABIC = str.maketrans({"أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "ة": "ه", "ى": "ي",
                         "ـ": None})


# A typed text is matched against every name in turn (``matches`` in a loop): kept, it is
# folded once per search, not once per name (an 8,000-character text over a big ledger's
# players took 12 s). Names are at most 200 characters and the web's texts at most 256.
@lru_cache(maxsize=8192)
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
