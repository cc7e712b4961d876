// assay judging: grade with the keyboard (0-3, u, l, z). No inline script: CSP allows this file only.
// A key pressed while the previous answer is on its way waits for the next card (never lost,
// never applied to the card it was not meant for).
(function () {
  "use strict";
  var waiting = [];
  function inFlight() {  // a request on its way, or a new card still being swapped in
    return document.querySelector(
      "#card .htmx-request, #card.htmx-request, .htmx-swapping, .htmx-settling"
    ) !== null;
  }
  function press(key) {
    var button = document.querySelector('#card [data-key="' + key + '"]');
    if (button) button.click();
  }
  function next() {
    if (waiting.length && !inFlight()) press(waiting.shift());
  }
  document.addEventListener("htmx:load", next);
  document.addEventListener("htmx:afterSettle", next);
  document.addEventListener("htmx:responseError", function () { waiting = []; });
  document.addEventListener("keydown", function (ev) {
    var box = ev.target;
    if (box && box.id === "reason" && (ev.key === "Escape" || ev.key === "Enter")) {
      ev.preventDefault();  // Enter would submit with the first button: leave the box instead
      box.blur();
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.repeat) return;
    var t = ev.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
    var key = (ev.key || "").toLowerCase();
    if (!/^[0-3ulza]$/.test(key)) return;
    ev.preventDefault();
    if (inFlight()) {
      if (waiting.length < 8) waiting.push(key);
      return;
    }
    press(key);
  });
})();
