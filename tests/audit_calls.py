"""Count the audits a piece of code runs: a wrapper around the audit's entry points.

Not a mock: the wrapped functions run as ever and give what they always give; the
wrapper only counts. It is installed wherever a loaded module holds the entry point
under its own name (``from ledger.audit import audit_record`` binds it there too),
and taken out again at the end.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import ledger.audit

ENTRY_POINTS = ("audit_record", "audit_events")


@dataclass
class Calls:
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ENTRY_POINTS, 0))

    @property
    def audits(self) -> int:
        """Whole audits: ``audit_record`` calls ``audit_events`` once, so count records,
        and the events audited on their own besides."""
        return max(self.counts["audit_record"], self.counts["audit_events"])


def _counted(name: str, real: Callable[..., Any], calls: Calls) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls.counts[name] += 1
        return real(*args, **kwargs)

    return wrapper


@contextmanager
def counting_audits() -> Iterator[Calls]:
    calls = Calls()
    undo: list[tuple[object, str, object]] = []
    for name in ENTRY_POINTS:
        real = getattr(ledger.audit, name)
        wrapper = _counted(name, real, calls)
        for module in list(sys.modules.values()):
            if getattr(module, name, None) is real:
                undo.append((module, name, real))
                setattr(module, name, wrapper)
    assert any(m is ledger.audit for m, _, _ in undo)
    try:
        yield calls
    finally:
        for module, name, real in reversed(undo):
            setattr(module, name, real)
