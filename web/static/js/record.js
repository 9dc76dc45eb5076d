/* Recording a match live: the new-match form and the recorder's page.
 *
 * The page never decides what is legal: the server renders only the events the
 * rules allow (each button carries the event it appends). Every tap is stored at
 * once through POST /api/matches/{id}/events with the sequence number the page
 * last saw, so a second device that recorded first makes this one answer 409:
 * the page then says so and shows the match as stored.
 */
(() => {
  "use strict";

  // The page's words: _() comes from words.js, loaded before this file.

  // --- the recorder key ------------------------------------------------------------
  // A match started on a server that wants keys arrives with its recorder key in the
  // address's fragment (never sent to a server): shown here once as the link to keep, then
  // taken out of the address. This browser holds the key in a cookie already.
  function showKey() {
    const box = document.getElementById("rec-key");
    const found = /^#key=([A-Za-z0-9_-]+)$/.exec(window.location.hash);
    if (!box || !found) return;
    const link = `${window.location.origin}${window.location.pathname}?key=${found[1]}`;
    const a = document.createElement("a");
    a.href = link;
    a.id = "rec-key-link";
    a.textContent = link;
    box.replaceChildren(_("Keep this link: it is the only key that records this match, and it is shown only this once."), " ", a);
    box.hidden = false;
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  showKey();

  // --- tiles ------------------------------------------------------------------------
  const canon = (a, b) => (a >= b ? `${a}-${b}` : `${b}-${a}`);

  /* Tiles in any notation of the match format: "6-3" "63" "3-6" "6|3" "[6:3]" [6, 3]. */
  function parseTiles(text) {
    const tiles = [];
    const bad = [];
    const re = /\[\s*(\d)\s*[:,]\s*(\d)\s*\]|(\d)\s*[-|:]\s*(\d)|(\d)(\d)/g;
    let last = 0;
    let m;
    const gap = (s) => {
      const left = s.replace(/[\s,;]+/g, " ").trim();
      if (left) bad.push(...left.split(" "));
    };
    while ((m = re.exec(text)) !== null) {
      gap(text.slice(last, m.index));
      const a = Number(m[1] ?? m[3] ?? m[5]);
      const b = Number(m[2] ?? m[4] ?? m[6]);
      if (a > 6 || b > 6) bad.push(m[0].trim());
      else tiles.push(canon(a, b));
      last = re.lastIndex;
    }
    gap(text.slice(last));
    return { tiles, bad };
  }

  // --- the new-match form -------------------------------------------------------------
  function newMatchForm(form) {
    const tables = JSON.parse(form.dataset.tables);
    const preset = form.querySelector("#preset");
    const seatRadios = [...form.querySelectorAll('input[name="seats"]')];
    const target = form.querySelector("#target");
    const teamsField = form.querySelector("#teams-field");
    const teams = form.querySelector("#teams");
    const hint = form.querySelector("#seats-hint");

    function update() {
      const table = tables.find((t) => t.id === preset.value) || tables[0];
      let checked = seatRadios.find((r) => r.checked);
      for (const r of seatRadios) {
        const ok = table.seats.includes(Number(r.value));
        r.disabled = !ok;
        r.closest("label").classList.toggle("off", !ok);
      }
      if (!checked || checked.disabled) {
        checked = seatRadios.find((r) => !r.disabled);
        checked.checked = true;
      }
      const n = Number(checked.value);
      target.placeholder = _("usual: %(target)s", { target: table.target === 0 ? _("one deal") : table.target });
      const canTeams = table.teams && n === 4;
      teamsField.hidden = !canTeams;
      if (!canTeams) teams.checked = false;
      const pairs = table.pairs.includes(n) || (canTeams && teams.checked);
      hint.textContent = pairs
        ? _("Two teams: seats 1 and 3 play together against seats 2 and 4.")
        : n === 2 ? _("Two players, each for himself.") : _("%(count)s players, each for himself.", { count: n });
      for (const row of form.querySelectorAll(".name-row")) {
        const seat = Number(row.dataset.seat);
        const on = seat < n;
        row.hidden = !on;
        row.querySelector("input").disabled = !on;
        row.querySelector(".team-tag").textContent = pairs && on ? _("Team %(team)s", { team: "AB"[seat % 2] }) : "";
        row.classList.toggle("team-0", pairs && seat % 2 === 0);
        row.classList.toggle("team-1", pairs && seat % 2 === 1);
      }
    }
    preset.addEventListener("change", update);
    teams.addEventListener("change", update);
    for (const r of seatRadios) r.addEventListener("change", update);
    update();
  }

  // --- picking tiles for hands ----------------------------------------------------------
  /* A chart of the 28 tiles shared by several hands: a tap gives a tile to the hand being
   * filled (or takes it back); a typed line of tiles fills that hand at once. */
  class HandPicker {
    constructor(root, opts) {
      this.root = root;
      this.picker = root.querySelector(".picker");
      this.text = root.querySelector(".tile-text");
      this.msg = root.querySelector(".field-msg");
      this.tabs = [...root.querySelectorAll(".seat-tab")];
      this.names = opts.names;
      this.allowed = opts.allowed || null;      // Set of tiles that may be picked, or null
      this.needs = opts.needs;                   // seat -> tiles to pick
      this.fixed = opts.fixed || {};             // seat -> tiles already known (not picked)
      this.onChange = opts.onChange || (() => {});
      this.owner = new Map();                    // tile -> seat
      this.seat = Number((this.tabs.find((t) => t.querySelector("input").checked) || this.tabs[0])
        .dataset.seat);
      this.picker.addEventListener("click", (e) => {
        const b = e.target.closest(".pick");
        if (b) this.toggle(b.dataset.tile);
      });
      for (const tab of this.tabs) {
        tab.querySelector("input").addEventListener("change", () => this.select(Number(tab.dataset.seat)));
      }
      this.text.addEventListener("input", () => this.typed());
      // Enter (or leaving the field) with the hand complete moves on to the next hand.
      const done = () => {
        if (this.tilesOf(this.seat).length === this.need(this.seat) && !this.msg.textContent) {
          this.advance();
        }
      };
      this.text.addEventListener("change", done);
      this.text.addEventListener("keydown", (e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          done();
        }
      });
      this.render();
    }

    tilesOf(seat) {
      return [...this.owner].filter(([, s]) => s === seat).map(([t]) => t);
    }

    need(seat) {
      return this.needs[seat] ?? 0;
    }

    say(text) {
      this.msg.textContent = text;
      this.msg.classList.toggle("bad", Boolean(text));
    }

    select(seat) {
      this.seat = seat;
      for (const tab of this.tabs) {
        tab.querySelector("input").checked = Number(tab.dataset.seat) === seat;
      }
      this.say("");
      this.render(true);
    }

    toggle(tile) {
      if (this.allowed && !this.allowed.has(tile)) {
        this.say(_("%(tile)s is already on the table or in a hand shown: it cannot be in this hand.", { tile }));
        return;
      }
      const owner = this.owner.get(tile);
      if (owner === this.seat) {
        this.owner.delete(tile);
        this.say("");
      } else if (owner !== undefined) {
        this.say(_("%(tile)s is already in %(name)s's hand: tap it there to take it back.", { tile, name: this.names[owner] }));
        return;
      } else if (this.tilesOf(this.seat).length >= this.need(this.seat)) {
        this.say(_("%(name)s already has %(count)s tiles: tap one to take it back first.", { name: this.names[this.seat], count: this.need(this.seat) }));
        return;
      } else {
        this.owner.set(tile, this.seat);
        this.say("");
        if (this.tilesOf(this.seat).length === this.need(this.seat)) this.advance();
      }
      this.render(true);
    }

    /* Move on to the next hand still short of tiles (after the one just filled). */
    advance() {
      const seats = this.tabs.map((t) => Number(t.dataset.seat));
      const i = seats.indexOf(this.seat);
      for (let k = 1; k < seats.length; k += 1) {
        const s = seats[(i + k) % seats.length];
        if (this.tilesOf(s).length < this.need(s)) {
          this.select(s);
          return;
        }
      }
    }

    typed() {
      const { tiles, bad } = parseTiles(this.text.value);
      const problems = bad.map((b) => _("\"%(text)s\" is not a tile (write it as 6-3)", { text: b }));
      const mine = [];
      for (const tile of tiles) {
        const owner = this.owner.get(tile);
        if (this.allowed && !this.allowed.has(tile)) problems.push(_("%(tile)s cannot be in this hand", { tile }));
        else if (owner !== undefined && owner !== this.seat) problems.push(_("%(tile)s is in %(name)s's hand", { tile, name: this.names[owner] }));
        else if (mine.includes(tile)) problems.push(_("%(tile)s is typed twice", { tile }));
        else mine.push(tile);
      }
      if (mine.length > this.need(this.seat)) {
        problems.push(_("%(count)s tiles: a hand here takes %(need)s", { count: mine.length, need: this.need(this.seat) }));
        mine.length = this.need(this.seat);
      }
      for (const t of this.tilesOf(this.seat)) this.owner.delete(t);
      for (const t of mine) this.owner.set(t, this.seat);
      this.say(problems.join("; "));
      this.render(false);
    }

    clear() {
      this.owner.clear();
      this.say("");
      this.render(true);
    }

    /* Free tiles that may still be picked. */
    free() {
      const all = [...this.picker.querySelectorAll(".pick")].map((b) => b.dataset.tile);
      return all.filter((t) => !this.owner.has(t) && (!this.allowed || this.allowed.has(t)));
    }

    /* The one hand still short, when the free tiles are exactly what it lacks. */
    restTarget(poolIsHands) {
      const short = this.tabs.map((t) => Number(t.dataset.seat))
        .filter((s) => this.tilesOf(s).length < this.need(s));
      if (short.length !== 1 || !poolIsHands) return null;
      const s = short[0];
      return this.free().length === this.need(s) - this.tilesOf(s).length ? s : null;
    }

    giveRest(seat) {
      for (const t of this.free()) this.owner.set(t, seat);
      this.render(true);
    }

    complete() {
      return this.tabs.every((t) => {
        const s = Number(t.dataset.seat);
        return this.tilesOf(s).length === this.need(s);
      });
    }

    render(syncText) {
      for (const b of this.picker.querySelectorAll(".pick")) {
        const tile = b.dataset.tile;
        const owner = this.owner.get(tile);
        const allowed = !this.allowed || this.allowed.has(tile);
        b.classList.toggle("not-allowed", !allowed);
        b.classList.toggle("mine", owner === this.seat);
        b.classList.toggle("taken", owner !== undefined && owner !== this.seat);
        for (let s = 0; s < 4; s += 1) b.classList.toggle(`owner-${s}`, owner === s);
        b.setAttribute("aria-pressed", String(owner === this.seat));
        b.setAttribute("aria-disabled", String(!allowed || (owner !== undefined && owner !== this.seat)));
        const who = owner === undefined ? "" : this.names[owner];
        b.querySelector(".owner").textContent = who ? who.slice(0, 2) : "";
        b.setAttribute("aria-label", who ? _("%(tile)s, in %(name)s's hand", { tile, name: who }) : allowed ? tile : _("%(tile)s, not possible", { tile }));
      }
      for (const tab of this.tabs) {
        const s = Number(tab.dataset.seat);
        const n = this.tilesOf(s).length + (this.fixed[s] || []).length;
        const total = this.need(s) + (this.fixed[s] || []).length;
        tab.querySelector(".count").textContent = `${n}/${total}`;
        tab.classList.toggle("full", this.tilesOf(s).length === this.need(s));
      }
      const label = this.root.querySelector(".for-seat");
      if (label) label.textContent = this.names[this.seat];
      if (syncText) this.text.value = this.tilesOf(this.seat).join(" ");
      this.onChange();
    }
  }

  // --- the recorder's page -------------------------------------------------------------
  function recorder(root) {
    const matchId = root.dataset.match;
    const seed = root.dataset.seed;
    const panel = root.querySelector("#rec-panel");
    const alertBox = root.querySelector("#rec-alert");
    const saveState = root.querySelector("#save-state");
    let busy = false;
    let pending = null; // the event of a request that did not reach the server

    const body = () => panel.querySelector("#rec-body");
    const nextSeq = () => Number(body().dataset.nextSeq);
    const panelUrl = () => `/matches/${matchId}/record/panel${seed ? `?seed=${encodeURIComponent(seed)}` : ""}`;

    function showAlert(kind, title, text, retry) {
      alertBox.hidden = false;
      alertBox.className = `rec-alert ${kind}`;
      alertBox.replaceChildren();
      const b = document.createElement("b");
      b.textContent = title;
      const p = document.createElement("span");
      p.textContent = ` ${text}`;
      alertBox.append(b, p);
      if (retry) {
        const again = document.createElement("button");
        again.type = "button";
        again.className = "choice action";
        again.id = "retry";
        again.textContent = _("Try again");
        again.addEventListener("click", retry);
        alertBox.append(again);
      }
      const close = document.createElement("button");
      close.type = "button";
      close.className = "close";
      close.setAttribute("aria-label", _("Dismiss"));
      close.textContent = "×";
      close.addEventListener("click", clearAlert);
      alertBox.append(close);
    }

    function clearAlert() {
      alertBox.hidden = true;
      alertBox.replaceChildren();
    }

    function setBusy(on, text) {
      busy = on;
      root.classList.toggle("busy", on);
      panel.setAttribute("aria-busy", String(on));
      if (text) saveState.textContent = text;
    }

    async function refresh(focus = true) {
      const r = await fetch(panelUrl(), { headers: { Accept: "text/html" }, cache: "no-store" });
      if (!r.ok) throw new Error(_("the page could not be reloaded (HTTP %(status)s)", { status: r.status }));
      panel.innerHTML = await r.text();
      setup();
      if (focus) focusNext();
    }

    // Move the focus to what comes next for keyboard users; a finger or a mouse stays
    // where it is (no jump, no focus ring on a phone).
    let modality = "none";
    document.addEventListener("keydown", () => { modality = "keyboard"; }, true);
    document.addEventListener("pointerdown", () => { modality = "pointer"; }, true);

    function focusNext() {
      if (modality === "pointer") return;
      const need = body().dataset.need;
      let el = null;
      if (need === "move" || need === "lead") {
        el = panel.querySelector(".rec-now .choice.play, .rec-now .choice.draw, .rec-now .choice.pass");
      } else if (need === "deal" || need === "redeal") {
        el = panel.querySelector('.deal-form input[name="deal-mode"]:checked');
      } else if (need === "reveal") {
        el = panel.querySelector('.reveal-form input[name="reveal-seat"]:checked');
      } else if (need === "over") {
        el = panel.querySelector("#to-sheet");
      }
      if (el) el.focus({ preventScroll: modality === "none" });
    }

    async function record(event) {
      if (busy) return;
      // When it happened at the table (match format: every event may carry "at").
      if (!event.at) event = { ...event, at: new Date().toISOString().replace(/\.\d+Z$/, "Z") };
      const expected = nextSeq();
      pending = { event, expected };
      setBusy(true, _("Saving…"));
      let resp;
      try {
        resp = await fetch(`/api/matches/${matchId}/events`, {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify({ expected_seq: expected, event }),
        });
      } catch (err) {
        setBusy(false, _("Not stored: no connection."));
        showAlert("offline", _("Not recorded: the server could not be reached."),
          _("Nothing is lost: check the connection and try again."), retry);
        return;
      }
      let answer = {};
      try { answer = await resp.json(); } catch (err) { answer = {}; }
      pending = null;
      try {
        if (resp.status === 201) {
          clearAlert();
          await refresh();
          const what = event.type === "undo" ? _("undo of event #%(event)s", { event: answer.event })
            : _("event #%(event)s", { event: answer.event });
          setBusy(false, answer.status === "complete" ? _("Stored: %(what)s, match complete.", { what })
            : _("Stored: %(what)s, all saved.", { what }));
        } else if (resp.status === 409) {
          await refresh();
          const last = body().dataset.last;
          showAlert("conflict", _("Not recorded: another device recorded this match first."),
            last ? _("This page now shows the match as stored (last event: %(last)s). Check the table, then go on.", { last })
              : _("This page now shows the match as stored. Check the table, then go on."));
          setBusy(false, _("Reloaded the match as stored."));
        } else if (resp.status === 422 || resp.status === 404) {
          const e = answer.error || {};
          showAlert("refused", _("Not recorded:"), e.message || _("the server refused it."));
          setBusy(false, _("Not stored."));
        } else {
          showAlert("refused", _("Not recorded:"), _("the server answered HTTP %(status)s. Nothing was stored; try again.", { status: resp.status }), retry);
          setBusy(false, _("Not stored."));
        }
      } catch (err) {
        setBusy(false, _("Could not reload the page."));
        showAlert("offline", _("The match could not be reloaded."), _("%(error)s. Try again.", { error: err.message }), reload);
      }
    }

    function retry() {
      const again = pending;
      clearAlert();
      if (again && again.expected === nextSeq()) record(again.event);
      else reload();
    }

    async function reload() {
      clearAlert();
      try {
        await refresh();
        setBusy(false, _("Reloaded the match as stored."));
      } catch (err) {
        showAlert("offline", _("The match could not be reloaded."), _("%(error)s. Try again.", { error: err.message }), reload);
      }
    }

    panel.addEventListener("click", (e) => {
      const b = e.target.closest("button[data-event]");
      if (!b || b.disabled || busy) return;
      record(JSON.parse(b.dataset.event));
    });

    function setupDealForm(form) {
      const names = JSON.parse(form.dataset.names);
      const seats = Number(form.dataset.seats);
      const hand = Number(form.dataset.hand);
      const noStock = Number(form.dataset.stock) === 0;
      const modeRadios = [...form.querySelectorAll('input[name="deal-mode"]')];
      const submit = form.querySelector("#deal-submit");
      const rest = form.querySelector("#deal-rest");
      const needs = {};
      for (let s = 0; s < seats; s += 1) needs[s] = hand;
      const mode = () => modeRadios.find((r) => r.checked).value;
      let picker = null;

      function sync() {
        if (!picker) return;
        const m = mode();
        const target = m === "hands" ? picker.restTarget(noStock) : null;
        rest.hidden = target === null;
        if (target !== null) rest.textContent = _("Give the rest to %(name)s", { name: names[target] });
        rest.dataset.seat = target ?? "";
        submit.disabled = m === "mine" ? picker.tilesOf(picker.seat).length !== hand : !picker.complete();
      }

      function applyMode() {
        const m = mode();
        for (const pane of form.querySelectorAll(".mode-pane")) {
          pane.hidden = (pane.dataset.pane === "random") !== (m === "random");
        }
        form.querySelector(".only-hands").hidden = m !== "hands";
        form.querySelector(".only-mine").hidden = m !== "mine";
        form.classList.toggle("mine-mode", m === "mine");
        if (picker && m === "mine") {
          // One hand only: keep the tiles picked for the chosen seat, drop the others.
          for (const [t, s] of [...picker.owner]) if (s !== picker.seat) picker.owner.delete(t);
          picker.render(true);
        }
        sync();
      }

      picker = new HandPicker(form, { names, needs, onChange: () => sync() });
      const baseSelect = picker.select.bind(picker);
      picker.select = (seat) => {
        if (mode() === "mine") {
          // "My hand" moves with the chosen seat: it is the same seven tiles.
          const mine = picker.tilesOf(picker.seat);
          picker.owner.clear();
          for (const t of mine) picker.owner.set(t, seat);
        }
        baseSelect(seat);
      };
      picker.advance = function advance() {
        if (mode() === "mine") return;
        HandPicker.prototype.advance.call(this);
      };
      for (const r of modeRadios) r.addEventListener("change", applyMode);
      form.querySelector("#deal-clear").addEventListener("click", () => picker.clear());
      rest.addEventListener("click", () => picker.giveRest(Number(rest.dataset.seat)));
      submit.addEventListener("click", () => {
        const hands = [];
        for (let s = 0; s < seats; s += 1) {
          hands.push(mode() === "mine" && s !== picker.seat ? null : picker.tilesOf(s));
        }
        record({ type: "deal", hands });
      });
      applyMode();
    }

    function setupReveal(form) {
      const seats = JSON.parse(form.dataset.reveal);
      const base = JSON.parse(form.dataset.base);
      const names = {};
      for (const s of seats) names[s.seat] = s.name;
      const needs = {};
      const fixed = {};
      const allowed = new Set();
      for (const s of seats) {
        needs[s.seat] = s.count - s.known.length;
        fixed[s.seat] = s.known;
        for (const t of s.candidates) allowed.add(t);
      }
      const total = Object.values(needs).reduce((a, b) => a + b, 0);
      const submit = form.querySelector("#reveal-submit");
      const rest = form.querySelector("#reveal-rest");
      let picker = null;
      const sync = () => {
        if (!picker) return;
        const target = picker.restTarget(allowed.size === total);
        rest.hidden = target === null;
        if (target !== null) rest.textContent = _("Give the rest to %(name)s", { name: names[target] });
        rest.dataset.seat = target ?? "";
        submit.disabled = !picker.complete();
      };
      picker = new HandPicker(form, { names, needs, fixed, allowed, onChange: sync });
      form.querySelector("#reveal-clear").addEventListener("click", () => picker.clear());
      rest.addEventListener("click", () => picker.giveRest(Number(rest.dataset.seat)));
      submit.addEventListener("click", () => {
        const hands = base.hands.slice();
        for (const s of seats) hands[s.seat] = [...s.known, ...picker.tilesOf(s.seat)];
        record({ type: "reveal", hands });
      });
      sync();
    }

    function setup() {
      const deal = panel.querySelector(".deal-form");
      if (deal) setupDealForm(deal);
      const reveal = panel.querySelector(".reveal-form");
      if (reveal) setupReveal(reveal);
    }

    /* Back on the page (or back online): if another device recorded meanwhile, show the
     * match as stored; otherwise leave the page alone (a half-entered deal stays). */
    async function checkForNews() {
      if (busy || pending) return;
      try {
        const r = await fetch(`/api/matches/${matchId}`, { cache: "no-store" });
        if (!r.ok) return;
        const m = await r.json();
        if (m.next_seq === nextSeq() || busy) return;
        await refresh(false);
        showAlert("info", _("Updated:"), _("this match was recorded on another device meanwhile; the page shows it as stored."));
      } catch (err) {
        /* offline still: the next tap says so */
      }
    }
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") checkForNews();
    });
    window.addEventListener("online", checkForNews);

    setup();
    focusNext();
    root.dataset.ready = "true";
  }

  const form = document.getElementById("new-match");
  if (form) newMatchForm(form);
  const root = document.getElementById("recorder");
  if (root) recorder(root);
  window.dominoTiles = { parseTiles };
})();
