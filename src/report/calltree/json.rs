//! A tree's JSON (docs/JSON.md): the wire value, written without
//! recursion ([`super::json_tree`]) so that any depth fits the stack.

use std::io::{self, Write};

use serde::Serialize;

use crate::analysis::calltree::{Spread, subtree_calls};
use crate::model::calltree::{CallTree, NodeId};
use crate::report::calltree::json_tree;
use crate::report::calltree::view::{
    Order, TreeView, children_sorted, remainder, total_key, untimed,
};

/// A node with its children, nested: the wire value of `--focus`'s trees.
#[derive(Serialize)]
pub(crate) struct NodeJson<'a> {
    #[serde(flatten)]
    fields: NodeFields<'a>,
    children: Vec<NodeJson<'a>>,
}

/// The children shown below a node at `depth`: none past `--depth`.
pub(crate) fn shown_children(
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
        max_proc: m.inclusive_max_proc.map(|p| p as usize),
        procs: m.procs as usize,
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
pub(crate) fn at_depth(ids: Vec<NodeId>, depth: usize) -> Vec<(NodeId, usize)> {
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
pub(crate) fn write_tree_json(
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
    let pretty = serde_json::to_vec_pretty(&head).map_err(crate::report::renderers::json::io_error)?;
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

pub(crate) fn tree_json<'a>(
    tree: &'a CallTree<Spread>,
    view: &TreeView,
    proc: Option<usize>,
) -> TreeJson<'a> {
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
