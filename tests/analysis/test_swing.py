"""The swing chart: one line per side through the best-play outcomes, mistakes marked."""

from __future__ import annotations

import plotly.graph_objects as go

from ledger.analysis.review import review_match
from ledger.analysis.swing import swing_figure
from ledger.formats.reader import parse_match
from ledger.rules import make_rules
from ledger.sim.generator import generate_match


def test_figure_is_valid_plotly_and_follows_the_review() -> None:
    match = generate_match("domena", 4, {}, seed=3)
    record = parse_match(match)
    rules = make_rules("domena", 4)
    review = review_match(rules, record.events, deals=[1])[0]
    fig = swing_figure(review, rules, match["seats"])
    go.Figure(fig)  # raises on anything Plotly does not accept
    lines = [t for t in fig["data"] if t["name"] != "lost in hindsight"]
    assert len(lines) == 2
    assert review.best is not None
    for side, trace in enumerate(lines):
        assert trace["y"] == [review.best[side], *[s.outcome[side] for s in review.steps]]
    marks = [t for t in fig["data"] if t["name"] == "lost in hindsight"]
    mistakes = [k for k, s in enumerate(review.steps, start=1) if s.lost > 0]
    assert mistakes, "a random deal has mistakes"
    assert marks and marks[0]["x"] == mistakes
    assert all("lost in hindsight" in text for text in marks[0]["text"])


def test_names_are_escaped_and_unanalysed_deals_say_why() -> None:
    match = generate_match("arab-block", 2, {}, seed=1)
    record = parse_match(match)
    rules = make_rules("arab-block", 2)
    review = review_match(rules, record.events, deals=[0])[0]
    fig = swing_figure(review, rules, ["<b>Ali</b>", "Omar"])
    assert fig["data"][0]["name"] == "&lt;b&gt;Ali&lt;/b&gt;"
    hidden = review.__class__(deal=0, event=0, best=None, note="a hand stays hidden")
    empty = swing_figure(hidden, rules, ["Ali", "Omar"])
    assert empty["data"] == [] and "hidden" in empty["layout"]["title"]["text"]
