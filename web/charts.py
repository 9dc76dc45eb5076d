"""Plotly figures as plain data: the page hands them to the Plotly the app serves, its
basic partial bundle (web/static/vendor/plotly_basic/), which draws ``scatter`` and ``bar``
traces only: a chart of another type needs another bundle.

A figure is a dict of ``data`` and ``layout`` exactly as Plotly.js reads it; no
Plotly Python object is built on the request path. Text that came from a file
(player names) is HTML-escaped, because Plotly renders a few HTML tags in
labels and names.
"""

from __future__ import annotations

from html import escape
from typing import Any

from ledger.i18n import ENGLISH, Language
from ledger.i18n.phrases import Worded
from ledger.scoresheet import ScoreSheet

# Colour-blind-safe pairs (Okabe-Ito), one per side.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7")


def result_word(lang: Language, result: str) -> str:
    """A deal's result in ``lang``, as the score sheet words it (web/templates/_sheet.html)."""
    tr = lang.translations
    words = {"out": tr.pgettext("result", "out"), "block": tr.pgettext("result", "block"),
             "tie": tr.pgettext("result", "tie")}
    return words.get(result, result)


def score_race(sheet: ScoreSheet, lang: Language = ENGLISH) -> dict[str, Any]:
    """Each side's running score after every deal, from 0 before the first; the target line
    (its words in ``lang``)."""
    deals = list(sheet.deals)
    x = [0, *[d.deal for d in deals]]
    data: list[dict[str, Any]] = []
    for side in sheet.sides:
        y = [0, *[d.totals[side.index] if side.index < len(d.totals) else None for d in deals]]
        hover = [lang.say("Start")]
        for d in deals:
            if d.winner is None:
                what = lang.say("Deal {deal}: {result}, nobody scores", deal=d.deal,
                                result=result_word(lang, d.result))
            else:
                what = lang.say("Deal {deal}: {name} wins ({result}) {gain}", deal=d.deal,
                                name=escape(d.winner_name or "?"),
                                result=result_word(lang, "out" if d.result == "out"
                                                   else "block"),
                                gain=f"+{d.points}")
            if sheet.fives and any(d.fives):
                what += "<br>" + lang.say("Fives this deal: {points}",
                                          points=d.fives[side.index])
            hover.append(what)
        data.append({
            "type": "scatter",
            "mode": "lines+markers",
            "name": escape(side.name),
            "x": x,
            "y": y,
            "text": hover,
            "hovertemplate": "%{text}<br>" + lang.say("{points} points",
                                                      points=Worded("%{y}"))
                             + "<extra>%{fullData.name}</extra>",
            "line": {"color": COLOURS[side.index % len(COLOURS)], "width": 3,
                     "shape": "linear"},
            "marker": {"size": 7},
        })
    shapes: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    if sheet.target:
        shapes.append({"type": "line", "xref": "paper", "x0": 0, "x1": 1, "yref": "y",
                       "y0": sheet.target, "y1": sheet.target,
                       "line": {"color": "#68706b", "width": 1.5, "dash": "dash"}})
        annotations.append({"xref": "paper", "x": 0, "xanchor": "left", "yref": "y",
                            "y": sheet.target, "yanchor": "bottom", "showarrow": False,
                            "text": lang.say("target {target}", target=sheet.target),
                            "font": {"size": 11, "color": "#68706b"}})
    top = max([sheet.target or 0, *[v for t in data for v in t["y"] if v is not None]])
    layout = {
        "margin": {"l": 48, "r": 16, "t": 12, "b": 84},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "font": {"family": "system-ui, -apple-system, Segoe UI, Roboto, Arial, sans-serif",
                 "size": 13, "color": "#1f2421"},
        "xaxis": {"title": {"text": lang.say("Deal")}, "dtick": 1,
                  "range": [-0.2, max(x) + 0.2], "gridcolor": "#ebe8df", "zeroline": False},
        "yaxis": {"title": {"text": lang.say("Points")}, "range": [0, top * 1.08 + 1],
                  "gridcolor": "#ebe8df", "zeroline": False},
        # Under the plot: Plotly's toolbar sits over the top right corner (issue 16).
        "legend": {"orientation": "h", "y": -0.3, "yanchor": "top", "x": 0,
                   "xanchor": "left"},
        "shapes": shapes,
        "annotations": annotations,
        "hovermode": "closest",
    }
    return {"data": data, "layout": layout}
