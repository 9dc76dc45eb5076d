"""Pages word stored findings from their stored phrase: no audit runs to read them.

Issue 17, point 2. A match page or replay in Arabic of an imported match shows each
finding in Arabic, worded from the phrase stored with it; the audit's entry points
(``tests/audit_calls.py``: a counting wrapper, the functions run as ever) are never
called. An import in Arabic audits each match once, to store it, and words its report
from what it stored. The server is real uvicorn over a ledger of this module's own.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from webtest_support import SAMPLES, serving

from ledger.audit import audit_record
from ledger.findings import Finding
from ledger.formats.reader import read_matches
from ledger.i18n import language
from tests.audit_calls import counting_audits

ARABIC = re.compile("[\u0600-\u06ff]")
NAMES = ["illegal-pass.json", "bad-deal.json", "wrong-draw.json", "false-block.json"]
TEXT = re.compile(r'class="finding-text">(.*?)</(?:div|span)>', re.S)


def _findings(path: Path) -> list[Finding]:
    return list(audit_record(next(read_matches(path))).findings)


def _seats(path: Path) -> tuple[str, ...]:
    header = next(read_matches(path)).header
    assert header is not None
    return tuple(header.seats)


def _arabic(path: Path) -> list[str]:
    """Each finding as the pages say it: a seat by its player's name and its number from 1
    (issue 34)."""
    return [language("ar").finding(f, seats=_seats(path)) for f in _findings(path)]


def _texts(page: str) -> list[str]:
    return [html.unescape(t).strip() for t in TEXT.findall(page)]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, int]]]:
    from ledger.store.db import open_db, writing
    from ledger.store.imports.importer import import_file
    from web.app import create_app

    db_url = f"sqlite:///{tmp_path_factory.mktemp('stored-findings') / 'ledger.db'}"
    engine = open_db(db_url)
    ids: dict[str, int] = {}
    try:
        for name in NAMES:
            with writing(engine) as session:
                (got,) = import_file(session, str(SAMPLES / "faulty" / name))
                assert got.id is not None
                ids[name] = got.id
    finally:
        engine.dispose()
    with serving(create_app(db_url)) as url:
        yield url, ids


@pytest.mark.parametrize("name", NAMES)
def test_an_arabic_match_page_and_replay_do_not_audit(site: tuple[str, dict[str, int]],
                                                      name: str) -> None:
    url, ids = site
    path = SAMPLES / "faulty" / name
    want = _arabic(path)
    first = next(f for f in _findings(path) if f.event is not None)
    with httpx.Client(base_url=url, timeout=60) as client, counting_audits() as calls:
        page = client.get(f"/matches/{ids[name]}?lang=ar")
        replay = client.get(f"/matches/{ids[name]}/replay?step={first.event + 1}&lang=ar")
    assert page.status_code == replay.status_code == 200
    assert calls.audits == 0
    assert _texts(page.text) == want
    assert language("ar").finding(first, seats=_seats(path)) in _texts(replay.text)
    assert all(ARABIC.search(t) for t in want)


def test_an_arabic_import_audits_each_match_once(site: tuple[str, dict[str, int]]) -> None:
    url, _ = site
    path = SAMPLES / "faulty" / "illegal-draw.json"  # not in this ledger yet
    want = _arabic(path)
    with httpx.Client(base_url=url, timeout=60) as client, counting_audits() as calls:
        res = client.post("/import?lang=ar", files={"file": (path.name, path.read_bytes())})
    assert res.status_code == 200
    assert calls.counts["audit_record"] == 1  # the importer's audit, nothing after it
    assert _texts(res.text) == want
    seats = _seats(path)
    assert any(f"{seats[0]}\u2069 (المقعد \u20661\u2069)" in t for t in want)
