//! Hatchet's literal JSON of a tree (`GraphFrame.from_literal`), written
//! without recursion like the tree's own JSON.

use std::io::{self, Write};

use serde::Serialize;

use crate::analysis::calltree::{Spread, subtree_calls};
use crate::model::calltree::{CallTree, NodeId};
use crate::report::calltree::json::{at_depth, shown_children};
use crate::report::calltree::json_tree;
use crate::report::calltree::view::{TreeView, children_sorted, total_inclusive};

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
/// as the view's [`Aggregate`](super::view::Aggregate) says (as the text tree shows them); calls
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
