// Draws the score race from the figure the server put in the page (worded in the page's
// language). Plotly (plot.js, loaded before this file) is fetched only once the page has
// loaded, so the page is painted and readable without it; the chart comes when it does.
(() => {
  "use strict";
  const data = document.getElementById("score-race-data");
  const el = document.getElementById("score-race");
  if (!data || !el || !window.ledgerPlot) return;
  const draw = () => window.ledgerPlot.draw(el, JSON.parse(data.textContent));
  if (document.readyState === "complete") draw();
  else window.addEventListener("load", draw, { once: true });
})();
