"""What the recording tests share: driving the recorder's page, and checking a stored match."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ledger.audit import AuditReport, audit_events
from ledger.corrections import corrected_line
from ledger.formats.wire import parse_event
from ledger.rules import make_rules

NOW = ".rec-now"
CHOICE = f"{NOW} button.choice.play, {NOW} button.choice.draw, {NOW} button.choice.pass"


def start_match(page: Any, base: str, preset: str, seats: int, names: Sequence[str],
                target: int | None = None, seed: str | None = None,
                teams: bool = False) -> int:
    """Fill the new-match form as a person would; the new match's id."""
    page.goto(f"{base}/record")
    page.select_option("#preset", preset)
    page.locator(f'.seat-count input[value="{seats}"]').check()
    if target is not None:
        page.fill("#target", str(target))
    if teams:
        page.check("#teams")
    for i, name in enumerate(names):
        page.fill(f"#name-{i}", name)
    if seed is not None:
        page.locator(".practice summary").click()
        page.fill("#seed", seed)
    page.click("#start")
    page.wait_for_selector("#recorder[data-ready]")
    return int(page.locator("#recorder").get_attribute("data-match"))


def open_recorder(page: Any, url: str) -> None:
    """Open a recorder's page and wait until its script has set it up."""
    page.goto(url)
    page.wait_for_selector("#recorder[data-ready]")


def next_seq(page: Any) -> int:
    return int(page.locator("#rec-body").get_attribute("data-next-seq"))


def need(page: Any) -> str:
    return str(page.locator("#rec-body").get_attribute("data-need"))


def wait_past(page: Any, seq: int) -> None:
    """Wait until the page shows the match after sequence number ``seq`` was taken."""
    page.wait_for_function(
        "s => { const b = document.querySelector('#rec-body');"
        " return b && Number(b.dataset.nextSeq) > s"
        " && !document.querySelector('#recorder.busy'); }",
        arg=seq)


def tap(page: Any, selector: str) -> None:
    """Tap a control that records one event, and wait for the page to show it stored."""
    seq = next_seq(page)
    page.locator(selector).first.click()
    wait_past(page, seq)


@dataclass
class Stored:
    """A match as the ledger holds it, read back through the public API."""

    match: dict[str, Any]
    rows: list[dict[str, Any]]
    sheet: dict[str, Any]

    @property
    def history(self) -> list[dict[str, Any]]:
        return [r["payload"] for r in self.rows if r["kind"] != "derived"]

    @property
    def line(self) -> list[dict[str, Any]]:
        """The corrected line: what the match was, undos applied."""
        return corrected_line(self.history)

    def audit(self) -> AuditReport:
        """The engine's own fold of the corrected line, from scratch."""
        rules = make_rules(self.match["preset"], len(self.match["seats"]),
                           self.match["options"])
        events = [parse_event(e, len(self.match["seats"])) for e in self.line]
        return audit_events(rules, events)


def stored(api: Callable[..., Any], match_id: int) -> Stored:
    match = api("GET", f"/api/matches/{match_id}").json()
    rows = api("GET", f"/api/matches/{match_id}/events").json()
    sheet = api("GET", f"/api/matches/{match_id}/scoresheet").json()
    return Stored(match, rows, sheet)
