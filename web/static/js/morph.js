// One page part brought to a fresh copy of it in place, keeping every node that did not
// change: the browser then lays out and draws only what changed. The replay (replay.js)
// morphs each step it draws, live follow (follow.js) each page it reads again.
// ``kept(node)``: a node left as it is (a drawn chart, the live line); ``sticky``: the
// attributes the reader sets and the fresh copy never has (a <details> opened).
(() => {
  "use strict";
  const none = () => false;
  function morph(old, fresh, kept = none, sticky = new Set()) {
    if (old.nodeType === Node.ELEMENT_NODE && kept(old)) return;
    if (old.isEqualNode(fresh)) return;
    if (old.nodeType === Node.TEXT_NODE && fresh.nodeType === Node.TEXT_NODE) {
      old.nodeValue = fresh.nodeValue;
      return;
    }
    if (old.nodeType !== Node.ELEMENT_NODE || old.nodeName !== fresh.nodeName
        || old.childNodes.length !== fresh.childNodes.length) {
      old.replaceWith(fresh);  // adopted into this document if it came from another
      return;
    }
    for (const a of [...old.attributes]) {
      if (!fresh.hasAttribute(a.name) && !sticky.has(a.name)) old.removeAttribute(a.name);
    }
    for (const a of fresh.attributes) {
      if (!sticky.has(a.name) && old.getAttribute(a.name) !== a.value) {
        old.setAttribute(a.name, a.value);
      }
    }
    if (old instanceof HTMLInputElement) old.value = fresh.value;  // the slider's place
    const news = [...fresh.childNodes];
    [...old.childNodes].forEach((node, i) => morph(node, news[i], kept, sticky));
  }
  window.ledgerMorph = morph;
})();
