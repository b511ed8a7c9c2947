//! `tlog tree`: the nesting trees of the processes merged by call path as
//! they are built, so that a window of process trees is held, never one
//! per process.
//!
//! ```text
//! processes   0 1 2 3 | 4 5 6 7 | …    a window at a time, in parallel,
//! build       ║ ║ ║ ║   ║ ║ ║ ║        each into a tree from a pool
//! merge       0 1 2 3   4 5 6 7        in process order into the result;
//!                                      each tree back to the pool
//! ```
//!
//! A process tree ([`ProcTree`]) is numbered in pre-order, siblings in
//! first use, so it is merged in one pass over its nodes: each node's
//! place in the result is its parent's place's child of its name. The
//! result's nodes are then created subtree by subtree, where the next
//! processes' passes find them together (in creation order they were
//! spread over the whole tree: a cache miss a node).
//! Every node of the result adds its processes in process order and gets
//! its new children in each process's sibling order, so its sums, ties and
//! child order are those of [`crate::analysis::calltree::merge_trees`]
//! over all the trees at once, at any thread count.

use std::sync::Mutex;

use super::proc_tree::ProcTree;
use super::{EventNames, Trees, summarize_proc_into};
use crate::analysis::calltree::{Spread, zero_absent_minimums};
use crate::error::Warning;
use crate::formats::tlog::TlogFile;
use crate::model::calltree::{CallTree, NodeId};
use crate::parallel::Ordered;

/// Processes per thread in a window: two windows of trees are held at a
/// time (one built, one merged), each tree as large as a process's.
const WINDOW_PER_THREAD: usize = 1;

/// The nesting tree of one process (`Some(proc)`) or of every process
/// merged by call path, and how many processes it holds (`None` when no
/// process has events, or not the one asked for); and the warnings about
/// every process's events (unmatched and crossed intervals), in process
/// order, as [`super::summarize`] gives them.
pub fn merged_tree(
    t: &TlogFile,
    names: &EventNames,
    proc: Option<u16>,
) -> (Option<(CallTree<Spread>, usize)>, Vec<Warning>) {
    let spare: Mutex<Vec<ProcTree>> = Mutex::new(Vec::new());
    let take_spare = || match spare.lock() {
        Ok(mut trees) => trees.pop().unwrap_or_default(),
        Err(_) => ProcTree::default(),
    };
    let mut merged: CallTree<Spread> = CallTree::new();
    let name_ids = names.pair_names().map(|n| merged.intern(&n));
    // Per node of the process tree being merged, its node in `merged`.
    let mut place: Vec<NodeId> = Vec::new();
    let mut nprocs = 0;
    let mut warnings = Vec::new();
    Ordered::per_thread(WINDOW_PER_THREAD).overlapped().for_each(
        t.procs(),
        |p| {
            let wanted = proc.is_none_or(|x| x == p);
            let trees = if wanted { Trees::Build } else { Trees::Skip };
            let mut tree = take_spare();
            let (_, found) = summarize_proc_into(t, p, names, trees, &mut tree);
            (p, wanted, tree, found)
        },
        |(p, wanted, tree, found)| {
            if wanted {
                merge_into(&mut merged, &mut place, &tree, usize::from(p), &name_ids);
                nprocs += 1;
            }
            warnings.extend(found);
            if let Ok(mut trees) = spare.lock() {
                trees.push(tree);
            }
        },
    );
    // The reads are done; what follows holds the merged tree and prints it.
    crate::formats::tlog::free_read_buffers();
    super::proc_tree::free_child_tables();
    if nprocs == 0 {
        return (None, warnings);
    }
    zero_absent_minimums(&mut merged, nprocs);
    (Some((merged, nprocs)), warnings)
}

/// Adds process `p`'s tree to `merged`, node by node in pre-order (its
/// numbering once finished); `place` is scratch memory, `name_ids` the
/// pair numbers' names in `merged`.
fn merge_into(
    merged: &mut CallTree<Spread>,
    place: &mut Vec<NodeId>,
    tree: &ProcTree,
    p: usize,
    name_ids: &[u32],
) {
    place.clear();
    place.resize(tree.len(), merged.root());
    let (_, _, m) = tree.node(0);
    merged.node_mut(merged.root()).metrics.add(p, m);
    // The root, first, is placed; a parent comes before its children.
    for i in 1..tree.len() {
        let (parent, name, m) = tree.node(i);
        let at = merged.child_by_name_id(place[parent as usize], name_ids[usize::from(name)]);
        merged.node_mut(at).metrics.add(p, m);
        place[i] = at;
    }
}

#[cfg(test)]
mod tests {
    use super::merged_tree;
    use crate::analysis::calltree::{Spread, merge_trees};
    use crate::analysis::tlog_summary::{EventNames, Trees, summarize};
    use crate::formats::tlog::TlogFile;
    use crate::formats::tlog::tests::record;
    use crate::model::calltree::CallTree;
    use crate::source::InputFile;
    use crate::synth::tlog::TlogConfig;

    /// Every node's fields bit for bit and its children in order.
    fn same(a: &CallTree<Spread>, b: &CallTree<Spread>) -> bool {
        let lines = |t: &CallTree<Spread>| {
            t.preorder()
                .into_iter()
                .map(|(id, depth)| {
                    let m = &t.node(id).metrics;
                    format!(
                        "{depth} {} {} {} {} {} {} {:?} {} {} {}",
                        t.name(id),
                        m.total.calls,
                        m.total.inclusive.to_bits(),
                        m.total.exclusive.to_bits(),
                        m.inclusive_min.to_bits(),
                        m.inclusive_max.to_bits(),
                        m.inclusive_max_proc,
                        m.exclusive_min.to_bits(),
                        m.exclusive_max.to_bits(),
                        m.procs
                    )
                })
                .collect::<Vec<_>>()
        };
        lines(a) == lines(b)
    }

    /// The streamed merge equals the merge of every process's tree at
    /// once, bit for bit, at 1 and 3 threads, merged and of one process,
    /// with the same warnings.
    #[test]
    fn streamed_merge_equals_merge_of_all_trees() {
        let mut bytes = Vec::new();
        let config = TlogConfig {
            nprocs: 13,
            events: 3000,
            seed: 5,
        };
        config.write(&mut bytes).unwrap();
        // A last process with an OUT without its IN, a crossing and an IN
        // never closed.
        for (i, kind) in [1i8, 11, 10, 12, 11, 14, 13].into_iter().enumerate() {
            bytes.extend_from_slice(&record(13, kind, 0, 1.0 + i as f64));
        }
        bytes.resize(bytes.len().next_multiple_of(crate::formats::tlog::BLOCK), 0);
        let t = TlogFile::from_input(InputFile::from_bytes("f", bytes)).unwrap();
        let names = EventNames::default();
        let all = summarize(&t, &names, Trees::Build);
        let texts = |w: &[crate::error::Warning]| {
            w.iter().map(|w| w.to_string()).collect::<Vec<_>>()
        };
        for proc in [None, Some(0), Some(7), Some(99)] {
            let chosen: Vec<(usize, CallTree)> = (all.trees.iter())
                .filter(|(p, _)| proc.is_none_or(|x| x == *p))
                .map(|(p, t)| (usize::from(*p), t.clone()))
                .collect();
            let expected = (!chosen.is_empty()).then(|| (merge_trees(&chosen), chosen.len()));
            for threads in [1, 3] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let (found, warnings) = pool.install(|| merged_tree(&t, &names, proc));
                assert_eq!(texts(&warnings), texts(&all.warnings));
                assert!(warnings.len() >= 3, "{warnings:?}");
                match (&found, &expected) {
                    (Some((a, n)), Some((b, m))) => {
                        assert_eq!(n, m);
                        assert!(a.len() > 10 || proc.is_some(), "{}", a.len());
                        assert!(same(a, b), "{proc:?} at {threads} threads");
                    }
                    (None, None) => assert_eq!(proc, Some(99)),
                    _ => panic!("{proc:?}: one merge is empty"),
                }
            }
        }
    }
}
