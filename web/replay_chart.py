"""The replay's whole-match chart: each side's score after every deal, and the points its
mistakes lost in the deals the ledger has analysed, over the replay's steps.

A Plotly figure as plain data (as ``web.charts``); each point carries the replay step it
stands for (``customdata``), so a click on it opens that step (replay_controls.js). The
points lost come from the analyses the ledger keeps (``ledger.store.read.points_lost``)
that still hold for the match's events; a deal nobody analysed has no bar.
"""

from __future__ import annotations

from html import escape
from typing import Any

from ledger.i18n import Language
from ledger.i18n.phrases import Worded
from ledger.replay import ReplayMatch, deal_ends
from ledger.scoresheet import ScoreSheet
from ledger.store.read import points_lost
from web.charts import COLOURS

__all__ = ["match_chart", "points_lost"]  # the chart and its data (read off the ledger)


def match_chart(replay: ReplayMatch, sheet: ScoreSheet, lost: dict[int, list[int]],
                lang: Language, upto: int | None = None) -> dict[str, Any] | None:
    """The figure (None: no deal was played out); with ``upto``, only the deals over by
    that step (a seat's view knows nothing of later deals)."""
    ends = {deal: last for deal, last in deal_ends(replay).items()
            if deal and (upto is None or last <= upto)}
    rows = [d for d in sheet.deals if d.deal in ends]
    if not rows:
        return None
    data: list[dict[str, Any]] = []
    for side in sheet.sides:
        colour = COLOURS[side.index % len(COLOURS)]
        name = escape(side.name)
        steps = [0, *[ends[d.deal] for d in rows]]
        data.append({
            "type": "scatter", "mode": "lines+markers", "name": name,
            "x": steps, "y": [0, *[d.totals[side.index] for d in rows]],
            "customdata": steps,
            "text": [lang.say("Start"), *[lang.say("Deal {deal}", deal=d.deal) for d in rows]],
            "hovertemplate": "%{text}: %{y}<extra>" + name + "</extra>",
            "line": {"color": colour, "width": 3}, "marker": {"size": 8},
        })
        analysed = [d for d in rows if d.deal in lost]
        if analysed:
            data.append({
                "type": "bar", "yaxis": "y2", "opacity": 0.45,
                "name": lang.say("{name}: points lost", name=side.name),
                "x": [ends[d.deal] for d in analysed],
                "y": [lost[d.deal][side.index] for d in analysed],
                "customdata": [ends[d.deal] for d in analysed],
                "hovertemplate": lang.say("Deal {deal}", deal=Worded("%{text}"))
                + ": %{y}<extra></extra>",
                "text": [d.deal for d in analysed],
                "marker": {"color": colour},
            })
    layout: dict[str, Any] = {
        # The legend under the plot: Plotly's toolbar sits over the top right corner.
        "margin": {"l": 48, "r": 48, "t": 16, "b": 96},
        "height": 340,
        "paper_bgcolor": "rgba(0,0,0,0)", "plot_bgcolor": "rgba(0,0,0,0)",
        "font": {"family": "system-ui, sans-serif", "size": 12, "color": "#1f2421"},
        "xaxis": {"title": {"text": lang.say("Step")}, "gridcolor": "#ebe8df",
                  "zeroline": False, "rangemode": "tozero"},
        "yaxis": {"title": {"text": lang.say("Points")}, "gridcolor": "#ebe8df",
                  "zeroline": False, "rangemode": "tozero"},
        "legend": {"orientation": "h", "y": -0.25, "yanchor": "top", "x": 0,
                   "xanchor": "left"},
        "hovermode": "closest", "barmode": "group",
    }
    if any(t["type"] == "bar" for t in data):
        layout["yaxis2"] = {"title": {"text": lang.say("Points lost")}, "overlaying": "y",
                            "side": "right", "rangemode": "tozero", "showgrid": False}
    return {"data": data, "layout": layout}

