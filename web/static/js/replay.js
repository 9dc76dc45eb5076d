// Replay stepping: keys, slider and links fetch the next step's page and swap the
// #replay block in place (each step keeps its own ?step=N address). Without this
// script every control is still a plain link.
(() => {
  "use strict";
  const root = () => document.getElementById("replay");
  let inflight = null;
  let sliderTimer = null;

  function stepUrl(step) {
    const el = root();
    const url = new URL(window.location.href);
    url.searchParams.set("step", String(step));
    const seat = el.dataset.seat;
    if (seat === "") url.searchParams.delete("seat"); else url.searchParams.set("seat", seat);
    return url.pathname + url.search;
  }

  async function go(url, push = true) {
    if (inflight) inflight.abort();
    const ctl = new AbortController();
    inflight = ctl;
    try {
      const res = await fetch(url, { signal: ctl.signal, headers: { Accept: "text/html" } });
      const html = await res.text();
      const doc = new DOMParser().parseFromString(html, "text/html");
      const fresh = doc.getElementById("replay");
      if (!res.ok || !fresh) { window.location.href = url; return; }
      root().replaceWith(fresh);
      document.title = doc.title;
      if (push) window.history.pushState({}, "", url);
      settle();
    } catch (err) {
      if (err.name !== "AbortError") window.location.href = url;
    } finally {
      if (inflight === ctl) inflight = null;
    }
  }

  function settle() {
    // Keep the current event in sight inside the event list, not by scrolling the page.
    const box = document.querySelector(".events");
    const cur = document.querySelector('.ev[aria-current="step"]');
    if (box && cur) box.scrollTop = cur.offsetTop - box.clientHeight / 2;
    const slider = document.getElementById("step-slider");
    if (slider) slider.addEventListener("input", onSlide);
  }

  function onSlide(ev) {
    const value = ev.target.value;
    document.getElementById("step-label").querySelector("b").textContent = value;
    clearTimeout(sliderTimer);
    sliderTimer = setTimeout(() => go(stepUrl(value)), 60);
  }

  function target(key) {
    const d = root().dataset;
    const step = Number(d.step), last = Number(d.last);
    switch (key) {
      case "ArrowLeft": return Math.max(0, step - 1);
      case "ArrowRight": return Math.min(last, step + 1);
      case "Home": return 0;
      case "End": return last;
      // "n" and "p" are the Analysis panel's: the next and previous mistake (analysis.js).
      case "PageDown": return d.nextDeal === "" ? last : Number(d.nextDeal);
      case "PageUp": return d.prevDeal === "" ? 0 : Number(d.prevDeal);
      default: return null;
    }
  }

  document.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const t = ev.target;
    if (t instanceof HTMLElement && (t.isContentEditable || t.tagName === "TEXTAREA"
        || t.tagName === "SELECT" || (t.tagName === "INPUT" && t.type !== "range"))) return;
    if (t instanceof HTMLInputElement && t.type === "range") {
      t.blur(); // the page's keys, not the slider's own, so every key means the same
    }
    const step = target(ev.key);
    if (step === null || !root()) return;
    ev.preventDefault();
    if (step !== Number(root().dataset.step)) go(stepUrl(step));
  });

  document.addEventListener("click", (ev) => {
    const a = ev.target instanceof Element ? ev.target.closest("a[href]") : null;
    if (!a || !root() || !root().contains(a) || ev.button !== 0
        || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    const url = new URL(a.href, window.location.href);
    if (url.pathname !== window.location.pathname) return;
    ev.preventDefault();
    go(url.pathname + url.search);
  });

  // For the Analysis panel (analysis.js): go to a step the same way the controls do.
  window.replayGo = (step) => go(stepUrl(step));

  window.addEventListener("popstate", () => go(window.location.pathname + window.location.search, false));
  settle();
})();
