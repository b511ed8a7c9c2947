//! The call-tree table every input with a tree shares: one row per (node,
//! rank).

use std::sync::Arc;

use arrow_array::{Float64Array, RecordBatch, StringArray, UInt32Array, UInt64Array};
use arrow_schema::{ArrowError, DataType};
use profparse::CallTree;

use crate::arrow_stream::batch;

/// The call-tree table of some trees (one per rank, or one with no rank):
/// one row per (node, rank), nodes numbered by the pre-order of the trees
/// merged by path, so that a node's number is the same at every rank.
/// `hide_uncalled`: leave out subtrees without calls (all of them outside
/// the selected regions), as the CLI's `calltree` does; not for timer
/// trees, whose files record no calls.
pub(crate) fn tree_table(
    trees: &[(Option<usize>, CallTree)],
    hide_uncalled: bool,
) -> Result<RecordBatch, ArrowError> {
    // The merged tree's shape: its pre-order numbers the nodes that are
    // shown (a subtree without calls, all of it outside the selected
    // regions, is left out, as the CLI's reports leave it out).
    let mut union: CallTree = CallTree::new();
    for (_, t) in trees {
        union.merge_with(t, |a, b| a.calls += b.calls);
    }
    let union_calls = subtree_calls(&union);
    let mut number = vec![u32::MAX; union.len() + 1];
    let mut depth = vec![0u32; union.len() + 1];
    let shown = union
        .preorder()
        .into_iter()
        .filter(|(id, _)| !hide_uncalled || union_calls[id.0 as usize] > 0);
    for (i, (id, d)) in shown.enumerate() {
        number[id.0 as usize] = i as u32;
        depth[id.0 as usize] = d as u32;
    }
    let rows: usize = trees.iter().map(|(_, t)| t.len()).sum();
    let mut node = Vec::with_capacity(rows);
    let mut parent = Vec::with_capacity(rows);
    let mut name = Vec::with_capacity(rows);
    let mut depths = Vec::with_capacity(rows);
    let mut ranks = Vec::with_capacity(rows);
    let mut calls = Vec::with_capacity(rows);
    let mut inclusive = Vec::with_capacity(rows);
    let mut exclusive = Vec::with_capacity(rows);
    for (proc, t) in trees {
        let sub = subtree_calls(t);
        // This tree's nodes in the merged tree, found through their parents.
        let mut in_union = vec![union.root(); t.len() + 1];
        for (id, _) in t.preorder() {
            let up = t
                .node(id)
                .parent()
                .map_or(union.root(), |p| in_union[p.0 as usize]);
            let Some(u) = union.find_child(up, t.name(id)) else {
                continue; // merged above: cannot be missing
            };
            in_union[id.0 as usize] = u;
            if hide_uncalled && sub[id.0 as usize] == 0 {
                continue;
            }
            let m = &t.node(id).metrics;
            node.push(number[u.0 as usize]);
            parent.push(
                union
                    .node(u)
                    .parent()
                    .filter(|&p| p != union.root())
                    .map(|p| number[p.0 as usize]),
            );
            name.push(t.name(id));
            depths.push(depth[u.0 as usize]);
            ranks.push(proc.map(|p| p as u32));
            calls.push(m.calls);
            inclusive.push(m.inclusive);
            exclusive.push(m.exclusive);
        }
    }
    use DataType::{Float64, UInt32, UInt64, Utf8};
    batch(vec![
        ("node", UInt32, false, Arc::new(UInt32Array::from(node))),
        ("parent", UInt32, true, Arc::new(UInt32Array::from(parent))),
        ("name", Utf8, false, Arc::new(StringArray::from(name))),
        ("depth", UInt32, false, Arc::new(UInt32Array::from(depths))),
        ("rank", UInt32, true, Arc::new(UInt32Array::from(ranks))),
        ("calls", UInt64, false, Arc::new(UInt64Array::from(calls))),
        (
            "inclusive",
            Float64,
            false,
            Arc::new(Float64Array::from(inclusive)),
        ),
        (
            "exclusive",
            Float64,
            false,
            Arc::new(Float64Array::from(exclusive)),
        ),
    ])
}

/// The calls of each node's subtree (itself included), by node id: a node
/// is created after its parent, so a walk down the ids adds each node's
/// total to its parent's.
fn subtree_calls(tree: &CallTree) -> Vec<u64> {
    let mut calls: Vec<u64> = (0..=tree.len())
        .map(|i| tree.node(profparse::NodeId(i as u32)).metrics.calls)
        .collect();
    for i in (1..=tree.len()).rev() {
        if let Some(p) = tree.node(profparse::NodeId(i as u32)).parent() {
            calls[p.0 as usize] += calls[i];
        }
    }
    calls
}
