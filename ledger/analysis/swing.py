"""The swing chart of a deal: the outcome under best play after every move, the moves that
lost points in hindsight marked (a mark names no mistake: ``ledger.analysis.measures``).

A Plotly figure as plain data (``data`` and ``layout`` as Plotly.js reads them),
so the web page can hand it to the plotly.min.js it serves and the CLI can print
it as JSON. Names that came from a file are HTML-escaped: Plotly renders a few
HTML tags in labels.

Its words follow a language. ``swing_source`` keeps every sentence of the figure
as a phrase, in the JSON form findings are stored in (``{"phrase": template,
"params": ...}``), so a figure worked out once can be worded later in any
language by ``word_figure``; ``swing_figure`` does both at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from ledger.analysis.review import DealReview
from ledger.engine.moves import Move
from ledger.i18n import ENGLISH, Language, Phrase
from ledger.i18n.phrases import (
    Counted,
    clauses,
    phrase_from_json,
    phrase_to_json,
    seat_named,
)
from ledger.rules.base import Rules

# Colour-blind-safe (Okabe-Ito), one per side, as the score race uses.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7")
MISTAKE = "#B00020"

Text = str | Phrase


def side_names(rules: Rules, seats: Sequence[str]) -> list[str]:
    """A side's name: its seat's, or the partners' joined ("Ali & Layla")."""
    names = []
    for side in range(rules.sides):
        members = rules.side_seats(side)
        names.append(" & ".join(seats[s] if s < len(seats) else f"seat {s}" for s in members))
    return names


def swing_figure(review: DealReview, rules: Rules, seats: Sequence[str],
                 lang: Language = ENGLISH) -> dict[str, Any]:
    """The swing chart worded in ``lang`` (see ``swing_source``)."""
    figure: dict[str, Any] = word_figure(swing_source(review, rules, seats), lang)
    return figure


def word_figure(figure: Any, lang: Language) -> Any:
    """A figure of ``swing_source`` with every phrase worded in ``lang``."""
    if isinstance(figure, dict):
        if isinstance(figure.get("phrase"), str):
            return lang.word(_phrase_of(figure))
        return {k: word_figure(v, lang) for k, v in figure.items()}
    if isinstance(figure, list):
        return [word_figure(v, lang) for v in figure]
    return figure


def swing_source(review: DealReview, rules: Rules, seats: Sequence[str]) -> dict[str, Any]:
    """Each side's best-play points after every move of the deal; a red mark per move that
    lost points in hindsight.

    Step 0 is the start of the deal (before the opening tile); step k is after the
    k-th move (play, draw or pass). A deal that could not be analysed gives a figure
    with no data and its reason as the title; a position too large to solve leaves a
    gap in the lines. Sentences are phrases (JSON), for ``word_figure``.
    """
    if not review.analysed:
        note = clauses(review.note_phrases)
        title: Text = (_escaped(note) if note is not None
                       else escape(review.note) if review.note else Phrase("not analysed"))
        return {"data": [], "layout": _layout(0, title)}

    def name(seat: int) -> Text:
        return seat_named(seat, escape(seats[seat]) if seat < len(seats) else None)

    x = [0, *range(1, len(review.steps) + 1)]
    lines: list[Text] = [Phrase("Start of the deal"),
                         *[_move_line(name(s.seat), s.move) for s in review.steps]]
    data: list[dict[str, Any]] = []
    # A position too large to solve exactly leaves a gap (None) in the lines.
    outcomes = [review.best, *[s.outcome for s in review.steps]]
    for side in range(rules.sides):
        y = [None if o is None else o[side] for o in outcomes]
        data.append({
            "type": "scatter",
            "mode": "lines+markers",
            "name": _json(_side_name(rules, seats, side)),
            "x": x,
            "y": y,
            "text": [_json(t) for t in lines],
            "customdata": [_json(Counted("best play: {count} point", "best play: {count} points",
                                         v)) if v is not None else "" for v in y],
            "hovertemplate": "%{text}<br>%{customdata}<extra>%{fullData.name}</extra>",
            "line": {"color": COLOURS[side % len(COLOURS)], "width": 3, "shape": "hv"},
            "marker": {"size": 6},
        })
    by_event = {d.event: d for d in review.decisions}
    mx, my, mtext, mbest = [], [], [], []
    for k, step in enumerate(review.steps, start=1):
        if step.lost <= 0 or step.outcome is None:
            continue
        side = rules.side_of(step.seat)
        decision = by_event.get(step.event)
        tops = [] if decision is None else [_move_words(str(m))
                                            for m in decision.best_moves(side)]
        mx.append(k)
        my.append(step.outcome[side])
        mtext.append(_json(Counted("{move}: {count} point lost in hindsight",
                                   "{move}: {count} points lost in hindsight", step.lost,
                                   move=_move_line(name(step.seat), step.move))))
        mbest.append(_json(Phrase("best: {moves}", moves=tops)) if tops else "")
    if mx:
        data.append({
            "type": "scatter",
            "mode": "markers",
            "name": _json(Phrase("lost in hindsight")),
            "x": mx,
            "y": my,
            "text": mtext,
            "customdata": mbest,
            "hovertemplate": "%{text}<br>%{customdata}<extra></extra>",
            "marker": {"color": MISTAKE, "size": 12, "symbol": "x"},
        })
    title = Phrase("Deal {deal}: best play after each move", deal=review.deal + 1)
    return {"data": data, "layout": _layout(len(review.steps), title)}


def _layout(steps: int, title: Text) -> dict[str, Any]:
    return {
        "title": {"text": _json(title), "font": {"size": 14}},
        "margin": {"l": 48, "r": 16, "t": 40, "b": 84},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "xaxis": {"title": {"text": _json(Phrase("Move"))}, "range": [-0.3, steps + 0.3],
                  "gridcolor": "#ebe8df", "zeroline": False},
        "yaxis": {"title": {"text": _json(Phrase("Points at the end of the deal"))},
                  "rangemode": "tozero", "gridcolor": "#ebe8df", "zeroline": False},
        # Under the plot: Plotly's toolbar sits over the top right corner (issue 16).
        "legend": {"orientation": "h", "y": -0.3, "yanchor": "top", "x": 0,
                   "xanchor": "left"},
        "hovermode": "closest",
    }


def _side_name(rules: Rules, seats: Sequence[str], side: int) -> Text:
    members = rules.side_seats(side)
    if all(s < len(seats) for s in members):
        return escape(" & ".join(seats[s] for s in members))
    said: Text = ""
    for s in members:
        one: Text = escape(seats[s]) if s < len(seats) else seat_named(s)
        said = one if said == "" else Phrase("{a} and {b}", a=said, b=one)
    return said


def _move_line(name: Text, move: str) -> Text:
    """A recorded move as the replay words it ("Ali plays 6-3 on the left")."""
    m = Move.parse(move)
    if m.kind == "draw":
        return Phrase("{name} draws from the stock", name=name)
    if m.kind == "pass":
        return Phrase("{name} passes", name=name)
    tile = str(m.tile)
    if m.end == "left":
        return Phrase("{name} plays {tile} on the left", name=name, tile=tile)
    if m.end == "right":
        return Phrase("{name} plays {tile} on the right", name=name, tile=tile)
    if m.end == "up":
        return Phrase("{name} plays {tile} on the spinner's up arm", name=name, tile=tile)
    if m.end == "down":
        return Phrase("{name} plays {tile} on the spinner's down arm", name=name, tile=tile)
    return Phrase("{name} plays {tile}", name=name, tile=tile)


def _move_words(move: str) -> Text:
    """A move without its player, for a list of the best ones ("6-3 on the left").

    Only plays come here: drawing and passing are never a choice (a seat draws or
    passes only when it cannot play), so they stay as their canonical text.
    """
    m = Move.parse(move)
    if m.kind != "play":
        return move
    tile = str(m.tile)
    if m.end == "left":
        return Phrase("{tile} on the left", tile=tile)
    if m.end == "right":
        return Phrase("{tile} on the right", tile=tile)
    if m.end == "up":
        return Phrase("{tile} on the spinner's up arm", tile=tile)
    if m.end == "down":
        return Phrase("{tile} on the spinner's down arm", tile=tile)
    return tile


def _json(text: Text) -> Any:
    """A sentence in the figure: text as it is, a phrase as its JSON form."""
    return phrase_to_json(text) if isinstance(text, Phrase) else text


def _phrase_of(obj: dict[str, Any]) -> Phrase:
    phrase = phrase_from_json(obj)
    assert phrase is not None  # word_figure sends only objects with a "phrase"
    return phrase


def _escaped(phrase: Phrase) -> Phrase:
    """``phrase`` with its text values HTML-escaped (Plotly renders a few tags): a note can
    quote the record."""
    def esc(value: object) -> object:
        if isinstance(value, Phrase):
            return _escaped(value)
        if isinstance(value, str):
            return escape(value)
        if isinstance(value, (list, tuple)):
            return type(value)(esc(v) for v in value)
        return value
    return Phrase(phrase.template, phrase.plural, **{k: esc(v) for k, v in phrase.params.items()})
