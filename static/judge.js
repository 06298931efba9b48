// The judging page: keys, buttons, saving and swapping in the next pair without a page load.
// Loaded only by templates/assess/judge.html (no inline script: Content-Security-Policy).
//
// Nothing is lost:
// - every submission carries an id made here (client_id), so sending it twice is harmless;
//   an undo names the judgment it undoes (the fragment's "undo" field), so a retried undo is
//   harmless too;
// - the submission is kept in sessionStorage until the server confirms it, and the next pair
//   is shown only after that confirmation;
// - a failed request (network, 5xx, 429) shows an error and is retried with growing delays;
// - an expired session answers with HX-Redirect to the login page; after logging in, the
//   judging page finds the kept submission and sends it again.
//
// Time on task is measured twice: "seconds", the wall time since the pair was shown, and
// "active", the time with the page visible and an input (key, click, wheel, scroll, touch,
// mouse move) within the idle cut-off before it (data-idle-seconds, 60 s by default; the pair
// being shown counts as an input). Active time is reported in pieces: a heartbeat every
// data-heartbeat-seconds (15 s) posts the unreported seconds to data-url, a beacon sends
// them when the page is hidden or left, and the rest goes with the answer.
(function () {
  "use strict";

  var PENDING_KEY = "dream-judge-pending";
  var MAX_DELAY_S = 30;
  var TICK_MS = 1000;
  // The server adds at most 120 s per heartbeat (assess.review.timing.heartbeat_seconds).
  var MAX_HEARTBEAT_S = 120;
  // Digits are labels: 1/0 on binary pairs, grades 0..G on graded ones (a digit without a
  // button on this pair does nothing).
  var JUDGE_KEYS = { s: true, u: true };
  for (var digit = 0; digit <= 9; digit++) JUDGE_KEYS[String(digit)] = true;
  var root = document.getElementById("judge");
  if (!root) return;

  var shownAt = performance.now();
  var busy = false;
  // Active time of the pair shown: measured and not reported yet (ms), up to lastTick.
  var activeMs = 0;
  var lastTick = shownAt;
  var lastInput = shownAt;
  var lastBeat = shownAt;
  var wasVisible = document.visibilityState === "visible";
  // The pair being measured (its hidden "active" field; a new element is a new showing) and
  // a count of showings, so a heartbeat answered after a swap never touches the next pair.
  var measured = document.getElementById("judge-active");
  var showing = 0;

  function csrfToken() {
    try {
      var headers = JSON.parse(document.body.getAttribute("hx-headers") || "{}");
      return headers["X-CSRFToken"] || "";
    } catch (err) {
      return "";
    }
  }

  function newId() {
    if (window.crypto && typeof window.crypto.randomUUID === "function") {
      return window.crypto.randomUUID();
    }
    // randomUUID exists only in secure contexts (https, localhost); build a version 4 UUID.
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    var hex = Array.prototype.map.call(bytes, function (b) {
      return (b + 0x100).toString(16).slice(1);
    }).join("");
    return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join("-");
  }

  // Messages go through textContent only: server text may hold markup.
  function say(message, kind) {
    var box = document.getElementById("judge-alert");
    if (!box) return;
    box.textContent = message || "";
    box.className = "judge-alert" + (message ? " judge-alert-" + (kind || "error") : "");
  }

  function currentItem() {
    return document.getElementById("judge-item");
  }

  function setBusy(on) {
    busy = on;
    var item = currentItem();
    if (!item) return;
    item.setAttribute("aria-busy", on ? "true" : "false");
    Array.prototype.forEach.call(item.querySelectorAll("button"), function (button) {
      button.disabled = on;
    });
  }

  function activeField() {
    return document.getElementById("judge-active");
  }

  function dataSeconds(name, fallback) {
    var field = activeField();
    var value = field ? parseFloat(field.dataset[name]) : NaN;
    return isFinite(value) && value > 0 ? value : fallback;
  }

  // A pair was shown: both clocks start again, and the showing counts as an input.
  function pairShown() {
    shownAt = performance.now();
    activeMs = 0;
    lastTick = lastInput = lastBeat = shownAt;
    wasVisible = document.visibilityState === "visible";
    measured = activeField();
    showing += 1;
  }

  // Add the time since the last tick while the page was visible, and only up to the idle
  // cut-off after the last input. From performance.now(), not tick counts: timers of a
  // hidden or busy page fire late.
  function tick() {
    if (activeField() !== measured) {
      pairShown();  // replaced by another script (htmx): measure the new pair
      return;
    }
    var now = performance.now();
    if (wasVisible) {
      var until = Math.min(now, lastInput + dataSeconds("idleSeconds", 60) * 1000);
      if (until > lastTick) activeMs += until - lastTick;
    }
    lastTick = now;
    wasVisible = document.visibilityState === "visible";
  }

  function input() {
    tick();  // the time before this input counts only up to the cut-off
    lastInput = lastTick;
  }

  // Mouse moves, wheels and scrolls come in floods: one a second is enough.
  function frequentInput() {
    if (performance.now() - lastInput >= 1000) input();
  }

  // Take the unreported active seconds (at most MAX_HEARTBEAT_S) for sending.
  function takeActive(cap) {
    var seconds = Math.min(activeMs / 1000, cap);
    activeMs = Math.max(0, activeMs - seconds * 1000);
    return seconds;
  }

  function heartbeat() {
    var field = activeField();
    lastBeat = performance.now();
    if (!field || busy || activeMs < 500) return;
    var seconds = takeActive(MAX_HEARTBEAT_S);
    var sentFor = showing;
    var restore = function () {
      // Not stored: they go with the next heartbeat or the answer (same pair only).
      if (sentFor === showing) activeMs += seconds * 1000;
    };
    fetch(field.dataset.url, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "X-CSRFToken": csrfToken(),
        "HX-Request": "true",
        "HX-Current-URL": window.location.href,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ seconds: seconds.toFixed(3) }).toString(),
    }).then(function (response) {
      // 204 stored; 409: the pair's lease is not ours any more, nothing to store them on.
      if (response.status !== 204 && response.status !== 409) restore();
    }).catch(restore);
  }

  // The page is hidden or left: send what is unreported now (a beacon survives the page).
  function beacon() {
    tick();
    var field = activeField();
    if (!field || busy || activeMs < 50 || typeof navigator.sendBeacon !== "function") return;
    var seconds = Math.min(activeMs / 1000, MAX_HEARTBEAT_S);
    // sendBeacon cannot set headers: the CSRF token goes in the body.
    var body = new URLSearchParams({ csrfmiddlewaretoken: csrfToken(), seconds: seconds.toFixed(3) });
    if (navigator.sendBeacon(field.dataset.url, body)) {
      activeMs = Math.max(0, activeMs - seconds * 1000);
    }
  }

  window.setInterval(function () {
    tick();
    if (performance.now() - lastBeat >= dataSeconds("heartbeatSeconds", 15) * 1000) heartbeat();
  }, TICK_MS);
  ["keydown", "pointerdown", "mousedown", "touchstart"].forEach(function (name) {
    document.addEventListener(name, input, { capture: true, passive: true });
  });
  ["mousemove", "wheel", "scroll"].forEach(function (name) {
    document.addEventListener(name, frequentInput, { capture: true, passive: true });
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") {
      beacon();
    } else {
      input();  // bringing the page back is the annotator's doing
    }
  });
  window.addEventListener("pagehide", beacon);
  // The guidelines' confirm button swaps the pair in with htmx, not with swap() below.
  document.body.addEventListener("htmx:afterSwap", function () {
    if (activeField() !== measured) pairShown();
  });

  function localiseSaved() {
    var saved = document.getElementById("judge-saved");
    if (!saved || !saved.dataset.saved) return;
    var when = new Date(saved.dataset.saved);
    if (isNaN(when.getTime())) return;
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    saved.textContent = "saved " + pad(when.getHours()) + ":" + pad(when.getMinutes()) + ":" + pad(when.getSeconds());
  }

  function swap(html) {
    var template = document.createElement("template");
    template.innerHTML = html;
    var fresh = template.content.querySelector("#judge-item");
    var item = currentItem();
    if (!fresh || !item) {
      say("The server sent an unexpected answer; reload the page.");
      return;
    }
    item.replaceWith(fresh);
    pairShown();
    busy = false;
    localiseSaved();
    fresh.focus({ preventScroll: false });
    window.scrollTo(0, 0);
  }

  function keep(pending) {
    try {
      sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
    } catch (err) {
      /* storage full or disabled: the request is still sent */
    }
  }

  function forget(pending) {
    if (pending.kind === "submit") sessionStorage.removeItem(PENDING_KEY);
  }

  function retry(pending, attempt, why) {
    var delay = Math.min(MAX_DELAY_S, Math.pow(2, attempt));
    say(why + ". Not saved yet: trying again in " + delay + " s. Your answer is kept.");
    window.setTimeout(function () { send(pending, attempt + 1); }, delay * 1000);
  }

  function send(pending, attempt) {
    setBusy(true);
    var body = new URLSearchParams(pending.fields || {});
    fetch(pending.url, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "X-CSRFToken": csrfToken(),
        "HX-Request": "true",
        "HX-Current-URL": window.location.href,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: body.toString(),
    }).then(function (response) {
      var login = response.headers.get("HX-Redirect");
      if (login) {
        // Session gone: the pending submission stays in sessionStorage for after the login.
        say("Your session has ended: log in again and your answer will be sent.", "info");
        window.location.assign(login);
        return null;
      }
      return response.text().then(function (text) { return { response: response, text: text }; });
    }).then(function (answer) {
      if (!answer) return;
      var status = answer.response.status;
      if (answer.response.ok) {
        forget(pending);
        say("");
        swap(answer.text);
        return;
      }
      if (status === 409 && pending.kind !== "undo") {
        // Someone else holds the pair: the server sent the next pair and the reason.
        forget(pending);
        say("");
        swap(answer.text);
        return;
      }
      if (status === 403 && !pending.reloaded) {
        // Most likely a CSRF token rotated by a login in another tab: reload, then re-send.
        pending.reloaded = true;
        if (pending.kind === "submit") keep(pending);
        window.location.reload();
        return;
      }
      if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
        forget(pending);
        setBusy(false);
        say(answer.text && answer.text.length < 500 ? answer.text : "The server refused this (" + status + ").");
        return;
      }
      retry(pending, attempt, "The server answered " + status);
    }).catch(function () {
      retry(pending, attempt, "The server could not be reached");
    });
  }

  function secondsOnTask() {
    return ((performance.now() - shownAt) / 1000).toFixed(2);
  }

  // The active seconds not reported yet, sent with the answer.
  function activeOnTask() {
    tick();
    return takeActive(Infinity).toFixed(2);
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form || form.id !== "judge-form") return;
    event.preventDefault();
    if (busy) return;
    var button = event.submitter;
    if (!button) return;
    var action = button.dataset.action;
    var url = button.getAttribute("formaction") || form.getAttribute("action");
    if (action === "label") {
      var note = form.querySelector("textarea[name=note]");
      var pending = {
        kind: "submit",
        url: url,
        item: currentItem().dataset.item,
        fields: {
          client_id: newId(),
          label: button.value,
          note: note ? note.value : "",
          seconds: secondsOnTask(),
          active: activeOnTask(),
        },
      };
      keep(pending);
      send(pending, 0);
    } else if (action === "undo") {
      // The undo names the judgment the page shows as the last one: a retry after a lost
      // answer finds it undone already and cannot undo the judgment before it.
      var undo = form.querySelector("input[name=undo]");
      send({ kind: action, url: url, fields: { undo: undo ? undo.value : "" } }, 0);
    } else if (action === "skip" || action === "unskip") {
      send({ kind: action, url: url, fields: {} }, 0);
    }
  });

  function toggleHelp() {
    var help = document.getElementById("judge-help");
    if (help) help.hidden = !help.hidden;
  }

  document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target.closest("[data-action=help]") : null;
    if (target) {
      event.preventDefault();
      toggleHelp();
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var active = event.target;
    if (active && (active.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName))) {
      if (event.key === "Escape") active.blur();
      return;
    }
    if (event.key === "?") {
      event.preventDefault();
      toggleHelp();
      return;
    }
    if (event.key === "n") {
      var note = document.getElementById("judge-note");
      if (note) {
        event.preventDefault();
        note.focus();
      }
      return;
    }
    if (!JUDGE_KEYS.hasOwnProperty(event.key)) return;
    var item = currentItem();
    if (!item || busy) return;
    var button = item.querySelector('button[data-key="' + event.key + '"]');
    if (button && button.dataset.action !== "help" && !button.disabled) {
      event.preventDefault();
      button.click();
    }
  });

  localiseSaved();
  var kept = null;
  try {
    kept = JSON.parse(sessionStorage.getItem(PENDING_KEY) || "null");
  } catch (err) {
    kept = null;
  }
  if (kept && kept.url) {
    say("Sending the answer you gave before logging in…", "info");
    send(kept, 0);
  }
})();
