// Spoiler-free replay and the review's marks (issue 34), as lichess keeps its engine off
// until asked:
// - the analysis (the marks "?!", "?", "??" on the moves of the event list, the strip of
//   the deal's losses above it, the Analysis panel's values) is hidden on a first view;
//   "Show analysis" shows it, "Hide analysis" hides it again (and closes the panel), and
//   the choice is kept for this browser (localStorage). Opening the panel (its summary,
//   "Analysis ↓") asks for it too, and is kept the same way; an address with ?analysis=1
//   opens the panel and shows the analysis for this visit, without changing the choice
//   kept (a link someone shared is not this browser's choice);
// - a click on a mark (or a bar of the strip) opens its step in the mover's view (what he
//   knew) with the Analysis panel open: replay.js draws the step (the link's step and
//   seat), this script opens the panel once that step is on screen.
// The whole-match chart's bars (points lost in hindsight) are hidden with the rest.
// The state is html[data-analysis] ("shown" / "hidden"): replay_marks.css shows the marks
// by it, analysis.js lets "n" and "p" go from mark to mark only while it is "shown". The
// toggle lives inside #replay (its controls row), which replay.js draws anew at each step:
// its words are put back after each one ("replay:step").
(() => {
  "use strict";
  const KEY = "domino-ledger:replay-analysis";
  const html = document.documentElement;
  const panel = document.getElementById("analysis-panel");
  const root = () => document.getElementById("replay");
  if (!root()) return;

  function kept() {
    try { return window.localStorage.getItem(KEY); } catch (err) { return null; }
  }
  function keep(shown) {
    try { window.localStorage.setItem(KEY, shown ? "shown" : "hidden"); } catch (err) { /* none */ }
  }

  const shown = () => html.dataset.analysis === "shown";

  function showButton() {
    const button = document.getElementById("analysis-toggle");
    if (!button) return;
    const on = shown();
    button.dataset.shown = String(on);
    button.textContent = on ? button.dataset.hide : button.dataset.show;
  }

  // The whole-match chart's bars are the points each side lost in hindsight: analysis too,
  // hidden with the rest (the score lines stay). Plotly draws the chart late (once its
  // section is opened) and again at each step of a seat's view: each drawing is checked.
  function chartSpoilers() {
    const box = document.getElementById("match-chart");
    if (!box || !Array.isArray(box.data) || !window.Plotly) return;
    const bars = box.data.flatMap((t, i) => (t.type === "bar" ? [i] : []));
    const want = shown();
    if (bars.every((i) => (box.data[i].visible !== false) === want)) return;
    window.Plotly.restyle(box, { visible: want }, bars);
  }
  const chartBox = document.getElementById("match-chart");
  if (chartBox) {
    let bound = false;
    new MutationObserver(() => {
      if (!bound && typeof chartBox.on === "function") {
        bound = true;
        chartBox.on("plotly_afterplot", chartSpoilers);
      }
      chartSpoilers();
    }).observe(chartBox, { childList: true });
  }

  function set(on, remember) {
    html.dataset.analysis = on ? "shown" : "hidden";
    if (remember) keep(on);
    if (!on && panel && panel.open) panel.open = false;  // its values go with the rest
    showButton();
    chartSpoilers();
  }

  // --- a click on a mark: its step, in the mover's view, with the panel open ---------------
  let pending = null;  // {step, seat} the panel waits for
  function openWhenThere() {
    if (!pending || !panel) return;
    const d = root().dataset;
    if (d.step === pending.step && d.seat === pending.seat) panel.open = true;
    pending = null;
  }

  document.addEventListener("click", (ev) => {
    const t = ev.target instanceof Element ? ev.target : null;
    if (!t) return;
    if (t.closest("#analysis-toggle")) { set(!shown(), true); return; }
    // Asking for the panel asks for the analysis.
    if ((t.closest("#analysis-panel > summary") && panel && !panel.open)
        || t.closest("#open-analysis")) {
      set(true, true);
      return;
    }
    const mark = t.closest("a[data-to-analysis]");
    if (!mark || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    // replay.js (its listener ran first) has drawn the step, or asked for the mover's view.
    pending = { step: mark.dataset.step, seat: mark.dataset.seat };
    const d = root().dataset;
    if (d.step === pending.step && d.seat === pending.seat) openWhenThere();
  });
  document.addEventListener("replay:step", () => { showButton(); openWhenThere(); });
  if (panel) {
    // However it was opened (the address, "n" / "p", a mark), an open panel shows values.
    panel.addEventListener("toggle", () => { if (panel.open && !shown()) set(true, false); });
  }

  const asked = new URLSearchParams(window.location.search).get("analysis") === "1";
  set(kept() === "shown" || asked || Boolean(panel && panel.open), false);
})();
