//! The call-path tree shared by every nesting report (bl_prof `calltree`,
//! tlog `tree`, timer-tree `merge`).
//!
//! A node is a *name at a position in the nesting*: the same name under the
//! same parent path is one node whose metrics accumulate; the same name under
//! another parent is another node. This is the timer-tree idea:
//!
//! ```text
//! main ─┬─ Step ── Leaf      (Leaf called from Step)
//!       └─ Exchange ── Leaf  (another node: Leaf called from Exchange)
//! ```
//!
//! The tree is generic over its per-node metrics `M` so that one process's
//! tree ([`Metrics`]) and a merge across processes (any spread type) share
//! the same shape code.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;

/// Index of a node in a [`CallTree`]. The root is always `NodeId(0)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// Calls, inclusive and exclusive seconds of one node (one process or a sum).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Metrics {
    /// Calls (times the node was entered).
    pub calls: u64,
    /// Seconds inside the node, its children included.
    pub inclusive: f64,
    /// Seconds inside the node, its children left out.
    pub exclusive: f64,
}

impl Metrics {
    /// Adds `other` to these: the metrics of both together.
    pub fn add(&mut self, other: &Metrics) {
        self.calls += other.calls;
        self.inclusive += other.inclusive;
        self.exclusive += other.exclusive;
    }
}

/// A node of a [`CallTree`]: a name under a parent, with metrics `M`.
#[derive(Debug, Clone)]
pub struct Node<M> {
    /// The parent's id; [`NO_PARENT`] for the root (4 bytes, not the 8 of
    /// an `Option`: trees reach millions of nodes).
    parent: u32,
    children: Vec<NodeId>,
    /// What was measured at this node.
    pub metrics: M,
}

impl<M> Node<M> {
    /// The parent (`None` for the root).
    pub fn parent(&self) -> Option<NodeId> {
        (self.parent != NO_PARENT).then_some(NodeId(self.parent))
    }
    /// Children in creation order (first use first).
    pub fn children(&self) -> &[NodeId] {
        &self.children
    }
}

/// [`Node::parent`] of the root.
const NO_PARENT: u32 = u32::MAX;

/// Most levels [`CallTree::short_path`] names.
pub const SHORT_PATH_LEVELS: usize = 16;
/// Most bytes of one name in [`CallTree::short_path`].
pub const SHORT_PATH_NAME: usize = 200;

/// Children a lookup scans before the index is used: most nodes of a call
/// tree have a few children, and comparing a few names is cheaper than
/// hashing (and keeping an index entry for every node).
const SCANNED_CHILDREN: usize = 8;

/// Name tables a merge keeps the translation of (see
/// [`CallTree::translations`]); past it the cache starts over, so that
/// merging thousands of one-off trees holds no translation per tree.
const KEPT_TRANSLATIONS: usize = 256;

/// The next name table's identity (see [`CallTree::table`]).
static NEXT_TABLE: AtomicU64 = AtomicU64::new(0);

fn new_table() -> u64 {
    NEXT_TABLE.fetch_add(1, Ordering::Relaxed)
}

/// A tree of named nodes under an unnamed root.
///
/// Nodes are only ever appended, each after its parent, so a parent's id is
/// always below its children's: bottom-up passes walk the ids backwards.
#[derive(Debug)]
pub struct CallTree<M = Metrics> {
    nodes: Vec<Node<M>>,
    /// Per node, its name's index in `names` (`u32::MAX`: the root): apart
    /// from the nodes, so that looking for a child by name scans a small
    /// array, not the siblings' whole nodes.
    node_names: Vec<u32>,
    names: Vec<String>,
    name_ids: HashMap<String, u32>,
    /// The children of the nodes with more than [`SCANNED_CHILDREN`]
    /// children, by (parent, name); the others are found by a scan.
    child_index: HashMap<(NodeId, u32), NodeId>,
    /// Emptied child lists of the nodes [`Self::clear`] removed, for new
    /// nodes: a tree rebuilt per process then allocates nothing per node.
    spare_children: Vec<Vec<NodeId>>,
    /// This tree's name table, unique to it (a clone gets its own): names
    /// are only ever appended, so a translation of a table's first names
    /// stays right while the table grows.
    table: u64,
    /// Per name table merged into this tree, the ids here of its names:
    /// trees rebuilt per process (a pool's) keep their table, so a merge
    /// translates only the names new since the tree's last merge instead
    /// of comparing every name again.
    translations: HashMap<u64, Vec<u32>>,
    /// The walk of [`Self::merge_nodes`], kept between merges: a run merges
    /// a small tree per process, and growing a new stack for each was
    /// most of its allocations.
    merge_stack: Vec<(NodeId, NodeId)>,
}

impl<M> CallTree<M> {
    /// A tree of the same shape with metrics mapped by `f`.
    pub fn map<N>(&self, mut f: impl FnMut(NodeId, &M) -> N) -> CallTree<N> {
        CallTree {
            nodes: self
                .nodes
                .iter()
                .enumerate()
                .map(|(i, n)| Node {
                    parent: n.parent,
                    children: n.children.clone(),
                    metrics: f(NodeId(i as u32), &n.metrics),
                })
                .collect(),
            node_names: self.node_names.clone(),
            names: self.names.clone(),
            name_ids: self.name_ids.clone(),
            child_index: self.child_index.clone(),
            spare_children: Vec::new(),
            table: new_table(),
            translations: HashMap::default(),
            merge_stack: Vec::new(),
        }
    }
}

impl<M: Clone> Clone for CallTree<M> {
    /// The same tree with a name table of its own (see [`Self::map`]).
    fn clone(&self) -> Self {
        self.map(|_, m| m.clone())
    }
}

impl<M: Default> Default for CallTree<M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M: Default> CallTree<M> {
    /// A tree with only the root.
    pub fn new() -> Self {
        CallTree {
            nodes: vec![Node {
                parent: NO_PARENT,
                children: Vec::new(),
                metrics: M::default(),
            }],
            node_names: vec![u32::MAX],
            names: Vec::new(),
            name_ids: HashMap::default(),
            child_index: HashMap::default(),
            spare_children: Vec::new(),
            table: new_table(),
            translations: HashMap::default(),
            merge_stack: Vec::new(),
        }
    }

    /// Removes every node but the root (whose metrics are reset) and keeps
    /// the name table, so that name ids stay valid, and the memory, so that
    /// building the next tree of a run into it allocates only past the
    /// largest tree so far.
    pub fn clear(&mut self) {
        for mut node in self.nodes.drain(1..) {
            if node.children.capacity() > 0 {
                node.children.clear();
                self.spare_children.push(node.children);
            }
        }
        self.node_names.truncate(1);
        let root = &mut self.nodes[0];
        root.children.clear();
        root.metrics = M::default();
        self.child_index.clear();
    }

    /// The child of `parent` called `name`, created (last among its siblings)
    /// on first use.
    pub fn child(&mut self, parent: NodeId, name: &str) -> NodeId {
        let name_id = self.intern(name);
        self.child_by_name_id(parent, name_id)
    }

    /// Like [`Self::child`] with a name from [`Self::intern`]: no string
    /// hashing, for building trees from millions of records.
    pub fn child_by_name_id(&mut self, parent: NodeId, name_id: u32) -> NodeId {
        if let Some(id) = self.find_child_by_name_id(parent, name_id) {
            return id;
        }
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node {
            parent: parent.0,
            children: self.spare_children.pop().unwrap_or_default(),
            metrics: M::default(),
        });
        self.node_names.push(name_id);
        let siblings = &mut self.nodes[parent.0 as usize].children;
        siblings.push(id);
        match siblings.len() {
            n if n < SCANNED_CHILDREN + 1 => {}
            // Past the scan's reach: every child goes into the index.
            n if n == SCANNED_CHILDREN + 1 => {
                for i in 0..n {
                    let c = self.nodes[parent.0 as usize].children[i];
                    let name = self.node_names[c.0 as usize];
                    self.child_index.insert((parent, name), c);
                }
            }
            _ => {
                self.child_index.insert((parent, name_id), id);
            }
        }
        id
    }

    /// The node at `path` below the root, created as needed.
    pub fn node_at_path<S: AsRef<str>>(&mut self, path: &[S]) -> NodeId {
        let mut id = self.root();
        for name in path {
            id = self.child(id, name.as_ref());
        }
        id
    }

    /// Unifies `other` into `self` by path, combining metrics with `combine`.
    pub fn merge_with<N>(&mut self, other: &CallTree<N>, combine: impl FnMut(&mut M, &N)) {
        self.merge_from(self.root(), other, other.root(), combine);
    }

    /// Unifies the subtree of `other` at `from` into the subtree of `self`
    /// at `to` (the two nodes are taken as the same path).
    pub fn merge_from<N>(
        &mut self,
        to: NodeId,
        other: &CallTree<N>,
        from: NodeId,
        mut combine: impl FnMut(&mut M, &N),
    ) {
        self.merge_nodes(to, other, from, |tree, to, from| {
            combine(&mut tree.nodes[to.0 as usize].metrics, &other.node(from).metrics)
        });
    }

    /// Unifies the subtree of `other` at `from` into the subtree of `self`
    /// at `to` as [`Self::merge_from`] does, calling `matched(self, node
    /// here, node of other)` for every node of the subtree (in pre-order):
    /// for merges that keep something per pair of nodes.
    pub fn merge_nodes<N>(
        &mut self,
        to: NodeId,
        other: &CallTree<N>,
        from: NodeId,
        mut matched: impl FnMut(&mut Self, NodeId, NodeId),
    ) {
        // `other`'s name ids in this tree, translated once instead of per node.
        let names = self.take_translation(other);
        let mut stack = std::mem::take(&mut self.merge_stack);
        stack.clear();
        stack.push((from, to));
        while let Some((from, to)) = stack.pop() {
            matched(self, to, from);
            // Create the targets in sibling order (new children keep
            // `other`'s order), then reverse them for a pre-order walk.
            let first = stack.len();
            for &c in other.node(from).children() {
                let name = match names.get(other.node_names[c.0 as usize] as usize) {
                    Some(&id) => id,
                    None => self.intern(other.name(c)),
                };
                stack.push((c, self.child_by_name_id(to, name)));
            }
            stack[first..].reverse();
        }
        self.merge_stack = stack;
        self.keep_translation(other, names);
    }

    /// Per node of `other`, the node of this tree at the same path, the
    /// missing ones created in `other`'s id order: merging trees one at a
    /// time into `other` and then `other` into this tree numbers and orders
    /// the nodes as merging the same trees into this tree directly (a node
    /// is created here when it was created in `other`, unless it was here
    /// already), as no pre-order walk over `other` would.
    pub fn merge_shape<N>(&mut self, other: &CallTree<N>) -> Vec<NodeId> {
        let names = self.take_translation(other);
        let mut here = Vec::with_capacity(other.nodes.len());
        here.push(self.root());
        for i in 1..other.nodes.len() {
            let id = NodeId(i as u32);
            // A parent's id is below its children's: mapped already.
            let parent = here[other.nodes[i].parent as usize];
            let name = match names.get(other.node_names[i] as usize) {
                Some(&name) => name,
                None => self.intern(other.name(id)),
            };
            here.push(self.child_by_name_id(parent, name));
        }
        self.keep_translation(other, names);
        here
    }

    /// [`Self::translate_names`] of `other`, from the translation kept by
    /// its last merge into this tree, completed with its names since.
    fn take_translation<N>(&mut self, other: &CallTree<N>) -> Vec<u32> {
        let mut names = self.translations.remove(&other.table).unwrap_or_default();
        for i in names.len()..other.names.len() {
            names.push(self.intern_at(&other.names[i], i as u32));
        }
        names
    }

    /// Keeps `names`, the translation of `other`'s table, for its next merge.
    fn keep_translation<N>(&mut self, other: &CallTree<N>, names: Vec<u32>) {
        if self.translations.len() >= KEPT_TRANSLATIONS {
            self.translations.clear();
        }
        self.translations.insert(other.table, names);
    }

    /// Puts each subtree's nodes below its `at` (which must have no children
    /// yet) and sets `at`'s metrics to the subtree root's: the same tree as
    /// merging each into an empty node, in order, by appending (no lookups).
    /// The nodes are renumbered in parallel; only the appends are serial.
    pub fn graft_all(&mut self, grafts: Vec<(NodeId, CallTree<M>)>)
    where
        M: Send,
    {
        // Sub node i (i ≥ 1) becomes node `base + i - 1`; sub's root is `at`.
        let mut base = self.nodes.len() as u32;
        let mut jobs = Vec::with_capacity(grafts.len());
        for (at, sub) in grafts {
            debug_assert!(self.node(at).children.is_empty());
            let names = self.translate_names(&sub);
            let n = sub.nodes.len() as u32 - 1;
            jobs.push((at, sub.nodes, sub.node_names, names, base));
            base += n;
        }
        let renumbered: Vec<(NodeId, Vec<Node<M>>, Vec<u32>)> = jobs
            .into_par_iter()
            .map(|(at, mut nodes, mut node_names, names, base)| {
                let map = |id: NodeId| {
                    if id.0 == 0 {
                        at
                    } else {
                        NodeId(base + id.0 - 1)
                    }
                };
                for name in &mut node_names {
                    *name = names.get(*name as usize).copied().unwrap_or(u32::MAX);
                }
                for n in &mut nodes {
                    if let Some(p) = n.parent() {
                        n.parent = map(p).0;
                    }
                    for c in &mut n.children {
                        *c = map(*c);
                    }
                }
                (at, nodes, node_names)
            })
            .collect();
        let added: usize = renumbered.iter().map(|(_, n, _)| n.len() - 1).sum();
        self.nodes.reserve(added);
        self.node_names.reserve(added);
        for (at, nodes, node_names) in renumbered {
            let mut nodes = nodes.into_iter();
            let root = nodes.next().expect("a tree has a root");
            let first = self.nodes.len() as u32;
            self.nodes[at.0 as usize].metrics = root.metrics;
            self.nodes[at.0 as usize].children = root.children;
            for (i, (n, &name)) in nodes.zip(&node_names[1..]).enumerate() {
                let id = NodeId(first + i as u32);
                let parent = n.parent().unwrap_or(at);
                // A parent comes before its children, with all of them.
                if self.nodes[parent.0 as usize].children.len() > SCANNED_CHILDREN {
                    self.child_index.insert((parent, name), id);
                }
                self.nodes.push(Node {
                    parent: parent.0,
                    ..n
                });
                self.node_names.push(name);
            }
        }
    }

    /// Per name id of `other`, the id of the name in this tree (added on
    /// first use); each name's own id tried first (see [`Self::intern_at`]).
    pub fn translate_names<N>(&mut self, other: &CallTree<N>) -> Vec<u32> {
        let mut ids = Vec::new();
        self.translate_names_into(other, &mut ids);
        ids
    }

    /// [`Self::translate_names`] into `ids`, cleared first (a caller
    /// translating a tree per process keeps one buffer).
    pub fn translate_names_into<N>(&mut self, other: &CallTree<N>, ids: &mut Vec<u32>) {
        ids.clear();
        ids.extend((0..other.names.len() as u32).map(|i| self.intern_at(&other.names[i as usize], i)));
    }

    /// [`Self::intern`], comparing the name with id `guess` first: trees
    /// built from the same function tables mostly list the same names in
    /// the same order, and a comparison is cheaper than hashing (a name
    /// table per tree, thousands of small trees).
    pub fn intern_at(&mut self, name: &str, guess: u32) -> u32 {
        match self.names.get(guess as usize) {
            Some(same) if same == name => guess,
            _ => self.intern(name),
        }
    }

    /// The id of `name` in this tree's name table (added on first use).
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.name_ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.name_ids.insert(name.to_owned(), id);
        id
    }
}

impl<M> CallTree<M> {
    /// The unnamed root, parent of the outermost nodes.
    pub fn root(&self) -> NodeId {
        NodeId(0)
    }

    /// The node `id`.
    pub fn node(&self, id: NodeId) -> &Node<M> {
        &self.nodes[id.0 as usize]
    }

    /// The node `id`, to change its metrics.
    pub fn node_mut(&mut self, id: NodeId) -> &mut Node<M> {
        &mut self.nodes[id.0 as usize]
    }

    /// Number of nodes, root excluded.
    pub fn len(&self) -> usize {
        self.nodes.len() - 1
    }

    /// Whether the tree has no node but the root.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The node's name; the root's name is empty.
    pub fn name(&self, id: NodeId) -> &str {
        let n = self.node_names[id.0 as usize];
        if n == u32::MAX {
            ""
        } else {
            &self.names[n as usize]
        }
    }

    /// The node's index in [`Self::names`]; `None` for the root. Lets a pass
    /// over millions of nodes decide per distinct name instead of per node.
    pub fn name_index(&self, id: NodeId) -> Option<u32> {
        let n = self.node_names[id.0 as usize];
        (n != u32::MAX).then_some(n)
    }

    /// The tree's name table: every name a node has (or had) in it.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Per node id, the bytes of its path written out: its names' lengths
    /// plus `per_name` for each (separators, quotes). One pass, parents
    /// before children, for the size of outputs that repeat whole paths.
    pub fn path_bytes(&self, per_name: u64) -> Vec<u64> {
        let mut bytes = vec![0u64; self.len() + 1];
        for (id, _) in self.preorder() {
            let up = self.node(id).parent().map_or(0, |p| bytes[p.0 as usize]);
            bytes[id.0 as usize] = up.saturating_add(self.name(id).len() as u64 + per_name);
        }
        bytes
    }

    /// Per node id, its ancestor `levels - 1` levels below the root (the
    /// node itself when it is no deeper): with it the first `levels` names
    /// of a path cost `levels` steps, not the depth (rows of a tree
    /// thousands deep shortened to their ends). One pass, parents first.
    pub fn heads(&self, levels: usize) -> Vec<NodeId> {
        let mut heads = vec![self.root(); self.len() + 1];
        for (id, depth) in self.preorder() {
            heads[id.0 as usize] = match self.node(id).parent() {
                Some(p) if depth >= levels => heads[p.0 as usize],
                _ => id,
            };
        }
        heads
    }

    /// The last `n` names of the path to `id` (all of them when it is
    /// shorter), outermost first: `n` steps up, whatever the depth.
    pub fn path_tail(&self, id: NodeId, n: usize) -> Vec<&str> {
        let mut out = Vec::with_capacity(n.min(64));
        let mut cur = Some(id);
        while let Some(c) = cur.filter(|&c| c != self.root() && out.len() < n) {
            out.push(self.name(c));
            cur = self.node(c).parent();
        }
        out.reverse();
        out
    }

    /// Names from the first level below the root down to `id`.
    pub fn path(&self, id: NodeId) -> Vec<&str> {
        let mut out = Vec::new();
        let mut cur = Some(id);
        while let Some(c) = cur {
            if c == self.root() {
                break;
            }
            out.push(self.name(c));
            cur = self.node(c).parent();
        }
        out.reverse();
        out
    }

    /// The path to `id` for a message: names joined by `sep`, at most
    /// [`SHORT_PATH_LEVELS`] of them (the first and last half, and how many
    /// levels were left out), each at most [`SHORT_PATH_NAME`] bytes. A
    /// message per node of a tree thousands deep must not grow with the
    /// square of its depth.
    pub(crate) fn short_path(&self, id: NodeId, sep: &str) -> String {
        let path = self.path(id);
        let name = |n: &str| -> String {
            if n.len() <= SHORT_PATH_NAME {
                return n.to_owned();
            }
            let mut cut = SHORT_PATH_NAME;
            while !n.is_char_boundary(cut) {
                cut -= 1;
            }
            format!("{}…", &n[..cut])
        };
        if path.len() <= SHORT_PATH_LEVELS {
            return path.into_iter().map(name).collect::<Vec<_>>().join(sep);
        }
        let half = SHORT_PATH_LEVELS / 2;
        let mut parts: Vec<String> = path[..half].iter().map(|n| name(n)).collect();
        parts.push(format!("… {} levels …", path.len() - 2 * half));
        parts.extend(path[path.len() - half..].iter().map(|n| name(n)));
        parts.join(sep)
    }

    /// Depth below the root (children of the root have depth 0).
    pub fn depth(&self, id: NodeId) -> usize {
        self.path(id).len().saturating_sub(1)
    }

    /// All nodes but the root in pre-order (parents before children,
    /// siblings in creation order), with their depth (0 = child of root).
    pub fn preorder(&self) -> Vec<(NodeId, usize)> {
        let mut out = Vec::with_capacity(self.len());
        self.preorder_into(&mut out, &mut Vec::new());
        out
    }

    /// [`Self::preorder`] into `out` (cleared first), with `stack` as the
    /// walk's stack: buffers reused over many small trees.
    pub fn preorder_into(&self, out: &mut Vec<(NodeId, usize)>, stack: &mut Vec<(NodeId, usize)>) {
        out.clear();
        stack.clear();
        stack.extend(self.node(self.root()).children.iter().rev().map(|&c| (c, 0)));
        while let Some((id, depth)) = stack.pop() {
            out.push((id, depth));
            for &c in self.node(id).children.iter().rev() {
                stack.push((c, depth + 1));
            }
        }
    }

    /// The existing child of `parent` called `name`, without creating it.
    pub fn find_child(&self, parent: NodeId, name: &str) -> Option<NodeId> {
        let name_id = *self.name_ids.get(name)?;
        self.find_child_by_name_id(parent, name_id)
    }

    fn find_child_by_name_id(&self, parent: NodeId, name_id: u32) -> Option<NodeId> {
        let children = &self.nodes[parent.0 as usize].children;
        if children.len() <= SCANNED_CHILDREN {
            children
                .iter()
                .copied()
                .find(|c| self.node_names[c.0 as usize] == name_id)
        } else {
            self.child_index.get(&(parent, name_id)).copied()
        }
    }

    /// The existing node at `path` below the root, without creating any.
    pub fn find_path<S: AsRef<str>>(&self, path: &[S]) -> Option<NodeId> {
        path.iter()
            .try_fold(self.root(), |id, name| self.find_child(id, name.as_ref()))
    }

    /// True when `id` names a node of this tree (the root included).
    pub fn contains(&self, id: NodeId) -> bool {
        (id.0 as usize) < self.nodes.len()
    }

    /// The subtree of `top` in pre-order with depths relative to `top`
    /// (`top` itself at depth 0; for the root, its children at depth 0).
    pub fn preorder_from(&self, top: NodeId) -> Vec<(NodeId, usize)> {
        if top == self.root() {
            return self.preorder();
        }
        let mut out = Vec::new();
        let mut stack = vec![(top, 0)];
        while let Some((id, depth)) = stack.pop() {
            out.push((id, depth));
            for &c in self.node(id).children.iter().rev() {
                stack.push((c, depth + 1));
            }
        }
        out
    }

    /// Reorders every node's children with `cmp` (reports sort by time or name).
    pub fn sort_children_by(
        &mut self,
        mut cmp: impl FnMut(&Self, NodeId, NodeId) -> std::cmp::Ordering,
    ) {
        for i in 0..self.nodes.len() {
            let mut ch = std::mem::take(&mut self.nodes[i].children);
            ch.sort_by(|&a, &b| cmp(self, a, b));
            self.nodes[i].children = ch;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Paths with metrics, in pre-order: what two trees must share to be
    /// the same tree.
    fn paths(t: &CallTree) -> Vec<(Vec<&str>, Metrics)> {
        t.preorder()
            .into_iter()
            .map(|(id, _)| (t.path(id), t.node(id).metrics))
            .collect()
    }

    #[test]
    fn a_cleared_tree_rebuilds_as_a_new_one_and_keeps_its_names() {
        let build = |t: &mut CallTree, calls: &[&[&str]]| {
            for (i, path) in calls.iter().enumerate() {
                let id = t.node_at_path(path);
                t.node_mut(id).metrics.calls += i as u64 + 1;
            }
        };
        // More children than the scan reaches, so the index is rebuilt too.
        let wide: Vec<String> = (0..12).map(|i| format!("w{i}")).collect();
        let mut first: Vec<&[&str]> = vec![&["main", "a"], &["main", "b", "c"]];
        let wide_paths: Vec<[&str; 2]> = wide.iter().map(|w| ["main", w.as_str()]).collect();
        first.extend(wide_paths.iter().map(|p| &p[..]));
        let second: Vec<&[&str]> = vec![&["main", "w3"], &["other"], &["main", "w3", "a"]];
        let mut reused = CallTree::new();
        build(&mut reused, &first);
        let a_id = reused.names().iter().position(|n| n == "a");
        reused.clear();
        build(&mut reused, &second);
        let mut fresh = CallTree::new();
        build(&mut fresh, &second);
        assert_eq!(paths(&reused), paths(&fresh));
        assert_eq!(reused.len(), 4);
        assert_eq!(reused.node(reused.root()).metrics, Metrics::default());
        assert_eq!(reused.names().iter().position(|n| n == "a"), a_id);
    }

    /// A guessed id is only a shortcut: right, wrong or past the table,
    /// the id is the one `intern` gives, and no name is added twice.
    #[test]
    fn interning_at_a_guess_gives_the_interned_id() {
        let mut t: CallTree = CallTree::new();
        let a = t.intern("a");
        let b = t.intern("b");
        assert_eq!(t.intern_at("b", b), b);
        assert_eq!(t.intern_at("b", a), b);
        assert_eq!(t.intern_at("a", 99), a);
        let c = t.intern_at("c", 0);
        assert_eq!((c, t.names().len()), (2, 3));
        let mut other: CallTree = CallTree::new();
        other.intern("c");
        other.intern("a");
        other.intern("d");
        assert_eq!(t.translate_names(&other), vec![c, a, 3]);
        assert_eq!(t.names(), ["a", "b", "c", "d"]);
    }

    /// Trees merged again and again (a pool's: cleared, rebuilt, their
    /// names growing), clones of them, and trees with the same names in
    /// another order all merge as fresh trees of the same paths do.
    #[test]
    fn repeated_merges_translate_each_trees_names() {
        let build = |t: &mut CallTree, paths: &[&[&str]]| {
            t.clear();
            for (i, path) in paths.iter().enumerate() {
                let id = t.node_at_path(path);
                t.node_mut(id).metrics.calls += i as u64 + 1;
            }
        };
        let rounds: [&[&[&str]]; 3] = [
            &[&["a", "b"], &["c"]],
            &[&["c", "a"], &["d", "b"]],
            &[&["b"], &["a", "d", "e"]],
        ];
        let (mut pooled, mut reversed) = (CallTree::new(), CallTree::new());
        reversed.intern("e");
        reversed.intern("d");
        let mut merged: CallTree = CallTree::new();
        let mut fresh_merged: CallTree = CallTree::new();
        for paths in rounds {
            build(&mut pooled, paths);
            build(&mut reversed, paths);
            let mut copy = pooled.clone();
            copy.intern("z");
            build(&mut copy, &[&["z", "a"]]);
            for t in [&pooled, &reversed, &copy] {
                merged.merge_with(t, |m, n| m.add(n));
                let mut fresh = CallTree::new();
                for (id, _) in t.preorder() {
                    let at = fresh.node_at_path(&t.path(id));
                    fresh.node_mut(at).metrics = t.node(id).metrics;
                }
                fresh_merged.merge_with(&fresh, |m, n| m.add(n));
            }
        }
        assert_eq!(paths(&merged), paths(&fresh_merged));
        assert!(merged.len() > 8, "{}", merged.len());
    }

    #[test]
    fn short_paths_keep_both_ends_and_cut_long_names() {
        let mut t: CallTree = CallTree::new();
        let mut id = t.root();
        for i in 0..40 {
            let name = if i == 39 {
                "x".repeat(500)
            } else {
                format!("f{i}")
            };
            id = t.child(id, &name);
        }
        let short = t.short_path(id, ">");
        assert!(
            short.starts_with("f0>f1>f2>f3>f4>f5>f6>f7>… 24 levels …>f32>"),
            "{short}"
        );
        assert!(
            short.ends_with(&format!(">f38>{}…", "x".repeat(SHORT_PATH_NAME))),
            "{short}"
        );
        let top = t.node(t.root()).children()[0];
        assert_eq!(t.short_path(top, ">"), "f0");
    }

    #[test]
    fn heads_and_tails_give_the_ends_of_a_path() {
        let mut t: CallTree = CallTree::new();
        let names: Vec<String> = (0..10).map(|i| format!("n{i}")).collect();
        let deep = t.node_at_path(&names);
        let short = t.node_at_path(&["n0", "x"]);
        let heads = t.heads(3);
        let full = t.path(deep);
        assert_eq!(t.path_tail(heads[deep.0 as usize], 3), full[..3]);
        assert_eq!(t.path_tail(deep, 4), full[6..]);
        assert_eq!(t.path_tail(deep, 100), full);
        assert_eq!(heads[short.0 as usize], short);
        assert_eq!(t.path_tail(short, 5), ["n0", "x"]);
    }

    #[test]
    fn same_name_same_parent_is_one_node() {
        let mut t: CallTree = CallTree::new();
        let main = t.child(t.root(), "main");
        let a = t.child(main, "Leaf");
        let step = t.child(main, "Step");
        let b = t.child(step, "Leaf");
        assert_ne!(a, b);
        assert_eq!(t.child(main, "Leaf"), a);
        assert_eq!(t.path(b), vec!["main", "Step", "Leaf"]);
        assert_eq!(t.len(), 4);
        let order: Vec<&str> = t.preorder().iter().map(|&(id, _)| t.name(id)).collect();
        assert_eq!(order, vec!["main", "Leaf", "Step", "Leaf"]);
        assert_eq!(t.depth(b), 2);
    }

    #[test]
    fn merge_unifies_by_path() {
        let mut a: CallTree = CallTree::new();
        let x = a.node_at_path(&["main", "x"]);
        a.node_mut(x).metrics.calls = 2;
        let mut b: CallTree = CallTree::new();
        let y = b.node_at_path(&["main", "y"]);
        b.node_mut(y).metrics.calls = 1;
        let x2 = b.node_at_path(&["main", "x"]);
        b.node_mut(x2).metrics.calls = 3;
        a.merge_with(&b, |m, n| m.add(n));
        let x = a.node_at_path(&["main", "x"]);
        assert_eq!(a.node(x).metrics.calls, 5);
        assert_eq!(a.len(), 3);
    }

    /// Children are found whether the parent has few (scanned) or many
    /// (indexed), before and after the index takes over, and after a graft.
    #[test]
    fn children_are_found_by_scan_and_by_index() {
        let names: Vec<String> = (0..3 * SCANNED_CHILDREN).map(|i| format!("f{i}")).collect();
        let mut t: CallTree = CallTree::new();
        let main = t.child(t.root(), "main");
        let mut ids = Vec::new();
        for (n, name) in names.iter().enumerate() {
            ids.push(t.child(main, name));
            // Every child so far, again: the same nodes, none added.
            for (k, earlier) in names[..=n].iter().enumerate() {
                assert_eq!(t.child(main, earlier), ids[k]);
                assert_eq!(t.find_child(main, earlier), Some(ids[k]));
            }
            assert_eq!(t.len(), n + 2);
        }
        assert_eq!(t.find_child(main, "main"), None);
        // Grafted under an empty node, the wide node is indexed too.
        let mut g: CallTree = CallTree::new();
        let at = g.child(g.root(), "top");
        g.graft_all(vec![(at, t.clone())]);
        let main = g.find_child(at, "main").unwrap();
        for name in &names {
            let c = g.find_child(main, name).unwrap();
            assert_eq!(g.path(c), vec!["top", "main", name.as_str()]);
            assert_eq!(g.child(main, name), c);
        }
        assert_eq!(g.len(), t.len() + 1);
    }
}
