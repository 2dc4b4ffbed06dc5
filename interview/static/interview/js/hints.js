// The problem page's hints panel: "Show hint N" reveals the next hint in place, through the same POST the
// form makes without JavaScript, and the server remembers it, so a reload shows the same hints.
(function () {
  "use strict";

  function setUp(panel) {
    var form = panel.querySelector("[data-hints-form]");
    if (!form) return;
    var list = panel.querySelector("[data-hints-list]");
    var count = panel.querySelector("[data-hints-count]");
    var next = form.querySelector("[data-hints-next]");
    var button = form.querySelector("[data-hints-button]");
    var error = panel.querySelector("[data-hints-error]");

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      button.disabled = true;
      error.hidden = true;
      fetch(form.action, { method: "POST", body: new FormData(form), headers: { Accept: "application/json" } })
        .then(function (response) {
          return response.json().then(function (body) {
            if (!response.ok) throw new Error(body.error || "The hint could not be revealed.");
            return body;
          });
        })
        .then(function (body) { show(body); })
        .catch(function (failure) {
          error.textContent = failure.message;
          error.hidden = false;
        })
        .then(function () { button.disabled = false; });
    });

    function show(body) {
      for (var index = list.children.length; index < body.shown; index += 1) {
        var item = document.createElement("li");
        item.className = "prose";
        item.innerHTML = body.hints[index];  // rendered by the server from the problem's own Markdown
        list.appendChild(item);
      }
      count.textContent = "(" + body.shown + " of " + body.total + " shown)";
      var offer = panel.querySelector("[data-hints-offer]");
      if (offer) offer.remove();
      if (body.shown >= body.total) {
        form.remove();
      } else {
        next.value = body.shown + 1;
        button.textContent = "Show hint " + (body.shown + 1);
      }
    }
  }

  document.querySelectorAll("[data-hints]").forEach(setUp);
})();
