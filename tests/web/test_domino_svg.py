"""The tiles drawn in SVG (web/domino_svg.py): what each drawing holds, and that names
reach it escaped."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ledger.replay.frames import PlacedTile
from web.domino_svg import board_tile, defs, half, hand, svg_num

SVG = "{http://www.w3.org/2000/svg}"


def _parse(markup: str) -> ET.Element:
    # The fragments use href without a namespace (SVG 2); wrap them so they parse as XML.
    return ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{markup}</svg>')


def test_a_hand_draws_its_tiles_in_order_then_the_hidden_ones_face_down() -> None:
    drawn = _parse(hand(["6-3", "2-1", "0-0"], hidden=2, label="Ali's <hand>"))
    row = drawn.find(f"{SVG}svg")
    assert row is not None
    assert row.get("aria-label") == "Ali's <hand>"  # escaped in the markup, read back whole
    groups = row.findall(f"{SVG}g")
    assert [g.get("data-tile") for g in groups] == ["6-3", "2-1", "0-0", None, None]
    assert [g.get("class") for g in groups][-2:] == ["tile face-down"] * 2
    assert [g.get("transform") for g in groups] == [
        "translate(0 0)", "translate(1.2 0)", "translate(2.4 0)", "translate(3.6 0)",
        "translate(4.8 0)"]
    assert row.get("viewBox") == "0 0 5.8 2"  # five tiles 1 wide, 0.2 apart
    halves = [u.get("href") for u in groups[0].findall(f"{SVG}use")]
    assert halves == ["#fu6", "#fu3"]


def test_an_empty_hand_keeps_a_width_of_one_tile() -> None:
    row = _parse(hand([], label="x")).find(f"{SVG}svg")
    assert row is not None and row.get("viewBox") == "0 0 1 2"
    assert row.findall(f"{SVG}g") == []


def test_a_hostile_label_cannot_open_an_element() -> None:
    markup = str(hand(["1-1"], label='"><script>alert(1)</script>'))
    assert "<script>" not in markup
    assert "&#34;&gt;&lt;script&gt;" in markup


def test_a_board_tile_lies_or_stands_and_marks_the_tile_just_laid() -> None:
    lying = PlacedTile("6-3", 2.5, 1.0, False, 6, 3, "left", 4)
    standing = PlacedTile("6-6", 2.0, -1.0, True, 6, 6, "open", 1)
    g = _parse(board_tile(lying, 4)).find(f"{SVG}g")
    assert g is not None
    assert g.get("class") == "tile just-laid"
    assert g.get("transform") == "translate(2.5 1)"
    assert [u.get("href") for u in g.findall(f"{SVG}use")] == ["#fl6", "#fl3"]
    body = g.find(f"{SVG}rect")
    assert body is not None and (body.get("width"), body.get("height")) == ("1.92", "0.92")
    g = _parse(board_tile(standing, 4)).find(f"{SVG}g")
    assert g is not None
    assert g.get("class") == "tile opening"  # not laid at step 4
    assert g.get("transform") == "translate(2 -1)"
    assert [u.get("href") for u in g.findall(f"{SVG}use")] == ["#fu6", "#fu6"]
    assert [(u.get("x"), u.get("y")) for u in g.findall(f"{SVG}use")] == [("0", "0"),
                                                                          ("0", "1")]


def test_a_half_points_to_its_number() -> None:
    assert re.search(r'href="#fu5"', str(half(5)))


def test_numbers_are_written_without_a_trailing_zero() -> None:
    assert [svg_num(v) for v in (2.0, -1.0, 2.5, 0, 1.25)] == ["2", "-1", "2.5", "0", "1.25"]


def test_the_pip_symbols_hold_as_many_pips_as_their_number_upright_and_lying() -> None:
    symbols = {s.get("id"): s for s in _parse(defs()).iter(f"{SVG}symbol")}
    assert sorted(symbols) == sorted(f"f{kind}{n}" for kind in "ul" for n in range(7))
    for name, symbol in symbols.items():
        assert len(symbol.findall(f"{SVG}circle")) == int(name[2]), name
    lying_two = [(c.get("cx"), c.get("cy")) for c in symbols["fl2"].iter(f"{SVG}circle")]
    assert lying_two == [("0.73", "0.27"), ("0.27", "0.73")]  # the diagonal mirrored
