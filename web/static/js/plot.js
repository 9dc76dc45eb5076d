// Plotly for the pages' charts, in one place (issue 33): the match page's score race
// (chart.js), the replay's whole-match chart (replay_controls.js) and its Analysis chart
// (analysis.js) all come through window.ledgerPlot.
// - load(): Plotly's script (the partial bundle the app serves, its address in this
//   script's data-plotly), fetched once, when a chart first needs it; the page never
//   waits for it.
// - config(): the same toolbar everywhere (nothing in it sends the chart away), none on a
//   phone (it covers a narrow chart), and Plotly's own words in the page's language.
// - draw(box, figure): a figure the server made, already worded in the page's language.
// The language: this script's data-locale, a Plotly locale that web/lang.py makes from
// the catalogs (null on an English page: Plotly's own words).
(() => {
  "use strict";
  const me = document.currentScript;
  if (!me) return;
  const src = me.dataset.plotly;
  const locale = (() => {
    try { return JSON.parse(me.dataset.locale || "null"); } catch (err) { return null; }
  })();

  // Plotly's words that the toolbar below can show: listed for the catalogs (babel.cfg
  // extracts each marked sentence here; web/lang.py hands their translations to
  // data-locale).
  const _ = (msgid) => msgid;
  void [_("Zoom"), _("Pan"), _("Zoom in"), _("Zoom out"), _("Reset axes"),
    _("Download plot as a PNG"), _("Preparing image - this may take a few seconds"),
    _("Image download succeeded"), _("Sorry, there was a problem downloading your image!"),
    _("Double-click to zoom back out")];

  // A phone's width: the toolbar would sit over the chart, and a finger hovers nothing.
  const narrow = window.matchMedia("(max-width: 640px)");

  let loading = null;
  function ready(P) {
    if (locale && !ready.done) P.register(locale);
    ready.done = true;
    return P;
  }
  function load() {
    if (window.Plotly) return Promise.resolve(ready(window.Plotly));
    if (!loading) {
      loading = new Promise((resolve, reject) => {
        const s = document.createElement("script");
        s.src = src;
        s.async = true;
        s.addEventListener("load", () => (window.Plotly ? resolve(ready(window.Plotly))
                                                         : reject(new Error("no Plotly"))));
        s.addEventListener("error", reject);
        document.head.append(s);
      });
      loading.catch(() => { loading = null; });  // a failed fetch may be tried again
    }
    return loading;
  }

  function config() {
    return {
      displaylogo: false, responsive: true,
      displayModeBar: narrow.matches ? false : "hover",
      modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"],
      // Plotly 4 offers "Share chart..." by default: it sends the figure to Plotly's cloud.
      // Nothing leaves this machine.
      showSendToCloud: false, plotlyServerURL: "",
      locale: locale ? locale.name : "en",
    };
  }

  async function draw(box, fig) {
    const P = await load();
    await P.newPlot(box, fig.data, fig.layout, config());
    return P;
  }

  window.ledgerPlot = { load, config, draw };
})();
