"""The pages in a real browser (Debian's chromium via Playwright) against a real server.

What the replay page shows is checked against the engine: ledger.engine's strict
fold of the same recorded events, read from the sample file, not from the app.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from webtest_support import Server

from ledger.engine import State, fold
from ledger.formats.reader import parse_match
from ledger.rules import make_rules

pytestmark = pytest.mark.browser


def engine_state(obj: dict[str, Any], step: int) -> State:
    rec = parse_match(obj)
    assert rec.header is not None
    rules = make_rules(rec.header.preset, len(rec.header.seats), rec.header.options)
    return fold(rules, [ev for ev in rec.events[:step] if ev is not None])


def shown(page: Any) -> dict[str, Any]:
    """What the replay page shows, read off its DOM."""
    return dict(page.evaluate("""() => {
        const r = document.getElementById('replay');
        const status = document.getElementById('table-status');
        return {
          step: Number(r.dataset.step),
          seats: [...document.querySelectorAll('.seat')].map(s => ({
            seat: Number(s.dataset.seat),
            tiles: s.dataset.tiles ? s.dataset.tiles.split(' ') : [],
            faceUp: [...s.querySelectorAll('.tile.in-hand')].map(t => t.dataset.tile),
            faceDown: s.querySelectorAll('.tile.face-down').length,
            seen: s.dataset.seen ? s.dataset.seen.split(' ') : [],
            name: s.querySelector('.seat-name').textContent,
          })),
          ends: status.dataset.openEnds ? status.dataset.openEnds.split(',') : [],
          stock: status.dataset.stock,
          turn: status.dataset.turn,
          board: [...document.querySelectorAll('.board-svg .tile')].map(t => t.dataset.tile),
        };
    }"""))


def check_against_engine(page: Any, obj: dict[str, Any], step: int,
                         seat: int | None = None) -> None:
    got = shown(page)
    assert got["step"] == step
    st = engine_state(obj, step)
    for view in got["seats"]:
        s = view["seat"]
        hand = sorted(str(t) for t in st.hand(s))
        if seat is None or seat == s:
            assert sorted(view["tiles"]) == hand, (step, s)
            assert sorted(view["faceUp"]) == hand, (step, s)
            assert view["faceDown"] == st.hidden[s]
        else:  # face down, as that seat saw them: only how many
            assert view["tiles"] == [] and view["faceUp"] == []
            assert view["faceDown"] == len(hand) + st.hidden[s]
    assert got["ends"] == [f"{name}:{n}" for name, n in st.open_ends()] if st.table else True
    assert sorted(got["board"]) == sorted(str(t) for t in _table_tiles(st))
    if st.phase == "playing" and st.to_move is not None:
        assert got["turn"] == str(st.to_move)
    if st.rules.draws and st.rules.stock_size:
        assert got["stock"] == str(st.stock_left)


def _table_tiles(st: State) -> list[Any]:
    from ledger.tiles import tiles_of

    return tiles_of(st.table) if st.phase in ("playing", "over") else []


def deal_bounds(obj: dict[str, Any], deal: int) -> tuple[int, int]:
    """Steps [first, last] of a deal: from just after its deal event to just before the next."""
    starts = [i for i, ev in enumerate(obj["events"]) if ev["type"] == "deal"]
    first = starts[deal] + 1
    last = starts[deal + 1] if deal + 1 < len(starts) else len(obj["events"])
    return first, last


def test_step_through_a_whole_deal_by_keyboard(page: Any, shot: Any, server: Server) -> None:
    name = "domena-2.json"
    obj = server.sample(name)
    match_id = server.id_of(name)
    page.goto(f"{server.url}/matches/{match_id}")
    page.click("#open-replay")
    page.wait_for_selector('#replay[data-step="0"]')
    first, last = deal_bounds(obj, 1)  # the second deal: the lead passed on, scores running
    page.goto(f"{server.url}/matches/{match_id}/replay?step={first - 1}")
    for step in range(first, last + 1):
        page.keyboard.press("ArrowRight")
        page.wait_for_selector(f'#replay[data-step="{step}"]')
        assert page.url.endswith(f"/replay?step={step}")
        check_against_engine(page, obj, step)
        if step == (first + last) // 2:
            shot("mid-deal")
    shot("deal-end")
    # Home, End and a shared address land on the same steps.
    page.keyboard.press("Home")
    page.wait_for_selector('#replay[data-step="0"]')
    page.keyboard.press("End")
    page.wait_for_selector(f'#replay[data-step="{len(obj["events"])}"]')
    page.keyboard.press("PageUp")  # back to the start of the last deal
    first_last_deal, _ = deal_bounds(obj, sum(ev["type"] == "deal" for ev in obj["events"]) - 1)
    page.wait_for_selector(f'#replay[data-step="{first_last_deal}"]')
    page.goto(f"{server.url}/matches/{match_id}/replay?step={first + 3}")
    check_against_engine(page, obj, first + 3)


def test_slider_and_next_deal_button(page: Any, shot: Any, server: Server) -> None:
    name = "sahrat-fives-2.json"
    obj = server.sample(name)
    match_id = server.id_of(name)
    page.goto(f"{server.url}/matches/{match_id}/replay?step=0")
    page.click("#go-next")
    page.wait_for_selector('#replay[data-step="1"]')
    page.click("#go-next-deal")
    second, _ = deal_bounds(obj, 1)
    page.wait_for_selector(f'#replay[data-step="{second}"]')
    target = second + 7
    page.eval_on_selector("#step-slider", """(el, v) => {
        el.value = String(v); el.dispatchEvent(new Event('input', {bubbles: true})); }""",
                          target)
    page.wait_for_selector(f'#replay[data-step="{target}"]')
    check_against_engine(page, obj, target)
    assert page.locator("#fives-count").count() == 1  # Fives: the count of the open ends
    page.go_back()
    page.wait_for_selector(f'#replay[data-step="{second}"]')
    shot()


def test_one_seat_view_hides_the_other_hands(page: Any, shot: Any, server: Server) -> None:
    name = "domena-4-bot.json"
    obj = server.sample(name)
    match_id = server.id_of(name)
    first, last = deal_bounds(obj, 0)
    step = first + 6
    page.goto(f"{server.url}/matches/{match_id}/replay?step={step}")
    check_against_engine(page, obj, step)
    page.click('.perspective a[data-seat="2"]')
    page.wait_for_selector('#replay[data-seat="2"]')
    assert "seat=2" in page.url
    check_against_engine(page, obj, step, seat=2)
    # The viewing seat sits at the bottom of the drawn table.
    assert page.locator('.seat.pos-bottom').get_attribute("data-seat") == "2"
    shot("seat-2")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(f'#replay[data-step="{step + 1}"][data-seat="2"]')
    check_against_engine(page, obj, step + 1, seat=2)
    # After the deal's reveal the seat has seen the hands left: shown, still not its own.
    reveal = next(i for i, ev in enumerate(obj["events"]) if ev["type"] == "reveal")
    page.goto(f"{server.url}/matches/{match_id}/replay?step={reveal + 1}&seat=2")
    got = shown(page)
    revealed = obj["events"][reveal]["hands"]
    for view in got["seats"]:
        if view["seat"] != 2:
            assert sorted(view["seen"]) == sorted(revealed[view["seat"]])
    # A bot seat is marked from its bot event on.
    bot = next(ev for ev in obj["events"] if ev["type"] == "bot")
    page.goto(f"{server.url}/matches/{match_id}/replay?step={len(obj['events'])}")
    marked = page.locator(f'.seat[data-seat="{bot["seat"]}"] .badge.bot')
    assert marked.count() == 1
    shot("bot")


def faulty_copy(server: Server, tmp_path: Path, name: str) -> tuple[Path, str]:
    """A clean sample made faulty: the first deal's claimed points are off by one."""
    obj = server.sample("domena-2.json")
    obj["seats"] = [name, "Omar"]
    claim = next(ev for ev in obj["events"] if ev["type"] == "deal_end")
    claim["points"] += 1
    path = tmp_path / "faulty-upload.json"
    path.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    return path, "wrong-deal-end"


EVIL = '<img src=x onerror="alert(1)">Zed & "Co"'


def test_upload_a_faulty_file_and_read_its_findings(page: Any, shot: Any, server: Server,
                                                    tmp_path: Path) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    path, code = faulty_copy(server, tmp_path, EVIL)
    page.goto(f"{server.url}/import")
    page.set_input_files("#file-input", str(path))
    page.click("#import-submit")
    page.wait_for_selector("#import-report")
    report = page.locator(".import-result").first
    assert report.get_attribute("data-ok") == "false"
    assert code in report.inner_text()
    shot("report")
    page.click(".open-match")
    page.wait_for_selector("#findings")
    assert code in page.locator("#findings").inner_text()
    assert EVIL in page.locator("h1").inner_text()  # the name as text, never as markup
    assert page.locator("img[src=x]").count() == 0
    shot("match")
    page.click('#findings li.error a.where')
    page.wait_for_selector("#replay")
    assert code in page.locator(".now").inner_text()
    assert page.locator(".ev[aria-current=step].has-error").count() == 1
    assert EVIL in page.locator(".seat-name").first.inner_text()
    shot("replay")
    assert dialogs == []


def test_drop_a_file_on_the_import_page(page: Any, shot: Any, server: Server) -> None:
    data = (server.samples / "faulty" / "illegal-pass.json").read_text(encoding="utf-8")
    expected = json.loads((server.samples / "faulty" / "illegal-pass.expected.json").read_text())
    page.goto(f"{server.url}/import")
    page.evaluate("""(text) => {
        const dt = new DataTransfer();
        dt.items.add(new File([text], 'dropped.json', {type: 'application/json'}));
        const zone = document.getElementById('dropzone');
        zone.dispatchEvent(new DragEvent('dragover', {dataTransfer: dt, bubbles: true}));
        zone.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true}));
    }""", data)
    page.wait_for_selector("#import-report")
    text = page.locator("#import-report").inner_text()
    assert "dropped.json" in text
    for f in expected["findings"]:
        assert f["code"] in text
    shot()


def test_match_page_score_sheet_and_chart(page: Any, shot: Any, server: Server) -> None:
    name = "sahrat-fives-2.json"
    obj = server.sample(name)
    from ledger.audit import audit_record

    report = audit_record(parse_match(obj))
    page.goto(f"{server.url}/matches/{server.id_of(name)}")
    rows = page.locator("#score-sheet tbody tr")
    assert rows.count() == len(report.deals)
    for i, deal in enumerate(report.deals):
        cells = rows.nth(i).locator("td").all_inner_texts()
        assert cells[2] == deal["result"] and int(cells[4]) == deal["points"]
    foot = page.locator("#score-sheet tfoot td").all_inner_texts()
    assert [int(x) for x in foot[-2:]] == report.scores
    page.wait_for_selector("#score-race .main-svg")  # Plotly drew it, from the app's own copy
    assert page.locator("#score-race .scatterlayer .trace").count() == 2
    shot()


def test_openapi_docs_work_offline(page: Any, shot: Any, server: Server) -> None:
    page.goto(f"{server.url}/docs")
    page.wait_for_selector(".swagger-ui .info .title")
    page.get_by_text("/api/matches/{match_id}/replay", exact=True).first.wait_for()
    shot()


def test_error_pages_are_readable(page: Any, shot: Any, server: Server) -> None:
    res = page.goto(f"{server.url}/matches/987654")
    assert res is not None and res.status == 404
    assert "987654" in page.locator("main").inner_text()
    shot("missing-match")
