//! One process's nesting tree while its events are matched: a few flat
//! vectors instead of a [`CallTree`], since a node's name is that of one of
//! the ten pair numbers and its children are found by that number alone.
//! Pairs of the same name (`--event-names`) share one number, the first of
//! them ([`name_slots`]), so that they share nodes as names do.
//!
//! ```text
//! node          0 (root)  1 Loop  2 Gmove  3 Loop  4 Bcast   creation order:
//! parent        -         0       1        2       1         a parent before
//! child Loop    1         -       3        -       -         its children,
//! child Gmove   -         2       -        -       -         siblings in
//! child Bcast   -         4       -        -       -         first use
//! ```
//!
//! Once built, [`ProcTree::finish`] renumbers its nodes in pre-order
//! (each subtree together, siblings in first use). `tlog tree` merges it
//! into the tree of all processes node by node in that order
//! ([`super::merged_tree`]), so the merged tree's nodes are created, and
//! visited by the next processes, subtree by subtree: neighbours in memory,
//! where creation order jumps across the whole tree at every node. The
//! merge then also reads this tree's arrays front to back, where a list of
//! the nodes in pre-order sent it across them.
//! [`ProcTree::to_call_tree`] gives the [`CallTree`] of one process for the
//! library's summary.

use super::KINDS;
use crate::model::calltree::{CallTree, Metrics, NodeId};

/// The nesting tree of one process, nodes in creation order while it
/// grows, in pre-order once finished: either way a parent's number is
/// below its children's, and siblings are numbered in first use.
#[derive(Debug, Default)]
pub(crate) struct ProcTree {
    /// Per node, its parent (the root's is 0).
    parent: Vec<u32>,
    /// Per node, the pair number of its name (the root's is 0).
    name: Vec<u8>,
    /// Per node, its child of each pair number (0: none; the root is
    /// nobody's child): one look-up per IN, where a list of siblings took
    /// a walk through several nodes. 40 bytes a node, needed only while
    /// the tree grows: [`Self::clear`] takes the thread's table and
    /// [`Self::finish`] gives it back, so each thread holds one, kept from
    /// tree to tree (grown and freed per tree it cost more), and a tree
    /// waiting to be merged holds 29 bytes a node.
    kids: Vec<[u32; KINDS]>,
    /// Per node, its calls and inclusive and exclusive seconds.
    metrics: Vec<Metrics>,
}

impl ProcTree {
    /// Empties the tree to the root alone, keeping its memory: a worker
    /// rebuilds one tree per process.
    pub(crate) fn clear(&mut self) {
        self.parent.clear();
        self.name.clear();
        self.kids = CHILD_TABLE.with(|t| t.take());
        self.kids.clear();
        self.metrics.clear();
        self.parent.push(0);
        self.name.push(0);
        self.kids.push([0; KINDS]);
        self.metrics.push(Metrics::default());
    }

    /// The root (always 0; [`Self::clear`] must have been called).
    pub(crate) fn root(&self) -> u32 {
        0
    }

    /// Nodes, the root included.
    pub(crate) fn len(&self) -> usize {
        self.parent.len()
    }

    /// The child of `parent` named as pair `k` (a number of
    /// [`name_slots`]), created on first use.
    #[inline]
    pub(crate) fn child(&mut self, parent: u32, k: usize) -> u32 {
        let found = self.kids[parent as usize][k];
        if found != 0 {
            return found;
        }
        let id = self.parent.len() as u32;
        self.kids[parent as usize][k] = id;
        self.parent.push(parent);
        self.name.push(k as u8);
        self.kids.push([0; KINDS]);
        self.metrics.push(Metrics::default());
        id
    }

    /// Adds a call of `d` seconds to `node`.
    #[inline]
    pub(crate) fn add_call(&mut self, node: u32, d: f64) {
        let m = &mut self.metrics[node as usize];
        m.calls += 1;
        m.inclusive += d;
    }

    /// Sets every node's exclusive time: its inclusive time less its
    /// children's, summed in sibling order (the order and the start of
    /// `Iterator::sum` over a [`CallTree`] node's children, so the bits
    /// are the same); then renumbers the nodes in pre-order.
    pub(crate) fn finish(&mut self) {
        CHILD_TABLE.with(|t| t.replace(std::mem::take(&mut self.kids)));
        let mut kids = vec![-0.0f64; self.len()];
        for i in 1..self.len() {
            kids[self.parent[i] as usize] += self.metrics[i].inclusive;
        }
        for (m, k) in self.metrics.iter_mut().zip(kids) {
            m.exclusive = m.inclusive - k;
        }
        let mut at = preorder_positions(&self.parent);
        for p in &mut self.parent {
            *p = at[*p as usize];
        }
        // In place, a cycle of the permutation at a time (a copy would
        // double the tree while it is waiting to be merged): each node
        // visited goes to its place, whose node is carried on.
        for start in 0..self.len() {
            let mut to = std::mem::replace(&mut at[start], PLACED) as usize;
            while to != PLACED as usize {
                self.parent.swap(start, to);
                self.name.swap(start, to);
                self.metrics.swap(start, to);
                to = std::mem::replace(&mut at[to], PLACED) as usize;
            }
        }
    }

    /// Node `i`'s parent, the pair number of its name and its metrics (`i`
    /// below [`Self::len`]; the root's parent is itself).
    pub(crate) fn node(&self, i: usize) -> (u32, u8, &Metrics) {
        (self.parent[i], self.name[i], &self.metrics[i])
    }

    /// The same tree as a [`CallTree`], pair `k` named `names[k]`.
    pub(crate) fn to_call_tree(&self, names: &[String; KINDS]) -> CallTree {
        let mut tree = CallTree::new();
        let ids: Vec<u32> = names.iter().map(|n| tree.intern(n)).collect();
        let mut at = Vec::with_capacity(self.len());
        at.push(tree.root());
        tree.node_mut(tree.root()).metrics = self.metrics[0];
        for i in 1..self.len() {
            let (parent, k, m) = self.node(i);
            let id: NodeId = tree.child_by_name_id(at[parent as usize], ids[usize::from(k)]);
            tree.node_mut(id).metrics = *m;
            at.push(id);
        }
        tree
    }
}

/// [`ProcTree::finish`]'s mark of a node moved to its place.
const PLACED: u32 = u32::MAX;

/// Per node of a tree numbered in creation order (`parent[i] < i` but for
/// the root, 0), its place in pre-order with siblings in creation order:
/// each node's subtree size, then each child placed after its parent and
/// its elder siblings' subtrees. No sort and no stack: two passes over the
/// nodes.
fn preorder_positions(parent: &[u32]) -> Vec<u32> {
    // Subtree sizes: children have higher numbers, so walking backwards
    // adds each whole subtree to its parent.
    let mut next = vec![1u32; parent.len()];
    for i in (1..parent.len()).rev() {
        next[parent[i] as usize] += next[i];
    }
    // Now `next[i]` turns from node i's subtree size to the place of its
    // next child, once i is placed: parents are placed before children.
    let mut at = vec![0u32; parent.len()];
    if let Some(root) = next.first_mut() {
        *root = 1;
    }
    for i in 1..parent.len() {
        let p = parent[i] as usize;
        let size = next[i];
        at[i] = next[p];
        next[p] += size;
        next[i] = at[i] + 1;
    }
    at
}

thread_local! {
    /// The thread's child table of [`ProcTree::kids`] between trees.
    static CHILD_TABLE: std::cell::Cell<Vec<[u32; KINDS]>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Frees every thread's child table: for a caller done building trees
/// that goes on to hold much else (`tlog tree` prints a big tree).
pub(crate) fn free_child_tables() {
    let free = || CHILD_TABLE.with(|t| t.take());
    rayon::broadcast(|_| free());
    free();
}

/// Per pair number, the first pair number of the same name: pairs named
/// alike are one node, as in a tree built by name.
pub(crate) fn name_slots(names: &[String; KINDS]) -> [usize; KINDS] {
    std::array::from_fn(|k| names.iter().position(|n| *n == names[k]).unwrap_or(k))
}

#[cfg(test)]
mod tests {
    use super::ProcTree;

    /// Built as root → a → b, root → c, b → d, a → e (creation order
    /// a b c d e), the finished tree is numbered a b d e c: each subtree
    /// together, siblings in first use; the exclusive times are unchanged
    /// by it.
    #[test]
    fn finish_numbers_the_nodes_in_preorder() {
        let mut t = ProcTree::default();
        t.clear();
        let a = t.child(t.root(), 1);
        let b = t.child(a, 2);
        let c = t.child(t.root(), 3);
        let d = t.child(b, 4);
        let e = t.child(a, 5);
        assert_eq!(t.child(a, 2), b);
        for (node, s) in [(a, 8.0), (b, 4.0), (c, 2.0), (d, 1.0), (e, 0.5)] {
            t.add_call(node, s);
        }
        t.finish();
        let nodes: Vec<(u32, u8, f64)> = (0..t.len())
            .map(|i| {
                let (parent, name, m) = t.node(i);
                (parent, name, m.exclusive)
            })
            .collect();
        assert_eq!(
            nodes,
            [
                (0, 0, -10.0),
                (0, 1, 3.5),
                (1, 2, 3.0),
                (2, 4, 1.0),
                (1, 5, 0.5),
                (0, 3, 2.0)
            ]
        );
        // Cleared and rebuilt (the thread's child table reused), only the
        // new tree is there, even where it reuses a pair number.
        t.clear();
        let x = t.child(t.root(), 3);
        let y = t.child(t.root(), 1);
        t.child(x, 2);
        assert_eq!(t.len(), 4);
        t.finish();
        let names: Vec<u8> = (0..t.len()).map(|i| t.node(i).1).collect();
        assert_eq!(names, [0, 3, 2, 1]);
        assert_eq!((x, y), (1, 2));
    }
}
