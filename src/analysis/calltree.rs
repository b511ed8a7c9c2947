//! Call-path trees from the call traces (timer-tree semantics, see
//! [`crate::model::calltree`]): per process, and merged over processes.
//!
//! A record's parent is the latest record one level shallower: the depth
//! sequence of the records, in start order, encodes the tree. Records are
//! continued across a process's blocks, so a call open at a flush keeps its
//! children.

use std::sync::Mutex;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

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

/// Levels merged in order before the subtrees are merged in parallel.
const MAX_SERIAL_LEVELS: usize = 3;

/// Unifies per-process trees by path into min/avg/max spreads.
///
/// The top levels are merged in order until there are enough subtrees to
/// keep every thread busy; those subtrees are merged in parallel, each over
/// the processes in order, so every node combines its processes in the same
/// order as a sequential merge (same sums, same tie-breaks, same child order).
pub fn merge_trees(trees: &[(usize, CallTree)]) -> CallTree<Spread> {
    let combine = |proc: usize| {
        move |s: &mut Spread, m: &Metrics| {
            let first = s.procs == 0;
            s.total.add(m);
            s.procs += 1;
            if first || m.inclusive < s.inclusive_min {
                s.inclusive_min = m.inclusive;
            }
            if first || m.inclusive > s.inclusive_max {
                s.inclusive_max = m.inclusive;
                s.inclusive_max_proc = Some(proc);
            }
        }
    };
    let mut merged: CallTree<Spread> = CallTree::new();
    let root = merged.root();
    // A merged node and its sources: (process, tree, node), in process order.
    type Sources<'a> = Vec<(usize, &'a CallTree, NodeId)>;
    let mut frontier: Vec<(NodeId, Sources)> =
        vec![(root, trees.iter().map(|(p, t)| (*p, t, t.root())).collect())];
    // Several subtrees per thread, so that uneven ones even out.
    let wanted = 8 * rayon::current_num_threads();
    for _ in 0..MAX_SERIAL_LEVELS {
        if frontier.len() >= wanted {
            break;
        }
        let mut next: Vec<(NodeId, Sources)> = Vec::new();
        // Merged node → its place in `next`.
        let mut place: FxHashMap<NodeId, usize> = FxHashMap::default();
        for (at, sources) in &frontier {
            // Children in order of first appearance over the processes.
            for &(proc, t, node) in sources {
                combine(proc)(&mut merged.node_mut(*at).metrics, &t.node(node).metrics);
                for &c in t.node(node).children() {
                    let child = merged.child(*at, t.name(c));
                    let i = *place.entry(child).or_insert_with(|| {
                        next.push((child, Vec::new()));
                        next.len() - 1
                    });
                    next[i].1.push((proc, t, c));
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    let subtrees: Vec<CallTree<Spread>> = frontier
        .par_iter()
        .map(|(_, sources)| {
            let mut sub: CallTree<Spread> = CallTree::new();
            for &(proc, t, node) in sources {
                sub.merge_from(sub.root(), t, node, combine(proc));
            }
            sub
        })
        .collect();
    merged.graft_all(frontier.iter().map(|(at, _)| *at).zip(subtrees).collect());
    let n = trees.len();
    // A node missing in some process has 0 s there (in place: the tree
    // can be millions of nodes).
    // (`len` counts the nodes below the root; the root is node 0.)
    for i in 0..=merged.len() {
        let s = &mut merged.node_mut(NodeId(i as u32)).metrics;
        if s.procs < n {
            s.inclusive_min = 0.0;
        }
    }
    merged
}

/// Calls in the node's subtree (for hiding branches no selected call reached).
pub fn subtree_calls(tree: &CallTree<Spread>) -> Vec<u64> {
    let n = tree.len() + 1;
    let mut calls: Vec<u64> = (0..n)
        .map(|i| tree.node(NodeId(i as u32)).metrics.total.calls)
        .collect();
    // A parent's id is below its children's (see `CallTree`): walking ids
    // backwards sums every subtree before its parent is reached.
    for i in (1..n).rev() {
        if let Some(p) = tree.node(NodeId(i as u32)).parent() {
            debug_assert!((p.0 as usize) < i);
            calls[p.0 as usize] += calls[i];
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The merge as one sequential fold over processes: what the parallel
    /// merge must equal exactly.
    fn sequential_merge(trees: &[(usize, CallTree)]) -> CallTree<Spread> {
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
        merged.map(|_, s| Spread {
            inclusive_min: if s.procs < n { 0.0 } else { s.inclusive_min },
            ..*s
        })
    }

    /// Pre-order names, depths and exact metrics.
    fn shape(t: &CallTree<Spread>) -> Vec<String> {
        t.preorder()
            .into_iter()
            .map(|(id, d)| {
                let s = &t.node(id).metrics;
                format!(
                    "{d} {} {} {:x} {:x} {} {:x} {:x} {:?}",
                    t.name(id),
                    s.total.calls,
                    s.total.inclusive.to_bits(),
                    s.total.exclusive.to_bits(),
                    s.procs,
                    s.inclusive_min.to_bits(),
                    s.inclusive_max.to_bits(),
                    s.inclusive_max_proc
                )
            })
            .collect()
    }

    #[test]
    fn parallel_merge_equals_the_sequential_fold() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let names = ["a", "b", "c", "d", "e"];
        let trees: Vec<(usize, CallTree)> = (0..9)
            .map(|proc| {
                let mut t: CallTree = CallTree::new();
                for _ in 0..200 {
                    let depth = 1 + next(5) as usize;
                    let path: Vec<&str> = (0..depth).map(|_| names[next(5) as usize]).collect();
                    let id = t.node_at_path(&path);
                    let m = &mut t.node_mut(id).metrics;
                    m.calls += 1;
                    // Values whose sums depend on the order of addition.
                    m.inclusive += 0.1 * next(1000) as f64 + 1e-9 * next(7) as f64;
                    m.exclusive += 0.3 * next(100) as f64;
                }
                (proc * 3, t)
            })
            .collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let parallel = pool.install(|| merge_trees(&trees));
        assert_eq!(shape(&parallel), shape(&sequential_merge(&trees)));
        assert!(parallel.len() > 50);
    }
}
