//! The head, the style sheet and the column-sorting script that every page
//! carries inline (the database report, the TinyProfiler page and the
//! history page look alike and fetch nothing).

use std::io::{self, Write};

pub(crate) const STYLE: &str = r#"
body{font-family:system-ui,sans-serif;margin:0 1.5em 2em;color:#1b1b1b;background:#fff}
header{border-bottom:2px solid #8b0000;margin-bottom:1em}
h1{margin:.5em 0 .2em;font-size:1.5em} h2{margin-top:1.6em;border-bottom:1px solid #ccc}
h3{margin:1em 0 .2em;font-size:1em;font-family:monospace}
h3.sub{font-family:inherit;font-size:1.05em}
nav a{margin-right:1em}
.absent{color:#666;font-style:italic;background:#f4f4f4;padding:.6em;border-left:4px solid #aaa}
.note{color:#444;font-size:.9em}
table{border-collapse:collapse;font-size:.88em}
th,td{padding:2px 8px;border-bottom:1px solid #e4e4e4;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left;max-width:40em;overflow:hidden;text-overflow:ellipsis}
th{background:#f0f0f0;position:sticky;top:0}
table.sortable th{cursor:pointer;user-select:none}
table.sortable th[aria-sort=ascending]::after{content:" \25B2"}
table.sortable th[aria-sort=descending]::after{content:" \25BC"}
tbody tr:hover{background:#fff6e0}
.ctree{font-size:.85em;border-top:1px solid #ccc;max-width:100%;overflow-x:auto}
.ctree .row{display:grid;grid-template-columns:minmax(16em,1fr) 6.5em 6.5em 6em 5.5em 7em;column-gap:.6em;align-items:center;padding:1px .6em 1px 0;border-bottom:1px solid #eee}
.ctree.spread .row{grid-template-columns:minmax(16em,1fr) 6.5em 6.5em 6em 5.5em 7em 6.5em 6.5em 5em}
.ctree .row>span{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.ctree .row>span.n{text-align:left;overflow:hidden;text-overflow:ellipsis;font-family:monospace;padding-left:calc(min(var(--d,0),40)*1.1em)}
.ctree .head{font-weight:bold;background:#f0f0f0;position:sticky;top:0;z-index:1}
.ctree .head>span{white-space:normal}
.ctree summary{cursor:pointer;list-style:none}
.ctree summary::-webkit-details-marker{display:none}
.ctree summary>span.n::before{content:"\25B8\00A0";color:#8b0000}
.ctree details[open]>summary>span.n::before{content:"\25BE\00A0"}
.ctree .leaf>span.n::before{content:"\00A0\00A0"}
.ctree .row:hover{background:#fff6e0}
.ctree .match{background:#fff2a8}
.ctree .bar{display:block;height:.8em;background:#eee;position:relative}
.ctree .bar i{display:block;height:100%;background:#8b0000;opacity:.7}
[hidden]{display:none!important}
#search-bar{margin:.5em 0}
#search{width:24em;font-size:1em;padding:2px 4px}
.depths>.tl{display:none}
.depths input{margin-left:.8em}
.legend span{display:inline-block;margin-right:1.2em;font-family:monospace;font-size:.85em}
.legend i{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:middle}
.scroll{overflow-x:auto}
.imb{margin-bottom:1.2em}
"#;

/// Sorts `table.sortable` by a clicked header (numbers by `data-v`), sorts
/// once by the header marked `data-default-sort`, and marks each table
/// `data-sortable="ready"` (tests read it from the rendered DOM).
pub(crate) const SCRIPT: &str = r#"
(function () {
  function key(td, num) {
    var v = td.getAttribute('data-v');
    if (v === null) v = td.textContent;
    if (!num) return v;
    var x = parseFloat(v);
    return isNaN(x) ? -Infinity : x;
  }
  function sortBy(table, col, desc) {
    var tb = table.tBodies[0];
    var heads = table.tHead.rows[0].cells;
    var num = heads[col].getAttribute('data-type') === 'num';
    var rows = Array.prototype.slice.call(tb.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[col], num), y = key(b.cells[col], num);
      var c = x < y ? -1 : x > y ? 1 : 0;
      if (desc) c = -c;
      if (c === 0) {
        var p = key(a.cells[0], false), q = key(b.cells[0], false);
        c = p < q ? -1 : p > q ? 1 : 0;
      }
      return c;
    });
    rows.forEach(function (r) { tb.appendChild(r); });
    for (var i = 0; i < heads.length; i++) heads[i].removeAttribute('aria-sort');
    heads[col].setAttribute('aria-sort', desc ? 'descending' : 'ascending');
  }
  var tables = document.querySelectorAll('table.sortable');
  Array.prototype.forEach.call(tables, function (t) {
    var heads = t.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, i) {
      th.tabIndex = 0;
      th.title = 'Sort by this column (again: reverse)';
      function go() {
        var cur = th.getAttribute('aria-sort');
        var desc = cur ? cur === 'ascending' : th.getAttribute('data-type') === 'num';
        sortBy(t, i, desc);
      }
      th.addEventListener('click', go);
      th.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); go(); }
      });
    });
    var d = t.querySelector('th[data-default-sort]');
    if (d) sortBy(t, d.cellIndex, d.getAttribute('data-default-sort') === 'descending');
    t.setAttribute('data-sortable', 'ready');
  });
})();
"#;

/// Writes a page's head, through `<body>`: `title` (markup: the caller
/// escapes names) names it, `extra_style` adds to [`STYLE`]. Its
/// Content-Security-Policy forbids fetching anything: every page is
/// self-contained.
pub fn write_page_head(w: &mut dyn Write, title: &str, extra_style: &str) -> io::Result<()> {
    writeln!(w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>")?;
    writeln!(w, "<meta charset=\"utf-8\">")?;
    writeln!(
        w,
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
    )?;
    writeln!(
        w,
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    )?;
    writeln!(w, "<title>{title}</title>")?;
    writeln!(w, "<style>{STYLE}{extra_style}</style>\n</head>\n<body>")
}

/// Writes a page's end, after its last section: the footer, then
/// `scripts` inline, each in its own element.
pub fn write_page_foot(w: &mut dyn Write, scripts: &[&str]) -> io::Result<()> {
    writeln!(
        w,
        "<footer><p class=\"note\">Written by profparse {}. Self-contained: no network needed.</p></footer>",
        env!("CARGO_PKG_VERSION")
    )?;
    for s in scripts {
        writeln!(w, "<script>{s}</script>")?;
    }
    writeln!(w, "</body>\n</html>")
}
