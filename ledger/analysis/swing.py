"""The swing chart of a deal: the outcome under best play after every move, mistakes marked.

A Plotly figure as plain data (``data`` and ``layout`` as Plotly.js reads them),
so the web page can hand it to the plotly.min.js it serves and the CLI can print
it as JSON. Names that came from a file are HTML-escaped: Plotly renders a few
HTML tags in labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from ledger.analysis.review import DealReview
from ledger.rules.base import Rules

# Colour-blind-safe (Okabe-Ito), one per side, as the score race uses.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7")
MISTAKE = "#B00020"


def side_names(rules: Rules, seats: Sequence[str]) -> list[str]:
    """A side's name: its seat's, or the partners' joined ("Ali & Layla")."""
    names = []
    for side in range(rules.sides):
        members = rules.side_seats(side)
        names.append(" & ".join(seats[s] if s < len(seats) else f"seat {s}" for s in members))
    return names


def swing_figure(review: DealReview, rules: Rules, seats: Sequence[str]) -> dict[str, Any]:
    """Each side's best-play points after every move of the deal; a red mark per mistake.

    Step 0 is the start of the deal (before the opening tile); step k is after the
    k-th move (play, draw or pass). A deal that could not be analysed gives a figure
    with no data and its reason as the title; a position too large to solve leaves a
    gap in the lines.
    """
    names = side_names(rules, seats)
    if not review.analysed:
        return {"data": [], "layout": _layout(0, review.note or "not analysed")}

    def seat_name(seat: int) -> str:
        return escape(seats[seat] if seat < len(seats) else f"seat {seat}")

    x = [0, *range(1, len(review.steps) + 1)]
    hover = ["Start of the deal", *[f"{seat_name(s.seat)}: {escape(s.move)}"
                                    for s in review.steps]]
    data: list[dict[str, Any]] = []
    # A position too large to solve exactly leaves a gap (None) in the lines.
    outcomes = [review.best, *[s.outcome for s in review.steps]]
    for side in range(rules.sides):
        y = [None if o is None else o[side] for o in outcomes]
        data.append({
            "type": "scatter",
            "mode": "lines+markers",
            "name": escape(names[side]),
            "x": x,
            "y": y,
            "text": hover,
            "hovertemplate": "%{text}<br>best play: %{y} points<extra>%{fullData.name}</extra>",
            "line": {"color": COLOURS[side % len(COLOURS)], "width": 3, "shape": "hv"},
            "marker": {"size": 6},
        })
    by_event = {d.event: d for d in review.decisions}
    mx, my, mtext = [], [], []
    for k, step in enumerate(review.steps, start=1):
        if step.lost <= 0 or step.outcome is None:
            continue
        side = rules.side_of(step.seat)
        decision = by_event.get(step.event)
        best = ""
        if decision is not None:
            tops = [str(m) for m in decision.best_moves(side)]
            best = f"<br>best: {escape(', '.join(tops))}"
        mx.append(k)
        my.append(step.outcome[side])
        mtext.append(f"{seat_name(step.seat)} played {escape(step.move)}: lost {step.lost}"
                     f"{best}")
    if mx:
        data.append({
            "type": "scatter",
            "mode": "markers",
            "name": "mistakes",
            "x": mx,
            "y": my,
            "text": mtext,
            "hovertemplate": "%{text}<extra></extra>",
            "marker": {"color": MISTAKE, "size": 12, "symbol": "x"},
        })
    title = f"Deal {review.deal + 1}: best play after each move"
    return {"data": data, "layout": _layout(len(review.steps), title)}


def _layout(steps: int, title: str) -> dict[str, Any]:
    return {
        "title": {"text": escape(title), "font": {"size": 14}},
        "margin": {"l": 48, "r": 16, "t": 40, "b": 44},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "xaxis": {"title": {"text": "Move"}, "range": [-0.3, steps + 0.3],
                  "gridcolor": "#ebe8df", "zeroline": False},
        "yaxis": {"title": {"text": "Points at the end of the deal"}, "rangemode": "tozero",
                  "gridcolor": "#ebe8df", "zeroline": False},
        "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 1,
                   "xanchor": "right"},
        "hovermode": "closest",
    }
