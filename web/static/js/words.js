// The words of the pages' scripts, shared by record.js, knowledge.js and analysis.js: each
// page hands the sentences its script marks with _(), in the page's language, in
// #js-words (web/lang.py js_words; English pages leave it empty), and loads this file
// (deferred) before that script. In a right-to-left page each value is set apart (a
// Unicode isolate), as the server does, so that a tile or a name keeps its own order
// inside the Arabic around it.
(() => {
  "use strict";

  const WORDS = (() => {
    const el = document.getElementById("js-words");
    try { return el ? JSON.parse(el.textContent) : {}; } catch (err) { return {}; }
  })();
  const RTL = document.documentElement.dir === "rtl";

  // _(msgid, null): the sentence with its %(slots)s still open (analysis.js's sayNodes).
  window._ = function _(msgid, values = {}) {
    if (values === null) return WORDS[msgid] || msgid;
    return (WORDS[msgid] || msgid).replace(/%\((\w+)\)s/g, (m, key) => {
      const value = String(values[key] ?? "");
      return RTL ? `\u2068${value}\u2069` : value;
    });
  };
})();
