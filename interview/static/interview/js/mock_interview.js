// A mock interview's pages: the countdown (a view of the server's ends_at, corrected for the browser's clock
// being off), drafts of concept answers saved as typed, and the page closing its forms when time is up.
// The server refuses late answers whatever this script does.
(function () {
  "use strict";

  var bar = document.querySelector("[data-interview-clock]");
  if (!bar) return;
  var endsAt = Date.parse(bar.dataset.endsAt);
  var skew = Date.parse(bar.dataset.serverNow) - Date.now();  // server time minus this browser's
  var value = bar.querySelector("[data-clock-value]");
  var clock = bar.querySelector("[data-clock]");
  var timeUp = document.querySelector("[data-time-up]");
  var closed = false;

  function csrfToken() {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (match) return decodeURIComponent(match[1]);
    var field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  function two(number) { return (number < 10 ? "0" : "") + number; }

  function format(milliseconds) {
    var seconds = Math.max(0, Math.ceil(milliseconds / 1000));
    var hours = Math.floor(seconds / 3600);
    var minutes = Math.floor((seconds % 3600) / 60);
    var rest = seconds % 60;
    return hours ? hours + ":" + two(minutes) + ":" + two(rest) : two(minutes) + ":" + two(rest);
  }

  function close() {
    if (closed) return;
    closed = true;
    clock.classList.add("clock--out");
    timeUp.hidden = false;
    document.querySelectorAll("[data-interview-work] textarea, [data-interview-work] button, [data-interview-work] input")
      .forEach(function (control) { control.disabled = true; });
    document.querySelectorAll("[data-interview-work] .cm-content").forEach(function (editor) {
      editor.setAttribute("contenteditable", "false");
    });
    setTimeout(function () { window.location.assign(bar.dataset.reportUrl); }, 4000);
  }

  function tick() {
    var left = endsAt - (Date.now() + skew);
    value.textContent = format(left);
    clock.classList.toggle("clock--low", left > 0 && left <= 5 * 60 * 1000);
    if (left <= 0) { close(); return; }
    setTimeout(tick, 1000 - ((Date.now() + skew) % 1000) + 5);
  }
  tick();

  var finishForm = document.querySelector("[data-finish-form]");
  if (finishForm) {
    finishForm.addEventListener("submit", function (event) {
      if (!window.confirm("Finish the interview now? Nothing can be answered after it.")) event.preventDefault();
    });
  }

  // Concept answers: the draft is saved as it is typed, so a reload or another device resumes it.
  var answer = document.querySelector("[data-answer-draft]");
  if (!answer) return;
  var state = document.querySelector("[data-save-state]");
  var timer = null;
  var dirty = false;

  function save(keepalive) {
    clearTimeout(timer);
    if (!dirty || closed) return;
    dirty = false;
    var request = fetch(answer.dataset.draftUrl, {
      method: "PUT", keepalive: !!keepalive, credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken(), Accept: "application/json" },
      body: JSON.stringify({ source: answer.value }),
    });
    if (keepalive) return;
    state.textContent = "Saving the draft…";
    request.then(function (response) {
      if (response.status === 409) { close(); return; }
      if (!response.ok) throw new Error(String(response.status));
      state.textContent = dirty ? "Unsaved changes" : "Draft saved. Submit it to have it scored.";
    }).catch(function () { dirty = true; state.textContent = "Draft not saved; it will be retried."; });
  }

  answer.addEventListener("input", function () {
    dirty = true;
    state.textContent = "Unsaved changes";
    clearTimeout(timer);
    timer = setTimeout(save, 800);
  });
  window.addEventListener("pagehide", function () { save(true); });
})();
