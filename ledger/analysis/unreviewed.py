"""Why a decision (or a chance event, for luck) of the review by knowledge has no value.

Every question the review cannot answer says why in words, one reason of ``REASONS``
each, instead of one label for every cause: the JSON of ``analyse --knowledge`` and
``--report`` carries the code and its English sentence (``Why.to_dict``), the match page,
the report's text and the PDF word it in the reader's language (``Why.phrase``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ledger.i18n import Phrase
from ledger.i18n.phrases import N_

# code -> its sentence (a msgid; "{positions}": the limit of one sample's search).
REASONS: dict[str, str] = {
    "limit": N_("limit reached after {positions} positions"),
    "stock": N_("no stock known: the order of the stock is not in the record"),
    "hidden": N_("a hand the position needs is not in the record"),
    "own-hand": N_("the player's own hand is not in the record"),
    "who": N_("who moves is not known"),
    "draws": N_("the draws recorded do not match the stock"),
    "facts": N_("no deal of the unseen tiles fits what the player knew"),
    "short": N_("the record is too short: it stops before this move's position is known"),
    "unfinished": N_("the deal before it never ended in the record"),
    "other": N_("the position could not be solved"),
}


@dataclass(frozen=True, slots=True)
class Why:
    """One reason: its code (``REASONS``), the search's limit for "limit", and the
    underlying English note (kept in the JSON as ``detail``, never worded)."""

    code: str
    positions: int | None = None
    detail: str | None = None

    def phrase(self) -> Phrase:
        template = REASONS.get(self.code, REASONS["other"])
        if self.code == "limit":
            return Phrase(template, positions=f"{self.positions or 0:,}")
        return Phrase(template)

    @property
    def text(self) -> str:
        """The English sentence."""
        return str(self.phrase())

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "text": self.text}
        if self.positions is not None:
            out["positions"] = self.positions
        if self.detail is not None and self.detail != self.text:
            out["detail"] = self.detail
        return out

    @staticmethod
    def of_dict(d: Mapping[str, Any]) -> Why:
        return Why(str(d.get("code", "other")), d.get("positions"), d.get("detail"))


def of_note(why: str | None, note: str | None, limit: int) -> Why:
    """The reason a solve gave (``positions.Solved``'s ``why`` and ``note``)."""
    if why == "limit":
        return Why("limit", limit)
    if why in REASONS:
        return Why(why, detail=note)
    return Why("other", detail=note)


def counted(whys: Iterable[Why | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """How many of each reason (first seen first): ``[{"code", "text", "count", ...}]``."""
    out: dict[tuple[str, int | None], dict[str, Any]] = {}
    for w in whys:
        why = w if isinstance(w, Why) else Why.of_dict(w)
        row = out.setdefault((why.code, why.positions), {**why.to_dict(), "count": 0})
        row.pop("detail", None)
        row["count"] += 1
    return list(out.values())


__all__ = ["REASONS", "Why", "counted", "of_note"]
