"""Findings: a rule broken (or a doubt raised) at one event of a match."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from ledger.i18n.phrases import english, params_from_json, params_to_json

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Finding:
    """``message`` is the English sentence (what ``audit --json`` prints); ``template`` and
    ``params`` word it again in any language (ledger.i18n.render_finding). A finding made
    from a bare message (one read back from storage) has no template: it stays English."""

    event: int | None
    severity: Severity
    code: str
    message: str
    template: str = field(default="", compare=False)
    params: Mapping[str, object] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, object]:
        return {"event": self.event, "severity": self.severity, "code": self.code,
                "message": self.message}

    def wording(self) -> dict[str, object] | None:
        """The template and parameters as JSON (to store beside ``to_dict()``), if any."""
        if not self.template:
            return None
        return {"template": self.template, "params": params_to_json(self.params)}

    @classmethod
    def from_dict(cls, obj: Mapping[str, object]) -> Finding:
        """A finding read back from ``to_dict()``, with ``wording()`` under "wording"."""
        event = obj.get("event")
        severity: Severity = "warning" if obj.get("severity") == "warning" else "error"
        wording = obj.get("wording")
        template, params = "", {}
        if isinstance(wording, dict) and isinstance(wording.get("template"), str):
            template = wording["template"]
            raw = wording.get("params")
            params = params_from_json(raw) if isinstance(raw, dict) else {}
        return cls(event if isinstance(event, int) else None, severity,
                   str(obj.get("code", "")), str(obj.get("message", "")), template, params)


def finding(event: int | None, severity: Severity, code: str, template: str,
            /, **params: object) -> Finding:
    """A finding from its template (the English sentence with {name} slots: the msgid)."""
    return Finding(event, severity, code, english(template, params), template, params)


class Unreadable(Exception):
    """The rest of the match cannot be folded: a tile is not where it should be."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


class IllegalEvent(ValueError):
    """Strict folding: the event breaks a rule (``finding`` says which)."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(f"event {finding.event}: {finding.message} [{finding.code}]")
        self.finding = finding


# Every code the engine and the reader can report, with what it means. The codes
# are stable: other tools match on them, and translations change only messages.
CODES: dict[str, str] = {
    # the file and its fields (cannot parse)
    "bad-json": "a line or file is not valid JSON",
    "duplicate-key": "an object of the file writes the same key twice (which value is meant?)",
    "bad-format": "the match object lacks a field of domino-match/1 or has the wrong shape",
    "bad-event": "an event lacks a field or a field has the wrong type",
    "bad-tile": "a tile is not one of the 28 of a double-six set",
    "bad-seat": "a seat number is not one of the match's seats",
    "bad-name": "a player's name is too long or holds a control character (NUL, ...)",
    "unknown-event-type": "an event type that domino-match/1 does not define (skipped)",
    "unknown-preset": "table.rules names no preset",
    "unknown-option": "table.options names an option the preset does not have",
    "bad-option": "an option has a value the table does not allow",
    "bad-seat-count": "the table is not played by that many seats",
    "line-too-long": "a line is larger than the reader accepts",
    "file-too-large": "a compressed file gives more than the reader accepts (a bomb)",
    "truncated-file": "the file ends in the middle (a cut gzip stream)",
    "corrupt-file": "a compressed file is damaged part way (bad data or checksum)",
    "empty-file": "the file holds no match at all",
    "internal-error": "the auditor failed on this match (a bug: please report it)",
    # the deal
    "bad-deal": "the hands or stock of a deal are not a valid deal of the 28 tiles",
    "unexpected-redeal": "a new deal before any play, which the rules did not call for",
    "redeal-required": "a play on a deal that had to be reshuffled (4 or more doubles in a hand)",
    "deal-not-finished": "a new deal starts before the previous one ended",
    "no-deal": "a play, draw or pass before any deal",
    # turns and tiles (the fold stops: the rest is unreadable)
    "out-of-turn": "a seat moves when it is not its turn",
    "tile-not-in-hand": "a seat plays a tile it does not hold",
    "tile-already-played": "a tile that already lies on the table is played again",
    "tile-does-not-fit": "the tile matches no open end",
    "wrong-end": "the tile does not match the end the record names",
    "missing-end": "the record names no end where the choice matters",
    "wrong-draw": "the drawn tile is not the next one of the stock",
    "no-stock": "a draw at a table without a stock",
    "empty-stock": "a draw from an empty stock",
    "deal-over": "a play or draw after the deal has ended",
    "after-match-end": "a deal, play or draw after the match has ended",
    # moves the rules forbid (the fold goes on)
    "wrong-leader": "the deal is opened by a seat that may not lead it",
    "wrong-opening-tile": "the deal is opened with a tile other than the one the rules require",
    "illegal-pass": "a pass while the seat could play or draw",
    "illegal-draw": "a draw while the seat could play",
    "pass-out-of-order": "a pass after a block, out of turn order",
    "after-deal-end": "a pass after a seat went out",
    "reveal-mismatch": "a revealed hand differs from what the plays leave in it",
    "reveal-before-end": "hands revealed while the deal is still being played",
    # claims checked against the rules
    "false-block": "a block is claimed while a seat can still play or draw",
    "wrong-deal-end": "the claimed result, winner or points of a deal differ from the rules",
    "deal-end-early": "a deal's end is claimed before the rules end it",
    "wrong-match-end": "the claimed winner or scores of the match differ from the rules",
    "match-end-early": "the match's end is claimed before the rules end it",
    "match-over": "an event follows the record's match_end (it is not folded)",
    # warnings
    "end-on-opening": "an end named on the first tile of a deal (it changes nothing)",
    "points-from-record": "hidden hands: the deal's points are taken from the record's claim",
    "deal-unscored": "hidden hands and no claim: the deal's points cannot be computed",
    "hidden-tiles": "some tiles of a partial record stay unknown",
    "match-unfinished": "the record stops before the match ended",
}
