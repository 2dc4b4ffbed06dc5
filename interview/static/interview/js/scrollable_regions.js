// A box that scrolls but holds nothing focusable could not be scrolled from the keyboard: it takes the focus
// itself, as a region named for what it holds, so a screen reader can say what it is. Loaded by the site's
// pages and the admin's; content a script puts in later is looked at when the script says so with an
// "interview:content-changed" event.
(function () {
  "use strict";

  var FOCUSABLE = "a[href], button, input, select, textarea, [tabindex], [contenteditable]";

  function name(box) {
    if (box.matches("pre, code, .highlight *") || box.querySelector("pre")) return "Code";
    if (box.matches("table") || box.querySelector("table")) return "Table";
    return "Scrolling text";
  }

  function reachScrollableRegions(root) {
    root.querySelectorAll("*").forEach(function (box) {
      if (box.hasAttribute("tabindex") || /^(TEXTAREA|SELECT)$/.test(box.tagName)) return;
      var style = getComputedStyle(box);
      var sideways = /auto|scroll/.test(style.overflowX) && box.scrollWidth > box.clientWidth + 1;
      var down = /auto|scroll/.test(style.overflowY) && box.scrollHeight > box.clientHeight + 1;
      if (!(sideways || down) || box.querySelector(FOCUSABLE)) return;
      box.tabIndex = 0;
      if (!box.hasAttribute("role")) box.setAttribute("role", "region");
      if (!box.hasAttribute("aria-label") && !box.hasAttribute("aria-labelledby")) box.setAttribute("aria-label", name(box));
    });
  }

  // After the page's layout (and the admin's widgets) are in place.
  window.addEventListener("load", function () { reachScrollableRegions(document.body); });
  document.addEventListener("interview:content-changed", function (event) { reachScrollableRegions(event.target); });
})();
