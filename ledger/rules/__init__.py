"""The tables of the seeds, by preset id."""

from __future__ import annotations

from collections.abc import Mapping

from ledger.rules import arab_block, casual_arena, domena, sahrat, selminha
from ledger.rules.base import Preset, Rules, RulesError

PRESETS: dict[str, Preset] = {
    p.id: p
    for p in (
        domena.PRESET,
        sahrat.DRAW,
        sahrat.FIVES,
        sahrat.PARTNER,
        selminha.PRESET,
        arab_block.PRESET,
        casual_arena.PRESET,
    )
}


def make_rules(preset: str, seats: int, options: Mapping[str, object] | None = None) -> Rules:
    """The rules of a table, or RulesError naming what cannot be set up."""
    if preset not in PRESETS:
        raise RulesError(
            "unknown-preset", "there is no table {preset} (known: {known})",
            preset=repr(preset), known=tuple(PRESETS),
        )
    return PRESETS[preset].rules(seats, options)


def all_tables() -> list[tuple[str, int, dict[str, object]]]:
    """Every preset and seat count the seeds allow, with the options that change play."""
    tables: list[tuple[str, int, dict[str, object]]] = []
    for preset in PRESETS.values():
        for seats in preset.seat_counts:
            tables.append((preset.id, seats, {}))
            if preset.id == "casual-arena" and seats == 4:
                tables.append((preset.id, seats, {"teams": True}))
    return tables


__all__ = ["PRESETS", "Preset", "Rules", "RulesError", "all_tables", "make_rules"]
