// Small enhancements on top of pages that work without JavaScript: theme switch, keyboard shortcuts,
// copy buttons on code, filters that apply as you type or choose, and a visitor's drafts carried into the
// account once they log in.
(function () {
  "use strict";

  var root = document.documentElement;

  function effectiveTheme() {
    if (root.dataset.theme) return root.dataset.theme;
    return window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  function setUpThemeToggle() {
    document.querySelectorAll("[data-theme-toggle]").forEach(function (button) {
      button.addEventListener("click", function () {
        var theme = effectiveTheme() === "dark" ? "light" : "dark";
        root.dataset.theme = theme;
        try { localStorage.setItem("theme", theme); } catch (e) { /* private mode: the choice lasts this page */ }
      });
    });
  }

  function isTyping(target) {
    return target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName);
  }

  function visibleSearchInput() {
    var inputs = document.querySelectorAll("[data-search-shortcut]");
    // The page's own search box wins over the header's; the header's is hidden on small screens.
    for (var i = inputs.length - 1; i >= 0; i--) {
      if (inputs[i].offsetParent !== null) return inputs[i];
    }
    return null;
  }

  function setUpShortcuts() {
    document.addEventListener("keydown", function (event) {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "Escape" && isTyping(event.target)) { event.target.blur(); return; }
      if (isTyping(event.target)) return;

      var key = event.key.toLowerCase();
      if (event.key === "/") {
        var input = visibleSearchInput();
        if (input) { event.preventDefault(); input.focus(); input.select(); }
      } else if (key === "r") {
        var answer = document.querySelector("[data-answer]");
        if (answer) {
          event.preventDefault();
          answer.open = !answer.open;
          if (answer.open) answer.querySelector("summary").focus({ preventScroll: true });
        }
      } else if (key === "n" || key === "p") {
        var link = document.querySelector('[data-shortcut="' + key + '"]');
        if (link) { event.preventDefault(); window.location.assign(link.href); }
      }
    });
  }

  function setUpCopyButtons() {
    if (!navigator.clipboard) return;
    // Code in the prose, and a value made to be copied (a new API token).
    document.querySelectorAll(".prose .highlight, [data-copyable]").forEach(function (block) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "copy-button";
      button.textContent = "Copy";
      button.setAttribute("aria-label", block.dataset.copyLabel || "Copy this code");
      button.addEventListener("click", function () {
        navigator.clipboard.writeText(block.querySelector("pre").innerText).then(function () {
          button.textContent = "Copied";
          setTimeout(function () { button.textContent = "Copy"; }, 1500);
        });
      });
      block.appendChild(button);
    });
  }

  function setUpLiveFilters() {
    var form = document.querySelector("[data-live-filters]");
    var results = document.getElementById("results");
    if (!form || !results) return;

    var pending = null;
    var latest = 0;
    function refresh() {
      var url = form.action + "?" + new URLSearchParams(new FormData(form)).toString();
      var request = ++latest;
      fetch(url, { headers: { Accept: "text/html" } })
        .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
        .then(function (html) {
          if (request !== latest) return;  // a newer keystroke already asked again
          var page = new DOMParser().parseFromString(html, "text/html");
          var fresh = page.getElementById("results");
          if (!fresh) return;
          results.innerHTML = fresh.innerHTML;
          document.title = page.title;
          history.replaceState(null, "", url);
        })
        .catch(function () { form.submit(); });
    }

    form.querySelectorAll("[data-auto-submit]").forEach(function (select) {
      select.addEventListener("change", function () { form.requestSubmit(); });
    });
    var search = form.querySelector("[data-live-search]");
    if (search) {
      search.addEventListener("input", function () {
        clearTimeout(pending);
        pending = setTimeout(refresh, 250);
      });
    }
  }

  // A visitor's code on a problem page is kept in localStorage as "problem-draft:<slug>" → {source, savedAt}
  // (judge.js). The first page seen signed in carries each into the account, then forgets it here; a problem
  // page open on that problem hears of it through the "interview:draft-carried" event.
  var VISITOR_DRAFT = "problem-draft:";

  function carryVisitorDrafts() {
    var urlTemplate = document.body.dataset.draftCarryUrl;  // present when signed in
    if (!urlTemplate) return;
    var keys = [];
    try {
      for (var i = 0; i < localStorage.length; i++) {
        if (localStorage.key(i).indexOf(VISITOR_DRAFT) === 0) keys.push(localStorage.key(i));
      }
    } catch (e) { return; }  // storage refused: nothing was kept either
    var token = document.querySelector("input[name=csrfmiddlewaretoken]");
    keys.forEach(function (key) {
      var kept = null;
      try { kept = JSON.parse(localStorage.getItem(key)); } catch (e) { /* not ours to read */ }
      if (!kept || typeof kept.source !== "string") return;
      var slug = key.slice(VISITOR_DRAFT.length);
      fetch(urlTemplate.replace("__slug__", encodeURIComponent(slug)), {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": token ? token.value : "" },
        body: JSON.stringify({ source: kept.source, age_ms: Math.max(0, Date.now() - (Number(kept.savedAt) || 0)) }),
      }).then(function (response) {
        // A problem since retired, or code over the size limit, will never be taken: let it go.
        if (response.status === 404 || response.status === 413) localStorage.removeItem(key);
        if (!response.ok) return;  // anything else is tried again on the next page
        return response.json().then(function (draft) {
          localStorage.removeItem(key);
          document.dispatchEvent(new CustomEvent("interview:draft-carried", { detail: { slug: slug, draft: draft } }));
        });
      }).catch(function () { /* offline: tried again on the next page */ });
    });
  }

  // The account menu closes as a menu does: on Escape (back to its button) and on a click elsewhere.
  function setUpAccountMenu() {
    var menu = document.querySelector("[data-account-menu]");
    if (!menu) return;
    menu.addEventListener("keydown", function (event) {
      if (event.key !== "Escape" || !menu.open) return;
      menu.open = false;
      menu.querySelector("summary").focus();
    });
    document.addEventListener("click", function (event) {
      if (menu.open && !menu.contains(event.target)) menu.open = false;
    });
  }

  setUpThemeToggle();
  setUpAccountMenu();
  setUpShortcuts();
  setUpCopyButtons();
  setUpLiveFilters();
  carryVisitorDrafts();
})();
