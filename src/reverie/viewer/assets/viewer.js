// reverie viewer: the little JavaScript it uses. Pages work without it.
"use strict";
document.addEventListener("submit", (event) => {
  const question = event.target.getAttribute("data-confirm");
  if (question && !window.confirm(question)) {
    event.preventDefault();
  }
});
const editor = document.querySelector("textarea[data-editor]");
if (editor) {
  let dirty = false;
  editor.addEventListener("input", () => { dirty = true; });
  editor.form.addEventListener("submit", () => { dirty = false; });
  window.addEventListener("beforeunload", (event) => {
    if (dirty) { event.preventDefault(); }
  });
}
