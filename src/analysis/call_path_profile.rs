//! A process's call tree as profile formats that list call paths and
//! functions side by side (TAU's) see it: the nodes in preorder with the
//! calls of their children (TAU's `Subrs`), the flat profile per function,
//! and the outermost calls' totals. Computed here so that the TAU exporter
//! only writes them.
//!
//! A function's flat inclusive time counts each call once: nodes below
//! another node of the same function (recursion) are not added again.
//!
//! ```text
//! main()            incl 9     flat: main()  incl 9
//! └ Step()          incl 8           Step()  incl 8 (not 8 + 3: the inner
//!   └ Step()        incl 3                    Step() is inside the outer)
//! ```

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

use rustc_hash::FxHashMap;

use crate::analysis::calltree::process_tree;
use crate::analysis::trace_summary::Selection;
use crate::error::Warning;
use crate::formats::blprof::Database;
use crate::model::calltree::{CallTree, Metrics, NodeId};

/// One function's figures over its nodes.
#[derive(Debug, Default, Clone, Copy)]
pub struct FunctionTotals {
    pub calls: u64,
    /// Calls of the functions its nodes call.
    pub subroutine_calls: u64,
    pub exclusive: f64,
    /// Counted once per outermost call (see the module docs).
    pub inclusive: f64,
}

/// What a call-path profile of one tree lists.
pub struct CallPathProfile {
    /// Every node but the root, in preorder, with its depth (0: the
    /// outermost calls).
    pub order: Vec<(NodeId, usize)>,
    /// Per node id, the calls of its children.
    pub subroutine_calls: Vec<u64>,
    /// Per name (index into [`CallTree::names`]), in first-seen order.
    pub functions: Vec<(u32, FunctionTotals)>,
    /// The outermost calls added up: what the root stands for.
    pub top: Metrics,
}

impl CallPathProfile {
    pub fn of(tree: &CallTree) -> Self {
        let order = tree.preorder();
        let subroutine_calls = subroutine_calls(tree);
        let functions = flat_profile(tree, &order, &subroutine_calls);
        let top = tree
            .node(tree.root())
            .children()
            .iter()
            .fold(Metrics::default(), |mut a, &c| {
                a.add(&tree.node(c).metrics);
                a
            });
        CallPathProfile {
            order,
            subroutine_calls,
            functions,
            top,
        }
    }
}

/// Per node id, the calls of its children.
fn subroutine_calls(tree: &CallTree) -> Vec<u64> {
    let mut subrs = vec![0u64; tree.len() + 1];
    for i in 1..=tree.len() {
        let id = NodeId(i as u32);
        if let Some(p) = tree.node(id).parent() {
            subrs[p.0 as usize] += tree.node(id).metrics.calls;
        }
    }
    subrs
}

/// Per name, in first-seen order: the flat profile. A node's inclusive time
/// is added unless an ancestor has the same name (its time is in there).
fn flat_profile(
    tree: &CallTree,
    order: &[(NodeId, usize)],
    subrs: &[u64],
) -> Vec<(u32, FunctionTotals)> {
    let mut index: FxHashMap<u32, usize> = FxHashMap::default();
    let mut flat: Vec<(u32, FunctionTotals)> = Vec::new();
    // The names open above the node being visited, with their counts.
    let mut open: Vec<u32> = Vec::new();
    let mut open_count: FxHashMap<u32, u32> = FxHashMap::default();
    for &(id, depth) in order {
        while open.len() > depth {
            if let Some(n) = open.pop()
                && let Some(c) = open_count.get_mut(&n)
            {
                *c -= 1;
            }
        }
        let Some(name) = tree.name_index(id) else {
            continue;
        };
        let m = &tree.node(id).metrics;
        let slot = *index.entry(name).or_insert_with(|| {
            flat.push((name, FunctionTotals::default()));
            flat.len() - 1
        });
        let f = &mut flat[slot].1;
        f.calls += m.calls;
        f.subroutine_calls += subrs[id.0 as usize];
        f.exclusive += m.exclusive;
        let recursive = open_count.get(&name).is_some_and(|&c| c > 0);
        if !recursive {
            f.inclusive += m.inclusive;
        }
        open.push(name);
        *open_count.entry(name).or_insert(0) += 1;
    }
    flat
}

/// Builds the whole call tree of every process with call traces (`procs`:
/// those), a task per process, and hands each to `visit` (rank, tree) in
/// its task: one tree per thread is held, never all. Once `visit` breaks,
/// the processes not yet started are skipped. Returns the warnings about
/// unreadable blocks, in process order.
pub fn for_each_process_tree(
    db: &Database,
    procs: Option<&[usize]>,
    visit: impl Fn(usize, &CallTree) -> ControlFlow<()> + Sync,
) -> Vec<Warning> {
    let walk = db.trace_blocks(procs);
    let one = walk.procs().count() == 1;
    let stopped = AtomicBool::new(false);
    let everything = Selection { ranges: None };
    walk.map_procs(|p| {
        if stopped.load(Ordering::Relaxed) {
            return Vec::new();
        }
        let (tree, warnings) = process_tree(p, &everything, one);
        if visit(p.proc().proc, &tree).is_break() {
            stopped.store(true, Ordering::Relaxed);
        }
        warnings
    })
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recursion_counts_inclusive_time_once_and_subroutines_per_node() {
        let mut t: CallTree = CallTree::new();
        for (path, calls, incl) in [
            (&["main()"][..], 1, 9.0),
            (&["main()", "Step()"], 2, 8.0),
            (&["main()", "Step()", "Step()"], 3, 3.0),
        ] {
            let n = t.node_at_path(path);
            t.node_mut(n).metrics = Metrics {
                calls,
                inclusive: incl,
                exclusive: 1.0,
            };
        }
        let p = CallPathProfile::of(&t);
        assert_eq!(p.order.len(), 3);
        assert_eq!((p.top.calls, p.top.inclusive), (1, 9.0));
        let step = &p.functions[1].1;
        assert_eq!(t.names()[p.functions[1].0 as usize], "Step()");
        assert_eq!(
            (step.calls, step.subroutine_calls, step.inclusive),
            (5, 3, 8.0)
        );
    }
}
