//! Call-path trees from the call traces (timer-tree semantics, see
//! [`crate::model::calltree`]): per process, and merged over processes.
//!
//! A record's parent is the latest record one level shallower: the depth
//! sequence of the records, in start order, encodes the tree. Records are
//! continued across a process's blocks, so a call open at a flush keeps its
//! children.

use std::sync::Mutex;

use rayon::prelude::*;

use super::trace_summary::{Selection, for_each_call};
use crate::error::{Location, Warning};
use crate::formats::blprof::database::{Database, ProcTrace};
use crate::model::calltree::{CallTree, Metrics, NodeId};

/// Metrics of a node merged over processes.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Spread {
    /// Sums over processes.
    pub total: Metrics,
    /// Processes in which the node occurs.
    pub procs: usize,
    pub inclusive_min: f64,
    pub inclusive_max: f64,
    pub inclusive_max_proc: Option<usize>,
}

/// Builds one process's tree. Only calls that start inside the selection
/// count; their ancestors appear as nodes (with 0 calls when unselected).
pub fn process_tree(
    db: &Database,
    p: &ProcTrace,
    row: usize,
    selection: &Selection,
    warnings: &Mutex<Vec<Warning>>,
) -> CallTree {
    let mut tree: CallTree = CallTree::new();
    let mut stack: Vec<NodeId> = Vec::new();
    let mut jumps = 0usize;
    // Interned name per local function number, resolved once per function.
    let mut names: Vec<Option<u32>> = Vec::new();
    let mut selected = selection.for_row(row);
    let mut cache: Vec<Option<(NodeId, u32, NodeId)>> = Vec::new();
    for_each_call(db, p, warnings, |c| {
        let Ok(depth) = usize::try_from(c.depth) else {
            return;
        };
        if depth > stack.len() {
            // The writer never skips a level; damaged data may.
            jumps += 1;
        }
        stack.truncate(depth);
        let parent = stack.last().copied().unwrap_or(tree.root());
        let fnum = c.fnum as usize;
        if names.len() <= fnum && fnum < 1 << 20 {
            names.resize(fnum + 1, None);
        }
        let name_of = |f: i32| {
            p.functions
                .name(f as i64)
                .map_or_else(|| format!("function {f}"), str::to_owned)
        };
        let name_id = match names.get_mut(fnum) {
            Some(Some(id)) => *id,
            Some(slot) => *slot.insert(tree.intern(&name_of(c.fnum))),
            None => tree.intern(&name_of(c.fnum)),
        };
        // Loops call the same child again and again: remember the last
        // lookup per depth and hash only when it changes.
        if cache.len() <= depth {
            cache.resize(depth + 1, None);
        }
        let node = match cache[depth] {
            Some((p, n, id)) if p == parent && n == name_id => id,
            _ => {
                let id = tree.child_by_name_id(parent, name_id);
                cache[depth] = Some((parent, name_id, id));
                id
            }
        };
        stack.push(node);
        if selected.contains(c.start) {
            let m = &mut tree.node_mut(node).metrics;
            m.calls += 1;
            m.inclusive += c.inclusive;
            m.exclusive += c.exclusive;
        }
    });
    if jumps > 0 {
        let mut w = warnings.lock().unwrap_or_else(|p| p.into_inner());
        w.push(Warning::new(
            Location::file(db.dir()),
            format!("process {}: {jumps} call record(s) deeper than their parent allows; attached to the deepest open call", p.proc),
        ));
    }
    tree
}

/// The tree of one process (`Some(proc)`) or merged over all processes.
pub fn call_tree(
    db: &Database,
    selection: &Selection,
    proc: Option<usize>,
) -> (CallTree<Spread>, usize, Vec<Warning>) {
    let index = db.trace_index();
    let warnings = Mutex::new(Vec::new());
    let rows: Vec<usize> = (0..index.procs.len())
        .filter(|&r| proc.is_none_or(|p| index.procs[r].proc == p))
        .collect();
    let trees: Vec<(usize, CallTree)> = rows
        .par_iter()
        .map(|&r| {
            (
                index.procs[r].proc,
                process_tree(db, &index.procs[r], r, selection, &warnings),
            )
        })
        .collect();
    let n = trees.len();
    let merged = merge_trees(&trees);
    (
        merged,
        n,
        warnings.into_inner().unwrap_or_else(|p| p.into_inner()),
    )
}

/// Unifies per-process trees by path into min/avg/max spreads.
pub fn merge_trees(trees: &[(usize, CallTree)]) -> CallTree<Spread> {
    let mut merged: CallTree<Spread> = CallTree::new();
    for (proc, t) in trees {
        merged.merge_with(t, |s, m| {
            let first = s.procs == 0;
            s.total.add(m);
            s.procs += 1;
            if first || m.inclusive < s.inclusive_min {
                s.inclusive_min = m.inclusive;
            }
            if first || m.inclusive > s.inclusive_max {
                s.inclusive_max = m.inclusive;
                s.inclusive_max_proc = Some(*proc);
            }
        });
    }
    let n = trees.len();
    // A node missing in some process has 0 s there.
    merged.map(|_, s| Spread {
        inclusive_min: if s.procs < n { 0.0 } else { s.inclusive_min },
        ..*s
    })
}

/// Calls in the node's subtree (for hiding branches no selected call reached).
pub fn subtree_calls(tree: &CallTree<Spread>) -> Vec<u64> {
    let mut calls = vec![0u64; tree.len() + 1];
    for (id, _) in tree.preorder().into_iter().rev() {
        let own = tree.node(id).metrics.total.calls;
        let kids: u64 = tree
            .node(id)
            .children()
            .iter()
            .map(|c| calls[c.0 as usize])
            .sum();
        calls[id.0 as usize] = own + kids;
    }
    calls
}

/// Nodes whose inclusive time is less than the sum of their children's
/// (beyond rounding): a sign of damaged or unpatched records.
pub fn inconsistent_nodes(tree: &CallTree<Spread>) -> Vec<NodeId> {
    tree.preorder()
        .into_iter()
        .map(|(id, _)| id)
        .filter(|&id| {
            let n = tree.node(id);
            let kids: f64 = n
                .children()
                .iter()
                .map(|&c| tree.node(c).metrics.total.inclusive)
                .sum();
            n.metrics.total.calls > 0 && kids > n.metrics.total.inclusive * (1.0 + 1e-9) + 1e-9
        })
        .collect()
}
