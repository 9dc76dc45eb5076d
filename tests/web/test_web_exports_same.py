"""The web's downloads and the CLI's exports are one code path (issue 29, item 5): the same
match gives the same bytes from both, in every format, the ledger hash filled in."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from webtest_support import SAMPLES, ledger_with

from ledger.cli import main
from ledger.exports.formats import SHEET_FORMATS
from ledger.formats.canonical import match_hash
from ledger.formats.reader import read_matches

SAMPLE = "sahrat-draw-2.json"
# The one difference allowed: the PDF states when it was made (to the second), and its
# file /ID is fpdf's hash of the file with that time in it.
_MADE = re.compile(rb"/CreationDate \(D:\d{14}Z\)|/ID \[<[0-9A-F]{32}><[0-9A-F]{32}>\]")
FORMATS = (*SHEET_FORMATS, "match")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, str, int]]:
    from web.app import create_app

    url, match_id = ledger_with(tmp_path_factory.mktemp("ledger"), SAMPLE)
    with TestClient(create_app(url)) as client:
        yield client, url, match_id


def _download(client: TestClient, match_id: int, fmt: str) -> bytes:
    path = (f"/matches/{match_id}/match.json" if fmt == "match"
            else f"/matches/{match_id}/sheet.{fmt}")
    got = client.get(path, params={"lang": "en"})
    assert got.status_code == 200, (fmt, got.text[:200])
    return got.content


def _exported(url: str, match_id: int, fmt: str, folder: Path) -> bytes:
    out = folder / ("match.json" if fmt == "match" else f"sheet.{fmt}")
    assert main(["export", str(match_id), "--db", url, "--format", fmt, "-o", str(out),
                 "--lang", "en"]) == 0
    return out.read_bytes()


@pytest.mark.parametrize("fmt", FORMATS)
def test_web_download_is_the_cli_export(app: tuple[TestClient, str, int], fmt: str,
                                        tmp_path: Path) -> None:
    client, url, match_id = app
    web = _download(client, match_id, fmt)
    cli = _exported(url, match_id, fmt, tmp_path)
    if fmt == "pdf":
        assert len(_MADE.findall(web)) == len(_MADE.findall(cli)) >= 1
        web, cli = _MADE.sub(b"", web), _MADE.sub(b"", cli)
    assert web == cli


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_web_sheets_carry_the_ledger_hash(app: tuple[TestClient, str, int], fmt: str) -> None:
    client, _, match_id = app
    (record,) = read_matches(str(SAMPLES / SAMPLE))
    assert record.header is not None
    digest = match_hash(record.header, [e for e in record.events if e is not None])
    body = _download(client, match_id, fmt).decode("utf-8-sig")
    if fmt == "json":
        assert json.loads(body)["sheets"][0]["ledger_hash"] == digest
    else:
        assert digest in body


def test_the_pdf_with_a_kept_review_is_the_same(app: tuple[TestClient, str, int],
                                                tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    # Once the ledger keeps the match's review by what each player knew, both PDFs print
    # its page (the reader of an imported match sees every hand).
    client, url, match_id = app
    assert main(["analyse", str(match_id), "--db", url, "--report", "--samples", "4"]) == 0
    capsys.readouterr()
    web = _MADE.sub(b"", _download(client, match_id, "pdf"))
    cli = _MADE.sub(b"", _exported(url, match_id, "pdf", tmp_path))
    assert web == cli
    from pypdf import PdfReader

    pages = [p.extract_text() for p in PdfReader(io.BytesIO(web)).pages]
    assert any(p.startswith("Review by what the player knew") for p in pages)


def test_a_live_deal_in_play_shows_no_hand_in_the_downloads(tmp_path: Path) -> None:
    # The export path audits the record as stored, hands in play included: a reader without
    # the recorder key gets the sheet with the audit the match page shows, and no match file.
    from tests.seat.test_keys_http import HOSTS, TOKEN, _live, _tiles
    from web.access import Access, Mode
    from web.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'l.db'}", access=Access(Mode.KEYS, TOKEN, HOSTS))
    with TestClient(app) as c:
        mid, key, match = _live(c, 12)
        dealt = match["events"][0]
        hands = {t for h in dealt["hands"] for t in h} | set(dealt.get("stock") or [])
        hidden = hands - {e["tile"] for e in match["events"][:12] if e["type"] == "play"}
        for fmt in ("csv", "json"):
            got = c.get(f"/matches/{mid}/sheet.{fmt}")
            assert got.status_code == 200 and not hidden & _tiles(got.text), fmt
        shown = c.get(f"/api/matches/{mid}/scoresheet").json()["audit"]
        sheet = c.get(f"/matches/{mid}/sheet.json").json()["sheets"][0]
        assert [f["code"] for f in sheet["audit"]["findings"]] == \
            [f["code"] for f in shown["findings"]]
        assert c.get(f"/matches/{mid}/match.json").status_code == 403
        mine = c.get(f"/matches/{mid}/match.json", headers={"Authorization": f"Bearer {key}"})
        assert mine.status_code == 200 and hidden <= _tiles(mine.text)
