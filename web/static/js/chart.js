// Draws the score race from the figure the server put in the page. Plotly's script
// (its address in this script's data-plotly) is fetched only once the page has loaded,
// so the page is readable without it; the chart comes when the script does.
(() => {
  "use strict";
  const me = document.currentScript;
  const data = document.getElementById("score-race-data");
  const el = document.getElementById("score-race");
  if (!data || !el || !me) return;
  const draw = () => {
    const fig = JSON.parse(data.textContent);
    window.Plotly.newPlot(el, fig.data, fig.layout, {
      displaylogo: false, responsive: true,
      modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"],
    });
  };
  const load = () => {
    if (window.Plotly) return draw();
    const script = document.createElement("script");
    script.src = me.dataset.plotly;
    script.async = true;
    script.addEventListener("load", draw);
    document.head.appendChild(script);
  };
  if (document.readyState === "complete") load();
  else window.addEventListener("load", load, { once: true });
})();
