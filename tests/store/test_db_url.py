"""A database URL the ledger cannot run on is named in one line (issue 19), no traceback."""

from __future__ import annotations

import pytest

from ledger.store import db
from ledger.store.errors import StoreError
from web.cli import main


@pytest.mark.parametrize("url", ["mysql://ali:secret@db.example/ledger",
                                 "oracle+cx_oracle://ali:secret@db.example/x",
                                 "sqlite+aiosqlite:///ledger.db"])
def test_an_unsupported_scheme_is_named_in_one_line(
        url: str, capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["verify"], ["import", "nothing.jsonl"], ["rebuild"]):
        assert main([*command, "--db", url]) == 2
        out, err = capsys.readouterr()
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1
        assert "which the ledger does not run on" in err
        assert url.split("://")[0] in err and "secret" not in err
        assert "postgresql+psycopg://" in err


@pytest.mark.parametrize("url", ["not a url", "ali:secret@db.example"])
def test_a_string_that_is_no_url_is_named_without_its_password(url: str) -> None:
    with pytest.raises(StoreError) as got:
        db.open_db(url)
    assert "is not a database URL" in got.value.message
    assert "secret" not in got.value.message
