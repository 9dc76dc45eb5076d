"""Finding codes as a sheet in another language prints them (issue 34): the code is
the msgid (context "finding code"), so the English sheet prints the code itself, which
other tools match on, and an Arabic, Portuguese or Spanish sheet its name in words."""

from __future__ import annotations

from ledger.findings import CODES
from ledger.i18n import Language
from ledger.i18n.phrases import IDENTITY

_ = IDENTITY

# Written out so that extraction finds every code (tests/exports checks none is missing).
LABELS = {
    "bad-json": _.pgettext("finding code", "bad-json"),
    "duplicate-key": _.pgettext("finding code", "duplicate-key"),
    "bad-format": _.pgettext("finding code", "bad-format"),
    "bad-event": _.pgettext("finding code", "bad-event"),
    "bad-tile": _.pgettext("finding code", "bad-tile"),
    "bad-seat": _.pgettext("finding code", "bad-seat"),
    "bad-name": _.pgettext("finding code", "bad-name"),
    "unknown-event-type": _.pgettext("finding code", "unknown-event-type"),
    "unknown-preset": _.pgettext("finding code", "unknown-preset"),
    "unknown-option": _.pgettext("finding code", "unknown-option"),
    "bad-option": _.pgettext("finding code", "bad-option"),
    "bad-seat-count": _.pgettext("finding code", "bad-seat-count"),
    "line-too-long": _.pgettext("finding code", "line-too-long"),
    "file-too-large": _.pgettext("finding code", "file-too-large"),
    "truncated-file": _.pgettext("finding code", "truncated-file"),
    "corrupt-file": _.pgettext("finding code", "corrupt-file"),
    "empty-file": _.pgettext("finding code", "empty-file"),
    "internal-error": _.pgettext("finding code", "internal-error"),
    "bad-deal": _.pgettext("finding code", "bad-deal"),
    "unexpected-redeal": _.pgettext("finding code", "unexpected-redeal"),
    "redeal-required": _.pgettext("finding code", "redeal-required"),
    "deal-not-finished": _.pgettext("finding code", "deal-not-finished"),
    "no-deal": _.pgettext("finding code", "no-deal"),
    "out-of-turn": _.pgettext("finding code", "out-of-turn"),
    "tile-not-in-hand": _.pgettext("finding code", "tile-not-in-hand"),
    "tile-already-played": _.pgettext("finding code", "tile-already-played"),
    "tile-does-not-fit": _.pgettext("finding code", "tile-does-not-fit"),
    "wrong-end": _.pgettext("finding code", "wrong-end"),
    "missing-end": _.pgettext("finding code", "missing-end"),
    "wrong-draw": _.pgettext("finding code", "wrong-draw"),
    "no-stock": _.pgettext("finding code", "no-stock"),
    "empty-stock": _.pgettext("finding code", "empty-stock"),
    "deal-over": _.pgettext("finding code", "deal-over"),
    "after-match-end": _.pgettext("finding code", "after-match-end"),
    "wrong-leader": _.pgettext("finding code", "wrong-leader"),
    "wrong-opening-tile": _.pgettext("finding code", "wrong-opening-tile"),
    "illegal-pass": _.pgettext("finding code", "illegal-pass"),
    "illegal-draw": _.pgettext("finding code", "illegal-draw"),
    "pass-out-of-order": _.pgettext("finding code", "pass-out-of-order"),
    "after-deal-end": _.pgettext("finding code", "after-deal-end"),
    "reveal-mismatch": _.pgettext("finding code", "reveal-mismatch"),
    "reveal-before-end": _.pgettext("finding code", "reveal-before-end"),
    "false-block": _.pgettext("finding code", "false-block"),
    "wrong-deal-end": _.pgettext("finding code", "wrong-deal-end"),
    "deal-end-early": _.pgettext("finding code", "deal-end-early"),
    "wrong-match-end": _.pgettext("finding code", "wrong-match-end"),
    "match-end-early": _.pgettext("finding code", "match-end-early"),
    "match-over": _.pgettext("finding code", "match-over"),
    "end-on-opening": _.pgettext("finding code", "end-on-opening"),
    "points-from-record": _.pgettext("finding code", "points-from-record"),
    "deal-unscored": _.pgettext("finding code", "deal-unscored"),
    "hidden-tiles": _.pgettext("finding code", "hidden-tiles"),
    "match-unfinished": _.pgettext("finding code", "match-unfinished"),
}


def code_word(lang: Language, code: str) -> str:
    """``code`` as ``lang``'s sheet prints it (an unknown code: as it is)."""
    if code not in LABELS or code not in CODES:
        return code
    return lang.translations.pgettext("finding code", code)


__all__ = ["LABELS", "code_word"]
