//! The report's search box: filters the call trees (`.ctree`) and the
//! tables (`table.filterable`) by name as one types. The box is written
//! `hidden` and the script shows it, so a page read without JavaScript
//! shows everything and no control that does nothing. `?q=TEXT` in the
//! page's address fills the box on load (links to a filtered page; the
//! render test uses it).

use std::io::{self, Write};

/// The search bar, for the page's header.
pub fn write_search_bar(w: &mut dyn Write) -> io::Result<()> {
    writeln!(
        w,
        "<div id=\"search-bar\" hidden><label for=\"search\">Filter by name:</label> <input type=\"search\" id=\"search\" placeholder=\"function or region\" autocomplete=\"off\"> <span id=\"search-status\" class=\"note\"></span></div>"
    )
}

/// Filters on every keystroke. A tree row stays when its name matches or
/// a row below it does (its branch is opened to show it); rows are visited
/// deepest first (reverse document order), so each `<details>` knows about
/// its descendants when it is decided. An empty box restores the rows and
/// the branches' first open state. The status says how many names match
/// (`data-matches`, read by the render test).
pub const SEARCH_SCRIPT: &str = r#"
(function () {
  var bar = document.getElementById('search-bar');
  var box = document.getElementById('search');
  var status = document.getElementById('search-status');
  if (!bar || !box) return;
  bar.hidden = false;
  var each = function (list, f) { Array.prototype.forEach.call(list, f); };
  each(document.querySelectorAll('.ctree details'), function (d) {
    d.setAttribute('data-open0', d.open ? '1' : '0');
  });
  function hit(el, q) {
    return el.textContent.toLowerCase().indexOf(q) >= 0;
  }
  function apply() {
    var q = box.value.trim().toLowerCase();
    var matches = 0;
    each(document.querySelectorAll('.ctree'), function (tree) {
      var items = tree.querySelectorAll('details, .leaf');
      for (var i = items.length - 1; i >= 0; i--) {
        var el = items[i];
        var isDetails = el.tagName === 'DETAILS';
        var row = isDetails ? el.firstElementChild : el;
        var own = q === '' || hit(row.querySelector('.n'), q);
        var below = false;
        if (isDetails) {
          for (var k = 1; k < el.children.length; k++) {
            if (!el.children[k].hidden) { below = true; break; }
          }
          if (q === '') el.open = el.getAttribute('data-open0') === '1';
          else if (below) el.open = true;
        }
        if (q !== '' && own) matches++;
        row.classList.toggle('match', q !== '' && own);
        el.hidden = !(own || below);
      }
    });
    each(document.querySelectorAll('table.filterable tbody tr'), function (tr) {
      var own = q === '' || hit(tr.cells[0], q);
      if (q !== '' && own) matches++;
      tr.hidden = !own;
    });
    status.setAttribute('data-matches', String(matches));
    status.textContent = q === '' ? '' : matches + ' matching row' + (matches === 1 ? '' : 's');
  }
  box.addEventListener('input', apply);
  var q = new URLSearchParams(window.location.search).get('q');
  if (q) { box.value = q; apply(); }
})();
"#;
