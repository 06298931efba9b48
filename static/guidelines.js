// The judging page's guidelines: "g" (or the "Guidelines" button) shows and hides them,
// Escape or the close button hides them. Loaded only by templates/assess/judge.html (no
// inline script: Content-Security-Policy). The guidelines are the aside#guidelines of the
// judging fragment (templates/assess/partials/guidelines_dialog.html), which is replaced
// with every pair, so everything is looked up when used and handlers sit on the document.
(function () {
  "use strict";

  if (!document.getElementById("judge")) return;

  // Where focus was before the guidelines opened, to give it back when they close.
  var returnFocus = null;

  function dialog() {
    return document.getElementById("guidelines");
  }

  function opener() {
    return document.querySelector('[data-action="guidelines"]');
  }

  function isOpen() {
    var box = dialog();
    return !!box && !box.hidden;
  }

  function open() {
    var box = dialog();
    if (!box) return;
    returnFocus = document.activeElement;
    box.hidden = false;
    var button = opener();
    if (button) button.setAttribute("aria-expanded", "true");
    box.focus({ preventScroll: true });
  }

  function close() {
    var box = dialog();
    if (!box || box.hidden) return;
    box.hidden = true;
    var button = opener();
    if (button) button.setAttribute("aria-expanded", "false");
    // Back where the annotator was, if that is still on the page; else the pair.
    var back = returnFocus && document.contains(returnFocus) ? returnFocus : document.getElementById("judge-item");
    returnFocus = null;
    if (back && typeof back.focus === "function") back.focus();
  }

  function toggle() {
    if (isOpen()) {
      close();
    } else {
      open();
    }
  }

  function typing(target) {
    return !!target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "Escape" && isOpen()) {
      event.preventDefault();
      close();
      return;
    }
    if (event.key !== "g" || typing(event.target)) return;
    if (!dialog()) return;
    event.preventDefault();
    toggle();
  });

  document.addEventListener("click", function (event) {
    if (!event.target.closest) return;
    if (event.target.closest('[data-action="guidelines"]')) {
      event.preventDefault();
      toggle();
    } else if (event.target.closest('[data-action="guidelines-close"]')) {
      event.preventDefault();
      close();
    }
  });

  // After the confirm button's htmx swap, the button that had focus is gone: put focus on
  // the pair that replaced the guidelines, as static/judge.js does after its own swaps.
  document.body.addEventListener("htmx:afterSwap", function () {
    returnFocus = null;
    var item = document.getElementById("judge-item");
    if (item && document.activeElement === document.body) {
      item.focus({ preventScroll: true });
      window.scrollTo(0, 0);
    }
  });
})();
