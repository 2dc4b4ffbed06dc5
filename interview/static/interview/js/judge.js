// The problem page and the submission page, on top of forms that work without JavaScript:
// - the code editor (window.InterviewEditor when its bundle is present, else the plain textarea),
// - the draft saved as you type (a visitor's in this browser, carried into the account by site.js once they
//   log in), Reset to starter, Run and Submit through the JSON API,
// - live results: the queue position, a progress bar and each test as it finishes, then the verdict.
(function () {
  "use strict";

  var FINAL = { finished: true, error: true };
  var labels = {};

  function csrfToken() {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (match) return decodeURIComponent(match[1]);
    var field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  function requestJSON(method, url, body, extraHeaders) {
    var headers = { "Content-Type": "application/json", "X-CSRFToken": csrfToken(), Accept: "application/json" };
    Object.keys(extraHeaders || {}).forEach(function (name) { headers[name] = extraHeaders[name]; });
    return fetch(url, {
      method: method, headers: headers, credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(function (response) {
      if (response.status === 204) return {};
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) throw new Error(data.error || "The server answered " + response.status + ".");
        return data;
      });
    });
  }

  function label(value) {
    return labels[value] || (value || "").replace(/_/g, " ");
  }

  function milliseconds(value) {
    if (value === null || value === undefined) return "—";
    return value < 10 ? value.toFixed(3) + " ms" : value.toFixed(1) + " ms";
  }

  function size(value) {
    if (value === null || value === undefined) return "—";
    var units = [["GiB", 1073741824], ["MiB", 1048576], ["KiB", 1024]];
    for (var i = 0; i < units.length; i++) {
      if (value >= units[i][1]) return (value / units[i][1]).toFixed(2) + " " + units[i][0];
    }
    return value + " B";
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // ---- Live results -------------------------------------------------------------------------------------

  function skeleton(panel) {
    panel.innerHTML = "";
    var result = element("div", "result result--queued");
    var head = element("header", "result__head");
    head.appendChild(element("span", "verdict verdict--queued", label("queued") + "…"));
    result.appendChild(head);
    var progress = element("div", "progress");
    progress.setAttribute("role", "progressbar");
    progress.setAttribute("aria-label", "Tests judged");
    progress.appendChild(element("div", "progress__bar"));
    result.appendChild(progress);
    result.appendChild(element("p", "result__state muted", "Sent to the judge."));
    var table = element("table", "tests");
    table.hidden = true;
    table.innerHTML = '<thead><tr><th scope="col">Test</th><th scope="col">Result</th>' +
      '<th scope="col" class="num">Time</th><th scope="col" class="num">Peak memory</th></tr></thead><tbody></tbody>';
    result.appendChild(table);
    panel.appendChild(result);
  }

  function stateText(data) {
    var queue = (data.queue.name || "").toUpperCase();
    var text = "";
    if (data.status === "queued") {
      text = data.queue.position ? "Number " + data.queue.position + " in the " + queue + " queue." : "Queued.";
    } else if (data.status === "running") {
      text = data.progress.done + " of " + data.progress.total + " tests judged.";
      if (data.attempts > 1) text += " (Attempt " + data.attempts + ": the first worker stopped.)";
    }
    if (data.queue.workers === 0) {
      text += " No " + queue + " worker is running right now; it will be judged once one starts.";
    }
    return text;
  }

  function render(panel, data) {
    var result = panel.querySelector(".result");
    result.className = "result result--" + data.status;
    var verdict = result.querySelector(".verdict");
    verdict.className = "verdict verdict--" + data.status;
    verdict.textContent = label(data.status) + "…";
    var total = data.progress.total || 1;
    var bar = result.querySelector(".progress__bar");
    if (bar) bar.style.width = Math.round(100 * data.progress.done / total) + "%";
    var progress = result.querySelector(".progress");
    if (progress) {
      progress.setAttribute("aria-valuemax", String(data.progress.total));
      progress.setAttribute("aria-valuenow", String(data.progress.done));
    }
    var state = result.querySelector(".result__state");
    if (state) state.textContent = stateText(data);
    var table = result.querySelector("table.tests");
    var body = table.querySelector("tbody");
    body.innerHTML = "";
    data.tests.forEach(function (test) {
      var row = element("tr", "test test--" + test.status);
      var name = element("th", "", test.name);
      name.scope = "row";
      row.appendChild(name);
      var cell = element("td");
      cell.appendChild(element("span", "status status--" + test.status, label(test.status)));
      row.appendChild(cell);
      row.appendChild(element("td", "num", milliseconds(test.time_ms)));
      row.appendChild(element("td", "num", size(test.peak_bytes)));
      body.appendChild(row);
      if (test.message) {
        var messageRow = element("tr", "test-message");
        var messageCell = element("td");
        messageCell.colSpan = 4;
        messageCell.appendChild(element("pre", "", test.message));
        messageRow.appendChild(messageCell);
        body.appendChild(messageRow);
      }
    });
    table.hidden = data.tests.length === 0;
  }

  // What a screen reader says about a run: a short line as its state changes and the verdict with its summary,
  // rather than the whole panel read again each time it is redrawn. Beside the panel, so a redraw keeps it.
  function announcer(panel) {
    var line = panel.parentNode.querySelector("[data-run-announce]");
    if (!line) {
      line = element("p", "visually-hidden");
      line.setAttribute("role", "status");
      line.dataset.runAnnounce = "";
      panel.after(line);
    }
    return line;
  }

  function verdictLine(panel) {
    var verdict = panel.querySelector("[data-result-verdict]");
    var summary = panel.querySelector("[data-result-summary]");
    return [verdict, summary].filter(Boolean).map(function (part) {
      return part.textContent.replace(/\s+/g, " ").trim();
    }).join(". ");
  }

  // Polls the submission until it is judged, then swaps in the server-rendered result (chart and all);
  // onState, if given, sees every state polled, the last one included.
  function watch(panel, apiUrl, resultUrl, onDone, onState) {
    var polls = 0;
    var token = {};
    var announce = announcer(panel);
    var announced = "";
    panel.watching = token;
    function finish() {
      return fetch(resultUrl, { credentials: "same-origin", headers: { Accept: "text/html" } })
        .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
        .then(function (html) {
          if (panel.watching !== token) return;
          panel.innerHTML = html;
          panel.dispatchEvent(new CustomEvent("interview:content-changed", { bubbles: true }));
          announce.textContent = verdictLine(panel);
          if (onDone) onDone();
        });
    }
    function poll() {
      if (panel.watching !== token) return;  // a newer submission took over the panel
      polls += 1;
      requestJSON("GET", apiUrl).then(function (data) {
        if (panel.watching !== token) return;
        if (onState) onState(data);
        if (FINAL[data.status]) return finish();
        if (data.status !== announced) announce.textContent = label(data.status) + "…";
        announced = data.status;
        render(panel, data);
        setTimeout(poll, polls < 40 ? 500 : 2000);
      }).catch(function () {
        setTimeout(poll, 3000);  // the server restarting, or the network gone for a moment
      });
    }
    poll();
  }

  function setUpSubmissionPage() {
    var result = document.querySelector(".page-submission [data-result]");
    if (!result || FINAL[result.dataset.status]) return;
    var panel = result.closest("[data-run-panel]");
    watch(panel, result.dataset.apiUrl, result.dataset.resultUrl, null);
  }

  // ---- The console around the editor ----------------------------------------------------------------------

  var PHONE = window.matchMedia("(max-width: 59.99rem)");

  function stored(key, fallback) {
    try {
      var value = JSON.parse(localStorage.getItem(key));
      return value === null ? fallback : value;
    } catch (e) { return fallback; }
  }

  function store(key, value) {
    try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode: not kept */ }
  }

  // On a phone one pane shows at a time; the tabs pick it, and Run and Submit show the results.
  function setUpPanes(layout) {
    var tabs = document.querySelector("[data-pane-tabs]");
    if (!tabs) return function () {};
    var buttons = tabs.querySelectorAll("[data-pane-tab]");
    tabs.hidden = false;
    layout.dataset.paneShown = "";
    function show(name) {
      buttons.forEach(function (button) {
        button.setAttribute("aria-selected", String(button.dataset.paneTab === name));
      });
      layout.querySelectorAll("[data-pane]").forEach(function (pane) {
        pane.toggleAttribute("data-pane-active", pane.dataset.pane === name);
      });
    }
    buttons.forEach(function (button) {
      button.addEventListener("click", function () { show(button.dataset.paneTab); });
    });
    show("statement");
    return function (name) { if (PHONE.matches) show(name); };
  }

  // On a phone the Code tab is one screen tall (judge.css): while the editor has the focus the form is kept at
  // the top of the screen, as it takes the focus and as the on-screen keyboard shrinks the viewport.
  function keepCodeOnScreen(form) {
    function toTop() {
      var focused = document.activeElement;
      if (!PHONE.matches || !focused || !form.contains(focused) || !focused.closest(".cm-content, .code-input")) return;
      window.scrollBy(0, form.getBoundingClientRect().top);
    }
    form.addEventListener("focusin", toTop);
    window.addEventListener("resize", toTop);
  }

  // The divider between the statement and the editor: dragged, or moved with the arrow keys; kept per browser.
  function setUpDivider(layout) {
    var divider = layout.querySelector("[data-divider]");
    if (!divider) return;
    divider.hidden = false;
    function set(percent) {
      percent = Math.max(25, Math.min(70, Math.round(percent)));
      layout.style.setProperty("--split", percent + "%");
      divider.setAttribute("aria-valuenow", String(percent));
      return percent;
    }
    var split = set(stored("problem-split", 45));
    divider.addEventListener("pointerdown", function (event) {
      divider.setPointerCapture(event.pointerId);
      var box = layout.getBoundingClientRect();
      function move(moved) { split = set(100 * (moved.clientX - box.left) / box.width); }
      function up() {
        divider.removeEventListener("pointermove", move);
        divider.removeEventListener("pointerup", up);
        store("problem-split", split);
      }
      divider.addEventListener("pointermove", move);
      divider.addEventListener("pointerup", up);
    });
    divider.addEventListener("keydown", function (event) {
      var step = { ArrowLeft: -5, ArrowRight: 5 }[event.key];
      if (!step) return;
      event.preventDefault();
      split = set(split + step);
      store("problem-split", split);
    });
  }

  // Font size, line wrapping and keymap for the code editor (or the textarea, which has no keymap). A signed-in
  // user's are kept on the server, so they follow the user to another browser; a visitor's in localStorage.
  function setUpEditorSettings(form, textarea, editor) {
    var settings = form.querySelector("[data-editor-settings]");
    if (!settings) return;
    settings.hidden = false;
    var signedIn = form.dataset.authenticated === "true";
    var saved = JSON.parse(document.getElementById("editor-settings").textContent);
    var chosen = signedIn && saved
      ? { fontSize: saved.font_size, wrap: saved.wrap, keymap: saved.keymap }
      : stored("editor-settings", {});
    var fontSize = settings.querySelector('[data-setting="fontSize"]');
    var wrap = settings.querySelector('[data-setting="wrap"]');
    var keymap = settings.querySelector('[data-setting="keymap"]');
    var status = settings.querySelector("[data-settings-status]");
    var statusText = status.textContent;
    var hasKeymaps = Boolean(editor.setKeymap);
    settings.querySelector("[data-keymap-setting]").hidden = !hasKeymaps;
    function apply() {
      var node = form.querySelector(".interview-editor");
      var size = chosen.fontSize ? chosen.fontSize + "px" : "";
      [node, textarea].forEach(function (each) {
        if (each) each.style.setProperty("--editor-font-size", size);
      });
      textarea.style.fontSize = size;
      if (node) node.dataset.wrap = chosen.wrap ? "on" : "off";
      textarea.wrap = chosen.wrap ? "soft" : "off";
      if (hasKeymaps) editor.setKeymap(chosen.keymap || "default");
    }
    // One save at a time, each sending the settings as they are when it starts, so that an earlier save
    // answered late cannot overwrite a later choice.
    var saving = Promise.resolve();
    function keep() {
      apply();
      if (!signedIn) { store("editor-settings", chosen); return; }
      status.textContent = "Saving…";
      saving = saving.then(function () {
        var sent = { font_size: chosen.fontSize || 14, wrap: Boolean(chosen.wrap), keymap: chosen.keymap || "default" };
        return requestJSON("POST", form.dataset.settingsUrl, sent)
          .then(function () { status.textContent = statusText; })
          .catch(function (error) { status.textContent = "Not saved: " + error.message; });
      });
    }
    fontSize.value = String(chosen.fontSize || 14);
    wrap.checked = Boolean(chosen.wrap);
    keymap.value = chosen.keymap || "default";
    if (!keymap.value) keymap.value = chosen.keymap = "default";  // a name this page no longer offers
    fontSize.addEventListener("change", function () { chosen.fontSize = Number(fontSize.value); keep(); });
    wrap.addEventListener("change", function () { chosen.wrap = wrap.checked; keep(); });
    keymap.addEventListener("change", function () { chosen.keymap = keymap.value; keep(); });
    apply();
  }

  // "Your recent submissions" follows what the page sends: a new row at once, its verdict when it is in.
  function recentUpdater() {
    var section = document.querySelector("[data-recent]");
    if (!section) return null;
    var rows = section.querySelector("[data-recent-rows]");
    var suites = JSON.parse(document.getElementById("suite-labels").textContent);
    return function (data) {
      var row = rows.querySelector('[data-submission-id="' + data.id + '"]');
      if (!row) {
        row = element("li");
        row.dataset.submissionId = String(data.id);
        var link = element("a", "", "#" + data.id);
        link.href = data.url;
        row.appendChild(link);
        row.appendChild(document.createTextNode(" "));
        row.appendChild(element("span", "verdict verdict--small"));
        row.appendChild(document.createTextNode(" "));
        row.appendChild(element("span", "muted", (suites[data.suite] || data.suite) + " · just now"));
        rows.insertBefore(row, rows.firstChild);
        section.hidden = false;
      }
      var state = data.verdict || data.status;
      var badge = row.querySelector(".verdict");
      badge.className = "verdict verdict--small verdict--" + state;
      badge.textContent = label(state) + (FINAL[data.status] ? "" : "…");
    };
  }

  // ---- The editor ---------------------------------------------------------------------------------------

  // The plain textarea as an editor: Tab indents (Escape, then Tab, leaves it), Ctrl/Cmd-Enter runs,
  // Ctrl/Cmd-Shift-Enter submits.
  function textareaEditor(textarea, callbacks) {
    var escaped = false;
    textarea.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { escaped = true; return; }
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        (event.shiftKey ? callbacks.onSubmit : callbacks.onRun)();
      } else if (event.key === "Tab" && !escaped && !event.shiftKey) {
        event.preventDefault();
        textarea.setRangeText("    ", textarea.selectionStart, textarea.selectionEnd, "end");
        callbacks.onChange();
      }
      escaped = false;
    });
    textarea.addEventListener("input", function () { callbacks.onChange(); });
    return {
      getValue: function () { return textarea.value; },
      setValue: function (value) { textarea.value = value; },
      focus: function () { textarea.focus(); },
    };
  }

  function setUpProblemPage() {
    var form = document.querySelector("[data-problem-form]");
    if (!form) return;
    var textarea = form.querySelector("[data-editor]");
    var status = form.querySelector("[data-draft-status]");
    var errorBox = form.querySelector("[data-submit-error]");
    var panel = document.querySelector("[data-run-panel]");
    var starter = JSON.parse(document.getElementById("starter-code").textContent);
    var signedIn = form.dataset.authenticated === "true";
    var buttons = form.querySelectorAll("[data-run], [data-submit]");
    // Only a problem's own page keeps a visitor's code; an interview's page is always signed in.
    var slug = form.dataset.problemSlug;
    var visitorKey = !signedIn && slug ? "problem-draft:" + slug : null;
    var busy = false;
    var dirty = false;
    var applying = false;  // the page, not the user, is changing the code
    var saveTimer = null;
    var editor;

    function say(text) { if (status) status.textContent = text; }

    function showError(text) {
      errorBox.textContent = text;
      errorBox.hidden = !text;
    }

    function saveDraft(keepalive) {
      clearTimeout(saveTimer);
      if (!signedIn || !dirty) return Promise.resolve();
      var source = editor.getValue();
      dirty = false;
      if (keepalive) {
        fetch(form.dataset.draftUrl, {
          method: "PUT", keepalive: true, credentials: "same-origin",
          headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
          body: JSON.stringify({ source: source }),
        });
        return Promise.resolve();
      }
      say("Saving…");
      return requestJSON("PUT", form.dataset.draftUrl, { source: source })
        .then(function () { say(dirty ? "Unsaved changes" : "Draft saved"); })
        .catch(function (error) { dirty = true; say("Draft not saved: " + error.message); });
    }

    function changed() {
      if (applying) return;
      if (visitorKey) store(visitorKey, { source: editor.getValue(), savedAt: Date.now() });
      if (!signedIn) return;
      dirty = true;
      say("Unsaved changes");
      clearTimeout(saveTimer);
      saveTimer = setTimeout(saveDraft, 800);
    }

    function urlFor(template, id) { return template.replace(/\/0(\/?[^\/]*)$/, "/" + id + "$1"); }

    var layout = document.querySelector("[data-split]");
    var showPane = layout ? setUpPanes(layout) : function () {};
    if (layout) setUpDivider(layout);
    var updateRecent = recentUpdater();

    function follow(id) {
      skeleton(panel);
      watch(panel, urlFor(form.dataset.apiUrlTemplate, id), urlFor(form.dataset.resultUrlTemplate, id),
            slug ? refreshLiveParts : null, updateRecent);
    }

    function send(tests) {
      if (!buttons.length) {
        showError(signedIn ? "This problem takes no new submissions." : "Log in to run and submit your code.");
        return;
      }
      if (busy) return;
      busy = true;
      showPane("results");
      buttons.forEach(function (button) { button.disabled = true; });
      showError("");
      var key = window.crypto && crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random();
      var source = editor.getValue();
      // A submission leaves the draft alone (scripts and interviews submit too), so the editor saves its
      // own draft first; a draft that fails to save does not stop the run.
      saveDraft(false)
        .then(function () {
          return requestJSON("POST", form.dataset.submitUrl, { source: source, tests: tests }, { "Idempotency-Key": key });
        })
        .then(function (data) { follow(data.id); })
        .catch(function (error) { showError(error.message); })
        .then(function () {
          busy = false;
          buttons.forEach(function (button) { button.disabled = false; });
        });
    }

    function replaceCode(source) {
      applying = true;
      editor.setValue(source);
      applying = false;
    }

    // Two versions of the draft, after code typed before logging in was carried into the account.
    var versions = form.querySelector("[data-draft-versions]");
    function showVersions(other) {
      versions.hidden = !other;
      if (!other) return;
      versions.querySelector("[data-other-description]").textContent = other.description;
      versions.querySelector("[data-other-source]").textContent = other.source;
    }
    if (versions) {
      document.addEventListener("interview:draft-carried", function (event) {
        if (event.detail.slug !== slug) return;
        replaceCode(event.detail.draft.source);
        showVersions(event.detail.draft.other);
      });
      versions.querySelectorAll("[data-keep]").forEach(function (button) {
        button.addEventListener("click", function () {
          saveDraft(false)
            .then(function () { return requestJSON("POST", form.dataset.draftPickUrl, { keep: button.dataset.keep }); })
            .then(function (draft) {
              replaceCode(draft.source);
              showVersions(draft.other);
              say("Draft saved");
            })
            .catch(function (error) { say("Not kept: " + error.message); });
        });
      });
    }

    if (visitorKey) {
      var kept = stored(visitorKey, null);
      if (kept && typeof kept.source === "string") textarea.value = kept.source;
    }

    var callbacks = {
      onRun: function () { send("sample"); },
      onSubmit: function () { send("all"); },
      onChange: changed,
      readOnly: false,
    };
    editor = window.InterviewEditor ? window.InterviewEditor.mount(textarea, callbacks) : textareaEditor(textarea, callbacks);
    setUpEditorSettings(form, textarea, editor);
    if (layout) keepCodeOnScreen(form);
    if (visitorKey) say("Kept in this browser until you log in or sign up");

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var button = event.submitter;
      send(button && button.value === "sample" ? "sample" : "all");
    });

    var reset = form.querySelector("[data-reset]");
    reset.addEventListener("click", function () {
      if (editor.getValue() === starter) return;
      if (!window.confirm("Replace your code with the starter code? What you wrote is lost, unless you submitted it.")) return;
      editor.setValue(starter);
      changed();
      editor.focus();
    });

    window.addEventListener("pagehide", function () { saveDraft(true); });
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "hidden") saveDraft(true);
    });

    if (panel.dataset.watch) follow(panel.dataset.watch);
  }

  // What a verdict can change elsewhere on the problem page (the hint offered after three failures in a row,
  // the model answer and the Solved mark after Accepted): the page is fetched again and each [data-live] part
  // takes the fresh one's content, so the server decides it in one place, as on a reload.
  function refreshLiveParts() {
    return fetch(window.location.href, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html");
        document.querySelectorAll("[data-live]").forEach(function (part) {
          var replacement = fresh.querySelector('[data-live="' + part.dataset.live + '"]');
          if (!replacement || replacement.innerHTML === part.innerHTML) return;
          part.innerHTML = replacement.innerHTML;
          setUpConfirmations(part);
        });
      })
      .catch(function () { /* the parts stay as they were until the next reload */ });
  }

  function setUpConfirmations(root) {
    (root || document).querySelectorAll("form[data-confirm]").forEach(function (form) {
      form.addEventListener("submit", function (event) {
        if (!window.confirm(form.dataset.confirm)) event.preventDefault();
      });
    });
  }

  // A failure's "Why?": opened in place through the same POST its form makes without JavaScript. The server
  // counts it as a hint and keeps it open, so a reload shows the same; focus moves to the words, so a screen
  // reader reads them next. Delegated, because a judged result's panel is swapped in after the page loads.
  function setUpWhys() {
    document.addEventListener("submit", function (event) {
      var form = event.target.closest ? event.target.closest("[data-why-form]") : null;
      if (!form) return;
      event.preventDefault();
      var button = form.querySelector("button");
      var error = form.querySelector("[data-why-error]");
      button.disabled = true;
      fetch(form.action, {
        method: "POST", body: new FormData(form), credentials: "same-origin", headers: { Accept: "application/json" },
      })
        .then(function (response) {
          return response.json().catch(function () { return {}; }).then(function (body) {
            if (!response.ok) throw new Error(body.error || "The why could not be opened (" + response.status + ").");
            return body;
          });
        })
        .then(function (body) {
          var holder = form.parentNode;
          var words = element("p", "diagnosis__why-text");
          words.appendChild(element("strong", "", "Why:"));
          words.appendChild(document.createTextNode(" " + body.why));
          holder.replaceChild(words, form);
          holder.focus();
        })
        .catch(function (failure) {
          error.textContent = failure.message;
          error.hidden = false;
          button.disabled = false;
        });
    });
  }

  var labelScript = document.getElementById("verdict-labels");
  if (labelScript) labels = JSON.parse(labelScript.textContent);
  setUpConfirmations();
  setUpProblemPage();
  setUpSubmissionPage();
  setUpWhys();
})();
