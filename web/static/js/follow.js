// Live follow (issue 33): a live match's replay and page are told of every append and
// undo as it is stored (web/follow.py: Server-Sent Events from /matches/N/follow). The
// replay is sent the new steps as its view sees them (a seat's, the table's) and draws
// them (replay.js's replayLive), following the newest step unless the viewer stepped back;
// then this line says newer steps exist. The match page reads itself again and swaps in
// what changed. The words are the page's (#follow's data-*, in its language).
(() => {
  "use strict";
  const note = document.getElementById("follow");
  if (!note || !window.EventSource) return;
  const replay = note.dataset.replay === "1";
  const text = note.querySelector(".follow-text");
  const latest = document.getElementById("follow-latest");
  let last = Number(note.dataset.last);
  let status = note.dataset.status;
  let source = null;
  let seat = "";
  let lost = false;
  let heads = 0;   // head events since the stream opened (the first says where it stands)

  const viewSeat = () => new URLSearchParams(window.location.search).get("seat") || "";
  const at = () => (window.replayAt ? window.replayAt() : { step: last, last });

  function show() {
    let state = "following";
    if (lost) state = "lost";
    else if (replay && at().step < at().last) state = "behind";
    else if (status !== "recording") state = "over";
    note.dataset.state = state;
    text.textContent = note.dataset[state] || "";
    if (latest) latest.hidden = state !== "behind";
    note.hidden = false;
  }

  function connect(view = viewSeat()) {
    if (source) source.close();
    seat = view;
    heads = 0;
    const url = new URL(note.dataset.src, window.location.href);
    if (replay) {
      url.searchParams.set("replay", "1");
      url.searchParams.set("since", String(at().last));
      if (seat) url.searchParams.set("seat", seat);
    }
    source = new EventSource(url.href);
    source.addEventListener("open", () => { lost = false; show(); });
    source.addEventListener("error", () => { lost = true; show(); });  // it tries again
    source.addEventListener("head", (ev) => {
      const body = JSON.parse(ev.data);
      const changed = body.last_step !== last || body.status !== status;
      status = body.status;
      if (!replay && (heads > 0 || changed)) refresh();
      if (!replay) last = body.last_step;
      heads += 1;
      lost = false;
      show();
    });
    source.addEventListener("steps", (ev) => {
      const body = JSON.parse(ev.data);
      status = body.status;
      if (window.replayLive) window.replayLive(body);
      last = body.last_step;
      lost = false;
      show();
    });
  }

  // --- the match page: read again, what changed swapped in ----------------------------

  let reading = false;
  let again = false;

  function refresh() {
    if (reading) { again = true; return; }
    reading = true;
    fetch(window.location.href, { headers: { Accept: "text/html" }, cache: "no-store" })
      .then((res) => (res.ok ? res.text() : Promise.reject(new Error(String(res.status)))))
      .then((html) => swapIn(new DOMParser().parseFromString(html, "text/html")))
      .catch(() => {})
      .finally(() => {
        reading = false;
        if (again) { again = false; refresh(); }
      });
  }

  function swapIn(doc) {
    const old = document.querySelector("main");
    const fresh = doc.querySelector("main");
    if (!old || !fresh) return;
    const chartData = () => document.getElementById("score-race-data")?.textContent || "";
    const before = chartData();
    morph(old, fresh);
    const after = chartData();
    // The score race, drawn again when its figure changed (plot.js, on every match page,
    // fetches Plotly the first time).
    const box = document.getElementById("score-race");
    if (after && after !== before && box && window.ledgerPlot) {
      window.ledgerPlot.draw(box, JSON.parse(after));
    }
  }

  // The fresh nodes into the page (morph.js), keeping this line, a drawn chart (its figure
  // is drawn again from the new data) and what the reader opened.
  const kept = (node) => node.id === "follow" || node.classList.contains("js-plotly-plot");
  const OPENED = new Set(["open"]);
  const morph = (old, fresh) => window.ledgerMorph(old, fresh, kept, OPENED);

  // --- the replay: another view is another stream; a step may put the viewer behind ----

  if (replay) {
    // replay.js says which view it drew (the address follows only after the event).
    document.addEventListener("replay:step", (ev) => {
      const view = ev.detail && typeof ev.detail.seat === "string" ? ev.detail.seat : viewSeat();
      if (view !== seat) connect(view);
      show();
    });
    if (latest) {
      latest.addEventListener("click", (ev) => {
        if (!window.replayGo || ev.button !== 0 || ev.metaKey || ev.ctrlKey) return;
        ev.preventDefault();
        window.replayGo(at().last);
      });
    }
  }

  window.addEventListener("pagehide", () => { if (source) source.close(); source = null; });
  window.addEventListener("pageshow", (ev) => { if (ev.persisted) connect(seat); });
  connect();
  show();
  // replay.js runs after this script (both deferred): where the viewer stands, once it has.
  document.addEventListener("DOMContentLoaded", show);
})();
