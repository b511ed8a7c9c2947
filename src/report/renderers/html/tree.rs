//! The report's call trees (top-down and bottom-up) as rows of aligned
//! columns: times, calls, % of the total with an inline bar, and the spread
//! of the inclusive time over processes. Nested `<details>` make branches
//! collapsible without scripts; every row is one CSS grid of the same
//! columns, indented inside its name cell, so the columns line up at any
//! depth.
//!
//! The rows are bounded ([`MAX_TREE_ROWS`] by default): past the bound the
//! largest nodes are kept, chosen best-first from the roots so that every
//! kept node's ancestors are kept too, and the page says how many were
//! left out.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::io::{self, Write};

use crate::analysis::calltree::Spread;
use crate::model::calltree::{CallTree, NodeId};
use crate::report::calltree::view::{Depth, Order, TreeView, key, total_key, visible};
use crate::report::numfmt::human::{duration_text, percent};
use crate::report::renderers::html::escape::markup as escape;

/// Rows per tree on the page: about 400 bytes each.
pub const MAX_TREE_ROWS: usize = 2000;

/// Nodes above this share of the total start open.
const OPEN_PERCENT: f64 = 5.0;

/// One tree of the page.
pub struct TreeTable<'a> {
    pub tree: &'a CallTree<Spread>,
    /// Order (top-down: inclusive; bottom-up: exclusive), bounds, processes.
    pub view: TreeView,
    /// The element id of the tree (`tree-top-down`).
    pub id: &'a str,
    pub max_rows: usize,
}

/// Writes the tree, or a note when it has no calls.
pub fn write_tree_table(w: &mut dyn Write, t: &TreeTable) -> io::Result<()> {
    let (tree, view) = (t.tree, &t.view);
    let nodes = visible(tree, view);
    if nodes.is_empty() {
        let why = if tree.node(tree.root()).children().is_empty() {
            "No calls recorded."
        } else {
            "No node within the bounds (--depth, --min-percent)."
        };
        return writeln!(w, "<p class=\"absent\">{why}</p>");
    }
    let total = total_key(tree, view.order);
    let kept = kept_rows(tree, view.order, &nodes, t.max_rows);
    let shown = kept.iter().filter(|&&k| k).count();
    if shown < nodes.len() {
        writeln!(
            w,
            "<p class=\"note\">Showing the {shown} largest of {} nodes: {} left out (each shown node's callers are shown; <code>--depth</code> and <code>--min-percent</code> bound the tree).</p>",
            nodes.len(),
            nodes.len() - shown
        )?;
    }
    let spread = view.nprocs > 1;
    writeln!(
        w,
        "<div class=\"ctree{}\" id=\"{}\">",
        if spread { " spread" } else { "" },
        escape(t.id)
    )?;
    write_head(w, view)?;
    let rows: Vec<(NodeId, Depth)> = nodes
        .iter()
        .zip(&kept)
        .filter(|(_, k)| **k)
        .map(|(n, _)| *n)
        .collect();
    // The depths of the open `<details>`: an explicit stack, whatever the
    // tree's depth.
    let mut open: Vec<Depth> = Vec::new();
    for (i, &(id, depth)) in rows.iter().enumerate() {
        while open.last().is_some_and(|&d| d >= depth) {
            open.pop();
            writeln!(w, "</details>")?;
        }
        let m = &tree.node(id).metrics;
        let cells = cells(tree.name(id), m, view, total);
        let attrs = format!(
            " style=\"--d:{depth}\" data-v=\"{} {} {} {} {} {}\"",
            m.total.inclusive / nprocs(view),
            m.total.exclusive / nprocs(view),
            m.total.calls,
            m.inclusive_min,
            m.inclusive_max,
            m.inclusive_max_proc
                .map_or_else(|| "-".to_owned(), |p| p.to_string())
        );
        if rows.get(i + 1).is_some_and(|&(_, d)| d > depth) {
            let hot = total > 0.0 && 100.0 * key(m, view.order) / total > OPEN_PERCENT;
            writeln!(
                w,
                "<details{}><summary class=\"row\"{attrs}>{cells}</summary>",
                if hot { " open" } else { "" }
            )?;
            open.push(depth);
        } else {
            writeln!(w, "<div class=\"row leaf\"{attrs}>{cells}</div>")?;
        }
    }
    for _ in open {
        writeln!(w, "</details>")?;
    }
    writeln!(w, "</div>")
}

fn nprocs(view: &TreeView) -> f64 {
    view.nprocs.max(1) as f64
}

/// The columns' names, in the order of [`cells`].
fn write_head(w: &mut dyn Write, view: &TreeView) -> io::Result<()> {
    let multi = view.nprocs > 1;
    let (incl, excl) = if multi {
        ("Incl avg", "Excl avg")
    } else {
        ("Inclusive", "Exclusive")
    };
    let (name, first, second) = match view.order {
        Order::Inclusive => ("Call path", incl, excl),
        Order::Exclusive => ("Function, then its callers", excl, incl),
    };
    write!(
        w,
        "<div class=\"row head\"><span class=\"n\">{name}</span><span>{first}</span><span>{second}</span><span>Calls</span><span>% of total</span><span></span>"
    )?;
    if multi {
        write!(
            w,
            "<span title=\"smallest inclusive time of one process\">Incl min</span><span title=\"largest inclusive time of one process\">Incl max</span><span title=\"process holding the largest\">Max proc</span>"
        )?;
    }
    writeln!(w, "</div>")
}

/// A row's cells: name, the ordering time, the other, calls, % of the
/// total and its bar, then (merged trees) the spread over processes.
fn cells(name: &str, m: &Spread, view: &TreeView, total: f64) -> String {
    let p = nprocs(view);
    let (incl, excl) = (m.total.inclusive / p, m.total.exclusive / p);
    let (first, second) = match view.order {
        Order::Inclusive => (incl, excl),
        Order::Exclusive => (excl, incl),
    };
    let share = if total > 0.0 {
        (100.0 * key(m, view.order) / total).clamp(0.0, 100.0)
    } else {
        0.0
    };
    let name = escape(name);
    let mut s = format!(
        "<span class=\"n\" title=\"{name}\">{name}</span><span>{}</span><span>{}</span><span>{}</span><span>{} %</span><span class=\"bar\"><i style=\"width:{share:.1}%\"></i></span>",
        duration_text(first),
        duration_text(second),
        m.total.calls,
        escape(&percent(share))
    );
    if view.nprocs > 1 {
        s.push_str(&format!(
            "<span>{}</span><span>{}</span><span>{}</span>",
            duration_text(m.inclusive_min),
            duration_text(m.inclusive_max),
            m.inclusive_max_proc
                .map_or_else(|| "-".to_owned(), |x| x.to_string())
        ));
    }
    s
}

/// A node waiting to be kept, largest first (ties: the earlier row).
struct Candidate {
    key: f64,
    row: usize,
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key
            .total_cmp(&other.key)
            .then(other.row.cmp(&self.row))
    }
}

/// Which of `nodes` (pre-order, with depths) to show: all up to `max`;
/// otherwise `max` of them, taken best-first from the roots (a node
/// becomes a candidate when its parent is taken), so the kept rows form a
/// tree of the largest nodes.
fn kept_rows(
    tree: &CallTree<Spread>,
    order: Order,
    nodes: &[(NodeId, Depth)],
    max: usize,
) -> Vec<bool> {
    if nodes.len() <= max {
        return vec![true; nodes.len()];
    }
    // Children of each row, found with a stack of the open ancestors.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut roots = Vec::new();
    let mut path: Vec<usize> = Vec::new();
    for (i, &(_, depth)) in nodes.iter().enumerate() {
        while path.last().is_some_and(|&a| nodes[a].1 >= depth) {
            path.pop();
        }
        match path.last() {
            Some(&a) => children[a].push(i),
            None => roots.push(i),
        }
        path.push(i);
    }
    let candidate = |row: usize| Candidate {
        key: key(&tree.node(nodes[row].0).metrics, order),
        row,
    };
    let mut heap: BinaryHeap<Candidate> = roots.into_iter().map(candidate).collect();
    let mut kept = vec![false; nodes.len()];
    let mut n = 0;
    while n < max {
        let Some(c) = heap.pop() else { break };
        kept[c.row] = true;
        n += 1;
        heap.extend(children[c.row].iter().map(|&r| candidate(r)));
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `main` with children `f0..f{n}` of decreasing time, each with one
    /// child `g`.
    fn tree(n: usize) -> CallTree<Spread> {
        let mut t = CallTree::<Spread>::new();
        let main = t.child(t.root(), "main");
        t.node_mut(main).metrics.total.inclusive = 1000.0;
        t.node_mut(main).metrics.total.calls = 1;
        for i in 0..n {
            let f = t.child(main, &format!("f{i}<&>"));
            let g = t.child(f, "g");
            for (id, s) in [(f, (n - i) as f64), (g, (n - i) as f64 / 2.0)] {
                let m = &mut t.node_mut(id).metrics;
                m.total.inclusive = s;
                m.total.exclusive = s / 2.0;
                m.total.calls = 1;
                m.procs = 2;
                m.inclusive_min = s / 4.0;
                m.inclusive_max = s * 0.75;
                m.inclusive_max_proc = Some(1);
            }
        }
        t
    }

    fn page(t: &CallTree<Spread>, max_rows: usize) -> String {
        let mut out = Vec::new();
        write_tree_table(
            &mut out,
            &TreeTable {
                tree: t,
                view: TreeView {
                    nprocs: 2,
                    ..Default::default()
                },
                id: "t",
                max_rows,
            },
        )
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn rows_nest_escape_and_carry_their_numbers() {
        let t = tree(3);
        let html = page(&t, MAX_TREE_ROWS);
        assert!(!html.contains("left out"));
        // main, three f, three g.
        assert_eq!(html.matches("class=\"row\"").count(), 4);
        assert_eq!(html.matches("class=\"row leaf\"").count(), 3);
        assert_eq!(
            html.matches("<details").count(),
            html.matches("</details>").count()
        );
        assert!(
            html.contains("<span class=\"n\" title=\"f0&lt;&amp;&gt;\">f0&lt;&amp;&gt;</span>")
        );
        assert!(!html.contains("f0<&>"));
        // f0: 3 s over 2 processes; spread 0.75 .. 2.25 on process 1.
        assert!(html.contains("style=\"--d:1\" data-v=\"1.5 0.75 1 0.75 2.25 1\""));
        assert!(html.contains("process holding the largest\">Max proc</span>"));
    }

    #[test]
    fn large_trees_keep_the_largest_rows_with_their_callers() {
        let t = tree(50);
        let html = page(&t, 10);
        assert!(html.contains("Showing the 10 largest of 101 nodes: 91 left out"));
        let rows = html.matches("data-v=").count();
        assert_eq!(rows, 10);
        // main, then f0, f1, … and their g, largest first.
        assert!(
            html.contains("title=\"f0&lt;&amp;&gt;\"")
                && html.contains("title=\"f3&lt;&amp;&gt;\"")
        );
        assert!(!html.contains("title=\"f40&lt;&amp;&gt;\""));
        assert_eq!(
            html.matches("<details").count(),
            html.matches("</details>").count()
        );
    }

    /// A chain far deeper than any recursion could go.
    #[test]
    fn deep_chains_are_written_without_recursion() {
        let mut t = CallTree::<Spread>::new();
        let mut at = t.root();
        for _ in 0..100_000 {
            at = t.child(at, "r");
            let m = &mut t.node_mut(at).metrics;
            m.total.calls = 1;
            m.total.inclusive = 1.0;
        }
        let html = page(&t, 300);
        assert!(html.contains("Showing the 300 largest of 100000 nodes"));
        assert_eq!(html.matches("</details>").count(), 299);
    }
}
