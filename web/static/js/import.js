// Drag and drop onto the import form: the dropped file goes into the file input.
(() => {
  "use strict";
  const zone = document.getElementById("dropzone");
  const input = document.getElementById("file-input");
  const name = document.getElementById("file-name");
  if (!zone || !input) return;
  const show = () => { name.textContent = input.files.length ? input.files[0].name : ""; };
  input.addEventListener("change", show);
  ["dragenter", "dragover"].forEach((t) => zone.addEventListener(t, (ev) => {
    ev.preventDefault();
    zone.classList.add("dragging");
  }));
  ["dragleave", "drop"].forEach((t) => zone.addEventListener(t, () => zone.classList.remove("dragging")));
  zone.addEventListener("drop", (ev) => {
    ev.preventDefault();
    if (!ev.dataTransfer || !ev.dataTransfer.files.length) return;
    input.files = ev.dataTransfer.files;
    show();
    document.getElementById("import-form").requestSubmit();
  });
})();
