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

    /// Adds the trees of a run of processes (the runs in process order, after
    /// the processes added before): the tree of adding them one at a time,
    /// bit for bit, with one lookup per node of the run's union instead of
    /// one per node of each tree.
    pub fn add_run(&mut self, run: &RunTrees) {
        let here = self.merged.merge_shape(&run.shape);
        for &(node, proc, ref m) in &run.terms {
            let at = here[node.0 as usize];
            self.merged.node_mut(at).metrics.add(proc as usize, m);
        }
        self.procs += run.procs;
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

/// The trees of a run of consecutive processes, gathered (in parallel with
/// other runs) for [`SpreadMerge::add_run`]: floating-point sums depend on
/// their order, so a run keeps each node's metrics per process, to be
/// added in process order after those of the processes before the run.
#[derive(Default)]
pub struct RunTrees {
    /// The union of the trees, numbered as a [`SpreadMerge`] of the run
    /// alone numbers it.
    shape: CallTree<()>,
    /// (node of `shape`, process, its metrics there) in process order.
    terms: Vec<(NodeId, u32, Metrics)>,
    procs: usize,
}

impl RunTrees {
    /// Empties the run for the next one, keeping its memory (a run's
    /// metrics can be megabytes, new pages to fault in each time) and its
    /// names (their translation into the merged tree is kept).
    pub fn clear(&mut self) {
        self.shape.clear();
        self.terms.clear();
        self.procs = 0;
    }

    /// Adds process `proc`'s tree (processes in order).
    pub fn add(&mut self, proc: usize, tree: &CallTree) {
        // As `Spread::add` keeps it.
        let proc = u32::try_from(proc).unwrap_or(u32::MAX);
        let terms = &mut self.terms;
        let root = self.shape.root();
        self.shape.merge_nodes(root, tree, tree.root(), |_, node, from| {
            terms.push((node, proc, tree.node(from).metrics));
        });
        self.procs += 1;
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

    /// Adds the trees of a run of processes (the runs in process order): as
    /// adding them one at a time, bit for bit, if no run crosses a multiple
    /// of `chunk` processes (a chunk closes at the first run end at or past
    /// `chunk` processes).
    pub fn add_run(&mut self, run: &RunTrees) {
        self.current.add_run(run);
        if self.current.procs() >= self.chunk {
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

    /// Pre-order ids and rows: the node numbering too.
    fn numbered(t: &CallTree<Spread>) -> Vec<String> {
        t.preorder()
            .into_iter()
            .map(|(id, d)| format!("{} {d} {} {:?}", id.0, t.name(id), t.node(id).metrics))
            .collect()
    }

    #[test]
    fn runs_add_as_their_trees_one_at_a_time() {
        let mut trees = trees();
        // A node first seen deep in one run and shallow in the next: a
        // pre-order walk over the run's union would number them otherwise.
        for (i, path) in [&["main", "a", "x"][..], &["late"][..], &["main", "a", "y"][..]]
            .into_iter()
            .enumerate()
        {
            let mut t: CallTree = CallTree::new();
            let id = t.node_at_path(path);
            t.node_mut(id).metrics.inclusive = 0.7 + i as f64;
            trees.push((100 + i, t));
        }
        let mut one_at_a_time = SpreadMerge::default();
        for (p, t) in &trees {
            one_at_a_time.add(*p, t);
        }
        let expected = numbered(&one_at_a_time.finish());
        for len in [1, 2, 5, 24, 100] {
            let mut m = SpreadMerge::default();
            for chunk in trees.chunks(len) {
                let mut run = RunTrees::default();
                for (p, t) in chunk {
                    run.add(*p, t);
                }
                m.add_run(&run);
            }
            assert_eq!(m.procs(), trees.len());
            assert_eq!(numbered(&m.finish()), expected, "runs of {len}");
        }
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

    #[test]
    fn chunked_runs_add_as_their_trees_one_at_a_time() {
        let trees = trees();
        for (chunk, run_len) in [(4, 2), (6, 3), (6, 6), (1, 1), (100, 7)] {
            let mut one_at_a_time = ChunkedSpreadMerge::new(chunk);
            for (p, t) in &trees {
                one_at_a_time.add(*p, t);
            }
            let mut m = ChunkedSpreadMerge::new(chunk);
            for c in trees.chunks(run_len) {
                let mut run = RunTrees::default();
                for (p, t) in c {
                    run.add(*p, t);
                }
                m.add_run(&run);
            }
            assert_eq!(
                numbered(&m.finish()),
                numbered(&one_at_a_time.finish()),
                "chunk {chunk}, runs of {run_len}"
            );
        }
    }
}
