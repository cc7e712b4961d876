// assay view: sortable and filterable tables, the matrix filter, and the Plotly charts
// (drawn from <script type="application/json"> specs: no inline script, so the CSP holds).
(function () {
  "use strict";
  var NUM = /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)(e[-+]?[0-9]+)?$/i;
  function cellKey(row, i) {
    var cell = row.cells[i];
    if (!cell) { return ""; }
    return cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
  }
  function sortBy(table, th) {
    var i = Array.prototype.indexOf.call(th.parentNode.children, th);
    var asc = th.getAttribute("aria-sort") !== "ascending";
    th.parentNode.querySelectorAll("th").forEach(function (h) { h.setAttribute("aria-sort", "none"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellKey(a, i), y = cellKey(b, i);
      var r;
      if (x === "" || y === "") { return (x === "") - (y === ""); }
      if (NUM.test(x) && NUM.test(y)) { r = parseFloat(x) - parseFloat(y); } else { r = x.localeCompare(y); }
      return asc ? r : -r;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  function filter(input) {
    var id = input.getAttribute("data-filter");
    var table = document.getElementById(id);
    var q = input.value.toLowerCase(), shown = 0;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
      var ok = r.textContent.toLowerCase().indexOf(q) >= 0;
      r.hidden = !ok; if (ok) { shown++; }
    });
    var out = document.getElementById(id + "-shown");
    if (out) { out.textContent = shown; }
  }
  function grid(select) {
    var table = document.getElementById(select.getAttribute("data-grid"));
    var v = select.value;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
      var f = r.getAttribute("data-failing") === "true", k = r.getAttribute("data-flaky") === "true";
      r.hidden = v === "failing" ? !f : v === "flaky" ? !k : v === "either" ? !(f || k) : false;
    });
  }
  function charts() {
    if (!window.Plotly) { return; }
    document.querySelectorAll("script[type='application/json'][id$='-spec']").forEach(function (s) {
      var id = s.id.slice(0, -5), div = document.getElementById(id);
      if (!div) { return; }
      var spec = JSON.parse(s.textContent);
      window.Plotly.newPlot(div, spec.data, spec.layout, spec.config).then(function () {
        div.on("plotly_click", function (e) {
          var p = e.points && e.points[0];
          if (p && typeof p.customdata === "string" && p.customdata.charAt(0) === "/") { window.location.href = p.customdata; }
        });
      });
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("table.sortable th button.sort").forEach(function (b) {
      b.addEventListener("click", function () { sortBy(b.closest("table"), b.closest("th")); });
    });
    document.querySelectorAll("input[data-filter]").forEach(function (i) {
      i.addEventListener("input", function () { filter(i); });
    });
    document.querySelectorAll("select[data-grid]").forEach(function (s) {
      s.addEventListener("change", function () { grid(s); });
    });
    charts();
  });
})();
