// Replay stepping held in the browser (issue 15). The page asks once per deal for all of
// its steps as this view sees them (/matches/N/replay/frames: each step's #replay block,
// rendered by the server from the frame ledger/seatview.py cuts to the viewer) and draws
// every step from them: a key press is one step, drawn at once, never a round trip that
// a later press could cancel. The deal after the one on screen is asked for ahead.
// The address follows: a step replaces it (a held key leaves no trail), a jump (a deal,
// a drag of the slider, a link, another view) adds to the history. Without this script every
// control is a plain link to the step's own page.
(() => {
  "use strict";
  const root = () => document.getElementById("replay");
  if (!root()) return;
  const path = window.location.pathname;
  const held = new Map();     // step -> {html, chart, until, parsed}
  const asked = new Map();    // "view/step" asked for -> its Promise
  let charts = [];            // the whole-match charts of the held steps
  let chartShown = null;
  let seat = new URLSearchParams(window.location.search).get("seat") || "";
  let want = Number(root().dataset.step);
  const drawn = { step: want, seat };   // the step on screen and the view it was asked in
  let last = Number(root().dataset.last);
  // Whether the viewer is at the newest step (set where the viewer moves, in go): a live
  // match's frames fetched meanwhile may tell of newer steps (keep raises last) before
  // follow.js does, and that is not the viewer stepping back.
  let atNewest = want >= last;
  let dealSteps = (root().dataset.dealSteps || "").split(" ").filter(Boolean).map(Number);
  let lastHow = "";
  let generation = 0;         // moves with each change of a live match (replayLive)
  // The time each draw took (ms, the DOM changed and laid out): benchmarks/replay_step.py.
  const drawTimes = (window.replayDrawTimes = []);

  function address(step, view = seat) {
    const url = new URL(window.location.href);
    url.searchParams.set("step", String(step));
    if (view === "") url.searchParams.delete("seat"); else url.searchParams.set("seat", view);
    return url;
  }

  function ask(step) {
    const url = address(step);
    url.pathname = `${path}/frames`;
    url.searchParams.delete("analysis");
    const view = seat;
    const key = `${view}/${step}`;
    if (asked.has(key)) return asked.get(key);
    const gen = generation;
    const got = fetch(url, { headers: { Accept: "application/json" } })
      .then((res) => { if (!res.ok) throw new Error(String(res.status)); return res.json(); })
      .then((body) => {
        asked.delete(key);
        // A live match changed meanwhile (follow.js): this answer is older, ask again.
        if (gen !== generation) return ask(step);
        if (view === seat) keep(body);  // else another view was chosen meanwhile
        return undefined;
      })
      .catch((err) => {
        asked.delete(key);
        // The steps cannot be had (the server away, the match gone): the page of the step
        // asked for, if it is not the one on screen (which stays, links and all).
        if (view === seat && !held.has(want) && (want !== drawn.step || seat !== drawn.seat)) {
          window.location.href = address(want).href;
        }
        throw err;
      });
    asked.set(key, got);
    return got;
  }

  // At most this many deals' steps are held (a long match stays a few MB): those
  // farthest from the step wanted go first, to be asked for again if need be.
  const DEALS_HELD = 8;
  const spans = [];  // [first, last] of each answer held

  function keep(body) {
    const again = spans.findIndex((sp) => sp[0] === body.first);
    if (again >= 0) spans.splice(again, 1);  // a live match's last deal, asked for again
    spans.push([body.first, body.last]);
    while (spans.length > DEALS_HELD) {
      const far = (sp) => (sp[0] <= want && want <= sp[1] ? 0
        : Math.min(Math.abs(sp[0] - want), Math.abs(sp[1] - want)));
      const i = spans.reduce((best, sp, k) => (far(sp) > far(spans[best]) ? k : best), 0);
      const [a, b] = spans.splice(i, 1)[0];
      for (let step = a; step <= b; step += 1) held.delete(step);
    }
    const base = charts.length;
    charts = charts.concat(body.charts);
    last = body.last_step;
    // A match being recorded grows: its last deal's steps are asked for again soon.
    const until = body.live && body.last === body.last_step ? performance.now() + 2000 : Infinity;
    for (const f of body.frames) {
      held.set(f.step, { html: f.html, chart: base + f.chart, until, parsed: null });
    }
  }

  function frameOf(step) {
    const f = held.get(step);
    if (f && f.until < performance.now()) { held.delete(step); return undefined; }
    return f;
  }

  // Every step of the deal on the table, and of the deals beside it as they come near.
  function ahead(step) {
    const next = dealSteps.find((s) => s > step);
    if (next !== undefined && !frameOf(next)) ask(next).catch(() => {});
    const first = [...dealSteps].reverse().find((s) => s <= step);
    if (first !== undefined && first > 0 && step - first < 5 && !frameOf(first - 1)) {
      ask(first - 1).catch(() => {});
    }
  }

  // The new step's nodes into the page, keeping every node that did not change (a hand
  // whose tiles are the same, the event list but for the step marked): what keeps a step
  // within a frame (morph.js).
  const morph = (old, fresh) => window.ledgerMorph(old, fresh);

  function parsed(f) {
    const t = f.parsed || document.createElement("template");
    if (!f.parsed) t.innerHTML = f.html;
    f.parsed = null;  // used up by the draw
    return t.content.firstElementChild;
  }

  // The steps either side of the one drawn are parsed while the page is idle.
  function parseAhead() {
    for (const s of [want + 1, want - 1]) {
      const f = frameOf(s);
      if (f && !f.parsed) {
        f.parsed = document.createElement("template");
        f.parsed.innerHTML = f.html;
      }
    }
  }
  const idle = window.requestIdleCallback || ((fn) => setTimeout(fn, 1));

  function draw(step, how) {
    const f = frameOf(step);
    if (!f) {
      ask(step).then(() => {
        if (want !== step) return;
        if (frameOf(step)) draw(step, how);
        else window.location.href = address(step).href;  // not in the answer: its page
      }).catch(() => {});
      return;
    }
    const t0 = performance.now();
    morph(root(), parsed(f));
    drawn.step = step;
    drawn.seat = seat;
    const el = root();
    // Keep the current event in sight inside the event list, not by scrolling the page.
    const box = el.querySelector(".events");
    const cur = el.querySelector('.ev[aria-current="step"]');
    if (box && cur) box.scrollTop = cur.offsetTop - box.clientHeight / 2;
    void el.offsetHeight;  // laid out: the time below is the whole draw
    drawTimes.push(performance.now() - t0);
    // For replay_controls.js and analysis.js: the step on screen changed.
    document.dispatchEvent(new CustomEvent("replay:step", { detail: { step, seat, last } }));
    idle(parseAhead);
    document.title = `${el.dataset.title} · domino-ledger`;
    dealSteps = (el.dataset.dealSteps || "").split(" ").filter(Boolean).map(Number);
    if (how !== "none") {
      const url = address(step).href;
      // A drag of the slider adds one place to the history, where it started.
      if (how === "jump" || (how === "slide" && lastHow !== "slide")) {
        window.history.pushState({}, "", url);
      } else if (url !== window.location.href) {
        window.history.replaceState(history.state, "", url);
      }
      lastHow = how;
    }
    showChart(f.chart);
    ahead(step);
  }

  // The whole-match chart (replay_controls.js draws it once opened): a seat's grows as
  // the deals end, so the step's own chart replaces it.
  function showChart(index) {
    if (index === chartShown) return;
    chartShown = index;
    const data = document.getElementById("match-chart-data");
    const section = document.getElementById("match-chart-section");
    const fig = charts[index] || null;
    if (!data || !section) return;
    data.textContent = JSON.stringify(fig);
    section.hidden = !fig;
    const box = document.getElementById("match-chart");
    if (fig && box && box.dataset.drawn && window.Plotly) {
      window.Plotly.react(box, fig.data, fig.layout);
    }
  }

  // Goes to ``step``: "step" for one step (the address replaced), "slide" for the slider,
  // "jump" for the rest.
  function go(step, how = "jump") {
    want = Math.min(Math.max(0, Number(step)), last);
    if (Number.isNaN(want)) return;
    atNewest = want >= last;
    draw(want, how);
  }

  function target(key) {
    switch (key) {
      case "ArrowLeft": return [Math.max(0, want - 1), "step"];
      case "ArrowRight": return [Math.min(last, want + 1), "step"];
      case "Home": return [0, "jump"];
      case "End": return [last, "jump"];
      // "n" and "p" are the Analysis panel's: the next and previous mistake (analysis.js).
      case "PageDown": {
        const next = dealSteps.find((s) => s > want);
        return [next === undefined ? last : next, "jump"];
      }
      case "PageUp": {
        const prev = dealSteps.filter((s) => s < want).pop();
        return [prev === undefined ? 0 : prev, "jump"];
      }
      default: return null;
    }
  }

  document.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const t = ev.target;
    if (t instanceof HTMLElement && (t.isContentEditable || t.tagName === "TEXTAREA"
        || t.tagName === "SELECT" || (t.tagName === "INPUT" && t.type !== "range"))) return;
    const to = target(ev.key);
    if (to === null || !root()) return;
    if (t instanceof HTMLInputElement && t.type === "range") {
      t.blur(); // the page's keys, not the slider's own, so every key means the same
    }
    ev.preventDefault();
    if (to[0] !== want) go(to[0], to[1]);
  });

  document.addEventListener("input", (ev) => {
    if (ev.target instanceof HTMLInputElement && ev.target.id === "step-slider") {
      go(Number(ev.target.value), "slide");
    }
  });

  document.addEventListener("click", (ev) => {
    const a = ev.target instanceof Element ? ev.target.closest("a[href]") : null;
    if (!a || !root() || !root().contains(a) || ev.button !== 0
        || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    const url = new URL(a.href, window.location.href);
    if (url.pathname !== path) return;
    ev.preventDefault();
    const view = url.searchParams.get("seat") || "";
    const step = Number(url.searchParams.get("step") || 0);
    if (a.id === "go-prev" || a.id === "go-next") {
      // One step from the step wanted, as the arrow keys: quick clicks add up.
      go(want + (a.id === "go-next" ? 1 : -1), "step");
    } else if (view !== seat) {
      seat = view;     // another view: its own steps (what that seat saw) replace these
      held.clear();
      spans.length = 0;
      go(step, "jump");
    } else {
      go(step, "jump");
    }
  });

  // For replay_controls.js (autoplay: one step at a time) and analysis.js (mistakes).
  window.replayGo = (step) => go(step, Math.abs(Number(step) - want) === 1 ? "step" : "jump");

  // For follow.js (a live match, issue 33): the steps recorded since, as this view sees
  // them (the stream's ``steps``: the shape of a /frames answer). A viewer on the newest
  // step is taken to the new newest; one who stepped back stays (follow.js says newer
  // steps exist). Every other step held was drawn with the old count of steps: asked for
  // again when wanted. The answer: whether the page now shows the newest step.
  window.replayLive = (body) => {
    if ((body.seat || "") !== seat) return want >= last;  // another view's: not these
    const following = atNewest;
    generation += 1;
    held.clear();
    spans.length = 0;
    keep(body);
    const slider = document.getElementById("step-slider");
    if (slider) slider.max = String(last);
    if (following || want > last) {
      go(last, "step");
    } else {
      // The step on screen stays, drawn again with the new count of steps.
      const stay = want;
      ask(stay).then(() => {
        if (want === stay && drawn.step === stay && frameOf(stay)) draw(stay, "none");
      }).catch(() => {});
    }
    return want >= last;
  };
  window.replayAt = () => ({ step: want, last, seat });

  window.addEventListener("popstate", () => {
    const q = new URLSearchParams(window.location.search);
    const view = q.get("seat") || "";
    if (view !== seat) { seat = view; held.clear(); spans.length = 0; }
    go(Number(q.get("step") || 0), "none");
  });

  const opened = want;
  ask(opened).then(() => {
    if (chartShown === null && held.has(opened)) chartShown = held.get(opened).chart;
    ahead(want);
  }).catch(() => {});
})();
