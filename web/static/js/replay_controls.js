// The replay's own controls (issue 16), beside replay.js's stepping:
// - autoplay: ▶ steps forward at the chosen speed until the last step (or ❚❚);
// - "Copy link": the address of the step and seat on screen (and the open Analysis panel);
// - the Analysis panel's open state kept in the address (?analysis=1), so a reload or a
//   shared link opens it again; "Analysis ↓" opens it and scrolls to it;
// - a click on a point of a chart opens the step it stands for: the whole-match chart
//   (each point carries its step) and the Analysis panel's chart (move k of the deal on
//   the table: the k-th play, draw or pass of the event list);
// - the whole-match chart, drawn (Plotly loaded) only once its section is opened;
// - on a touch screen a swipe steps: to the left one step on, to the right one back (the
//   controls are a left-to-right timeline in every language); a phone's board, wider than
//   the screen, scrolls sideways to keep the tile just laid in view (issue 33).
// replay.js draws every step into #replay (and says so: "replay:step"); the buttons live
// inside it, so their state is put back after each step.
(() => {
  "use strict";
  const root = () => document.getElementById("replay");
  if (!root()) return;
  let timer = null;
  let playing = false;
  let speed = Number(sessionStorage.getItem("replay-speed")) || 1000;

  const current = () => {
    const d = root().dataset;
    return { step: Number(d.step), last: Number(d.last), seat: d.seat };
  };

  function go(step) {
    if (window.replayGo) { window.replayGo(step); return; }
    const url = new URL(window.location.href);
    url.searchParams.set("step", String(step));
    window.location.href = url.pathname + url.search;
  }

  // --- autoplay ---------------------------------------------------------------------------
  function showState() {
    const button = document.getElementById("autoplay");
    if (button) {
      button.setAttribute("aria-pressed", String(playing));
      button.querySelector(".label").textContent = playing ? button.dataset.pause
                                                           : button.dataset.play;
      button.querySelector(".icon-text").textContent = playing ? "❚❚" : "▶";
    }
    const select = document.getElementById("autoplay-speed");
    if (select) select.value = String(speed);
  }

  function schedule() {
    clearTimeout(timer);
    if (!playing) return;
    timer = setTimeout(() => {
      const { step, last } = current();
      if (step >= last) { stop(); return; }
      go(step + 1);  // the step drawn ("replay:step") schedules the next one
    }, speed);
  }

  function start() {
    if (current().step >= current().last) go(0);
    playing = true;
    showState();
    schedule();
  }

  function stop() {
    playing = false;
    clearTimeout(timer);
    showState();
  }

  // --- the address ------------------------------------------------------------------------
  const panel = document.getElementById("analysis-panel");

  function withPanel(url) {
    if (panel && panel.open) url.searchParams.set("analysis", "1");
    else url.searchParams.delete("analysis");
    return url;
  }

  function keepPanelInAddress() {
    const url = withPanel(new URL(window.location.href));
    if (url.href !== window.location.href) window.history.replaceState(history.state, "", url);
  }

  function stepLink() {
    const { step, seat } = current();
    const url = new URL(window.location.pathname, window.location.origin);
    url.searchParams.set("step", String(step));
    if (seat !== "") url.searchParams.set("seat", seat);
    return withPanel(url).href;
  }

  async function copyLink(button) {
    const link = stepLink();
    const status = document.getElementById("copy-status");
    try {
      await navigator.clipboard.writeText(link);
      if (status) status.textContent = button.dataset.copied;
    } catch (err) {
      // No clipboard (an insecure address, a refusal): show the link, selected, to copy.
      if (status) {
        const field = Object.assign(document.createElement("input"), {
          value: link, readOnly: true, className: "copy-field" });
        field.setAttribute("aria-label", button.dataset.label);
        status.replaceChildren(field);
        field.select();
      }
    }
    button.dataset.link = link;
  }

  // --- charts -----------------------------------------------------------------------------
  function stepOfMove(k) {
    // Move k of the deal on the table: the k-th play, draw or pass of its event list;
    // move 0 is the deal's start.
    const events = [...document.querySelectorAll(".deal-group.current .ev")];
    const moves = events.filter((li) => /\bev-(play|draw|pass)\b/.test(li.className));
    const li = k === 0 ? events.find((e) => /\bev-deal\b/.test(e.className)) : moves[k - 1];
    return li ? Number(li.dataset.step) : null;
  }

  function onAnalysisClick(ev) {
    const point = ev && ev.points && ev.points[0];
    if (!point) return;
    const step = stepOfMove(Math.round(Number(point.x)));
    if (step !== null && !Number.isNaN(step)) go(step);
  }

  function bindAnalysisChart() {
    const gd = document.getElementById("analysis-chart");
    if (!gd || typeof gd.on !== "function") return;
    if (typeof gd.removeListener === "function") gd.removeListener("plotly_click", onAnalysisClick);
    gd.on("plotly_click", onAnalysisClick);
  }

  async function drawMatchChart() {
    const box = document.getElementById("match-chart");
    const data = document.getElementById("match-chart-data");
    if (!box || !data || box.dataset.drawn) return;
    const fig = JSON.parse(data.textContent);
    if (!fig) return;  // no deal over yet (replay.js puts the step's chart in)
    box.dataset.drawn = "yes";
    await window.ledgerPlot.draw(box, fig);  // plot.js: Plotly fetched now, in the page's words
    box.on("plotly_click", (ev) => {
      const point = ev && ev.points && ev.points[0];
      if (point && point.customdata !== undefined) go(Number(point.customdata));
    });
  }

  // --- touch: swipes, and the board's tile just laid in view ------------------------------
  // A swipe: mostly sideways, long enough and quick; begun on the replay, but not on what
  // scrolls sideways itself (the board on a phone) or takes drags (the slider, a select).
  // The table leaves sideways moves to the page (app.css: touch-action), not to the browser.
  const SWIPE = { min: 40, slope: 1.5, ms: 1000 };
  let swipe = null;
  document.addEventListener("pointerdown", (ev) => {
    const t = ev.target instanceof Element ? ev.target : null;
    swipe = null;
    const board = t && t.closest(".board-view");
    if (ev.pointerType === "mouse" || !ev.isPrimary || !t || !t.closest("#replay")
        || t.closest("input, select, textarea")
        || (board && board.scrollWidth > board.clientWidth + 1)) return;
    swipe = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, at: ev.timeStamp };
  });
  document.addEventListener("pointercancel", () => { swipe = null; });
  document.addEventListener("pointerup", (ev) => {
    if (!swipe || ev.pointerId !== swipe.id) return;
    const dx = ev.clientX - swipe.x;
    const dy = ev.clientY - swipe.y;
    const quick = ev.timeStamp - swipe.at <= SWIPE.ms;
    swipe = null;
    if (!quick || Math.abs(dx) < SWIPE.min || Math.abs(dx) < SWIPE.slope * Math.abs(dy)) return;
    const { step, last } = current();
    const to = dx < 0 ? Math.min(last, step + 1) : Math.max(0, step - 1);
    if (to !== step) go(to);
  });

  let placed = null;  // the board's scroller once placed (a step keeps it: replay.js morphs)
  function boardInView() {
    const view = document.querySelector("#replay .board-view");
    if (!view || view.scrollWidth <= view.clientWidth + 1) return;
    // First the board's middle (where the line opened), or the tile just laid if it is out
    // of sight; a step after keeps where the viewer scrolled to while that tile shows.
    const tile = view.querySelector(".tile.just-laid");
    const box = view.getBoundingClientRect();
    if (view !== placed) view.scrollLeft = (view.scrollWidth - view.clientWidth) / 2;
    placed = view;
    if (tile) {
      const r = tile.getBoundingClientRect();
      if (r.left < box.left || r.right > box.right) {
        view.scrollLeft += (r.left + r.right) / 2 - (box.left + box.right) / 2;
      }
    }
  }

  // --- wiring -----------------------------------------------------------------------------
  document.addEventListener("click", (ev) => {
    const target = ev.target instanceof Element ? ev.target : null;
    if (!target) return;
    if (target.closest("#autoplay")) { playing ? stop() : start(); return; }
    const copy = target.closest("#copy-link");
    if (copy) copyLink(copy);
    if (target.closest("#open-analysis") && panel) {
      // The panel sits below the table: open it and bring it into view.
      panel.open = true;
      panel.scrollIntoView({ behavior: "smooth", block: "start" });
    }
  });
  document.addEventListener("change", (ev) => {
    if (ev.target instanceof HTMLSelectElement && ev.target.id === "autoplay-speed") {
      speed = Number(ev.target.value) || 1000;
      sessionStorage.setItem("replay-speed", String(speed));
      schedule();
    }
  });
  document.addEventListener("keydown", (ev) => {
    // "k" plays and pauses, as on video sites (the arrows stay replay.js's).
    const t = ev.target;
    if (ev.key !== "k" || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (t instanceof HTMLElement && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"]
        .includes(t.tagName))) return;
    playing ? stop() : start();
  });

  if (panel) {
    if (new URLSearchParams(window.location.search).get("analysis") === "1") panel.open = true;
    panel.addEventListener("toggle", keepPanelInAddress);
  }
  const chartSection = document.getElementById("match-chart-section");
  if (chartSection) {
    chartSection.addEventListener("toggle", () => { if (chartSection.open) drawMatchChart(); });
    if (chartSection.open) drawMatchChart();
  }
  const analysisChart = document.getElementById("analysis-chart");
  if (analysisChart) {
    new MutationObserver(bindAnalysisChart).observe(analysisChart, { childList: true });
  }
  document.addEventListener("replay:step", () => {
    showState();
    keepPanelInAddress();
    schedule();
    boardInView();
  });
  showState();
  boardInView();
})();
