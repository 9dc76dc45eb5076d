"""Mixed scripts (issue 16): an Arabic and an English name in the same sentence.

An Arabic name inside an English sentence is isolated (``ledger.i18n.phrases``: FSI ...
PDI around text holding right-to-left letters; ``<bdi>`` in the pages), so the tiles and
numbers after it stay after it: "علي 1-0 2-2 6-3; نور 1-1 6-6" was drawn as
"3-6 2-2 0-1 علي; …". Checked where the reader sees it: the text order Chromium draws
(each character's box) and the text pdftotext reads back from the PDF.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from webtest_support import SAMPLES, Server

from ledger.i18n import ENGLISH, language
from ledger.i18n.phrases import FSI, LRI, PDI, Phrase, word

# For every "NAME TILE" in the text of the elements (NAME in the script given, TILE like
# 6-3): where the name's last character and the tile's first character are drawn.
NAME_THEN_TILE = """([selector, script]) => {
  const name = script === 'arabic' ? '[\\u0600-\\u06ff]+' : '[A-Za-z]+';
  const gap = '[\\u2066-\\u2069]*[ :]+[\\u2066-\\u2069]*';
  const pattern = new RegExp('(' + name + ')' + gap + '([0-6]-[0-6])', 'g');
  const box = (node, i) => { const r = document.createRange(); r.setStart(node, i);
                             r.setEnd(node, i + 1); return r.getBoundingClientRect(); };
  const found = [];
  for (const el of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(pattern)) {
        const first = box(node, m.index), last = box(node, m.index + m[1].length - 1);
        const tile = box(node, m.index + m[0].length - m[2].length);
        if (Math.abs(tile.y - last.y) > 3) continue;  // wrapped onto the next line
        found.push([m[1], m[2], Math.min(first.left, last.left), Math.max(first.right, last.right),
                    tile.left, tile.right]);
      }
    }
  }
  return found;
}"""


def test_an_arabic_name_in_an_english_sentence_is_isolated() -> None:
    """The words: isolates around the Arabic name only, none around a Latin one."""
    said = Phrase("Hands shown: {hands}", hands="; ".join([
        word(Phrase("{name} {tiles}", name="Khalid", tiles="2-2 4-4")),
        word(Phrase("{name} {tiles}", name="علي", tiles="1-0 2-2 6-3"))]))
    text = ENGLISH.word(said)
    assert text == f"Hands shown: Khalid 2-2 4-4; {FSI}علي{PDI} 1-0 2-2 6-3"
    # an Arabic sentence isolates every name, the English one too
    arabic = language("ar").word(Phrase("{name} {tiles}", name="Khalid", tiles="6-6"))
    assert f"{FSI}Khalid{PDI}" in arabic and LRI not in arabic.replace("6-6", "")


@pytest.mark.browser
def test_names_and_tiles_keep_their_order_on_the_replay_page(page: Any, server: Server,
                                                             shot: Any) -> None:
    """Deal 2 of domena-4 ends with "Hands shown: Khalid 2-2 4-4; علي 1-1; Tariq no tiles;
    نور 1-3": in English each Arabic name is drawn left of its tiles; in Arabic (right to
    left) each English name right of its tiles."""
    match = server.id_of("domena-4.json")
    page.goto(f"{server.url}/matches/{match}/replay?step=30&lang=en")
    pairs = page.evaluate(NAME_THEN_TILE, [".ev", "arabic"])
    assert {name for name, *_ in pairs} & {"علي", "نور"}, pairs  # (one may wrap a line)
    for name, tile, _left, right, tile_left, _ in pairs:
        assert tile_left >= right - 1, f"{name} {tile}: the tile is drawn before the name"
    shot("en")
    page.goto(f"{server.url}/matches/{match}/replay?step=30&lang=ar")
    pairs = page.evaluate(NAME_THEN_TILE, [".ev", "latin"])
    assert {name for name, *_ in pairs} & {"Khalid", "Tariq"}, pairs
    for name, tile, left, _right, _, tile_right in pairs:
        assert tile_right <= left + 1, f"{name} {tile}: the tile is drawn before the name"
    shot("ar")


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils is missing")
def test_the_pdf_keeps_an_arabic_name_in_its_place(tmp_path: Path) -> None:
    """pdftotext reads the English sheet of domena-4 with each Arabic name where it is."""
    from ledger.cli import main

    out = tmp_path / "sheet.pdf"
    assert main(["export", str(SAMPLES / "domena-4.json"), "--format", "pdf",
                 "-o", str(out), "--lang", "en"]) == 0
    text = subprocess.run(["pdftotext", "-layout", str(out), "-"], check=True,
                          capture_output=True, text=True).stdout
    # pdftotext marks the right-to-left runs it reads with embeddings and isolates
    plain = re.sub("[\u2066-\u2069\u202a-\u202e\u200e\u200f]", "", text)
    players = next(line for line in plain.splitlines() if line.startswith("Players"))
    # Seats counted from 1, as every sentence says them (issue 34).
    assert players.split(None, 1)[1].strip() == \
        "seat 1: Khalid, seat 2: علي, seat 3: Tariq, seat 4: نور"
