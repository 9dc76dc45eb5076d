"""Forms answered in the page's language, their errors on the page (issue 33, item 6).

What-if's Target empty means the other table's own (its placeholder says so); a Target
that is no number, or out of range, is said on the what-if page itself beside the form,
in the page's language. Any other field of a page's address that is not what the page
takes is worded in the page's language too (pydantic's messages are English only); the
JSON API keeps pydantic's answer.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from webtest_support import Server

from ledger.analysis.whatif import what_if
from ledger.formats.reader import parse_match

ARABIC = re.compile("[\u0600-\u06ff]")
MATCH = "domena-4.json"


@pytest.fixture(scope="module")
def client(server: Server) -> Any:
    with httpx.Client(base_url=server.url, timeout=60) as c:
        yield c


def _error(html: str) -> str:
    found = re.search(r'<p class="finding error" id="whatif-error" role="alert">(.*?)</p>',
                      html, re.S)
    assert found is not None, "no error on the what-if page"
    return found.group(1)


def test_an_empty_target_is_the_tables_own(client: Any, server: Server) -> None:
    match_id = server.id_of(MATCH)
    res = client.get(f"/matches/{match_id}/whatif",
                     params={"rules": "casual-arena", "target": "", "lang": "ar"})
    assert res.status_code == 200, res.text[:500]
    w = what_if(parse_match(server.sample(MATCH)), "casual-arena", {})
    assert 'id="whatif-error"' not in res.text
    assert ('id="whatif-all-legal"' in res.text) == (w.stop is None)


@pytest.mark.parametrize("lang", ["en", "ar"])
@pytest.mark.parametrize("typed", ["abc", "-5", "99999999999", "1.5"])
def test_a_wrong_target_is_said_on_the_page_in_its_language(
        client: Any, server: Server, lang: str, typed: str) -> None:
    match_id = server.id_of(MATCH)
    res = client.get(f"/matches/{match_id}/whatif",
                     params={"rules": "casual-arena", "target": typed, "lang": lang})
    assert res.status_code == 422
    said = _error(res.text)
    assert "Input should be" not in res.text  # never pydantic's English
    assert bool(ARABIC.search(said)) == (lang == "ar")
    # The form is still there, holding what was typed, marked and tied to the error.
    assert 'id="whatif-form"' in res.text
    target = re.search(r'<input type="number" name="target" id="whatif-target"[^>]*>', res.text)
    assert target is not None
    assert f'value="{typed}"' in target.group(0)
    assert 'aria-invalid="true"' in target.group(0)
    assert 'aria-describedby="whatif-error"' in target.group(0)
    assert 'id="whatif-verdict"' not in res.text  # nothing compared


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_wrong_field_of_an_address_is_worded_in_the_pages_language(
        client: Any, server: Server, lang: str) -> None:
    match_id = server.id_of(MATCH)
    res = client.get(f"/matches/{match_id}/replay", params={"step": "x", "lang": lang})
    assert res.status_code == 422
    assert "Input should be" not in res.text
    main = re.search(r"<main.*?</main>", res.text, re.S)
    assert main is not None and "step" in main.group(0)
    assert bool(ARABIC.search(main.group(0))) == (lang == "ar")
    res = client.get(f"/matches/{match_id}/replay", params={"step": "-3", "lang": lang})
    if res.status_code == 422:  # a step below the first is refused, worded (else: opened)
        assert "Input should be" not in res.text


def test_the_api_keeps_pydantics_answer(client: Any, server: Server) -> None:
    match_id = server.id_of(MATCH)
    res = client.get(f"/api/matches/{match_id}/whatif",
                     params={"rules": "casual-arena", "target": "abc"})
    assert res.status_code == 422
    assert res.json()["detail"][0]["loc"] == ["query", "target"]
