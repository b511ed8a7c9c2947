//! The tree view: which nodes of a call-path tree are shown, in which
//! order, and with which times — the choices every format of a tree
//! follows (`--order`, `--depth`, `--min-percent`, `--aggregate`).

use rayon::prelude::*;

use crate::analysis::calltree::{Spread, subtree_calls};
use crate::model::calltree::{CallTree, NodeId};

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
    pub(crate) fn combined(&self, total: f64) -> Option<f64> {
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

/// A node's depth in a listed tree: at most the node count, which fits
/// `u32` as [`NodeId`] does, and half the size of `usize` in the lists of
/// hundreds of thousands of nodes.
pub type Depth = u32;

/// The visible nodes: pre-order, children by the view's order (largest
/// first), with each node's depth.
pub fn visible(tree: &CallTree<Spread>, view: &TreeView) -> Vec<(NodeId, Depth)> {
    let calls = subtree_calls(tree);
    let total = total_key(tree, view.order);
    let leaf = |depth: Depth| view.max_depth.is_some_and(|m| depth as usize >= m);
    let walk = |top: NodeId, depth: Depth| walk_from(tree, view, &calls, total, top, depth);
    // The top levels in order, as nodes and whole subtrees, until there
    // are subtrees enough for every thread; then the subtrees in parallel.
    let sorted = |id: NodeId, depth: Depth| {
        children_sorted(tree, id, view, &calls, total)
            .into_iter()
            .map(move |c| (c, depth))
    };
    // (node, depth, whole subtree or the node alone)
    let mut parts: Vec<(NodeId, Depth, bool)> =
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
    // A batch of walks at a time, each appended and freed: memory holds the
    // list and one batch of walks, not the list twice.
    let mut nodes = Vec::new();
    for batch in parts.chunks(2 * rayon::current_num_threads()) {
        let walks: Vec<Vec<(NodeId, Depth)>> = batch
            .par_iter()
            .map(|&(id, depth, whole)| {
                if whole {
                    walk(id, depth)
                } else {
                    vec![(id, depth)]
                }
            })
            .collect();
        for walk in walks {
            nodes.extend_from_slice(&walk);
        }
    }
    nodes
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
    depth: Depth,
) -> Vec<(NodeId, Depth)> {
    let leaf = |depth: Depth| view.max_depth.is_some_and(|m| depth as usize >= m);
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
    stack: &mut Vec<(NodeId, Depth)>,
    tree: &CallTree<Spread>,
    id: NodeId,
    depth: Depth,
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

pub(crate) fn children_sorted(
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
