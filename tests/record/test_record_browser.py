"""Recording matches in a real browser: Debian's chromium driven by Playwright.

Each test records through the page as a scorekeeper would (taps, or the
keyboard), then reads the match back from the ledger and folds the stored
events with the engine itself: the page's scores and score sheet must be the
engine's. Every test keeps screenshots in artifacts/screenshots/.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ledger.engine import fold, legal_moves
from ledger.formats.wire import parse_event
from ledger.rules import make_rules
from ledger.tiles import ALL_TILES
from tests.record.conftest import PHONE, Pages, Server
from tests.record.helpers import (
    CHOICE,
    need,
    next_seq,
    open_recorder,
    start_match,
    stored,
    tap,
    wait_past,
)

pytestmark = pytest.mark.browser

Api = Callable[..., Any]


def _page_scores(page: Any) -> list[int]:
    return [int(x) for x in page.locator(".rec-score .pts").evaluate_all(
        "els => els.map(e => e.dataset.score)")]


def _page_sheet(page: Any) -> list[list[str]]:
    return page.locator("#rec-sheet tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.cells].map(c => c.textContent.trim()))")


def _check_against_engine(page: Any, api: Api, match_id: int) -> Any:
    """The page's scores and sheet are what the engine makes of the stored events."""
    got = stored(api, match_id)
    report = got.audit()
    assert report.ok, report.findings
    assert _page_scores(page) == report.scores
    assert got.match["scores"] == report.scores
    assert got.match["winner"] == report.winner
    seats = got.match["seats"]
    rows = _page_sheet(page)
    assert len(rows) == len(report.deals)
    running = [d for evs in report.derived for d in evs if type(d).__name__ == "DealScored"]
    for row, deal, scored in zip(rows, report.deals, running, strict=True):
        who = "tie" if deal["winner"] is None else (
            f"{seats[deal['winner']]} {'out' if deal['result'] == 'out' else 'blocks'}")
        assert row[1] == who
        assert int(row[2]) == deal["points"]
        assert [int(x) for x in row[3:]] == list(scored.scores)
    assert [(d["result"], d["winner"], d["points"]) for d in got.sheet["deals"]] == [
        (d["result"], d["winner"], d["points"]) for d in report.deals]
    return report


def _small_targets(page: Any, selector: str) -> list[str]:
    """Controls under 44 by 44 CSS pixels (the touch target minimum)."""
    boxes = page.locator(selector).evaluate_all(
        "els => els.filter(e => e.offsetParent !== null).map(e => {"
        " const r = e.getBoundingClientRect();"
        " return [e.outerHTML.slice(0, 80), r.width, r.height]; })")
    return [f"{html} {w:.0f}x{h:.0f}" for html, w, h in boxes if w < 44 or h < 44]


def _tab_to(page: Any, test: str, limit: int = 80) -> None:
    """Press Tab until the focused element passes ``test`` (JavaScript)."""
    for _ in range(limit):
        if page.evaluate(f"() => Boolean({test})"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached an element where {test}")


def _play_out(page: Any, limit: int = 400) -> int:
    """Tap the first offered move, or deal at random, until the match is over."""
    taps = 0
    while need(page) != "over":
        assert taps < limit, "the match did not end"
        tap(page, "#deal-random" if need(page) in ("deal", "redeal") else CHOICE)
        taps += 1
    return taps


def test_record_a_whole_two_seat_draw_match_dealt_at_random(
        pages: Pages, server: Server, api: Api) -> None:
    page = pages.open()
    match_id = start_match(page, server.url, "sahrat-draw", 2, ["Ali", "Omar"], target=30,
                           seed="match-c")
    assert page.locator('input[name="deal-mode"][value="random"]').is_checked()
    tap(page, "#deal-random")
    for _ in range(9):
        tap(page, CHOICE)
    pages.shot(page, "mid-deal")
    while need(page) == "move":
        tap(page, CHOICE)
    # The deal is over: the engine scored it; the next deal is due.
    assert need(page) == "deal"
    assert page.locator("#deal-result").is_visible()
    assert page.locator("#rec-sheet tbody tr").count() == 1
    pages.shot(page, "between-deals")
    _play_out(page)
    pages.shot(page, "match-over")
    report = _check_against_engine(page, api, match_id)
    assert report.complete and report.winner is not None
    # The seed is one whose match takes more than one deal: the deal form comes back
    # between deals, and the sheet has a row for each.
    assert len(report.deals) >= 2
    winner = stored(api, match_id).match["seats"][report.winner]
    assert page.locator("#now-title").inner_text() == f"The match is over: {winner} won."
    # The recorded match is an ordinary ledger match: its page and its replay.
    page.click("#to-sheet")
    page.wait_for_selector("#score-sheet")
    assert page.locator("#score-sheet tbody tr").count() == len(report.deals)
    assert winner in page.locator("#result").inner_text()
    pages.shot(page, "score-sheet")
    page.goto(f"{server.url}/matches/{match_id}/replay?step=12")
    assert page.locator(".board-svg .tile").count() > 0
    pages.shot(page, "replay")


def test_record_a_pairs_deal_by_tapping_on_a_phone(pages: Pages, server: Server,
                                                   api: Api) -> None:
    page = pages.open(PHONE, touch=True)
    names = ["Ali", "Omar", "Layla", "Rania"]
    match_id = start_match(page, server.url, "domena", 4, names, target=0)
    assert page.locator('input[name="deal-mode"][value="hands"]').is_checked()
    # Ali's hand typed in the notations of the match format; Omar's and Layla's tapped on
    # the chart of the 28 tiles; Rania gets the seven left.
    page.fill("#deal-text", "63 [5:1] 2|0 4-4 1-6 [3, 3] 0-5")
    assert page.locator('.seat-tab[data-seat="0"] .count').inner_text() == "7/7"
    page.locator("#deal-text").press("Enter")  # a full hand typed: on to the next one
    assert page.locator('.seat-tab[data-seat="1"] input').is_checked()
    for tile in ("6-6", "5-5", "4-3", "3-1", "2-2", "1-0", "6-0"):
        page.locator(f'#deal-picker .pick[data-tile="{tile}"]').tap()
    assert page.locator('.seat-tab[data-seat="2"] input').is_checked()
    for tile in ("6-5", "6-4", "5-4", "4-2", "3-2", "1-1", "0-0"):
        page.locator(f'#deal-picker .pick[data-tile="{tile}"]').tap()
    # A tile already dealt cannot be dealt twice: the chart says whose it is.
    taken = page.locator('#deal-picker .pick[data-tile="6-6"]')
    assert taken.get_attribute("aria-disabled") == "true"
    taken.tap(force=True)  # a person can still tap it: it says why not
    assert "already in Omar's hand" in page.locator("#deal-text-msg").inner_text()
    assert page.locator("#deal-submit").is_disabled()
    assert page.locator("#deal-rest").inner_text() == "Give the rest to Rania"
    page.locator("#deal-rest").tap()
    assert _small_targets(page, ".rec-now button:not([hidden]), .seat-tab, .segmented label") \
        == []
    pages.shot(page, "deal-entered")
    tap(page, "#deal-submit")
    got = stored(api, match_id)
    dealt = got.history[0]["hands"]
    assert sorted(dealt[0]) == sorted(["6-3", "5-1", "2-0", "4-4", "6-1", "3-3", "5-0"])
    others = {t for hand in dealt[:3] for t in hand}
    assert set(dealt[3]) == {str(t) for t in ALL_TILES} - others and len(dealt[3]) == 7
    # domena, 4 seats: "holder of 6-6 opens with it": Omar, and only with 6-6.
    assert page.locator("#now-title").inner_text().endswith("Omar (seat 2) to play")
    assert page.locator(CHOICE).count() == 1
    taps = 0
    while need(page) == "move":
        if taps == 5:
            assert _small_targets(page, ".rec-now button, .rec-undo button") == []
            pages.shot(page, "mid-deal", full_page=False)
        page_locator = page.locator(CHOICE).first
        page_locator.scroll_into_view_if_needed()
        seq = next_seq(page)
        page_locator.tap()
        wait_past(page, seq)
        taps += 1
    assert need(page) == "over"
    pages.shot(page, "deal-over")
    report = _check_against_engine(page, api, match_id)
    assert report.complete and len(report.deals) == 1


def test_no_control_records_an_illegal_move_and_the_api_refuses_a_forged_one(
        pages: Pages, server: Server, api: Api) -> None:
    page = pages.open()
    match_id = start_match(page, server.url, "sahrat-draw", 2, ["Ali", "Omar"], target=0,
                           seed="illegal")
    tap(page, "#deal-random")
    rules = make_rules("sahrat-draw", 2, {"target": 0})
    checked = 0
    while need(page) == "move" and checked < 14:
        got = stored(api, match_id)
        state = fold(rules, [parse_event(e, 2) for e in got.line])
        legal = legal_moves(state)
        offered = page.locator(".rec-now button[data-event]").evaluate_all(
            "els => els.map(e => JSON.parse(e.dataset.event))")
        # Every control records a legal move of the seat to move, and every legal tile
        # has a control (a second end is left out only when it makes the same table).
        for ev in offered:
            assert ev["seat"] == state.to_move
            if ev["type"] == "play":
                assert any(m.kind == "play" and str(m.tile) == ev["tile"]
                           and m.end == ev.get("end") for m in legal), ev
            else:
                assert any(m.kind == ev["type"] for m in legal), ev
        assert {ev["tile"] for ev in offered if ev["type"] == "play"} == {
            str(m.tile) for m in legal if m.kind == "play"}
        # Everything else the seat holds is listed as refused, with the rule's reason.
        hand = {str(t) for t in state.hand(state.to_move)}
        refused = " ".join(page.locator("#refused li").evaluate_all(
            "els => els.map(e => e.dataset.what)")).split()
        assert set(refused) - {"draw", "pass"} == hand - {
            ev["tile"] for ev in offered if ev["type"] == "play"}
        checked += 1
        if checked == 3:
            pages.shot(page, "refusals")
        tap(page, CHOICE)
    # A forged request for a move the page never offers: refused with the rule's sentence.
    got = stored(api, match_id)
    state = fold(rules, [parse_event(e, 2) for e in got.line])
    seat = state.to_move
    assert seat is not None
    wrong = next((t for t in state.hand(seat) if not state.fit_mask() & t.bit), None)
    forged = ({"type": "play", "seat": seat, "tile": str(wrong), "end": "left"} if wrong
              else {"type": "pass", "seat": seat})
    before = next_seq(page)
    answer = page.evaluate(
        "async ([id, seq, ev]) => { const r = await fetch(`/api/matches/${id}/events`, "
        "{method: 'POST', headers: {'Content-Type': 'application/json'}, "
        "body: JSON.stringify({expected_seq: seq, event: ev})});"
        " return [r.status, await r.json()]; }", [match_id, before, forged])
    assert answer[0] == 422
    message = answer[1]["error"]["message"]
    if wrong:
        assert message.startswith(f"seat {seat} played {wrong}, which fits none of the open "
                                  "ends")
    else:
        assert message.startswith(f"seat {seat} passed")
    assert stored(api, match_id).rows == got.rows  # nothing stored
    page.reload()
    page.wait_for_selector("#recorder[data-ready]")
    assert next_seq(page) == before


def test_undo_takes_back_the_last_event_and_stays_in_the_history(
        pages: Pages, server: Server, api: Api) -> None:
    page = pages.open()
    match_id = start_match(page, server.url, "domena", 2, ["Ali", "Omar"], target=0,
                           seed="undo")
    tap(page, "#deal-random")
    for _ in range(4):
        tap(page, CHOICE)
    before_undo = stored(api, match_id)
    last_text = page.locator(".undo-what").inner_text()
    board = page.locator(".board-svg .tile").count()
    tap(page, "#undo")
    assert page.locator(".board-svg .tile").count() == board - (
        1 if before_undo.line[-1]["type"] == "play" else 0)
    history = page.locator("#history li")
    assert history.nth(0).locator(".text").inner_text() == f"Undo: {last_text}"
    assert "undone" in history.nth(1).get_attribute("class")
    assert history.nth(1).locator(".text").inner_text() == last_text
    # Take back one more, then record something else in its place.
    second = page.locator(".undo-what").inner_text()
    tap(page, "#undo")
    offered = page.locator(CHOICE).count()
    tap(page, CHOICE if offered == 1 else f"{CHOICE} >> nth=-1")
    pages.shot(page, "history")
    got = stored(api, match_id)
    types = [e["type"] for e in got.history]
    assert types.count("undo") == 2
    assert len(got.history) == len(before_undo.history) + 3  # both undos and the new event
    assert len(got.line) == len(before_undo.line) - 1
    assert got.audit().ok
    texts = history.evaluate_all("els => els.map(e => e.querySelector('.text').textContent)")
    assert f"Undo: {second}" in texts and f"Undo: {last_text}" in texts
    # Undo a deal-ending move: the score and the sheet go back with it.
    _play_out(page)
    assert page.locator("#rec-sheet tbody tr").count() == 1
    tap(page, "#undo")
    assert need(page) == "move"
    assert _page_scores(page) == [0, 0]
    assert page.locator("#rec-sheet").count() == 0
    pages.shot(page, "deal-end-undone")
    _play_out(page)
    _check_against_engine(page, api, match_id)


def test_two_devices_recording_at_once_keep_one_match(pages: Pages, server: Server,
                                                       api: Api) -> None:
    laptop = pages.open()
    match_id = start_match(laptop, server.url, "sahrat-draw", 2, ["Ali", "Omar"], target=0,
                           seed="two-devices")
    tap(laptop, "#deal-random")
    phone = pages.open(PHONE, touch=True)
    open_recorder(phone, f"{server.url}/matches/{match_id}/record?seed=two-devices")
    assert next_seq(phone) == next_seq(laptop)
    # The laptop records a move; the phone, not reloaded, records one too: refused.
    tap(laptop, CHOICE)
    stale = next_seq(phone)
    phone.locator(CHOICE).first.tap()
    alert = phone.locator("#rec-alert.conflict")
    alert.wait_for()
    assert "another device recorded this match first" in alert.inner_text()
    wait_past(phone, stale)
    assert next_seq(phone) == next_seq(laptop)
    pages.shot(phone, "conflict-on-phone")
    # Both at the very same moment: one is stored, the other is told.
    seq = next_seq(laptop)
    for p in (laptop, phone):  # click() returns at once: both requests are in flight
        p.evaluate("sel => document.querySelector(sel).click()", CHOICE)
    for p in (laptop, phone):
        p.wait_for_function("() => !document.querySelector('#recorder.busy')")
        wait_past(p, seq)
    conflicts = [p.locator("#rec-alert.conflict").is_visible() for p in (laptop, phone)]
    assert conflicts.count(True) == 1
    assert next_seq(laptop) == next_seq(phone)
    pages.shot(laptop, "after-race")
    # Coming back to a page (a phone unlocked): nothing new, nothing changes; news, the
    # page shows it and says so.
    back = "document.dispatchEvent(new Event('visibilitychange'))"
    with phone.expect_response(lambda r: r.url.endswith(f"/api/matches/{match_id}")):
        phone.evaluate(back)
    assert phone.evaluate("() => !document.querySelector('#recorder.busy')")
    assert not phone.locator("#rec-alert.info").is_visible()
    tap(laptop, CHOICE)
    phone.evaluate(back)
    phone.locator("#rec-alert.info").wait_for()
    assert next_seq(phone) == next_seq(laptop)
    # Go on from the phone; the match is one match, every event once, the chain whole.
    for _ in range(3):
        if need(phone) == "move":
            tap(phone, CHOICE)
    got = stored(api, match_id)
    seqs = [r["seq"] for r in got.rows]
    assert seqs == list(range(len(seqs)))
    assert all(r["prev_hash"] == prev["hash"] for prev, r in zip(got.rows, got.rows[1:],
                                                                    strict=False))
    assert got.audit().ok


def test_keyboard_only_on_a_laptop(pages: Pages, server: Server, api: Api) -> None:
    page = pages.open()
    page.goto(f"{server.url}/record")
    # The form, by keyboard: table, seats, target, names, start.
    page.focus("#preset")
    page.keyboard.press("ArrowDown")  # the second table: Sahrat Domino (draw)
    assert page.locator("#preset").input_value() == "sahrat-draw"
    page.keyboard.press("Tab")  # the checked seat count
    page.keyboard.press("Tab")
    page.keyboard.type("0")
    for name in ("Ana", "Bea"):
        _tab_to(page, "document.activeElement.name === 'name' && !document.activeElement.value")
        page.keyboard.type(name)
    page.keyboard.press("Enter")
    page.wait_for_selector("#recorder[data-ready]")
    match_id = int(page.locator("#recorder").get_attribute("data-match"))
    # Deal: every hand, typed; the focus starts on the way of dealing.
    assert page.evaluate("() => document.activeElement.name") == "deal-mode"
    _tab_to(page, "document.activeElement.id === 'deal-text'")
    page.keyboard.type("66 55 44 33 22 11 00")
    page.keyboard.press("Enter")  # the hand is full: the next seat's hand is typed next
    assert page.locator('.seat-tab[data-seat="1"] input').is_checked()
    assert page.locator("#deal-text").input_value() == ""
    page.keyboard.type("65 64 63 62 61 60 54")
    _tab_to(page, "document.activeElement.id === 'deal-submit'")
    seq = next_seq(page)
    page.keyboard.press("Enter")
    wait_past(page, seq)
    # Each move: the focus is on the first one offered; Tab reaches the others.
    for i in range(6):
        assert page.evaluate("() => document.activeElement.dataset.event !== undefined")
        seq = next_seq(page)
        if i % 2 and page.locator(CHOICE).count() > 1:
            page.keyboard.press("Tab")
        page.keyboard.press("Enter" if i % 3 else "Space")
        wait_past(page, seq)
    pages.shot(page, "keyboard")
    # Undo, by keyboard.
    _tab_to(page, "document.activeElement.id === 'undo'")
    seq = next_seq(page)
    page.keyboard.press("Enter")
    wait_past(page, seq)
    got = stored(api, match_id)
    assert got.history[-1]["type"] == "undo" and got.audit().ok
    assert got.line[0]["hands"][0] == ["6-6", "5-5", "4-4", "3-3", "2-2", "1-1", "0-0"]


def test_own_hand_only_then_the_hands_shown_at_the_end(pages: Pages, server: Server,
                                                        api: Api) -> None:
    page = pages.open()
    match_id = start_match(page, server.url, "domena", 2, ["Me", "Them"], target=0)
    page.locator('input[name="deal-mode"][value="mine"]').check()
    page.fill("#deal-text", "5-5 4-1 3-2 6-0 2-1 1-0 0-0")
    tap(page, "#deal-submit")
    assert stored(api, match_id).history[0]["hands"][1] is None
    # Who opens? 6-6 is unseen: Them may hold it; 5-5 is the best tile Me holds.
    assert need(page) == "lead"
    leads = page.locator(".lead-seat button").evaluate_all(
        "els => els.map(e => [e.dataset.seat, e.dataset.tile])")
    assert sorted(leads) == [["0", "5-5"], ["1", "6-6"]]
    pages.shot(page, "who-opens")
    tap(page, '.lead-seat button[data-seat="0"]')
    # Them's hand is unknown: any unseen tile that fits, or a draw, is on offer. Them
    # draws until the stock is empty and then passes; Me plays first-offered.
    while need(page) == "move":
        them = page.locator("#now-title").inner_text().endswith("Them (seat 2) to play")
        if them:
            pick = ".rec-now button.draw" if page.locator(".rec-now button.draw").count() \
                else ".rec-now button.pass"
        else:
            pick = CHOICE
        tap(page, pick)
    assert need(page) == "reveal"
    pages.shot(page, "reveal")
    rest = page.locator("#reveal-rest")
    assert rest.is_visible()  # the stock is empty: every unseen tile is in Them's hand
    rest.click()
    tap(page, "#reveal-submit")
    report = _check_against_engine(page, api, match_id)
    assert need(page) in ("over", "deal")
    line = stored(api, match_id).line
    assert line[-1]["type"] == "reveal"
    # domena, 2 seats: the winner scores the pips left in the loser's hand (rules-decisions).
    left = [sum(int(n) for t in hand for n in t.split("-")) for hand in line[-1]["hands"]]
    deal = report.deals[0]
    if deal["result"] == "tie":
        assert left[0] == left[1] and deal["points"] == 0
    else:
        assert deal["points"] == left[1 - deal["winner"]]
    pages.shot(page, "scored")


def test_a_lost_connection_loses_nothing(pages: Pages, server: Server, api: Api) -> None:
    page = pages.open()
    match_id = start_match(page, server.url, "sahrat-draw", 2, ["Ali", "Omar"], target=0,
                           seed="offline")
    tap(page, "#deal-random")
    page.context.set_offline(True)
    seq = next_seq(page)
    page.locator(CHOICE).first.click()
    alert = page.locator("#rec-alert.offline")
    alert.wait_for()
    assert "could not be reached" in alert.inner_text()
    pages.shot(page, "offline")
    assert len(stored(api, match_id).history) == 1
    page.context.set_offline(False)
    page.click("#retry")
    wait_past(page, seq)
    assert not page.locator("#rec-alert").is_visible()
    got = stored(api, match_id)
    assert len(got.history) == 2 and got.audit().ok
    # A closed tab loses nothing either: a new one shows the match as stored.
    page.close()
    again = pages.open(PHONE, touch=True)
    open_recorder(again, f"{server.url}/matches/{match_id}/record")
    assert next_seq(again) == got.rows[-1]["seq"] + 1
    assert again.locator("#history li").count() == 2
    pages.shot(again, "reopened")


def test_the_new_match_form_on_a_phone(pages: Pages, server: Server) -> None:
    page = pages.open(PHONE, touch=True)
    page.goto(f"{server.url}/record")
    page.select_option("#preset", "domena")
    # The seats the table allows, and no others (domena: 2 or 4).
    assert page.locator('.seat-count input[value="3"]').is_disabled()
    page.locator('.seat-count input[value="4"]').check()
    assert "Two teams" in page.locator("#seats-hint").inner_text()
    assert page.locator('.name-row[data-seat="3"]').is_visible()
    assert not page.locator("#teams-field").is_visible()  # domena's pairs are not an option
    page.select_option("#preset", "casual-arena")
    assert page.locator("#teams-field").is_visible()
    page.locator('.seat-count input[value="2"]').check()
    assert not page.locator('.name-row[data-seat="2"]').is_visible()
    assert page.locator("#target").get_attribute("placeholder") == "usual: 100"
    assert _small_targets(page, "#new-match button, #new-match select, #new-match input[type=text],"
                          " .segmented label, .practice summary") == []
    pages.shot(page, "form")
    page.fill("#name-0", "Ali")
    page.fill("#name-1", "Ali")
    page.click("#start")
    assert "two seats have the same name" in page.locator("#form-error").inner_text().lower()
    pages.shot(page, "refused")
