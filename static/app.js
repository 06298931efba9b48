// DREAM Assess page behaviour. Loaded with `defer` from base.html; the Content-Security-Policy
// forbids inline script and on* attributes, so every handler lives here.
(function () {
  "use strict";

  // Messages go through textContent, never innerHTML: server text may hold markup.
  function flash(message) {
    var box = document.getElementById("flash");
    if (!box) return;
    var item = document.createElement("p");
    item.className = "flash-error";
    item.textContent = message;
    box.appendChild(item);
  }

  document.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail.xhr;
    var reasons = {
      403: "You do not have the role this action needs.",
      404: "Not found: it may have been deleted.",
      429: "Too many requests: wait a moment, then try again.",
    };
    flash(reasons[xhr.status] || "The server answered " + xhr.status + ": the action did not complete.");
  });

  document.addEventListener("htmx:sendError", function () {
    flash("The server could not be reached: the action did not complete. Check the connection and try again.");
  });

  // "/" jumps to the page's search field, as in most keyboard-driven tools.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    var active = document.activeElement;
    if (active && (active.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName))) return;
    var field = document.querySelector("[data-search-field]");
    if (field) {
      event.preventDefault();
      field.focus();
      field.select();
    }
  });
  // The upload form is not sent while its name check says the name is taken: the files
  // would travel for nothing and be refused.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.id !== "dataset-new-form") return;
    if (form.querySelector("#name-check [data-taken]")) {
      event.preventDefault();
      var name = document.getElementById("id_name");
      if (name) name.focus();
    }
  });
})();
