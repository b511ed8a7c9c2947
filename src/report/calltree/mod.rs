//! The call-path tree merged over processes as a [`Report`]: indented
//! text, JSON, and the layouts of trees: Hatchet's literal JSON, folded
//! stacks (flame graphs) and a self-contained HTML page.

pub mod focus;
pub mod folded;
pub mod json_tree;

use std::io::{self, Write};

use rayon::prelude::*;
use serde::Serialize;

use crate::analysis::calltree::{Spread, subtree_calls};
use crate::model::calltree::{CallTree, NodeId};
use crate::report::layout::fit::middle_ellipsis;
use crate::report::numfmt::{Blanks, TreeIndent, duration, percent1};
use crate::report::render::html::escape::markup as html_escape;
use crate::report::{Column, Document, Format, Report, Table};
use folded::FoldedNames;

/// Which time orders a tree, bounds it (`--min-percent`) and comes first
/// on its lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Order {
    /// Top-down trees: a node's inclusive time.
    #[default]
    Inclusive,
    /// Bottom-up trees: the root function's exclusive time along the path.
    Exclusive,
}

/// What part of the tree to show.
#[derive(Debug, Clone, Copy, Default)]
pub struct TreeView {
    /// Deepest level shown (0 = only the outermost calls).
    pub max_depth: Option<usize>,
    /// Hide nodes below this share of the total inclusive time.
    pub min_percent: f64,
    /// At most this many children per node (largest first).
    pub top: Option<usize>,
    /// Number of processes merged (for averages).
    pub nprocs: usize,
    /// The time that orders the tree.
    pub order: Order,
    /// Text: the spread over processes in full (minimum, maximum and the
    /// process holding it), whatever the number of processes.
    pub wide: bool,
    /// Text: the line width to fit (`None`: no limit).
    pub width: Option<usize>,
    /// Text: how the times of merged processes are combined.
    pub aggregate: Aggregate,
}

/// How a tree's text, HTML, folded stacks and Hatchet literal combine the
/// times of the processes they merge (calls are always summed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Aggregate {
    /// The average over processes: what one process spent, typically.
    #[default]
    Mean,
    /// The sum over processes: the CPU time of a path.
    Sum,
    /// The largest process's: the critical process of each node.
    Max,
}

impl TreeView {
    /// A node's (inclusive, exclusive) times as the view combines them.
    pub fn times(&self, m: &Spread) -> (f64, f64) {
        match self.aggregate {
            Aggregate::Mean => {
                let p = self.nprocs.max(1) as f64;
                (m.total.inclusive / p, m.total.exclusive / p)
            }
            Aggregate::Sum => (m.total.inclusive, m.total.exclusive),
            Aggregate::Max => (m.inclusive_max, m.exclusive_max),
        }
    }

    /// A time summed over processes, combined as the view combines them
    /// (`None` for the maximum: a sum's largest part is not known).
    fn combined(&self, total: f64) -> Option<f64> {
        match self.aggregate {
            Aggregate::Mean => Some(total / self.nprocs.max(1) as f64),
            Aggregate::Sum => Some(total),
            Aggregate::Max => None,
        }
    }
}

/// The time `order` picks of a node (summed over processes).
pub fn key(m: &Spread, order: Order) -> f64 {
    match order {
        Order::Inclusive => m.total.inclusive,
        Order::Exclusive => m.total.exclusive,
    }
}

/// The visible nodes: pre-order, children by the view's order (largest
/// first), with each node's depth.
pub fn visible(tree: &CallTree<Spread>, view: &TreeView) -> Vec<(NodeId, usize)> {
    let calls = subtree_calls(tree);
    let total = total_key(tree, view.order);
    let leaf = |depth: usize| view.max_depth.is_some_and(|m| depth >= m);
    let walk = |top: NodeId, depth: usize| walk_from(tree, view, &calls, total, top, depth);
    // The top levels in order, as nodes and whole subtrees, until there
    // are subtrees enough for every thread; then the subtrees in parallel.
    let sorted = |id: NodeId, depth: usize| {
        children_sorted(tree, id, view, &calls, total)
            .into_iter()
            .map(move |c| (c, depth))
    };
    // (node, depth, whole subtree or the node alone)
    let mut parts: Vec<(NodeId, usize, bool)> =
        sorted(tree.root(), 0).map(|(c, d)| (c, d, true)).collect();
    let wanted = 8 * rayon::current_num_threads();
    for _ in 0..MAX_SERIAL_LEVELS {
        if parts.iter().filter(|p| p.2).count() >= wanted {
            break;
        }
        let mut next = Vec::with_capacity(parts.len());
        for &(id, depth, whole) in &parts {
            if !whole || leaf(depth) {
                next.push((id, depth, whole));
                continue;
            }
            next.push((id, depth, false));
            next.extend(sorted(id, depth + 1).map(|(c, d)| (c, d, true)));
        }
        parts = next;
    }
    parts
        .par_iter()
        .map(|&(id, depth, whole)| {
            if whole {
                walk(id, depth)
            } else {
                vec![(id, depth)]
            }
        })
        .collect::<Vec<_>>()
        .concat()
}

/// The visible part of the subtree of `top` (at `depth`) in pre-order, with
/// one stack (no vector per node: trees reach millions of nodes); `total`
/// is what `--min-percent` is a share of.
pub(crate) fn walk_from(
    tree: &CallTree<Spread>,
    view: &TreeView,
    calls: &[u64],
    total: f64,
    top: NodeId,
    depth: usize,
) -> Vec<(NodeId, usize)> {
    let leaf = |depth: usize| view.max_depth.is_some_and(|m| depth >= m);
    let mut out = Vec::new();
    let mut stack = vec![(top, depth)];
    while let Some((id, depth)) = stack.pop() {
        out.push((id, depth));
        if !leaf(depth) {
            push_children_sorted(&mut stack, tree, id, depth + 1, view, calls, total);
        }
    }
    out
}

/// Levels of [`visible`] expanded in order before the subtrees are walked
/// in parallel.
const MAX_SERIAL_LEVELS: usize = 3;

/// Pushes what [`children_sorted`] returns, at `depth`, the first on top.
fn push_children_sorted(
    stack: &mut Vec<(NodeId, usize)>,
    tree: &CallTree<Spread>,
    id: NodeId,
    depth: usize,
    view: &TreeView,
    calls: &[u64],
    total: f64,
) {
    let first = stack.len();
    stack.extend(
        tree.node(id)
            .children()
            .iter()
            .filter(|&&c| shown(tree, c, view, calls, total))
            .map(|&c| (c, depth)),
    );
    let kids = &mut stack[first..];
    kids.sort_by(|a, b| by_key_desc(tree, view.order, a.0, b.0));
    if let Some(n) = view.top {
        stack.truncate(first + n);
    }
    stack[first..].reverse();
}

/// A child is shown when some call reached its subtree and it is not under
/// `--min-percent`.
fn shown(tree: &CallTree<Spread>, c: NodeId, view: &TreeView, calls: &[u64], total: f64) -> bool {
    calls[c.0 as usize] > 0
        && (total <= 0.0
            || 100.0 * key(&tree.node(c).metrics, view.order) / total >= view.min_percent)
}

fn by_key_desc(tree: &CallTree<Spread>, order: Order, a: NodeId, b: NodeId) -> std::cmp::Ordering {
    key(&tree.node(b).metrics, order).total_cmp(&key(&tree.node(a).metrics, order))
}

fn children_sorted(
    tree: &CallTree<Spread>,
    id: NodeId,
    view: &TreeView,
    calls: &[u64],
    total: f64,
) -> Vec<NodeId> {
    let mut kids = Vec::new();
    push_children_sorted(&mut kids, tree, id, 0, view, calls, total);
    kids.into_iter().rev().map(|(c, _)| c).collect()
}

/// Σ inclusive of the outermost calls.
pub fn total_inclusive(tree: &CallTree<Spread>) -> f64 {
    total_key(tree, Order::Inclusive)
}

/// Σ of the roots' time `order` picks: what `--min-percent` is a share of.
pub fn total_key(tree: &CallTree<Spread>, order: Order) -> f64 {
    tree.node(tree.root())
        .children()
        .iter()
        .map(|c| key(&tree.node(*c).metrics, order))
        .sum()
}

/// A node's time `order` picks not held by its children: the untimed
/// part of a top-down node; in a bottom-up tree, the root function's time
/// along a caller path that starts at the node (no caller above).
pub fn remainder(tree: &CallTree<Spread>, id: NodeId, order: Order) -> f64 {
    let n = tree.node(id);
    let kids: f64 = n
        .children()
        .iter()
        .map(|c| key(&tree.node(*c).metrics, order))
        .sum();
    key(&n.metrics, order) - kids
}

/// Inclusive time of a node not covered by its timed children.
pub fn untimed(tree: &CallTree<Spread>, id: NodeId) -> f64 {
    remainder(tree, id, Order::Inclusive)
}

/// A call-path tree ready to write in any of its formats: `text` (its
/// [`Document`]), `json` (its wire value) and, in [`Report::write_other`],
/// the layouts of trees: `folded`, `hatchet`, `html`.
pub struct TreeReport<'a> {
    pub tree: &'a CallTree<Spread>,
    pub view: TreeView,
    /// The one process shown; `None`: merged over `view.nprocs` processes.
    pub proc: Option<usize>,
    /// The database as the user named it: the text's heading and the HTML
    /// page's title (`None`: the text has no heading).
    pub source: Option<String>,
}

impl Report for TreeReport<'_> {
    type Wire<'w>
        = TreeJson<'w>
    where
        Self: 'w;

    fn wire(&self) -> TreeJson<'_> {
        tree_json(self.tree, &self.view, self.proc)
    }

    fn write_json(&self, w: &mut dyn Write) -> io::Result<()> {
        write_tree_json(w, self.tree, &self.view, self.proc)
    }

    /// Indented text: one line per node, numbers first, the call path last.
    fn document(&self) -> Document<'_> {
        let (tree, view) = (self.tree, &self.view);
        let mut doc = Document::new();
        if let Some(source) = &self.source {
            let what = match view.order {
                Order::Inclusive => "call tree",
                Order::Exclusive => "bottom-up call tree",
            };
            doc.line(format!(
                "{source}: {what} of {}",
                scope(self.proc, view.nprocs)
            ));
            if view.order == Order::Exclusive {
                doc.line("Functions by exclusive time, below each its callers.");
            }
            doc.line(times_line(self.proc, view)).line("");
        }
        doc.line(header(view));
        // The lines, formatted in parallel runs as they are written: each
        // row is one run of lines (without its last newline).
        let nodes = visible(tree, view);
        let cuts = Cuts::of(tree, view, &nodes);
        let hidden_roots = hidden_roots(tree, view, &nodes);
        let runs = nodes.len().div_ceil(LINES_PER_TASK);
        let batch = 2 * rayon::current_num_threads().max(1);
        let rows = (0..runs).step_by(batch).flat_map(move |first| {
            (first..(first + batch).min(runs))
                .into_par_iter()
                .map(|r| {
                    let lines = r * LINES_PER_TASK..((r + 1) * LINES_PER_TASK).min(nodes.len());
                    let mut text = text_lines(tree, view, &nodes, &cuts, lines);
                    text.pop();
                    vec![text]
                })
                .collect::<Vec<_>>()
        });
        doc.table(Table::new(vec![Column::left("", 0)], rows).headless());
        if let Some(line) = hidden_roots {
            doc.line(line);
        }
        doc
    }

    fn write_other(&self, format: Format, w: &mut dyn Write) -> io::Result<()> {
        let (tree, view) = (self.tree, &self.view);
        match format {
            Format::Folded => write_folded(w, tree, view),
            Format::Hatchet => write_hatchet(w, tree, view),
            Format::Html => write_html(w, tree, view, self.source.as_deref().unwrap_or("")),
            other => Err(crate::report::not_offered(other)),
        }
    }
}

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
        let indent = TreeIndent::new(depth);
        match self.path_room {
            None => format!("{indent}{name}"),
            Some(room) => {
                let indent = indent.within(room.saturating_sub(MIN_NAME));
                let name = middle_ellipsis(name, room.saturating_sub(indent.width()).max(MIN_NAME));
                format!("{indent}{name}")
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

/// The numbers of a node's text line, in the columns of [`header`].
fn columns(m: &Spread, view: &TreeView, c: &TreeColumns) -> String {
    let (incl, excl) = view.times(m);
    let (first, second) = match view.order {
        Order::Inclusive => (incl, excl),
        Order::Exclusive => (excl, incl),
    };
    let mut line = format!(
        "{:>NUMBER$} {:>NUMBER$} {:>NUMBER$}",
        duration(first),
        duration(second),
        m.total.calls
    );
    if c.incl_min {
        line.push_str(&format!(" {:>NUMBER$}", duration(m.inclusive_min)));
    }
    if c.incl_max {
        line.push_str(&format!(
            " {:>NUMBER$} {:>PROC$}",
            duration(m.inclusive_max),
            m.inclusive_max_proc
                .map_or_else(|| "-".to_owned(), |x| x.to_string())
        ));
    }
    line
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
    pub(crate) fn of(tree: &CallTree<Spread>, view: &TreeView, nodes: &[(NodeId, usize)]) -> Self {
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
                .push((depth + 1, hidden, share));
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
fn hidden_roots(
    tree: &CallTree<Spread>,
    view: &TreeView,
    nodes: &[(NodeId, usize)],
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
    nodes: &[(NodeId, usize)],
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
    let mut w = String::new();
    for i in lines {
        let (id, depth) = nodes[i];
        let m = &tree.node(id).metrics;
        // Writing into a String cannot fail.
        let _ = writeln!(
            w,
            "{}  {}",
            columns(m, view, &c),
            c.path(depth, tree.name(id))
        );
        // The remainder, first among the node's visible children.
        let has_children = nodes.get(i + 1).is_some_and(|&(_, d)| d > depth);
        if has_children {
            let rest = remainder(tree, id, view.order);
            if let Some(shown) = view.combined(rest)
                && rest > UNTIMED_SHARE * key(m, view.order)
            {
                let cols = format!("{:>NUMBER$}{:rest_width$}", duration(shown), "");
                let _ = writeln!(w, "{cols}  {}", c.path(depth + 1, label));
            }
        }
        for &(depth, hidden, share) in cuts.after.get(&i).into_iter().flatten() {
            let _ = writeln!(w, "{}", more_line(&c, view.order, depth, hidden, share));
        }
    }
    w
}

/// Lines of a tree formatted per parallel task.
const LINES_PER_TASK: usize = 8192;

/// A node with its children, nested: the wire value of `--focus`'s trees.
#[derive(Serialize)]
pub(crate) struct NodeJson<'a> {
    #[serde(flatten)]
    fields: NodeFields<'a>,
    children: Vec<NodeJson<'a>>,
}

/// The children shown below a node at `depth`: none past `--depth`.
fn shown_children(
    tree: &CallTree<Spread>,
    id: NodeId,
    view: &TreeView,
    depth: usize,
    calls: &[u64],
    total: f64,
) -> Vec<NodeId> {
    if view.max_depth.is_some_and(|d| depth >= d) {
        Vec::new()
    } else {
        children_sorted(tree, id, view, calls, total)
    }
}

/// A node's own fields: [`NodeJson`] without its children.
#[derive(Serialize)]
struct NodeFields<'a> {
    name: &'a str,
    calls: u64,
    /// Sums over processes.
    inclusive: f64,
    exclusive: f64,
    inclusive_avg: f64,
    exclusive_avg: f64,
    inclusive_min: f64,
    inclusive_max: f64,
    max_proc: Option<usize>,
    procs: usize,
    /// Top-down: inclusive − Σ children's inclusive.
    #[serde(skip_serializing_if = "Option::is_none")]
    untimed: Option<f64>,
    /// Bottom-up: exclusive − Σ children's exclusive (calls with no
    /// caller above the node's path).
    #[serde(skip_serializing_if = "Option::is_none")]
    outermost: Option<f64>,
}

fn node_fields<'a>(tree: &'a CallTree<Spread>, id: NodeId, view: &TreeView) -> NodeFields<'a> {
    let m = &tree.node(id).metrics;
    let p = view.nprocs.max(1) as f64;
    NodeFields {
        name: tree.name(id),
        calls: m.total.calls,
        inclusive: m.total.inclusive,
        exclusive: m.total.exclusive,
        inclusive_avg: m.total.inclusive / p,
        exclusive_avg: m.total.exclusive / p,
        inclusive_min: m.inclusive_min,
        inclusive_max: m.inclusive_max,
        max_proc: m.inclusive_max_proc,
        procs: m.procs,
        untimed: (view.order == Order::Inclusive).then(|| untimed(tree, id)),
        outermost: (view.order == Order::Exclusive).then(|| remainder(tree, id, Order::Exclusive)),
    }
}

/// The nested value for `--focus` (at most `analysis::callers`' depth cap
/// deep, so serde's recursion is bounded there). Whole call trees are
/// written by [`write_tree_json`], which does not recurse.
pub(crate) fn node_json<'a>(
    tree: &'a CallTree<Spread>,
    id: NodeId,
    view: &TreeView,
    depth: usize,
    calls: &[u64],
    total: f64,
) -> NodeJson<'a> {
    let children = shown_children(tree, id, view, depth, calls, total)
        .into_iter()
        .map(|c| node_json(tree, c, view, depth + 1, calls, total))
        .collect();
    NodeJson {
        fields: node_fields(tree, id, view),
        children,
    }
}

/// Nodes paired with their depth (0: a root), which `--depth` cuts by:
/// the items of the JSON writers' explicit stack.
fn at_depth(ids: Vec<NodeId>, depth: usize) -> Vec<(NodeId, usize)> {
    ids.into_iter().map(|id| (id, depth)).collect()
}

/// The head of [`TreeJson`]: everything but the roots.
#[derive(Serialize)]
struct TreeHead {
    nprocs: usize,
    proc: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    view: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_inclusive: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_exclusive: Option<f64>,
}

/// Writes [`tree_json`]'s value, byte for byte as serde would, without
/// recursion (`json_tree`): a tree may be as deep as its input.
fn write_tree_json(
    w: &mut dyn Write,
    tree: &CallTree<Spread>,
    view: &TreeView,
    proc: Option<usize>,
) -> io::Result<()> {
    let calls = subtree_calls(tree);
    let total = total_key(tree, view.order);
    let bottom_up = view.order == Order::Exclusive;
    let head = TreeHead {
        nprocs: view.nprocs,
        proc,
        view: bottom_up.then_some("bottom-up"),
        total_inclusive: (!bottom_up).then_some(total),
        total_exclusive: bottom_up.then_some(total),
    };
    let pretty = serde_json::to_vec_pretty(&head).map_err(crate::report::render::json::io_error)?;
    json_tree::write_open_object(w, &pretty, 0)?;
    w.write_all(b",\n  \"roots\": ")?;
    let roots = children_sorted(tree, tree.root(), view, &calls, total);
    json_tree::write_tree_array(
        w,
        1,
        at_depth(roots, 0),
        "children",
        |(id, _)| node_fields(tree, id, view),
        |(id, depth)| {
            at_depth(
                shown_children(tree, id, view, depth, &calls, total),
                depth + 1,
            )
        },
    )?;
    w.write_all(b"\n}\n")
}

/// The JSON wire value: `{"nprocs": n, "proc": p|null, "total_inclusive":
/// s, "roots": [nested nodes]}`; a bottom-up tree has `"view":
/// "bottom-up"` and `total_exclusive` instead of `total_inclusive`.
#[derive(Serialize)]
pub struct TreeJson<'a> {
    nprocs: usize,
    proc: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    view: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_inclusive: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_exclusive: Option<f64>,
    roots: Vec<NodeJson<'a>>,
}

fn tree_json<'a>(tree: &'a CallTree<Spread>, view: &TreeView, proc: Option<usize>) -> TreeJson<'a> {
    let calls = subtree_calls(tree);
    let total = total_key(tree, view.order);
    let roots = children_sorted(tree, tree.root(), view, &calls, total)
        .into_iter()
        .map(|c| node_json(tree, c, view, 0, &calls, total))
        .collect();
    let bottom_up = view.order == Order::Exclusive;
    TreeJson {
        nprocs: view.nprocs,
        proc,
        view: bottom_up.then_some("bottom-up"),
        total_inclusive: (!bottom_up).then_some(total),
        total_exclusive: bottom_up.then_some(total),
        roots,
    }
}

/// One node of Hatchet's "literal" format (`GraphFrame.from_literal`),
/// without its `children` (written by `json_tree`).
#[derive(Serialize)]
struct HatchetNode<'a> {
    frame: HatchetFrame<'a>,
    metrics: HatchetMetrics,
}

#[derive(Serialize)]
struct HatchetFrame<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// Hatchet tells inclusive metrics by `(inc)` in the name.
#[derive(Serialize)]
struct HatchetMetrics {
    #[serde(rename = "time (inc)")]
    inclusive: f64,
    time: f64,
    calls: u64,
    /// The spread over processes (a process without the node counts 0).
    #[serde(rename = "time (inc) min")]
    inclusive_min: f64,
    #[serde(rename = "time (inc) max")]
    inclusive_max: f64,
    #[serde(rename = "time min")]
    exclusive_min: f64,
    #[serde(rename = "time max")]
    exclusive_max: f64,
}

fn node_hatchet<'a>(tree: &'a CallTree<Spread>, id: NodeId, view: &TreeView) -> HatchetNode<'a> {
    let m = &tree.node(id).metrics;
    let (inclusive, time) = view.times(m);
    HatchetNode {
        frame: HatchetFrame {
            name: tree.name(id),
            kind: "function",
        },
        metrics: HatchetMetrics {
            inclusive,
            time,
            calls: m.total.calls,
            inclusive_min: m.inclusive_min,
            inclusive_max: m.inclusive_max,
            exclusive_min: m.exclusive_min,
            exclusive_max: m.exclusive_max,
        },
    }
}

/// Hatchet's literal format: a list of root nodes, each
/// `{"frame": {"name", "type": "function"}, "metrics": {"time (inc)",
/// "time", "calls", "time (inc) min", "time (inc) max", "time min",
/// "time max"}, "children": [...]}`, for `hatchet.GraphFrame.from_literal`.
/// `time (inc)` and `time` are seconds combined over the merged processes
/// as the view's [`Aggregate`] says (as the text tree shows them); calls
/// are summed; the min/max columns are the spread over processes. Children
/// are ordered as in the text tree. Written without recursion, however
/// deep the tree.
pub fn write_hatchet(
    w: &mut dyn Write,
    tree: &CallTree<Spread>,
    view: &TreeView,
) -> io::Result<()> {
    let calls = subtree_calls(tree);
    let total = total_inclusive(tree);
    let roots = children_sorted(tree, tree.root(), view, &calls, total);
    json_tree::write_tree_array(
        w,
        0,
        at_depth(roots, 0),
        "children",
        |(id, _)| node_hatchet(tree, id, view),
        |(id, depth)| {
            at_depth(
                shown_children(tree, id, view, depth, &calls, total),
                depth + 1,
            )
        },
    )?;
    writeln!(w)
}

/// The bytes [`write_folded`] writes, exactly: one line per node with a
/// time, each holding its whole path, so a deep tree writes the square of
/// its depth. Summed over the paths in one pass before anything is written.
pub fn folded_bytes(tree: &CallTree<Spread>, view: &TreeView) -> u64 {
    let names = FoldedNames::new(tree);
    let path = names.path_bytes(tree);
    visible(tree, view)
        .into_iter()
        .filter_map(|(id, _)| {
            folded_us(tree, id, view).map(|us| folded::line_bytes(path[id.0 as usize], us))
        })
        .fold(0u64, u64::saturating_add)
}

/// The whole microseconds of a node's folded line, `None` under one (no
/// line): its exclusive time combined over processes as the view says, or
/// in a bottom-up tree the time of the paths that start there.
fn folded_us(tree: &CallTree<Spread>, id: NodeId, view: &TreeView) -> Option<u64> {
    let own = match view.order {
        Order::Inclusive => view.times(&tree.node(id).metrics).1,
        // A path's time that starts at the node: of the sums; the
        // largest process's is not kept (the CLI refuses max here).
        Order::Exclusive => view
            .combined(remainder(tree, id, Order::Exclusive))
            .unwrap_or(0.0),
    };
    let us = (own * 1e6).round();
    (us >= 1.0).then_some(us as u64)
}

/// Folded stacks, `a;b;c <µs>`: each node's exclusive time, combined over
/// processes as the view's [`Aggregate`] says (the average by default, as
/// the text and Hatchet trees), in whole microseconds — the input of flame
/// graph tools.
/// A `;` inside a name would split the frame, so it is written as `:`;
/// control characters as visible escapes.
/// A bottom-up tree's stacks are `function;caller;caller's caller`, each
/// with the function's time along a path that starts there (its
/// [`remainder`]): the stacks sum to the nodes' times as a flame graph
/// sums them, drawn as the callers' (inverted) flame graph.
/// Streamed in pre-order with the path at hand in one buffer
/// ([`folded::FoldedPath`]): no line or path is kept.
pub fn write_folded(w: &mut dyn Write, tree: &CallTree<Spread>, view: &TreeView) -> io::Result<()> {
    let names = FoldedNames::new(tree);
    let mut path = folded::FoldedPath::new(&names);
    for (id, depth) in visible(tree, view) {
        path.enter(tree, id, depth);
        if let Some(us) = folded_us(tree, id, view) {
            path.write_line(w, us)?;
        }
    }
    Ok(())
}

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
/// combined over processes as the view's [`Aggregate`] says.
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
    nodes: &[(NodeId, usize)],
    total: f64,
) -> io::Result<()> {
    let mut open: Vec<usize> = Vec::new();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree of `n` nodes in chains of three under the root, every call
    /// timed and the middle of each chain leaving time untimed.
    fn tree(n: usize) -> CallTree<Spread> {
        let mut tree = CallTree::<Spread>::new();
        for i in 0..n / 3 {
            let mut parent = tree.root();
            for level in 0..3 {
                let id = tree.child(parent, &format!("f{i}_{level}"));
                let m = &mut tree.node_mut(id).metrics;
                m.total.inclusive = (n - i) as f64 * (3 - level) as f64;
                m.total.exclusive = if level == 1 { 0.5 } else { 1.0 };
                m.total.calls = 1 + level as u64;
                m.procs = 2;
                m.inclusive_max = m.total.inclusive / 2.0;
                m.inclusive_max_proc = Some(level);
                parent = id;
            }
        }
        tree
    }

    /// The folded estimate is the size written (the output guard compares
    /// it with the limit): a chain 2,000 deep with a `;`, control
    /// characters, a C1 control and nodes under a microsecond (no line),
    /// and trees of the other shapes, top-down and bottom-up.
    #[test]
    fn folded_bytes_is_the_size_written() {
        let mut deep = CallTree::<Spread>::new();
        let mut parent = deep.root();
        for level in 0..2000usize {
            let name = match level % 4 {
                0 => "a;b".to_owned(),
                1 => format!("x\x1b[2J\n{level}"),
                2 => "c\u{85}é".to_owned(),
                _ => format!("f{level}"),
            };
            let id = deep.child(parent, &name);
            let m = &mut deep.node_mut(id).metrics;
            m.total.exclusive = if level % 3 == 0 {
                1e-7
            } else {
                level as f64 * 1e-3
            };
            m.total.inclusive = 1.0;
            m.total.calls = 1;
            m.procs = 1;
            parent = id;
        }
        let wide = tree(300);
        let up = bottom_up_tree();
        for (t, order) in [
            (&deep, Order::Inclusive),
            (&wide, Order::Inclusive),
            (&up, Order::Exclusive),
        ] {
            let report = TreeReport {
                tree: t,
                view: TreeView {
                    nprocs: 1,
                    order,
                    ..Default::default()
                },
                proc: None,
                source: None,
            };
            let mut out = Vec::new();
            super::super::render(&report, Format::Folded, None, &mut out).unwrap();
            assert!(!out.is_empty());
            assert_eq!(folded_bytes(t, &report.view), out.len() as u64);
            let text = String::from_utf8(out).unwrap();
            assert!(text.chars().all(|c| !c.is_control() || c == '\n'));
        }
    }

    /// A bottom-up tree of `f`: 3 s of exclusive time, 1 s of it in calls
    /// from `g`, the rest in outermost calls.
    fn bottom_up_tree() -> CallTree<Spread> {
        let mut tree = CallTree::<Spread>::new();
        let f = tree.child(tree.root(), "f");
        let g = tree.child(f, "g");
        for (id, excl, incl) in [(f, 3.0, 5.0), (g, 1.0, 1.5)] {
            let m = &mut tree.node_mut(id).metrics;
            m.total.exclusive = excl;
            m.total.inclusive = incl;
            m.total.calls = 1;
            m.procs = 1;
            m.inclusive_min = incl;
            m.inclusive_max = incl;
            m.inclusive_max_proc = Some(0);
        }
        tree
    }

    /// The JSON written without recursion is serde's pretty JSON of the
    /// wire value, byte for byte: top-down, bottom-up, cut by `--depth`,
    /// merged and of one process.
    #[test]
    fn json_without_recursion_is_the_wire_value() {
        let (top_down, bottom_up) = (tree(30), bottom_up_tree());
        for (tree, order) in [
            (&top_down, Order::Inclusive),
            (&bottom_up, Order::Exclusive),
        ] {
            for (max_depth, proc) in [(None, None), (Some(1), Some(0)), (Some(0), None)] {
                let report = TreeReport {
                    tree,
                    view: TreeView {
                        nprocs: 2,
                        order,
                        max_depth,
                        ..Default::default()
                    },
                    proc,
                    source: None,
                };
                let mut out = Vec::new();
                super::super::render(&report, Format::Json, None, &mut out).unwrap();
                let expected = serde_json::to_string_pretty(&report.wire()).unwrap() + "\n";
                assert_eq!(String::from_utf8(out).unwrap(), expected);
            }
        }
    }

    /// Exclusive time first; the outermost calls as the remainder row, in
    /// JSON as `outermost`, in folded stacks as the function's own line.
    #[test]
    fn bottom_up_rows_json_and_stacks() {
        let tree = bottom_up_tree();
        let report = TreeReport {
            tree: &tree,
            view: TreeView {
                nprocs: 1,
                order: Order::Exclusive,
                ..Default::default()
            },
            proc: Some(0),
            source: None,
        };
        let mut out = Vec::new();
        super::super::render(&report, Format::Text, None, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<Vec<&str>> = text
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(lines[0][..2], ["Exclusive", "Inclusive"]);
        assert_eq!(lines[1], ["3.000", "s", "5.000", "s", "1", "f"]);
        // The remainder comes first below its node, as `(untimed)` does.
        assert_eq!(lines[2], ["2.000", "s", "(outermost:", "no", "caller)"]);
        assert_eq!(lines[3], ["1.000", "s", "1.500", "s", "1", "g"]);
        let mut out = Vec::new();
        super::super::render(&report, Format::Json, None, &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["view"], "bottom-up");
        assert_eq!(v["total_exclusive"], 3.0);
        assert!(v.get("total_inclusive").is_none());
        assert_eq!(v["roots"][0]["outermost"], 2.0);
        assert!(v["roots"][0].get("untimed").is_none());
        assert_eq!(v["roots"][0]["children"][0]["outermost"], 1.0);
        let mut out = Vec::new();
        super::super::render(&report, Format::Folded, None, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "f 2000000\nf;g 1000000\n");
    }

    #[test]
    fn text_written_in_runs_is_the_text_of_one_pass() {
        for nprocs in [1, 2] {
            let tree = tree(3 * LINES_PER_TASK + 7);
            let view = TreeView {
                nprocs,
                ..Default::default()
            };
            let report = TreeReport {
                tree: &tree,
                view,
                proc: None,
                source: Some("db".into()),
            };
            let mut out = Vec::new();
            super::super::render(&report, Format::Text, None, &mut out).unwrap();
            let nodes = visible(&tree, &view);
            let cuts = Cuts::of(&tree, &view, &nodes);
            let lines = text_lines(&tree, &view, &nodes, &cuts, 0..nodes.len());
            let body = String::from_utf8(out).unwrap();
            let (head, rest) = body.split_at(body.find("\n\n").unwrap() + 2);
            assert_eq!(
                head,
                format!(
                    "db: call tree of {nprocs} processes\n{}\n\n",
                    times_line(None, &view)
                )
            );
            let (columns, rows) = rest.split_at(rest.find('\n').unwrap() + 1);
            assert!(columns.ends_with("Call path\n"));
            assert_eq!(rows, lines);
            assert!(rows.lines().count() > 4 * LINES_PER_TASK);
        }
    }
}
