"""Issue 32, item 10: the import page's status says what became of the upload.

200 when some match of it was stored (or was in the ledger already); 400 with the page
when nothing of it could be read (not JSON, past the reader's caps); 422 with the page
when matches were read but none could be stored (the whole upload refused). Before, both
of the last were 200."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from webtest_support import SAMPLES


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    from web.app import create_app

    db = tmp_path_factory.mktemp("import-status") / "ledger.db"
    with TestClient(create_app(f"sqlite:///{db}"), raise_server_exceptions=False) as got:
        yield got


def _line(obj: object) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def _good() -> dict[str, object]:
    loaded: dict[str, object] = json.loads((SAMPLES / "arab-block-2.json").read_text("utf-8"))
    return loaded


def _upload(client: TestClient, name: str, data: bytes) -> tuple[int, str]:
    res = client.post("/import", files={"file": (name, data)})
    return res.status_code, res.text


def test_nothing_readable_is_400_with_the_page(client: TestClient) -> None:
    for name, data in (("junk.json", b"{not json"), ("junk.jsonl", b"nope\nnor this\n")):
        status, text = _upload(client, name, data)
        assert status == 400, (name, status)
        assert "bad-json" in text and "import-result" in text  # the report, still shown


def test_matches_read_but_none_stored_is_422_with_the_page(client: TestClient) -> None:
    bad = _good() | {"seats": ["Ali", "Ali\x01"]}  # a name no ledger stores
    status, text = _upload(client, "refused.jsonl", _line(bad) + _line(bad))
    assert status == 422
    assert "Not stored" in text and "import-result" in text


def test_stored_or_known_is_200_even_beside_refused_lines(client: TestClient) -> None:
    mixed = b"nope\n" + _line(_good())
    assert _upload(client, "mixed.jsonl", mixed)[0] == 200
    assert _upload(client, "again.json", _line(_good()))[0] == 200  # in the ledger already


def test_the_statuses_are_stated(client: TestClient) -> None:
    doc = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
    assert "answers 400" in doc and "422" in doc
