//! Comparing two runs: two call-path trees (or two function tables)
//! unified by path, node by node.
//!
//! Both sides are first brought to the same per-node figures
//! ([`Metrics`]: calls, inclusive and exclusive seconds), then merged by
//! path with [`CallTree::merge_with`]. A node that exists on one side only
//! is kept with the other side's figures at 0 and marked:
//!
//! ```text
//!   A                      B                      diff (B − A)
//!   main 10 s              main 12 s              main      +2 s
//!   ├─ Step 8 s            ├─ Step 7 s            ├─ Step   −1 s
//!   └─ IO 1 s              └─ Regrid 4 s          ├─ IO     −1 s   "-" only in A
//!                                                 └─ Regrid +4 s   "+" only in B
//! ```
//!
//! The relative difference is (B − A) / A; it does not exist (`None`) when
//! A is 0 and B is not ("new"), and is 0 when both are 0.
//!
//! Pure: no I/O. The commands build the trees, [`crate::report::diff`]
//! renders the result.
//!
//! ```
//! use profparse::{CallTree, DiffOptions, Metrics, Presence, diff_trees};
//!
//! let run = |nodes: &[(&[&str], f64)]| {
//!     let mut t: CallTree<Metrics> = CallTree::new();
//!     for (path, seconds) in nodes {
//!         let id = t.node_at_path(path);
//!         t.node_mut(id).metrics = Metrics { calls: 1, inclusive: *seconds, exclusive: 0.0 };
//!     }
//!     t
//! };
//! let a = run(&[(&["main"], 10.0), (&["main", "IO"], 1.0)]);
//! let b = run(&[(&["main"], 12.0), (&["main", "Regrid"], 4.0)]);
//! let d = diff_trees(&a, &b, &DiffOptions::default()); // largest |B − A| first
//! let rows: Vec<(String, f64, Presence)> = d
//!     .rows
//!     .iter()
//!     .map(|r| (d.path(r).join(" > "), r.diff, r.presence))
//!     .collect();
//! assert_eq!(rows, [
//!     ("main > Regrid".to_owned(), 4.0, Presence::OnlyB),
//!     ("main".to_owned(), 2.0, Presence::Both),
//!     ("main > IO".to_owned(), -1.0, Presence::OnlyA),
//! ]);
//! assert_eq!(d.rows[0].rel, None); // new in B
//! ```

use std::cmp::Ordering;

use crate::analysis::calltree::{Spread, subtree_calls};
use crate::analysis::function_stats::FunctionSummary;
use crate::model::calltree::{CallTree, Metrics, NodeId};
use crate::model::timertree::Timing;

/// The figure compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// Inclusive seconds (the node and everything it called).
    #[default]
    Inclusive,
    /// Exclusive seconds (the node minus its timed children).
    Exclusive,
    /// Number of calls.
    Calls,
}

impl Metric {
    /// The metric's value in `m`.
    pub fn of(self, m: &Metrics) -> f64 {
        match self {
            Metric::Inclusive => m.inclusive,
            Metric::Exclusive => m.exclusive,
            Metric::Calls => m.calls as f64,
        }
    }

    /// Its name on the command line (`--metric`).
    pub fn name(self) -> &'static str {
        match self {
            Metric::Inclusive => "inclusive",
            Metric::Exclusive => "exclusive",
            Metric::Calls => "calls",
        }
    }
}

/// Row order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DiffSort {
    /// B − A, largest increase first (largest decrease last).
    Diff,
    /// |B − A|, largest first.
    #[default]
    Abs,
    /// |(B − A) / A|, largest first; new nodes (A = 0) before all others.
    Rel,
    /// By call path (pre-order of the unified tree, siblings by name).
    Name,
}

impl DiffSort {
    pub fn name(self) -> &'static str {
        match self {
            DiffSort::Diff => "diff",
            DiffSort::Abs => "abs",
            DiffSort::Rel => "rel",
            DiffSort::Name => "name",
        }
    }
}

/// What to compare and which rows to keep.
#[derive(Debug, Clone, Copy, Default)]
pub struct DiffOptions {
    /// The metric compared.
    pub metric: Metric,
    /// The order of the rows.
    pub sort: DiffSort,
    /// Keep at most this many rows (after sorting and `min_diff`).
    pub top: Option<usize>,
    /// Keep rows whose |B − A| is at least this (in the metric's unit).
    pub min_diff: f64,
}

/// On which side a row exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Presence {
    /// In both runs.
    #[serde(rename = "")]
    Both,
    /// Only in A (`-`).
    #[serde(rename = "-")]
    OnlyA,
    /// Only in B (`+`).
    #[serde(rename = "+")]
    OnlyB,
}

impl Presence {
    pub(crate) fn mark(self) -> &'static str {
        match self {
            Presence::Both => "",
            Presence::OnlyA => "-",
            Presence::OnlyB => "+",
        }
    }
}

/// One node (or function) compared.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffRow {
    /// The node in [`Diff::tree`]; [`Diff::path`] names it from the
    /// outermost call down (one name for functions). Rows keep no path of
    /// their own: in a tree thousands deep those would fill memory.
    pub node: NodeId,
    /// Levels above the node (0 for an outermost call).
    pub depth: usize,
    /// Position in the unified tree's pre-order (siblings by name): the
    /// order of `--sort name`.
    position: usize,
    /// In which runs the node exists.
    pub presence: Presence,
    /// The metric in A (0 when the node is only in B).
    pub a: f64,
    /// The metric in B (0 when the node is only in A).
    pub b: f64,
    /// b − a.
    pub diff: f64,
    /// (b − a) / a; `None` when a is 0 and b is not; 0 when both are 0.
    pub rel: Option<f64>,
    /// Calls in A.
    pub calls_a: u64,
    /// Calls in B.
    pub calls_b: u64,
}

/// The two trees unified by path: each node's figures in A and in B.
pub type Unified = CallTree<(Option<Metrics>, Option<Metrics>)>;

/// The comparison of two trees or two function tables.
#[derive(Debug, Clone, Default)]
pub struct Diff {
    /// Both trees unified by path, siblings by name: what the rows point to.
    pub tree: Unified,
    /// The kept rows, in the asked order.
    pub rows: Vec<DiffRow>,
    /// Nodes in the unified tree (before `min_diff` and `top`).
    pub nodes: usize,
    /// Nodes only in A / only in B (before `min_diff` and `top`).
    pub only_a: usize,
    /// Nodes only in B.
    pub only_b: usize,
    /// Σ of the metric over the outermost nodes (seconds: the total time
    /// of the run; calls: all outermost calls).
    pub total_a: f64,
    /// The same sum for B.
    pub total_b: f64,
}

impl Diff {
    /// The names of a row's node, from the outermost call down.
    pub fn path(&self, row: &DiffRow) -> Vec<&str> {
        self.tree.path(row.node)
    }
}

/// (B − A) / A with the conventions of [`DiffRow::rel`].
pub fn relative(a: f64, b: f64) -> Option<f64> {
    if a == 0.0 {
        (b == 0.0).then_some(0.0)
    } else {
        Some((b - a) / a)
    }
}

/// Compares two trees node by node (unified by path).
pub fn diff_trees(a: &CallTree<Metrics>, b: &CallTree<Metrics>, opts: &DiffOptions) -> Diff {
    let mut u: Unified = CallTree::new();
    u.merge_with(a, |s, m| s.0 = Some(*m));
    u.merge_with(b, |s, m| s.1 = Some(*m));
    let metric = opts.metric;
    let total = |t: &CallTree<Metrics>| -> f64 {
        t.node(t.root())
            .children()
            .iter()
            .map(|&c| metric.of(&t.node(c).metrics))
            .sum()
    };
    let mut out = Diff {
        tree: CallTree::new(),
        nodes: u.len(),
        total_a: total(a),
        total_b: total(b),
        ..Default::default()
    };
    // Pre-order with siblings by name: the order of `--sort name`, and a
    // stable base for the others.
    u.sort_children_by(|t, x, y| t.name(x).cmp(t.name(y)));
    let mut rows: Vec<DiffRow> = u
        .preorder()
        .into_iter()
        .enumerate()
        .map(|(position, (id, depth))| row(&u, id, depth, position, metric))
        .collect();
    out.only_a = rows
        .iter()
        .filter(|r| r.presence == Presence::OnlyA)
        .count();
    out.only_b = rows
        .iter()
        .filter(|r| r.presence == Presence::OnlyB)
        .count();
    // NaN differences (damaged inputs) are kept: they are news, not noise.
    rows.retain(|r| r.diff.is_nan() || r.diff.abs() >= opts.min_diff);
    sort_rows(&mut rows, opts.sort);
    if let Some(n) = opts.top {
        rows.truncate(n);
    }
    out.rows = rows;
    out.tree = u;
    out
}

fn row(u: &Unified, id: NodeId, depth: usize, position: usize, metric: Metric) -> DiffRow {
    let (ma, mb) = u.node(id).metrics;
    let presence = match (ma.is_some(), mb.is_some()) {
        (true, false) => Presence::OnlyA,
        (false, true) => Presence::OnlyB,
        _ => Presence::Both,
    };
    let (ma, mb) = (ma.unwrap_or_default(), mb.unwrap_or_default());
    let (a, b) = (metric.of(&ma), metric.of(&mb));
    DiffRow {
        node: id,
        depth,
        position,
        presence,
        a,
        b,
        diff: b - a,
        rel: relative(a, b),
        calls_a: ma.calls,
        calls_b: mb.calls,
    }
}

/// Sorts rows by `key`; ties keep the path order they came in.
pub fn sort_rows(rows: &mut [DiffRow], key: DiffSort) {
    let rel_key = |r: &DiffRow| r.rel.map_or(f64::INFINITY, f64::abs);
    match key {
        // Pre-order with siblings by name is the order of the paths.
        DiffSort::Name => rows.sort_by_key(|r| r.position),
        DiffSort::Diff => rows.sort_by(|x, y| y.diff.total_cmp(&x.diff)),
        DiffSort::Abs => rows.sort_by(|x, y| y.diff.abs().total_cmp(&x.diff.abs())),
        DiffSort::Rel => rows.sort_by(|x, y| match rel_key(y).total_cmp(&rel_key(x)) {
            Ordering::Equal => y.diff.abs().total_cmp(&x.diff.abs()),
            o => o,
        }),
    }
}

/// A merged tree's figures per node as averages over `nprocs` processes
/// (seconds) and sums (calls): the `inclusive_avg`, `exclusive_avg` and
/// `calls` of `calltree --format json`. As there, branches without a
/// single call (ancestors of unselected calls, intervals never closed) are
/// left out.
pub fn spread_metrics(tree: &CallTree<Spread>, nprocs: usize) -> CallTree<Metrics> {
    let p = nprocs.max(1) as f64;
    let calls = subtree_calls(tree);
    let mut out: CallTree<Metrics> = CallTree::new();
    // Pre-order: a kept node's parent is kept too (its subtree holds the call).
    let mut map = vec![None; tree.len() + 1];
    map[0] = Some(out.root());
    for (id, _) in tree.preorder() {
        if calls[id.0 as usize] == 0 {
            continue;
        }
        let parent = tree.node(id).parent().and_then(|q| map[q.0 as usize]);
        let Some(parent) = parent else { continue };
        let new = out.child(parent, tree.name(id));
        let s = &tree.node(id).metrics;
        out.node_mut(new).metrics = Metrics {
            calls: s.total.calls,
            inclusive: s.total.inclusive / p,
            exclusive: s.total.exclusive / p,
        };
        map[id.0 as usize] = Some(new);
    }
    out
}

/// A timer tree's figures per node: its seconds (inclusive), its seconds
/// minus its children's (exclusive), its starts (0 when unknown).
pub fn timing_metrics(tree: &CallTree<Timing>) -> CallTree<Metrics> {
    tree.map(|id, t| {
        let kids: f64 = tree
            .node(id)
            .children()
            .iter()
            .map(|&c| tree.node(c).metrics.seconds)
            .sum();
        Metrics {
            calls: t.calls,
            inclusive: t.seconds,
            exclusive: t.seconds - kids,
        }
    })
}

/// A function table as a one-level tree: per function its average
/// exclusive seconds over processes (in both `inclusive` and `exclusive`:
/// the base profile has no inclusive times) and its calls summed over
/// processes.
pub fn function_metrics(s: &FunctionSummary) -> CallTree<Metrics> {
    let mut t: CallTree<Metrics> = CallTree::new();
    for f in &s.functions {
        let id = t.child(t.root(), &f.name);
        t.node_mut(id).metrics = Metrics {
            calls: u64::try_from(f.ncalls_total).unwrap_or(0),
            inclusive: f.avg,
            exclusive: f.avg,
        };
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(nodes: &[(&[&str], f64, u64)]) -> CallTree<Metrics> {
        let mut t: CallTree<Metrics> = CallTree::new();
        for (path, incl, calls) in nodes {
            let id = t.node_at_path(path);
            t.node_mut(id).metrics = Metrics {
                calls: *calls,
                inclusive: *incl,
                exclusive: *incl / 2.0,
            };
        }
        t
    }

    #[test]
    fn same_tree_has_no_differences() {
        let a = tree(&[(&["main"], 10.0, 1), (&["main", "Step"], 8.0, 3)]);
        let d = diff_trees(&a, &a, &DiffOptions::default());
        assert_eq!(d.rows.len(), 2);
        assert!(
            d.rows
                .iter()
                .all(|r| r.diff == 0.0 && r.rel == Some(0.0) && r.presence == Presence::Both)
        );
        assert_eq!((d.only_a, d.only_b), (0, 0));
    }

    #[test]
    fn one_sided_nodes_are_marked() {
        let a = tree(&[
            (&["main"], 10.0, 1),
            (&["main", "Step"], 8.0, 3),
            (&["main", "IO"], 1.0, 1),
        ]);
        let b = tree(&[
            (&["main"], 12.0, 1),
            (&["main", "Step"], 7.0, 3),
            (&["main", "Regrid"], 4.0, 2),
        ]);
        let d = diff_trees(&a, &b, &DiffOptions::default());
        let names: Vec<(String, &str, f64)> = d
            .rows
            .iter()
            .map(|r| (d.path(r).join(">"), r.presence.mark(), r.diff))
            .collect();
        assert_eq!(
            names,
            vec![
                ("main>Regrid".to_owned(), "+", 4.0),
                ("main".to_owned(), "", 2.0),
                ("main>IO".to_owned(), "-", -1.0),
                ("main>Step".to_owned(), "", -1.0),
            ]
        );
        let regrid = &d.rows[0];
        assert_eq!((regrid.rel, regrid.calls_a, regrid.calls_b), (None, 0, 2));
        assert_eq!((d.only_a, d.only_b, d.nodes), (1, 1, 4));
        assert_eq!((d.total_a, d.total_b), (10.0, 12.0));
    }

    #[test]
    fn options_cut_and_order() {
        let a = tree(&[(&["x"], 1.0, 1), (&["y"], 2.0, 1), (&["z"], 3.0, 1)]);
        let b = tree(&[(&["x"], 1.5, 1), (&["y"], 1.0, 4), (&["z"], 3.1, 1)]);
        let opts = |sort, top, min_diff| DiffOptions {
            metric: Metric::Inclusive,
            sort,
            top,
            min_diff,
        };
        let paths =
            |d: Diff| -> Vec<String> { d.rows.iter().map(|r| d.path(r).join(">")).collect() };
        assert_eq!(
            paths(diff_trees(&a, &b, &opts(DiffSort::Diff, None, 0.0))),
            ["x", "z", "y"]
        );
        assert_eq!(
            paths(diff_trees(&a, &b, &opts(DiffSort::Rel, Some(2), 0.0))),
            ["y", "x"]
        );
        assert_eq!(
            paths(diff_trees(&a, &b, &opts(DiffSort::Name, None, 0.4))),
            ["x", "y"]
        );
        let calls = DiffOptions {
            metric: Metric::Calls,
            ..Default::default()
        };
        let d = diff_trees(&a, &b, &calls);
        assert_eq!((d.path(&d.rows[0])[0], d.rows[0].diff), ("y", 3.0));
    }

    #[test]
    fn relative_conventions() {
        assert_eq!(relative(0.0, 0.0), Some(0.0));
        assert_eq!(relative(0.0, 1.0), None);
        assert_eq!(relative(2.0, 1.0), Some(-0.5));
    }
}
