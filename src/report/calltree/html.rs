//! A tree as one self-contained HTML page of nested `<details>`
//! (collapsible without scripts), and those nodes for other pages
//! (`--focus`).

use std::io::{self, Write};

use crate::analysis::calltree::Spread;
use crate::model::calltree::{CallTree, NodeId};
use crate::report::calltree::view::{Depth, Order, TreeView, key, total_key, visible};
use crate::report::numfmt::human::duration;
use crate::report::renderers::html::escape::markup as html_escape;

/// One self-contained page: nested `<details>` (collapsible without
/// scripts); branches above 5 % of the total start open.
pub fn write_html(
    w: &mut dyn Write,
    tree: &CallTree<Spread>,
    view: &TreeView,
    title: &str,
) -> io::Result<()> {
    let what = match view.order {
        Order::Inclusive => "Call tree",
        Order::Exclusive => "Bottom-up call tree (functions, below each its callers)",
    };
    write_html_head(w, what, title)?;
    writeln!(
        w,
        "<h3>{what} of {} ({} process{}): name :: inclusive s :: exclusive s :: 1-e/i % :: calls (times are averages over processes)</h3>",
        html_escape(title),
        view.nprocs,
        if view.nprocs == 1 { "" } else { "es" }
    )?;
    write_html_tree(w, tree, view)?;
    writeln!(w, "</body>\n</html>")
}

/// A page's head, up to `<body>`: its title and the trees' style.
pub(crate) fn write_html_head(w: &mut dyn Write, what: &str, title: &str) -> io::Result<()> {
    writeln!(
        w,
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>{what}: {}</title>",
        html_escape(title)
    )?;
    writeln!(
        w,
        "<style>body{{font-family:sans-serif}} details{{margin-left:1.2em}} summary{{font-family:monospace;white-space:pre}} .hot{{color:#800000}} .leaf{{margin-left:2.4em;font-family:monospace;white-space:pre}}</style>\n</head>\n<body>"
    )
}

/// The tree as nested `<details>` elements (collapsible without scripts),
/// for embedding in a page; branches above 5 % of the total start open.
/// Each line: name :: inclusive :: exclusive :: 1-e/i % :: calls, times
/// combined over processes as the view's [`Aggregate`](super::view::Aggregate) says.
pub fn write_html_tree(
    w: &mut dyn Write,
    tree: &CallTree<Spread>,
    view: &TreeView,
) -> io::Result<()> {
    let total = total_key(tree, view.order);
    write_html_nodes(w, tree, view, &visible(tree, view), total)
}

/// `nodes` (pre-order, with depths) as nested `<details>`; nodes above
/// 5 % of `total` start open.
pub(crate) fn write_html_nodes(
    w: &mut dyn Write,
    tree: &CallTree<Spread>,
    view: &TreeView,
    nodes: &[(NodeId, Depth)],
    total: f64,
) -> io::Result<()> {
    let mut open: Vec<Depth> = Vec::new();
    for (i, &(id, depth)) in nodes.iter().enumerate() {
        while open.last().is_some_and(|&d| d >= depth) {
            open.pop();
            writeln!(w, "</details>")?;
        }
        let m = &tree.node(id).metrics;
        let (incl, excl) = view.times(m);
        let pct = if incl > 0.0 {
            100.0 * (1.0 - excl / incl)
        } else {
            0.0
        };
        let text = format!(
            "{} :: {} :: {} :: {pct:.1} % :: {}",
            html_escape(tree.name(id)),
            duration(incl).trim_end(),
            duration(excl).trim_end(),
            m.total.calls
        );
        let hot = total > 0.0 && key(m, view.order) > 0.05 * total;
        let class = if hot { " class=\"hot\"" } else { "" };
        if nodes.get(i + 1).is_some_and(|&(_, d)| d > depth) {
            writeln!(
                w,
                "<details{}><summary{class}>{text}</summary>",
                if hot { " open" } else { "" }
            )?;
            open.push(depth);
        } else {
            writeln!(w, "<div class=\"leaf\">{text}</div>")?;
        }
    }
    for _ in open {
        writeln!(w, "</details>")?;
    }
    Ok(())
}
