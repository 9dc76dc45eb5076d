// Draws the score race from the figure the server put in the page.
(() => {
  "use strict";
  const data = document.getElementById("score-race-data");
  const el = document.getElementById("score-race");
  if (!data || !el || !window.Plotly) return;
  const fig = JSON.parse(data.textContent);
  window.Plotly.newPlot(el, fig.data, fig.layout, {
    displaylogo: false, responsive: true,
    modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"],
  });
})();
