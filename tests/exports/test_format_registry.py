"""One registry of score sheet formats (``ledger.exports.formats``): a format registered
once is a ``--format`` choice of ``domino-ledger export``, a button on the match page and
a file the page serves (docs/architecture.md, *Add an export format*)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from ledger.exports.formats import SHEET_FORMATS, SheetFormat, register, unregister
from ledger.i18n import Language
from ledger.scoresheet import ScoreSheet

SAMPLE = Path(__file__).resolve().parents[2] / "sample_matches" / "domena-4.json"


def totals_text(sheets: Sequence[ScoreSheet], lang: Language) -> bytes:
    """The new format's writer: each sheet's final scores, one line per match."""
    return b"".join(" ".join(map(str, s.scores)).encode() + b"\n" for s in sheets)


@pytest.fixture
def totals() -> Iterator[SheetFormat]:
    fmt = SheetFormat("totals", "text/plain; charset=utf-8", "Totals",
                      f"{__name__}:totals_text")
    register(fmt)
    yield fmt
    unregister(fmt.name)


def _format_choices() -> list[str]:
    from ledger.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    export = sub.choices["export"]
    return list(next(a for a in export._actions if a.dest == "format").choices or ())


def test_the_shipped_formats_are_the_commands_and_the_pages() -> None:
    assert list(SHEET_FORMATS) == ["csv", "json", "pdf"]
    assert _format_choices() == ["csv", "json", "pdf", "match"]


def test_a_registered_format_is_a_command_choice(totals: SheetFormat) -> None:
    assert "totals" in _format_choices()


def test_a_registered_format_is_written_by_the_command(totals: SheetFormat,
                                                         tmp_path: Path) -> None:
    from ledger.cli import main

    out = tmp_path / "t.txt"
    assert main(["export", str(SAMPLE), "--format", "totals", "-o", str(out)]) == 0
    assert out.read_text().strip() != ""
    assert all(part.isdigit() for part in out.read_text().split())


def test_a_registered_format_is_a_button_and_a_file_of_the_match_page(
        totals: SheetFormat, tmp_path: Path) -> None:
    from ledger.store.db import open_db, writing
    from ledger.store.imports.importer import import_file
    from web.app import create_app

    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    engine = open_db(url)
    with writing(engine) as session:
        match_id = next(import_file(session, str(SAMPLE))).id
    engine.dispose()
    with TestClient(create_app(url)) as client:
        page = client.get(f"/matches/{match_id}").text
        for name in ("csv", "json", "pdf", "totals"):
            assert f'href="/matches/{match_id}/sheet.{name}"' in page, name
        assert ">Totals</a>" in page
        got = client.get(f"/matches/{match_id}/sheet.totals")
        assert got.status_code == 200
        assert got.headers["content-type"] == "text/plain; charset=utf-8"
        assert got.content.split() and all(p.isdigit() for p in got.content.split())
        unregister("totals")
        assert client.get(f"/matches/{match_id}/sheet.totals").status_code == 404
