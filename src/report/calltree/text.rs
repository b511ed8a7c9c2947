//! The indented text of a tree: one line per node, the numbers first and
//! the call path last, cut to the output's width; branches left out by
//! `--depth`/`--min-percent` summed on a line of their own.

use crate::analysis::calltree::Spread;
use crate::model::calltree::{CallTree, NodeId};
use crate::report::calltree::view::{Aggregate, Depth, Order, TreeView, key, remainder, total_key};
use crate::report::layout::fit::middle_ellipsis;
use crate::report::numfmt::human::{percent1, write_duration_right};
use crate::report::numfmt::padding::{Blanks, TreeIndent};

/// What a tree's header names: one process, or how many were merged.
pub(crate) fn scope(proc: Option<usize>, nprocs: usize) -> String {
    match proc {
        Some(p) => format!("process {p}"),
        None => format!("{nprocs} processes"),
    }
}

/// The line under a tree's header that says what its times are.
pub(crate) fn times_line(proc: Option<usize>, view: &TreeView) -> String {
    let times = if proc.is_some() || view.nprocs <= 1 {
        "Times of the process alone."
    } else {
        match view.aggregate {
            Aggregate::Mean => {
                "Times are averages over processes (--aggregate sum|max); calls summed."
            }
            Aggregate::Sum => "Times and calls are sums over processes.",
            Aggregate::Max => "Times are the largest process's per node; calls summed.",
        }
    };
    let own = match view.order {
        Order::Inclusive => "(untimed) rows: a node's own time",
        Order::Exclusive => "(outermost: no caller) rows: calls without a caller",
    };
    format!(
        "{times}\n{own}, if over {:.0} % of the node.",
        100.0 * UNTIMED_SHARE
    )
}

/// The share of a node's time its own (untimed) part must have to get a
/// row of its own: below it the row would only repeat the Excl column.
const UNTIMED_SHARE: f64 = 0.10;

/// Which columns a text tree shows, and the room its paths have: the
/// ordering time first; averages and the largest process's inclusive time
/// when processes are merged; with `--wide`, the smallest too. Within a
/// width, the spread columns go first when the paths would have less than
/// [`MIN_PATH_ROOM`] characters.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TreeColumns {
    /// Averages over processes rather than one process's times.
    multi: bool,
    incl_min: bool,
    incl_max: bool,
    /// Characters for a line's indent and name (`None`: no limit).
    path_room: Option<usize>,
}

/// Least room for a line's indent and name before columns are dropped.
const MIN_PATH_ROOM: usize = 40;
/// Characters of a name at least, however deep its line.
const MIN_NAME: usize = 16;
/// Width of a number column, and of the process column.
const NUMBER: usize = 10;
const PROC: usize = 6;

impl TreeColumns {
    pub(crate) fn of(view: &TreeView) -> Self {
        let multi = view.nprocs > 1 || view.wide;
        let mut c = TreeColumns {
            multi,
            incl_min: view.wide,
            incl_max: multi,
            path_room: None,
        };
        if let Some(width) = view.width {
            if c.incl_min && width < c.numbers_width() + 2 + MIN_PATH_ROOM {
                c.incl_min = false;
            }
            if c.incl_max && width < c.numbers_width() + 2 + MIN_PATH_ROOM {
                c.incl_max = false;
            }
            c.path_room = Some(width.saturating_sub(c.numbers_width() + 2));
        }
        c
    }

    /// Characters of the number columns.
    fn numbers_width(&self) -> usize {
        3 * NUMBER
            + 2
            + if self.incl_min { NUMBER + 1 } else { 0 }
            + if self.incl_max { NUMBER + PROC + 2 } else { 0 }
    }

    /// A line's indent and name within the path room.
    fn path(&self, depth: usize, name: &str) -> String {
        let mut w = String::new();
        self.write_path(&mut w, depth, name);
        w
    }

    /// [`Self::path`] written at the end of `w`.
    fn write_path(&self, w: &mut String, depth: usize, name: &str) {
        let indent = TreeIndent::new(depth);
        match self.path_room {
            None => {
                indent.push_to(w);
                w.push_str(name);
            }
            Some(room) => {
                let indent = indent.within(room.saturating_sub(MIN_NAME));
                let name = middle_ellipsis(name, room.saturating_sub(indent.width()).max(MIN_NAME));
                indent.push_to(w);
                w.push_str(&name);
            }
        }
    }
}

/// The columns' line of the text.
pub(crate) fn header(view: &TreeView) -> String {
    let c = TreeColumns::of(view);
    let (incl, excl) = if c.multi {
        match view.aggregate {
            Aggregate::Mean => ("Incl avg", "Excl avg"),
            Aggregate::Sum => ("Incl sum", "Excl sum"),
            Aggregate::Max => ("Incl max", "Excl max"),
        }
    } else {
        ("Inclusive", "Exclusive")
    };
    let (first, second) = match view.order {
        Order::Inclusive => (incl, excl),
        Order::Exclusive => (excl, incl),
    };
    let mut line = format!("{first:>NUMBER$} {second:>NUMBER$} {:>NUMBER$}", "Calls");
    if c.incl_min {
        line.push_str(&format!(" {:>NUMBER$}", "Incl min"));
    }
    if c.incl_max {
        line.push_str(&format!(" {:>NUMBER$} {:>PROC$}", "Incl max", "proc"));
    }
    let path = match view.order {
        Order::Inclusive => "Call path",
        Order::Exclusive => "Function, then its callers",
    };
    format!("{line}  {path}")
}

/// The numbers of a node's text line, in the columns of [`header`],
/// written at the end of `line`.
/// Written by hand rather than through `write!` widths: a tree's text
/// has a line per node, hundreds of thousands of them.
fn write_columns(line: &mut String, m: &Spread, view: &TreeView, c: &TreeColumns) {
    let (incl, excl) = view.times(m);
    let (first, second) = match view.order {
        Order::Inclusive => (incl, excl),
        Order::Exclusive => (excl, incl),
    };
    let mut int = itoa::Buffer::new();
    write_duration_right(line, first, NUMBER);
    line.push(' ');
    write_duration_right(line, second, NUMBER);
    line.push(' ');
    push_right(line, int.format(m.total.calls), NUMBER);
    if c.incl_min {
        line.push(' ');
        write_duration_right(line, m.inclusive_min, NUMBER);
    }
    if c.incl_max {
        line.push(' ');
        write_duration_right(line, m.inclusive_max, NUMBER);
        line.push(' ');
        match m.inclusive_max_proc {
            Some(x) => push_right(line, int.format(x), PROC),
            None => push_right(line, "-", PROC),
        }
    }
}

/// `text` right-aligned in `width` characters at the end of `line`; `text`
/// is ASCII (digits, `-`), a character a byte: no counting.
fn push_right(line: &mut String, text: &str, width: usize) {
    Blanks(width.saturating_sub(text.len())).push_to(line);
    line.push_str(text);
}

/// Where a view hides children (`--top`, `--depth`, `--min-percent`): per
/// line of the visible nodes, the nodes whose visible subtree ends there
/// and that hide some children, innermost first, with how many and their
/// share of the node.
#[derive(Debug, Default)]
pub(crate) struct Cuts {
    after: rustc_hash::FxHashMap<usize, Vec<(usize, usize, f64)>>,
}

impl Cuts {
    /// The cuts of `nodes`, the visible nodes in pre-order with depths.
    pub(crate) fn of(tree: &CallTree<Spread>, view: &TreeView, nodes: &[(NodeId, Depth)]) -> Self {
        // Every node shown (nodes are shown once each): none hides a child,
        // and the walk below, a cache miss a node, would find nothing.
        if nodes.len() == tree.len() {
            return Cuts::default();
        }
        // (line, visible children, their summed key) of the open nodes.
        let mut open: Vec<(usize, usize, f64)> = Vec::new();
        let mut cuts = Cuts::default();
        let close = |cuts: &mut Cuts, (line, shown, shown_key): (usize, usize, f64), end: usize| {
            let (id, depth) = nodes[line];
            let n = tree.node(id);
            let hidden = n.children().len().saturating_sub(shown);
            if hidden == 0 {
                return;
            }
            let all: f64 = n
                .children()
                .iter()
                .map(|c| key(&tree.node(*c).metrics, view.order))
                .sum();
            let parent = key(&n.metrics, view.order);
            let share = if parent > 0.0 {
                100.0 * (all - shown_key) / parent
            } else {
                0.0
            };
            cuts.after
                .entry(end)
                .or_default()
                .push((depth as usize + 1, hidden, share));
        };
        for (i, &(id, depth)) in nodes.iter().enumerate() {
            while open.last().is_some_and(|&(l, _, _)| nodes[l].1 >= depth) {
                let top = open.pop().unwrap_or_default();
                close(&mut cuts, top, i - 1);
            }
            if let Some(parent) = open.last_mut() {
                parent.1 += 1;
                parent.2 += key(&tree.node(id).metrics, view.order);
            }
            open.push((i, 0, 0.0));
        }
        while let Some(top) = open.pop() {
            close(&mut cuts, top, nodes.len().saturating_sub(1));
        }
        cuts
    }
}

/// The line that stands for the outermost calls a view hides, if any.
pub(crate) fn hidden_roots(
    tree: &CallTree<Spread>,
    view: &TreeView,
    nodes: &[(NodeId, Depth)],
) -> Option<String> {
    let roots = tree.node(tree.root()).children();
    let shown: Vec<NodeId> = nodes.iter().filter(|n| n.1 == 0).map(|n| n.0).collect();
    let hidden = roots.len().saturating_sub(shown.len());
    if hidden == 0 {
        return None;
    }
    let total = total_key(tree, view.order);
    let shown_key: f64 = shown
        .iter()
        .map(|&id| key(&tree.node(id).metrics, view.order))
        .sum();
    let share = if total > 0.0 {
        100.0 * (total - shown_key) / total
    } else {
        0.0
    };
    let what = match (view.order, hidden) {
        (Order::Inclusive, 1) => "outermost call",
        (Order::Inclusive, _) => "outermost calls",
        (Order::Exclusive, 1) => "function",
        (Order::Exclusive, _) => "functions",
    };
    Some(format!(
        "{}  … {hidden} more {what} ({} % of the total)",
        Blanks(TreeColumns::of(view).numbers_width()),
        percent1(share)
    ))
}

/// The line that stands for hidden children (callers, bottom-up).
fn more_line(c: &TreeColumns, order: Order, depth: usize, hidden: usize, share: f64) -> String {
    let what = match (order, hidden) {
        (Order::Inclusive, 1) => "child",
        (Order::Inclusive, _) => "children",
        (Order::Exclusive, 1) => "caller",
        (Order::Exclusive, _) => "callers",
    };
    let text = format!("… {hidden} more {what} ({} % of parent)", percent1(share));
    format!("{}  {}", Blanks(c.numbers_width()), c.path(depth, &text))
}

/// The text lines of `nodes[lines]`, each ended by a newline: a node's
/// line; when it has visible children and its own part is over
/// [`UNTIMED_SHARE`] of it, that part on the next line (the untimed part of
/// a top-down node, the outermost calls of a bottom-up one); and where a
/// node's visible subtree ends, a line for the children `cuts` hid.
pub(crate) fn text_lines(
    tree: &CallTree<Spread>,
    view: &TreeView,
    nodes: &[(NodeId, Depth)],
    cuts: &Cuts,
    lines: std::ops::Range<usize>,
) -> String {
    use std::fmt::Write as _;
    let c = TreeColumns::of(view);
    // The remainder's line: its time in the first column, the others
    // blank.
    let rest_width = c.numbers_width() - NUMBER;
    let label = match view.order {
        Order::Inclusive => "(untimed)",
        Order::Exclusive => "(outermost: no caller)",
    };
    // Lines are about a hundred bytes: one allocation for the run.
    let mut w = String::with_capacity(lines.len() * 128);
    for i in lines {
        let (id, depth) = nodes[i];
        let m = &tree.node(id).metrics;
        write_columns(&mut w, m, view, &c);
        w.push_str("  ");
        c.write_path(&mut w, depth as usize, tree.name(id));
        w.push('\n');
        // The remainder, first among the node's visible children.
        let has_children = nodes.get(i + 1).is_some_and(|&(_, d)| d > depth);
        if has_children {
            let rest = remainder(tree, id, view.order);
            if let Some(shown) = view.combined(rest)
                && rest > UNTIMED_SHARE * key(m, view.order)
            {
                write_duration_right(&mut w, shown, NUMBER);
                Blanks(rest_width + 2).push_to(&mut w);
                c.write_path(&mut w, depth as usize + 1, label);
                w.push('\n');
            }
        }
        for &(depth, hidden, share) in cuts.after.get(&i).into_iter().flatten() {
            let _ = writeln!(w, "{}", more_line(&c, view.order, depth, hidden, share));
        }
    }
    w
}

/// Lines of a tree formatted per parallel task.
pub(crate) const LINES_PER_TASK: usize = 8192;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::calltree::view::visible;

    /// Ten chains `a → b → c`, every node called once.
    fn chains() -> CallTree<Spread> {
        let mut tree = CallTree::<Spread>::new();
        for i in 0..10 {
            let mut parent = tree.root();
            for level in ["a", "b", "c"] {
                parent = tree.child(parent, &format!("{level}{i}"));
                let m = &mut tree.node_mut(parent).metrics;
                m.total.calls = 1;
                m.total.inclusive = 1.0 + i as f64;
            }
        }
        tree
    }

    /// A view that hides children gets a cut below each node that hides
    /// some; a view that shows every node gets none.
    #[test]
    fn cuts_where_children_are_hidden() {
        let tree = chains();
        let all = TreeView {
            nprocs: 2,
            ..Default::default()
        };
        let nodes = visible(&tree, &all);
        assert_eq!(nodes.len(), tree.len());
        assert!(Cuts::of(&tree, &all, &nodes).after.is_empty());
        let shallow = TreeView {
            max_depth: Some(1),
            ..all
        };
        let nodes = visible(&tree, &shallow);
        let cuts = Cuts::of(&tree, &shallow, &nodes);
        // Each chain's `b` hides its `c`, on the line of that `b`.
        assert_eq!(cuts.after.len(), 10);
        for (line, hidden) in &cuts.after {
            assert_eq!(tree.name(nodes[*line].0).chars().next(), Some('b'));
            assert_eq!(hidden.iter().map(|h| (h.0, h.1)).collect::<Vec<_>>(), [(2, 1)]);
        }
    }
}
