// assay judging: grade with the keyboard (0-3, u, l, z). No inline script: CSP allows this file only.
(function () {
  "use strict";
  var busy = false;
  document.addEventListener("htmx:beforeRequest", function () { busy = true; });
  document.addEventListener("htmx:afterRequest", function () { busy = false; });
  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.repeat) return;
    var t = ev.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
    var key = (ev.key || "").toLowerCase();
    if (!/^[0-3ulz]$/.test(key)) return;
    var button = document.querySelector('#card [data-key="' + key + '"]');
    if (!button || busy) return;
    ev.preventDefault();
    button.click();
  });
})();
