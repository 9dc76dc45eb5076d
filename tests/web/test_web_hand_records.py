"""The web's hand records (issue 34, item 7): /matches/{id}/hand-records.pdf is the CLI's
``export --hand-record`` (the same bytes, the PDF's making time aside), linked from the
match page, with the kept review's marks; refused during a live deal without the key."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pypdf import PdfReader

from ledger.cli import main

SAMPLE = "domena-4.json"
_MADE = re.compile(rb"/CreationDate \(D:\d{14}Z\)|/ID \[<[0-9A-F]{32}><[0-9A-F]{32}>\]")


def _pages(data: bytes) -> list[str]:
    return [p.extract_text() for p in PdfReader(io.BytesIO(data)).pages]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[TestClient, str, int]:
    from webtest_support import ledger_with

    from web.app import create_app

    url, match_id = ledger_with(tmp_path_factory.mktemp("ledger"), SAMPLE)
    client = TestClient(create_app(url))
    return client, url, match_id


def test_the_web_and_the_cli_give_the_same_file(served: tuple[TestClient, str, int],
                                                tmp_path: Path) -> None:
    client, url, match_id = served
    with client:
        page = client.get(f"/matches/{match_id}", params={"lang": "ar"}).text
        assert f'href="/matches/{match_id}/hand-records.pdf?lang=ar"' in page
        web = client.get(f"/matches/{match_id}/hand-records.pdf", params={"lang": "ar"})
    assert web.status_code == 200 and web.headers["content-type"] == "application/pdf"
    out = tmp_path / "hands.pdf"
    assert main(["export", str(match_id), "--db", url, "--hand-record", str(out),
                 "--lang", "ar"]) == 0
    cli = out.read_bytes()
    assert len(_MADE.findall(web.content)) == len(_MADE.findall(cli)) >= 1
    assert _MADE.sub(b"", web.content) == _MADE.sub(b"", cli)


def test_marks_of_a_kept_review_are_printed(served: tuple[TestClient, str, int],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from ledger.analysis.measures import symbol

    client, url, match_id = served
    assert main(["analyse", str(match_id), "--db", url, "--report", "--samples", "4",
                 "--json"]) == 0
    kept = json.loads(capsys.readouterr().out.splitlines()[-1])
    marked = [d for d in kept["judged"] if symbol(d["knowledge_lost"])]
    with client:
        data = client.get(f"/matches/{match_id}/hand-records.pdf",
                              params={"lang": "en"}).content
    text = "\n".join(_pages(data))
    assert "Marks by what the player knew" in text
    assert marked, "the sample's review marks some move"
    for d in marked:
        # the move's row (it may wrap) holds its mark and severity
        step = d["event"] + 1
        start = text.index(f"\n{step} ")
        nxt = re.search(rf"\n{step + 1} ", text[start:])
        row = text[start:start + nxt.start()] if nxt else text[start:]
        mark = symbol(d["knowledge_lost"]) or ""
        assert f"{mark} {d['severity']}" in row, (d, row)


def test_a_live_deal_is_refused_without_the_key(tmp_path: Path) -> None:
    from tests.seat.test_keys_http import HOSTS, TOKEN, _live
    from web.access import Access, Mode
    from web.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'l.db'}", access=Access(Mode.KEYS, TOKEN, HOSTS))
    with TestClient(app) as c:
        mid, key, _ = _live(c, 12)
        assert c.get(f"/matches/{mid}/hand-records.pdf").status_code == 403
        mine = c.get(f"/matches/{mid}/hand-records.pdf",
                     headers={"Authorization": f"Bearer {key}"})
        assert mine.status_code == 200 and mine.content.startswith(b"%PDF")


def test_a_live_match_gives_its_deals_over_for_good_without_the_key(tmp_path: Path) -> None:
    """While a later deal is in play, a reader without the recorder's key gets the hand
    records of the deals before it (the deal in play left out whole: none of its hands),
    the key's holder every deal."""
    from tests.seat.test_keys_http import HOSTS, TOKEN, _append, _match, _owner, _start
    from web.access import Access, Mode
    from web.app import create_app

    match = _match()
    deals = [i for i, ev in enumerate(match["events"]) if ev["type"] == "deal"]
    assert len(deals) >= 2, "the generated match needs a second deal"
    upto = deals[1] + 3  # the second deal dealt and three of its events recorded
    app = create_app(f"sqlite:///{tmp_path / 'l.db'}", access=Access(Mode.KEYS, TOKEN, HOSTS))
    with TestClient(app) as c:
        got = _start(c, match, _owner()).json()
        auth = {"Authorization": f"Bearer {got['recorder_key']}"}
        for ev in match["events"][:upto]:
            if ev["type"] in ("reveal", "deal_end"):
                continue  # the ledger derives these itself on a live match
            seq = c.get(f"/api/matches/{got['id']}", headers=auth).json()["next_seq"]
            assert _append(c, got["id"], seq, ev, got["recorder_key"]).status_code == 201
        url = f"/matches/{got['id']}/hand-records.pdf?lang=en"
        open_ = c.get(url)
        assert open_.status_code == 200 and open_.content.startswith(b"%PDF")
        mine = c.get(url, headers=auth)
        assert mine.status_code == 200
    theirs, whole = _pages(open_.content), _pages(mine.content)
    assert len(theirs) == 1 and "Hand record: deal 1" in theirs[0]
    assert len(whole) == 2 and "Hand record: deal 2" in whole[1] and "not finished" in whole[1]
    assert not any("deal 2" in page for page in theirs)
    second = match["events"][deals[1]]["hands"]
    assert " ".join(second[0]) not in theirs[0].replace("  ", " ")
    # the deal over is printed as the key's holder gets it (the footer counts the pages)
    assert theirs[0].rsplit("page 1 of", 1)[0] == whole[0].rsplit("page 1 of", 1)[0]
