// The match page's review by what each player knew, while its job runs: ask the JSON
// answer every two seconds, show how many deals are done, and load the page again when
// the report is kept (web/routes/knowledge.py). Without scripts the page refreshes itself.
(function () {
  "use strict";
  // _() comes from words.js, loaded before this file.

  const line = document.getElementById("review-progress");
  if (!line) return;
  const bar = line.parentElement.querySelector("progress");

  async function poll() {
    let answer;
    try {
      answer = await fetch(line.dataset.api, { headers: { Accept: "application/json" } });
    } catch (err) {
      setTimeout(poll, 4000);
      return;
    }
    if (answer.status === 200) {
      window.location.reload();
      return;
    }
    if (answer.status === 202) {
      const got = await answer.json();
      line.textContent = _("Being worked out: %(done)s of %(total)s deals…",
                           { done: got.done, total: got.total });
      if (bar) { bar.max = got.total || 1; bar.value = got.done; }
      setTimeout(poll, 2000);
      return;
    }
    const got = await answer.json().catch(() => ({}));
    const error = got.error || {};
    line.textContent = error.message_worded || error.message || _("The review could not be worked out.");
  }
  setTimeout(poll, 2000);
})();
