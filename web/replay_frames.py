"""The replay's steps held by the browser: every step of one deal, drawn as the page draws it.

The replay page asks, for the view in its address, for the steps of the deal on the table
(and of the deals beside it, as it nears them) in one answer, so that replay.js draws each
step without a round trip (as lichess holds a game). Each step is the page's own
``replay`` block (web/templates/replay.html) rendered from the frame the route would
draw: ``view_frame`` (ledger.seatview's cut, with web.access's limits) and
``page_context``. So the browser holds, for every step, exactly what that step's page
would show its viewer, and the page and the held steps cannot drift apart.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request

from ledger.replay import deal_span
from ledger.seatview import Viewer
from ledger.store.handles import Connection
from web.lang import request_language, template_context
from web.matchdata import ReplayUnavailable, StoredMatch, load_match
from web.replay_chart import points_lost
from web.replay_marks import Mark, kept_marks
from web.routes.replay import page_context, view_frame
from web.templating import templates


def chunk(types: tuple[str, ...] | list[str], step: int) -> range:
    """The steps held together with ``step``: those of the deal on the table at it (from
    just after its deal event to just before the next one; step 0 goes with the first)."""
    start, stop = deal_span(types, max(step, 1))
    return range(0 if start == 0 else start + 1, stop + 1)


def frames(request: Request, conn: Connection, match_id: int, step: int,
           seat: str | None) -> dict[str, Any]:
    """Every step of the deal on the table at ``step`` as ``seat`` may see it (a query's
    ``seat``: a number, ``table`` or nothing), each as the page's ``replay`` block."""
    Viewer.parse(seat)  # a bad view is refused before anything is read
    # A step past the last holds the last deal (its steps are the chunk's, all in range).
    match = load_match(conn, match_id, step=max(step, 0))
    if match.replay is None or match.rules is None:
        raise ReplayUnavailable(match.id, match.header.preset)
    lost = points_lost(conn, match_id, match.rules) if match.analysed else {}
    return {
        "match": match_id,
        "seat": seat or "",
        "last_step": len(match.types),
        # A match being recorded grows: the browser asks again for its last deal.
        "live": match.origin == "live" and match.status == "recording",
        **steps(request, match, chunk(match.types, max(step, 0)), seat, lost,
                kept_marks(request, conn, match)),
    }


def steps(request: Request, match: StoredMatch, held: range, seat: str | None,
          lost: dict[int, list[int]], marks: dict[int, Mark] | None = None) -> dict[str, Any]:
    """The steps ``held`` as the page draws them; the whole-match charts they show, each
    once (a seat's chart grows as the deals end); ``marks``: the kept review's
    (web.replay_marks)."""
    lang = request_language(request)
    template = templates.env.get_template("replay.html")
    common = {**template_context(request), "request": request}
    charts: list[Any] = []
    keys: dict[str, int] = {}
    made: dict[tuple[int, bool], Any] = {}
    out = []
    for s in held:
        fr = view_frame(request, match, s, seat)
        context = page_context(match, fr, lang, lost, made, marks)
        html = "".join(template.blocks["replay"](template.new_context({**common, **context})))
        chart = context["match_chart"]
        key = json.dumps(chart, sort_keys=True)
        if key not in keys:
            keys[key] = len(charts)
            charts.append(chart)
        out.append({"step": s, "view": str(fr.viewer), "html": html, "chart": keys[key]})
    return {"first": held.start, "last": held.stop - 1, "frames": out, "charts": charts}
