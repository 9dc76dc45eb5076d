"""One number per measure (issue 29, item 3): a mistake is named, and its severity given,
by the knowledge loss alone (``ledger.analysis.measures``); the hindsight loss is shown
beside it and labelled so. The report ``analyse --report`` keeps, the match page's review
table, /players (page and API), the Analysis panel and the PDF say the same for the same
move and player.

The report is worked out by the command with a small K (8 deals a decision) and kept in
the ledger by it, as the match page's post would keep it.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from webtest_support import SAMPLES, analysed, ledger_with

from ledger.analysis.measures import SEVERITIES, severity
from ledger.analysis.review import review_match
from ledger.cli import main
from ledger.formats.reader import read_matches
from ledger.rules import make_rules

SAMPLE = "domena-2.json"
K = "8"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory
         ) -> Iterator[tuple[TestClient, int, dict[str, Any]]]:
    from web.app import create_app

    folder: Path = tmp_path_factory.mktemp("measures")
    url, match_id = ledger_with(folder, SAMPLE)
    out = folder / "report.json"
    args = ["analyse", str(match_id), "--db", url, "--report", "--json", "--samples", K]
    with pytest.MonkeyPatch.context() as mp, out.open("w") as fh:
        mp.setattr("sys.stdout", fh)
        main(args)
    report = json.loads(out.read_text(encoding="utf-8"))
    with TestClient(create_app(url)) as client:
        # Every deal's Analysis worked out (and kept): /players counts hindsight from them.
        for deal in sorted({d["deal"] for d in report["judged"]}):
            assert analysed(client, match_id, deal + 1)[0].status_code == 200
        yield client, match_id, report


def _hindsight() -> dict[int, int]:
    (record,) = read_matches(str(SAMPLES / SAMPLE))
    assert record.header is not None
    h = record.header
    rules = make_rules(h.preset, len(h.seats), dict(h.options))
    return {d.event: d.lost for r in review_match(rules, record.events) for d in r.decisions}


def test_the_report_names_by_knowledge_with_hindsight_beside(
        site: tuple[TestClient, int, dict[str, Any]]) -> None:
    _, _, report = site
    hindsight = _hindsight()
    named = [m for p in report["report"] for m in p["named"]]
    assert named, "the sample has named mistakes"
    for m in named:
        assert m["severity"] == severity(m["knowledge_lost"])
        assert m["hindsight_lost"] == hindsight[m["event"]]
    judged = {d["event"]: d for d in report["judged"]}
    assert {e for e, d in judged.items() if d["severity"]} == {m["event"] for m in named}
    for e, d in judged.items():
        assert d["hindsight_lost"] == hindsight[e]


def test_players_counts_are_the_reports(site: tuple[TestClient, int, dict[str, Any]]) -> None:
    client, _, report = site
    rows = {r["player"]: r for r in client.get("/api/players").json() if r["preset"] == "all"}
    for p in report["report"]:
        row = rows[p["player"]]
        assert [row["inaccuracies"], row["mistakes"], row["blunders"]] == \
            [p["inaccuracies"], p["mistakes"], p["blunders"]], p["player"]
        assert row["hindsight_lost"] == sum(d["hindsight_lost"] or 0 for d in
                                            site[2]["judged"] if d["seat"] == p["seat"])
    html = client.get("/players", params={"lang": "en"}).text
    for p in report["report"]:
        cells = re.search(rf'<tr data-player="{re.escape(p["player"])}" data-preset="all".*?'
                          r'<td class="num sev-inaccuracy">(\d+)</td>\s*'
                          r'<td class="num sev-mistake">(\d+)</td>\s*'
                          r'<td class="num sev-blunder">(\d+)</td>', html, re.S)
        assert cells is not None, p["player"]
        assert list(map(int, cells.groups())) == [p["inaccuracies"], p["mistakes"],
                                                  p["blunders"]]
    assert "hindsight" in html.lower()


def test_the_panel_says_what_the_report_says(site: tuple[TestClient, int, dict[str, Any]]
                                             ) -> None:
    client, match_id, report = site
    judged = {d["event"]: d for d in report["judged"]}
    named = {m["event"]: m for p in report["report"] for m in p["named"]}
    deals = {d["deal"] for d in report["judged"]}
    seen = 0
    for deal in sorted(deals):
        res, _ = analysed(client, match_id, deal + 1)
        body = res.json()
        for d in body["decisions"]:
            k = judged[d["event"]]
            assert d["knowledge_lost"] == k["knowledge_lost"]
            assert d["severity"] == k["severity"]
            assert d["hindsight_lost"] == d["lost"] == k["hindsight_lost"]
            seen += 1
        assert [m["event"] for m in body["mistakes"]] == \
            sorted(e for e, m in named.items() if m["deal"] == deal)
        for m in body["mistakes"]:
            assert m["knowledge_lost"] == named[m["event"]]["knowledge_lost"]
            assert m["severity"] == named[m["event"]]["severity"]
            assert m["hindsight_lost"] == named[m["event"]]["hindsight_lost"]
    assert seen == len(judged)


def test_the_review_table_and_pdf_label_both(site: tuple[TestClient, int, dict[str, Any]]
                                            ) -> None:
    from pypdf import PdfReader

    client, match_id, report = site
    named = [m for p in report["report"] for m in p["named"]]
    html = client.get(f"/matches/{match_id}", params={"lang": "en"}).text
    for m in named:
        item = re.search(rf'data-event="{m["event"]}".*?</li>', html, re.S)
        assert item is not None
        assert f'{m["knowledge_lost"]:.1f}' in item.group(0)
        # "cost 2.7 points (knowledge, ± 0.4 over 8 sampled deals) / 3.0 (hindsight)"
        # (review_phrases.cost_phrase and .measured): the report's own numbers
        basis = f'exact over {m["count"]} deal' if m["exact"] else \
            f'± {m["knowledge_lost_stderr"]:.1f} over {m["samples"]} sampled deal'
        assert f'{m["knowledge_lost"]:.1f} points (knowledge, {basis}' in item.group(0)
        assert f') / {m["hindsight_lost"]:.1f} (hindsight)' in item.group(0)
    data = client.get(f"/matches/{match_id}/sheet.pdf", params={"lang": "en"}).content
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages)
    assert text.count("hindsight") >= len(named)
    assert set(SEVERITIES) == {"inaccuracy", "mistake", "blunder"}
