// The replay's Analysis panel (issue 6): best play at the step on the table, the options
// of the move just made with what each would have given, mistakes (named by what the
// player knew, from the kept review) marked "?!", "?" or "??" with their knowledge loss
// and the hindsight loss beside, the deal's swing chart and what the viewing seat knew;
// a move the review named a best bet for shows the move played, that best bet and what
// the difference cost side by side (issue 34).
//
// The deal's analysis is asked for (GET /api/matches/{id}/analysis?deal=N) only when the
// panel is opened or "n" / "p" is pressed: "n" goes to the next mistake's step, "p" to
// the previous one (in later or earlier deals when this one has no more). The panel sits
// outside #replay, so it stays open while replay.js draws the steps in place.
//
// The server works a deal out off the request: it answers 202 with how many positions
// are solved until the analysis is ready, and this script asks again meanwhile, showing
// the count for the deal on the table only (an answer for a deal left behind is kept
// for later, never shown on another deal).
(() => {
  "use strict";

  // --- words: _() comes from words.js, loaded before this file; _(msgid, null) is the
  // sentence with its %(slots)s still open, for sayNodes.

  // The same sentence as nodes: each value in its own <bdi>, so a name written right to
  // left stays where the sentence puts it (on English pages too, without isolates).
  function sayNodes(text, values = {}) {
    const out = [];
    let last = 0;
    for (const m of text.matchAll(/%\((\w+)\)s/g)) {
      out.push(text.slice(last, m.index));
      const bdi = document.createElement("bdi");
      bdi.textContent = String(values[m[1]] ?? "");
      out.push(bdi);
      last = m.index + m[0].length;
    }
    out.push(text.slice(last));
    return out;
  }

  const panel = document.getElementById("analysis-panel");
  if (!panel) return;
  const matchId = panel.dataset.match;
  const status = document.getElementById("analysis-status");
  const root = () => document.getElementById("replay");
  const loaded = new Map();   // deal -> Promise of its analysis (null: none)
  const progress = new Map(); // deal -> the server's last 202 answer, while it works
  const failed = new Map();   // deal -> why the server could not analyse it
  const lang = document.documentElement.lang || "";
  let awaited = null;         // the deal the panel is waiting for (its progress is shown)
  let chartDeal = null;

  function el(tag, attrs = {}, ...kids) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v; else node.setAttribute(k, v === true ? "" : v);
    }
    for (const kid of kids.flat()) {
      if (kid !== null && kid !== undefined) node.append(kid instanceof Node ? kid : String(kid));
    }
    return node;
  }
  const ltr = (text) => el("bdi", { dir: "ltr" }, text);
  // A move as the server words it in the page's language (its tile isolated inside);
  // the English notation stays set apart left to right, as it always was.
  // Each tile of a worded move kept whole (a line may not break "3-1" at its hyphen).
  const tilesKept = (text) => text.split(/(\d-\d)/).map((part, i) => (i % 2 ? ltr(part) : part));
  const moveText = (worded, english) =>
    (worded && worded !== english ? el("bdi", {}, tilesKept(worded)) : ltr(english));

  function view() {
    const d = root() ? root().dataset : {};
    // A seat (a number), the table only ("table") or all hands open (null).
    const seat = d.seat === undefined || d.seat === "" ? null
      : (d.seat === "table" ? "table" : Number(d.seat));
    return { step: Number(d.step || 0), deal: Number(d.deal || 0), last: Number(d.last || 0),
             seat };
  }

  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // Asks until the analysis is ready: soon at first (a small deal is ready at once),
  // then twice a second.
  // In a seat's (or the table's) view the server cuts the analysis to what that view saw by
  // the step: asked again at every step, kept per deal, step and view.
  async function ask(deal, v) {
    const url = `/api/matches/${matchId}/analysis?deal=${deal}`
      + (v.seat === null ? "" : `&seat=${v.seat}&step=${v.step}`)
      + (lang ? `&lang=${encodeURIComponent(lang)}` : "");
    for (let tries = 0; ; tries += 1) {
      const res = await fetch(url, { headers: { Accept: "application/json" }, cache: "no-store" });
      if (res.status === 503) {  // every worker busy with a long queue: a while, then again
        await pause(2000);
        continue;
      }
      if (res.status !== 202) {
        progress.delete(deal);
        if (res.ok) return res.json();
        const body = await res.json().catch(() => null);
        const e = body && body.error;
        failed.set(deal, e ? String(e.message_worded || e.message || "") : "");
        return null;
      }
      progress.set(deal, await res.json());
      if (deal === awaited) say(progressText(deal));
      await pause(tries < 3 ? 150 * (tries + 1) : 500);
    }
  }

  // ``whole``: the deal as a whole (all hands open), for going from mistake to mistake;
  // the server refuses it while the deal is being recorded.
  function analysis(deal, whole = false) {
    if (deal < 1) return Promise.resolve(null);
    const v = view();
    const at = whole || v.seat === null || deal !== v.deal ? { seat: null, step: 0 } : v;
    const kept = at.seat === null ? String(deal) : `${deal}/${at.seat}/${at.step}`;
    if (!loaded.has(kept)) {
      const got = ask(deal, at).catch(() => { loaded.delete(kept); return null; });
      loaded.set(kept, got);
    }
    return loaded.get(kept);
  }

  // Waits for a deal's analysis, showing how far the server is with it meanwhile.
  function waitFor(deal, whole = false) {
    awaited = deal;
    say(progress.has(deal) ? progressText(deal) : _("Working out best play…"));
    return analysis(deal, whole);
  }

  function progressText(deal) {
    const p = progress.get(deal);
    if (!p || p.status === "queued") return _("Waiting for the analysis of another deal…");
    if (!p.total) return _("Solving this deal…");
    return _("Solving this deal: %(done)s of %(total)s positions…",
             { done: p.done, total: p.total });
  }

  function say(text) { status.textContent = text; }

  // --- what the panel shows ---------------------------------------------------------
  // Each side's points, every name set apart (<bdi>) so that names written right to
  // left keep the points next to their own name.
  function outcomeText(a, out) {
    if (!out) return el("span", { class: "muted" }, _("too large to solve exactly"));
    const parts = a.sides.map((name, i) => el("span", { class: "side-points" },
      el("bdi", {}, name), ": ", el("b", { dir: "ltr" }, String(out[i]))));
    return el("span", { class: "outcome" },
              parts.flatMap((p, i) => (i ? [" · ", p] : [p])));
  }

  function severityWord(s) {
    return { inaccuracy: _("inaccuracy"), mistake: _("mistake"), blunder: _("blunder") }[s] || s;
  }

  // The signs of chess annotation, as the event list marks the moves (web/replay_marks.py).
  const SYMBOLS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
  const sign = (s) => el("span", { class: `mark-sign sev-${s}`, dir: "ltr", title: severityWord(s) },
                         SYMBOLS[s] || "?");

  // The move played and the best bet by what its player knew, with what the difference cost
  // (the kept review's knowledge loss), side by side: none of it is hindsight, so a seat's
  // view of its own move shows it while the deal is still played. Only where the review
  // named a best bet (a mistake of some severity, or bad luck).
  function knowledgeMove(d) {
    if (d.knowledge_lost == null || !d.knowledge_best || !d.knowledge_best.length) return null;
    const best = d.knowledge_best.map((m, i) => moveText((d.knowledge_best_worded || [])[i], m));
    const cost = el("b", { dir: "ltr" }, _("%(points)s points", { points: d.knowledge_lost.toFixed(1) }));
    return el("div", { class: "knowledge-move", id: "analysis-knowledge-move",
                       "data-severity": d.severity || "", "data-best": d.knowledge_best.join(" | ") },
      el("div", { class: `km-played sev-${d.severity || "none"}` },
         el("span", { class: "label" }, _("Played")), el("b", {}, moveText(d.played_worded, d.played))),
      el("div", { class: "km-best" }, el("span", { class: "label" }, _("Best by what the player knew")),
         el("b", {}, best.flatMap((b, i) => (i ? [" / ", b] : [b])))),
      el("div", { class: "km-cost" }, el("span", { class: "label" }, _("Cost")), cost,
         d.severity ? [" ", sign(d.severity), " ", severityWord(d.severity)] : null));
  }

  // The moves "n" and "p" go to: the mistakes the review by what each player knew named,
  // or, without that review, the moves that lost points in hindsight.
  function marks(a) {
    return a.knowledge_review ? a.mistakes : (a.hindsight_losses || []);
  }

  // Those a view may be led to: a seat's (or the table's) view only to the seat's own
  // mistakes named by what it knew; where a move lost points in hindsight, or another
  // seat's mistake, is worked out from hands the viewer did not see.
  function jumpMarks(a, v) {
    if (v.seat === null) return marks(a);
    return a.knowledge_review ? a.mistakes.filter((m) => m.seat === v.seat) : [];
  }

  function worth(a, out, side) {
    return a.sides.length === 2 ? out[side] - out[1 - side] : out[side];
  }

  // Moves come worded in the page's language too (played_worded, move_worded); the English
  // notation (played, move) is what they are compared and marked by.
  function renderNow(a, v) {
    const box = document.getElementById("analysis-now");
    box.replaceChildren();
    // The note comes worded in the page's language (note_worded); its numbers isolated.
    if (a.note) box.append(el("p", { class: "muted", id: "analysis-note" },
                              a.note_worded || a.note));
    const here = a.steps.filter((s) => s.step <= v.step).pop() || a.steps[0];
    // A seat's or the table's view of a deal in play (hindsight false): best play needs
    // every hand, so the server sends none of it until the deal's last move (issue 29).
    const blind = a.hindsight === false;
    box.append(blind
      ? el("p", { class: "muted", id: "analysis-hindsight" },
           _("Best play (hindsight, every hand open) is shown once the deal is over."))
      : el("p", { class: "analysis-best", id: "analysis-best" },
           el("span", { class: "label" }, _("Best play from here (hindsight)")), " ",
           outcomeText(a, here.best)));
    const decision = a.decisions.find((d) => d.event === v.step - 1);
    if (!decision) {
      const move = a.steps.find((s) => s.event === v.step - 1 && s.move);
      if (move) box.append(el("p", { class: "muted" }, _("No choice at this move")));
      return;
    }
    if (blind) {
      box.append(el("p", { class: "analysis-move", id: "analysis-move" },
                    sayNodes(_("%(name)s played %(move)s", null),
                             { name: a.seats[decision.seat],
                               move: decision.played_worded || decision.played })),
                 knowledgeMove(decision) || "");
      return;
    }
    const side = a.side_of[decision.seat];
    const top = Math.max(...decision.options.map((o) => worth(a, o.outcome, side)));
    const mover = a.seats[decision.seat];
    // Two measures (ledger/analysis/measures.py): the knowledge loss names a mistake and
    // its severity; the hindsight loss (every hand open) is shown beside, labelled so.
    const named = decision.severity;
    const line = el("p", { class: "analysis-move" + (named ? " mistake" : ""),
                           id: "analysis-move", "data-lost": decision.lost,
                           "data-severity": named || "" },
                    sayNodes(_("%(name)s played %(move)s", null),
                             { name: mover, move: decision.played_worded || decision.played }));
    if (named) {
      line.append(" ", sign(named), " ",
                  el("b", { class: "knowledge-lost" },
                     _("%(severity)s: lost %(points)s by what the player knew",
                       { severity: severityWord(named), points: decision.knowledge_lost.toFixed(1) })));
    } else if (decision.knowledge_lost != null) {
      line.append(" ", el("span", { class: "knowledge-lost" },
                          _("lost %(points)s by what the player knew",
                            { points: decision.knowledge_lost.toFixed(1) })));
    }
    line.append(" ", decision.lost > 0
      ? el("span", { class: "lost hindsight" },
           _("lost %(points)s points in hindsight", { points: decision.lost }))
      : el("span", { class: "good hindsight" }, _("a best move in hindsight")));
    box.append(line, knowledgeMove(decision) || "");
    const rows = decision.options.map((o) => {
      const best = worth(a, o.outcome, side) === top;
      const played = o.move === decision.played;
      return el("tr", { class: (played ? "played" : "") + (best ? " best" : ""),
                        "data-move": o.move },
        el("td", {}, moveText(o.move_worded, o.move)),
        el("td", {}, outcomeText(a, o.outcome)),
        el("td", {}, played ? el("span", { class: "badge" }, _("played")) : null,
           best ? el("span", { class: "badge ok" }, _("best")) : null));
    });
    box.append(el("table", { class: "analysis-options", id: "analysis-options" },
      el("caption", {}, _("The options and what best play gives after each (hindsight)")),
      el("thead", {}, el("tr", {}, el("th", {}, _("Move")), el("th", {}, _("Outcome")),
                         el("th", {}, ""))),
      el("tbody", {}, rows)));
  }

  function renderKnowledge(a, v) {
    const box = document.getElementById("analysis-knowledge");
    box.replaceChildren();
    if (v.seat === null) {
      box.append(el("p", { class: "muted" }, _("Choose a seat's view to see what it knew.")));
      return;
    }
    const k = a.knowledge.find((x) => x.step === v.step);
    const mine = k && k.seats.find((s) => s.seat === v.seat);
    if (!mine) return;
    box.append(el("h3", {}, sayNodes(_("What %(name)s knew", null), { name: a.seats[v.seat] })));
    const lacks = el("ul", { class: "lacks", id: "analysis-lacks" });
    for (const [other, nums] of Object.entries(mine.lacks)) {
      lacks.append(el("li", { "data-seat": other },
        el("bdi", {}, a.seats[Number(other)]), ": ",
        nums.length ? sayNodes(_("has no %(numbers)s", null), { numbers: nums.join(", ") })
                    : el("span", { class: "muted" }, _("nothing known"))));
    }
    box.append(el("p", { class: "label" }, _("Numbers each other seat lacks")), lacks);
    const head = el("tr", {}, el("th", {}, _("Number")));
    const row = el("tr", {}, el("th", {}, _("Unseen")));
    mine.unseen.forEach((n, num) => {
      head.append(el("th", {}, String(num)));
      row.append(el("td", { class: n === 0 ? "gone" : "" }, String(n)));
    });
    box.append(el("table", { class: "unseen", id: "analysis-unseen", dir: "ltr" },
      el("caption", {}, _("Tiles of each number it had not seen")),
      el("thead", {}, head), el("tbody", {}, row)));
  }

  // The figure comes worded in the page's language (the server words it); only the mark
  // of the step on the table is added here.
  async function renderChart(a, v) {
    const box = document.getElementById("analysis-chart");
    if (!a.swing.data.length) { box.replaceChildren(); chartDeal = null; return; }
    const P = await window.ledgerPlot.load().catch(() => null);  // plot.js
    if (!P) return;
    const here = a.steps.filter((s) => s.step <= v.step).length - 1;
    const mark = [{ type: "line", x0: here, x1: here, yref: "paper", y0: 0, y1: 1,
                    line: { color: "#c8952e", width: 2, dash: "dot" } }];
    if (chartDeal === a.number && box.data) {
      P.relayout(box, { shapes: mark });
      return;
    }
    const layout = JSON.parse(JSON.stringify(a.swing.layout));
    layout.shapes = mark;
    layout.height = 300;
    await P.newPlot(box, a.swing.data, layout, window.ledgerPlot.config());
    chartDeal = a.number;
  }

  async function render() {
    if (!panel.open || !root()) return;
    const v = view();
    if (v.deal < 1) {
      say(_("No deal on the table yet."));
      document.getElementById("analysis-now").replaceChildren();
      document.getElementById("analysis-knowledge").replaceChildren();
      return;
    }
    const a = await waitFor(v.deal);
    const now = view();
    if (now.step !== v.step || now.seat !== v.seat) return;  // moved on meanwhile
    if (!a) {
      const why = failed.get(v.deal);
      say(_("This deal cannot be analysed.") + (why ? ` (${why})` : ""));
      return;
    }
    if (a.hindsight === false) say("");
    else if (a.knowledge_review) say(_("Mistakes in this deal (by what the player knew): %(num)s", { num: a.mistakes.length }));
    else say(_("Moves that lost points in hindsight: %(num)s (mistakes are named by the review by what the player knew, on the match page)", { num: marks(a).length }));
    panel.dataset.deal = String(a.number);
    panel.dataset.mistakes = marks(a).map((m) => m.step).join(" ");
    renderNow(a, v);
    renderKnowledge(a, v);
    await renderChart(a, v);
    panel.dataset.ready = String(v.step);
  }

  // --- going to the next / previous mistake -----------------------------------------
  async function jump(forward) {
    if (!root()) return;
    if (!panel.open) panel.open = true;
    const v = view();
    const lastDeal = Number(root().dataset.lastDeal || 0);
    for (let deal = Math.max(v.deal, 1); deal >= 1 && (!lastDeal || deal <= lastDeal);
         deal += forward ? 1 : -1) {
      const a = await waitFor(deal, true);
      const now = view();
      if (now.step !== v.step || now.seat !== v.seat) return;  // moved on meanwhile
      if (!a) {
        if (!lastDeal && deal > v.deal) break;  // past the last deal that can be analysed
        continue;
      }
      const steps = jumpMarks(a, v).map((m) => m.step);
      const to = forward ? steps.find((s) => s > v.step)
                         : steps.filter((s) => s < v.step).pop();
      if (to !== undefined) {
        if (window.replayGo) window.replayGo(to);
        else window.location.href = `${window.location.pathname}?step=${to}`
          + (v.seat === null ? "" : `&seat=${v.seat}`);
        return;
      }
    }
    say(forward ? _("No later mistake.") : _("No earlier mistake."));
  }

  panel.addEventListener("toggle", render);
  // A panel opened by the address (?analysis=1) may have fired its toggle before this
  // script listened: it is drawn now, not left waiting for an event already gone.
  if (panel.open) render();
  document.getElementById("next-mistake").addEventListener("click", () => jump(true));
  document.getElementById("prev-mistake").addEventListener("click", () => jump(false));
  document.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey || (ev.key !== "n" && ev.key !== "p")) return;
    // Spoiler-free (replay_marks.js): no going from mistake to mistake while the analysis
    // is hidden; the keys then do nothing.
    if (document.documentElement.dataset.analysis !== "shown") return;
    const t = ev.target;
    if (t instanceof HTMLElement && (t.isContentEditable || t.tagName === "TEXTAREA"
        || t.tagName === "SELECT" || (t.tagName === "INPUT" && t.type !== "range"))) return;
    ev.preventDefault();
    jump(ev.key === "n");
  });
  // replay.js draws every step in place and says so: show that step.
  document.addEventListener("replay:step", () => render());
})();
