// Practice pages, on top of forms that work without JavaScript: the browser's time zone goes with each form
// (the user's days and streak are counted in it), and keys 1-4 rate a revealed question.
(function () {
  "use strict";

  var zone = "";
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { /* very old browser: UTC */ }
  document.querySelectorAll("input[data-timezone]").forEach(function (input) { input.value = zone; });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName) && event.target.type !== "checkbox") return;
    var button = document.querySelector('[data-rating="' + event.key + '"]');
    if (button && !button.disabled) { event.preventDefault(); button.click(); }
  });

  // Ctrl/Cmd-Enter in the answer reveals the model answer.
  var reveal = document.querySelector("[data-reveal-form]");
  if (reveal) {
    reveal.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); reveal.requestSubmit(); }
    });
  }

  document.querySelectorAll("[data-key-point]").forEach(function (box) {
    box.addEventListener("change", function () { box.closest(".kp").classList.toggle("kp--covered", box.checked); });
  });
})();
