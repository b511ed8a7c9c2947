//! Merging per-process call trees into one tree of spreads as the trees
//! come, in process order, so that a caller never holds them all.
//!
//! [`SpreadMerge`] gives the tree [`super::calltree::merge_trees`] gives
//! over all the trees at once: every node adds its processes in process
//! order (the same floating-point sums, bit for bit), and children come in
//! order of first appearance over the processes. [`ChunkedSpreadMerge`]
//! gives the tree of [`super::callers::merged`]: chunks of processes
//! merged each, then absorbed in order (its sums are grouped by chunk, so
//! it is kept apart to keep those bits).

use super::calltree::Spread;
use crate::model::calltree::{CallTree, Metrics, NodeId};

/// Per-process trees merged one at a time (see the module doc).
#[derive(Default)]
pub struct SpreadMerge {
    merged: CallTree<Spread>,
    procs: usize,
}

impl SpreadMerge {
    /// Adds process `proc`'s tree (processes in order).
    pub fn add(&mut self, proc: usize, tree: &CallTree) {
        let root = self.merged.root();
        self.merged
            .merge_from(root, tree, tree.root(), |s: &mut Spread, m: &Metrics| {
                s.add(proc, m)
            });
        self.procs += 1;
    }

    /// Processes added so far.
    pub fn procs(&self) -> usize {
        self.procs
    }

    /// The merged tree: a node missing in some process has 0 s there.
    pub fn finish(mut self) -> CallTree<Spread> {
        // (`len` counts the nodes below the root; the root is node 0.)
        for i in 0..=self.merged.len() {
            let s = &mut self.merged.node_mut(NodeId(i as u32)).metrics;
            if (s.procs as usize) < self.procs {
                s.inclusive_min = 0.0;
                s.exclusive_min = 0.0;
            }
        }
        self.merged
    }
}

/// Per-process trees merged a chunk of `chunk` processes at a time, each
/// chunk's [`SpreadMerge`] absorbed into the total in order.
pub struct ChunkedSpreadMerge {
    total: CallTree<Spread>,
    current: SpreadMerge,
    chunk: usize,
}

impl ChunkedSpreadMerge {
    pub fn new(chunk: usize) -> Self {
        ChunkedSpreadMerge {
            total: CallTree::new(),
            current: SpreadMerge::default(),
            chunk: chunk.max(1),
        }
    }

    /// Adds process `proc`'s tree (processes in order).
    pub fn add(&mut self, proc: usize, tree: &CallTree) {
        self.current.add(proc, tree);
        if self.current.procs() == self.chunk {
            self.absorb_chunk();
        }
    }

    fn absorb_chunk(&mut self) {
        let chunk = std::mem::take(&mut self.current).finish();
        self.total.merge_with(&chunk, Spread::absorb);
    }

    /// The merged tree.
    pub fn finish(mut self) -> CallTree<Spread> {
        if self.current.procs() > 0 {
            self.absorb_chunk();
        }
        self.total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::calltree::merge_trees;

    /// Trees of differing shapes with sums whose bits depend on the order
    /// of the additions.
    fn trees() -> Vec<(usize, CallTree)> {
        (0..23)
            .map(|p| {
                let mut t: CallTree = CallTree::new();
                for (path, k) in [
                    (&["main", "a"][..], 1),
                    (&["main", "b", "c"][..], 3),
                    (&["main", "c"][..], 5),
                    (&["other"][..], 7),
                ] {
                    if (p + k) % 3 == 0 {
                        continue;
                    }
                    let id = t.node_at_path(path);
                    let m = &mut t.node_mut(id).metrics;
                    m.calls = (p * k) as u64;
                    m.inclusive = 0.1 * (p + k) as f64 + 1e-9 * p as f64;
                    m.exclusive = 0.3 / (1 + p * k) as f64;
                }
                (p * 2, t)
            })
            .collect()
    }

    fn rows(t: &CallTree<Spread>) -> Vec<String> {
        t.preorder()
            .into_iter()
            .map(|(id, d)| format!("{d} {} {:?}", t.name(id), t.node(id).metrics))
            .collect()
    }

    #[test]
    fn one_at_a_time_is_merge_trees() {
        let trees = trees();
        let mut m = SpreadMerge::default();
        for (p, t) in &trees {
            m.add(*p, t);
        }
        assert_eq!(m.procs(), trees.len());
        let whole = merge_trees(&trees);
        assert!(rows(&whole).len() > 5);
        assert_eq!(rows(&m.finish()), rows(&whole));
    }

    #[test]
    fn chunks_are_merge_trees_per_chunk_absorbed() {
        let trees = trees();
        for chunk in [1, 4, 7, 100] {
            let mut m = ChunkedSpreadMerge::new(chunk);
            for (p, t) in &trees {
                m.add(*p, t);
            }
            let mut expected: CallTree<Spread> = CallTree::new();
            for c in trees.chunks(chunk) {
                expected.merge_with(&merge_trees(c), Spread::absorb);
            }
            assert_eq!(rows(&m.finish()), rows(&expected), "chunk {chunk}");
        }
    }
}
