"""Printable hand records (issue 34, item 7): a page per deal with the hands as dealt, the
play in order, the result and the review's marks; from ``export --hand-record`` and the
web's /matches/{id}/hand-records.pdf (the same bytes, the PDF's making time aside); refused
during a live deal without the recorder's key."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

from ledger.cli import main
from ledger.events import Dealt, Played
from ledger.formats.reader import read_matches
from ledger.replay import ReplayMatch
from tests.exports.corpus import SAMPLES
from tests.exports.test_pdf_bidi import layout, reading

SAMPLE = "domena-4.json"   # four seats, two of them with Arabic names
_MADE = re.compile(rb"/CreationDate \(D:\d{14}Z\)|/ID \[<[0-9A-F]{32}><[0-9A-F]{32}>\]")
poppler = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils")


def _deals() -> list[tuple[Dealt, list[Played]]]:
    (record,) = read_matches(SAMPLES / SAMPLE)
    out: list[tuple[Dealt, list[Played]]] = []
    for ev in record.events:
        if isinstance(ev, Dealt):
            out.append((ev, []))
        elif isinstance(ev, Played):
            out[-1][1].append(ev)
    return out


def _pages(data: bytes) -> list[str]:
    return [p.extract_text() for p in PdfReader(io.BytesIO(data)).pages]


def test_the_cli_writes_a_page_per_deal_with_hands_and_plays(tmp_path: Path) -> None:
    out = tmp_path / "hands.pdf"
    assert main(["export", str(SAMPLES / SAMPLE), "--hand-record", str(out),
                 "--lang", "en"]) == 0
    pages = _pages(out.read_bytes())
    deals = _deals()
    starts = [p for p in pages if p.startswith("Hand record: deal")]
    assert len(starts) == len(deals)
    (record,) = read_matches(SAMPLES / SAMPLE)
    assert record.header is not None
    seats = record.header.seats
    for n, (text, (dealt, plays)) in enumerate(zip(starts, deals, strict=True), start=1):
        page = re.sub(r"\s+", " ", text)
        assert page.startswith(f"Hand record: deal {n}")
        for hand in dealt.hands:
            assert hand is not None
            assert " ".join(str(t) for t in hand) in page
        # the plays in order, each worded with the player's name
        at = 0
        for p in plays:
            said = f"{seats[p.seat]} plays {p.tile}"
            found = page.find(said, at) if seats[p.seat].isascii() else page.find(str(p.tile), at)
            assert found >= 0, (n, said)
            at = found
        assert "Result: Deal" in page


def test_hand_record_without_format_and_clear_error(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(SAMPLES / SAMPLE)]) == 2
    assert "--hand-record" in capsys.readouterr().err
    assert main(["export", str(SAMPLES / SAMPLE), "--format", "pdf"]) == 2
    assert "go together" in capsys.readouterr().err


@poppler
def test_the_arabic_hand_record_reads_in_order(tmp_path: Path) -> None:
    from ledger.exports.hand_record import hand_record_bytes
    from ledger.exports.selection import from_record
    from ledger.i18n import language

    (record,) = read_matches(SAMPLES / SAMPLE)
    selected = from_record(record, "7")
    assert selected is not None
    lines = layout(tmp_path, hand_record_bytes([selected], language("ar")))
    assert record.header is not None
    dealt, _ = _deals()[0]
    # each seat's hand as dealt, read right to left: its tiles in the order dealt, whole
    for seat, name in enumerate(record.header.seats):
        hand = dealt.hands[seat]
        assert hand is not None
        row = [reading(line) for line in lines if name in line and str(hand[0]) in line][0]
        assert [w for w in row if re.fullmatch(r"\d-\d", w)] == [str(t) for t in hand]


def test_deals_of_a_record_keep_their_events() -> None:
    from ledger.exports.hand_record import deal_records
    from ledger.rules import make_rules

    (record,) = read_matches(SAMPLES / "selminha-4-redeal.json")
    h = record.header
    assert h is not None
    rules = make_rules(h.preset, len(h.seats), dict(h.options))
    match = ReplayMatch.of(rules, h.seats, record.events)
    deals = deal_records(match)
    assert sum(len(d.events) for d in deals) == len(
        [t for t in match.types[match.types.index("deal"):]])
    redealt = [d for d in deals if sum(e.type == "deal" for e in d.events) > 1]
    assert redealt, "the sample has a redeal"
    for d in redealt:
        last = [e for e in d.events if e.type == "deal"][-1]
        ev = match.events[last.index]
        assert isinstance(ev, Dealt)
        assert d.hands == tuple(tuple(str(t) for t in h) for h in ev.hands if h is not None)
