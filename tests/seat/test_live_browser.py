"""Issue 12 in a real browser (Debian's chromium): on a server that wants keys, the
recorder starts a match with the owner's link, keeps the recorder key's link and
records as today; a spectator's replay of that live match shows no hidden tile."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ledger.seatview import tiles_named
from tests.record.conftest import LAPTOP, Pages
from tests.record.helpers import CHOICE, next_seq, start_match, tap
from tests.web.webtest_support import serving
from web.access import Access, Mode
from web.app import create_app

pytestmark = pytest.mark.browser
TOKEN = "owner-token-for-the-browser-test-42"


@pytest.fixture
def keyed_server(tmp_path: Path) -> Iterator[str]:
    app = create_app(f"sqlite:///{tmp_path / 'l.db'}",
                     access=Access(Mode.KEYS, TOKEN, ("127.0.0.1", "localhost")))
    with serving(app) as url:
        yield url


def test_a_spectator_sees_no_hand_the_recorder_records_as_today(
        pages: Pages, keyed_server: str) -> None:
    base = keyed_server
    recorder = pages.open(LAPTOP)
    recorder.goto(f"{base}/?token={TOKEN}")   # the owner's link, as `serve` prints it
    match_id = start_match(recorder, base, "sahrat-draw", 2, ["Salma", "Omar"], target=0,
                           seed="seat-privacy")
    # The recorder key's link, shown once, then gone from the address.
    link = recorder.locator("#rec-key-link")
    link.wait_for()
    key_link = link.inner_text()
    assert f"/matches/{match_id}/record?key=" in key_link
    assert "#key=" not in recorder.url
    tap(recorder, "#deal-random")
    for _ in range(6):
        tap(recorder, CHOICE)
    assert next_seq(recorder) >= 7
    pages.shot(recorder, "recorder")
    with httpx.Client(base_url=base) as c:
        key = key_link.split("key=", 1)[1]
        rows = c.get(f"/api/matches/{match_id}/events",
                     headers={"Authorization": f"Bearer {key}"}).json()
        spectator_rows = c.get(f"/api/matches/{match_id}/events").json()
    dealt = rows[0]["payload"]
    played = {r["payload"]["tile"] for r in rows if r["type"] == "play"}
    hidden = ({t for h in dealt["hands"] for t in h} | set(dealt.get("stock") or [])) - played
    assert spectator_rows[0]["payload"].get("redacted") is True
    # A spectator: another browser with no key, asking for all hands open and each seat.
    spectator = pages.open(LAPTOP)
    step = len([r for r in rows if r["kind"] == "recorded"])
    for seat in ("", "&seat=0", "&seat=1"):
        spectator.goto(f"{base}/matches/{match_id}/replay?step={step}{seat}")
        assert spectator.locator("#replay").get_attribute("data-seat") == "table"
        text = spectator.content()
        assert not (hidden & tiles_named(text)), sorted(hidden & tiles_named(text))
        assert spectator.locator(".seat[data-tiles]:not([data-tiles=''])").count() == 0
    pages.shot(spectator, "spectator")
    assert spectator.goto(f"{base}/matches/{match_id}/record").status == 401
    # The recorder's key link works in a browser that never had the key.
    other = pages.open(LAPTOP)
    other.goto(key_link)
    other.wait_for_selector("#recorder[data-ready]")
    assert other.url.endswith(f"/matches/{match_id}/record")
    assert next_seq(other) == next_seq(recorder)
    tap(other, CHOICE)
