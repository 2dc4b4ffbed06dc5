// The problem set admin: each item row gets a drag handle; dropping a row renumbers every row's position in
// the order shown, so saving stores that order. The position fields stay editable without JavaScript.
(function () {
  "use strict";

  function rows(body) {
    return Array.prototype.filter.call(body.querySelectorAll("tr.form-row"), function (row) {
      return !row.classList.contains("empty-form");
    });
  }

  function renumber(body) {
    rows(body).forEach(function (row, index) {
      var position = row.querySelector("input[name$='-position']");
      if (position) position.value = String(index + 1);
    });
  }

  function addHandle(row, body) {
    if (row.querySelector(".set-item-handle")) return;
    var cell = row.querySelector("td.field-position");
    if (!cell) return;
    var handle = document.createElement("span");
    handle.className = "set-item-handle";
    handle.title = "Drag to reorder";
    handle.textContent = "⠿";
    handle.setAttribute("aria-hidden", "true");
    cell.insertBefore(handle, cell.firstChild);
    handle.addEventListener("mousedown", function () { row.draggable = true; });
    row.addEventListener("dragstart", function (event) {
      body.dragged = row;
      row.classList.add("is-dragged");
      event.dataTransfer.effectAllowed = "move";
    });
    row.addEventListener("dragend", function () {
      row.draggable = false;
      row.classList.remove("is-dragged");
      renumber(body);
    });
    row.addEventListener("dragover", function (event) {
      var dragged = body.dragged;
      if (!dragged || dragged === row) return;
      event.preventDefault();
      var box = row.getBoundingClientRect();
      body.insertBefore(dragged, event.clientY < box.top + box.height / 2 ? row : row.nextSibling);
    });
  }

  function setUp() {
    document.querySelectorAll(".set-items tbody").forEach(function (body) {
      rows(body).forEach(function (row) { addHandle(row, body); });
    });
  }

  document.addEventListener("DOMContentLoaded", setUp);
  document.addEventListener("formset:added", function (event) {
    var row = event.target;
    var body = row.closest("tbody");
    if (body) { addHandle(row, body); renumber(body); }
  });
})();

// The id field's help shows the set's URL; it follows the id as it is typed (or filled in from the title).
(function () {
  "use strict";

  document.addEventListener("DOMContentLoaded", function () {
    var field = document.getElementById("id_slug");
    var preview = document.querySelector(".set-slug-preview");
    if (!field || !preview) return;
    function show() { preview.textContent = field.value || "…"; }
    // The admin fills the id from the title on the title's keyup, with no event on the id field: a listener
    // on the document hears that keyup after the admin's own has run.
    ["input", "keyup", "change"].forEach(function (name) { document.addEventListener(name, show); });
    show();
  });
})();
