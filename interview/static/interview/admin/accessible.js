// Names that Django's admin widgets leave out, so a screen reader (and axe-core) can say what each field is.
(function () {
  "use strict";

  function fieldLabel(input) {
    var row = input.closest(".form-row, .fieldBox");
    var label = row && row.querySelector("label");
    return label ? label.textContent.replace(/:\s*$/, "").trim() : "";
  }

  function name(root) {
    // A date and time field: two inputs after the words "Date:" and "Time:", neither of them a label.
    root.querySelectorAll("p.datetime input").forEach(function (input) {
      if (input.hasAttribute("aria-label")) return;
      var part = input.classList.contains("vTimeField") ? "time" : "date";
      input.setAttribute("aria-label", (fieldLabel(input) + " " + part).trim());
    });
    // An autocomplete's box is named by its chosen value, which is empty until one is chosen.
    root.querySelectorAll(".select2-selection[role=combobox]").forEach(function (box) {
      var container = box.closest(".select2");
      var select = container && container.previousElementSibling;
      var label = select && (select.getAttribute("aria-label") || fieldLabel(select));
      if (!label) return;
      box.setAttribute("aria-label", label);
      var shown = box.querySelector(".select2-selection__rendered[role=textbox]");
      if (shown) shown.setAttribute("aria-label", label);
    });
    root.querySelectorAll(".select2-search__field").forEach(function (input) {
      if (!input.hasAttribute("aria-label")) input.setAttribute("aria-label", "Search");
    });
    // The filter widget's icons carry a name, which a plain span may not: they are images.
    root.querySelectorAll(".help-tooltip[aria-label]:not([role])").forEach(function (icon) {
      icon.setAttribute("role", "img");
    });
  }

  // The autocompletes draw their boxes after the page has loaded, and again as they change.
  window.addEventListener("load", function () {
    name(document);
    new MutationObserver(function () { name(document); }).observe(document.body, { childList: true, subtree: true });
  });
})();
