/**
 * The explorer's enhancement script, served as a file at /assets/explorer.js.
 * Every page works without it; with it a sortable table sorts on a click of
 * its column header without a reload (its links, which still work, carry
 * the whole list's sort for sharing). It reads only the page's own cells (`data-sort` values the
 * server wrote); it loads and sends nothing.
 */
export const ExplorerScript = `"use strict";
(function () {
  function value(cell) {
    var v = cell.getAttribute("data-sort");
    if (v === null) v = cell.textContent || "";
    var n = Number(v);
    return v !== "" && !isNaN(n) ? n : v.toLowerCase();
  }
  function compare(a, b) {
    if (typeof a === "number" && typeof b === "number") return a - b;
    return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  }
  document.querySelectorAll("table[data-sortable]").forEach(function (table) {
    var body = table.tBodies[0];
    if (!body) return;
    table.querySelectorAll("th[data-column]").forEach(function (th) {
      var link = th.querySelector("a");
      if (!link) return;
      link.addEventListener("click", function (event) {
        event.preventDefault();
        var column = Number(th.getAttribute("data-column"));
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r1, r2) {
          var c = compare(value(r1.cells[column]), value(r2.cells[column]));
          return ascending ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
        table.querySelectorAll("th[aria-sort]").forEach(function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      });
    });
  });
})();
`
