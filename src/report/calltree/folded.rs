//! Folded stacks (`a;b;c <µs>`, the input of flame graph tools) written as
//! a stream: a line per node holds its whole path, so a tree `d` deep
//! writes about d²/2 names. The path of the current node is one buffer,
//! changed by one name per step of a pre-order walk, so the work and the
//! memory follow the output (and the depth), not the output times the
//! depth; and the size of the output is known exactly beforehand
//! ([`FoldedNames::path_bytes`]) for the output guard.

use std::borrow::Cow;
use std::io::{self, Write};

use crate::analysis::calltree::Spread;
use crate::model::calltree::{CallTree, NodeId};
use crate::report::calltree::view::{Order, TreeView, remainder, visible};

/// Each name of a tree as a frame: `;` (the frame separator) as `:`, and
/// control characters as visible escapes (a line break would split the
/// line; see [`crate::report::escape::visible`]). Made once per distinct name.
pub struct FoldedNames<'t> {
    names: Vec<Cow<'t, str>>,
}

impl<'t> FoldedNames<'t> {
    pub fn new<M>(tree: &'t CallTree<M>) -> Self {
        let names = tree
            .names()
            .iter()
            .map(|n| match crate::report::escape::visible(n) {
                Cow::Borrowed(s) if !s.contains(';') => Cow::Borrowed(s),
                v => Cow::Owned(v.replace(';', ":")),
            })
            .collect();
        FoldedNames { names }
    }

    fn of<M>(&self, tree: &CallTree<M>, id: NodeId) -> &str {
        tree.name_index(id)
            .and_then(|i| self.names.get(i as usize))
            .map_or("", |n| n)
    }

    /// Per node id, the bytes of its folded path followed by one more
    /// byte (`a;b;c` and the blank before the number). One pass, parents
    /// before children.
    pub fn path_bytes<M>(&self, tree: &CallTree<M>) -> Vec<u64> {
        let mut bytes = vec![0u64; tree.len() + 1];
        for (id, _) in tree.preorder() {
            let up = tree.node(id).parent().map_or(0, |p| bytes[p.0 as usize]);
            bytes[id.0 as usize] = up.saturating_add(self.of(tree, id).len() as u64 + 1);
        }
        bytes
    }
}

/// The bytes of a line whose path takes `path` bytes ([`FoldedNames::
/// path_bytes`]) and whose number is `us`: path, blank, digits, line break.
pub fn line_bytes(path: u64, us: u64) -> u64 {
    path.saturating_add(us.checked_ilog10().map_or(1, |d| d as u64 + 1) + 1)
}

/// The path of the node at hand in a pre-order walk.
pub struct FoldedPath<'n> {
    names: &'n FoldedNames<'n>,
    path: Vec<u8>,
    /// `ends[k]`: the length of `path` up to the name at depth `k`.
    ends: Vec<usize>,
}

impl<'n> FoldedPath<'n> {
    pub fn new(names: &'n FoldedNames<'n>) -> Self {
        FoldedPath {
            names,
            path: Vec::new(),
            ends: Vec::new(),
        }
    }

    /// Moves to `id` at `depth` (0: a child of the root). In a pre-order
    /// walk the path to its parent is the one at hand up to `depth - 1`.
    pub fn enter<M>(&mut self, tree: &CallTree<M>, id: NodeId, depth: usize) {
        self.ends.truncate(depth);
        self.path.truncate(self.ends.last().copied().unwrap_or(0));
        if depth > 0 {
            self.path.push(b';');
        }
        self.path
            .extend_from_slice(self.names.of(tree, id).as_bytes());
        self.ends.push(self.path.len());
    }

    /// Writes the line of the node at hand: `a;b;c <us>`.
    pub fn write_line(&self, w: &mut dyn Write, us: u64) -> io::Result<()> {
        w.write_all(&self.path)?;
        writeln!(w, " {us}")
    }
}

/// The bytes [`write_folded`] writes, exactly: one line per node with a
/// time, each holding its whole path, so a deep tree writes the square of
/// its depth. Summed over the paths in one pass before anything is written.
pub fn folded_bytes(tree: &CallTree<Spread>, view: &TreeView) -> u64 {
    let names = FoldedNames::new(tree);
    let path = names.path_bytes(tree);
    visible(tree, view)
        .into_iter()
        .filter_map(|(id, _)| {
            folded_us(tree, id, view).map(|us| line_bytes(path[id.0 as usize], us))
        })
        .fold(0u64, u64::saturating_add)
}

/// The whole microseconds of a node's folded line, `None` under one (no
/// line): its exclusive time combined over processes as the view says, or
/// in a bottom-up tree the time of the paths that start there.
fn folded_us(tree: &CallTree<Spread>, id: NodeId, view: &TreeView) -> Option<u64> {
    let own = match view.order {
        Order::Inclusive => view.times(&tree.node(id).metrics).1,
        // A path's time that starts at the node: of the sums; the
        // largest process's is not kept (the CLI refuses max here).
        Order::Exclusive => view
            .combined(remainder(tree, id, Order::Exclusive))
            .unwrap_or(0.0),
    };
    let us = (own * 1e6).round();
    (us >= 1.0).then_some(us as u64)
}

/// Folded stacks, `a;b;c <µs>`: each node's exclusive time, combined over
/// processes as the view's [`Aggregate`](super::view::Aggregate) says (the average by default, as
/// the text and Hatchet trees), in whole microseconds — the input of flame
/// graph tools.
/// A `;` inside a name would split the frame, so it is written as `:`;
/// control characters as visible escapes.
/// A bottom-up tree's stacks are `function;caller;caller's caller`, each
/// with the function's time along a path that starts there (its
/// [`remainder`]): the stacks sum to the nodes' times as a flame graph
/// sums them, drawn as the callers' (inverted) flame graph.
/// Streamed in pre-order with the path at hand in one buffer
/// ([`FoldedPath`]): no line or path is kept.
pub fn write_folded(w: &mut dyn Write, tree: &CallTree<Spread>, view: &TreeView) -> io::Result<()> {
    let names = FoldedNames::new(tree);
    let mut path = FoldedPath::new(&names);
    for (id, depth) in visible(tree, view) {
        path.enter(tree, id, depth as usize);
        if let Some(us) = folded_us(tree, id, view) {
            path.write_line(w, us)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_follow_a_preorder_walk_and_their_sizes_are_exact() {
        let mut t: CallTree = CallTree::new();
        t.node_at_path(&["main", "a;b", "c"]);
        t.node_at_path(&["main", "x\ny"]);
        let names = FoldedNames::new(&t);
        let sizes = names.path_bytes(&t);
        let mut path = FoldedPath::new(&names);
        let mut out = Vec::new();
        let mut expected = 0;
        for (i, (id, depth)) in t.preorder().into_iter().enumerate() {
            path.enter(&t, id, depth);
            let us = [7, 12345, 0, 99][i];
            path.write_line(&mut out, us).unwrap();
            expected += line_bytes(sizes[id.0 as usize], us);
        }
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "main 7\nmain;a:b 12345\nmain;a:b;c 0\nmain;x\\ny 99\n"
        );
        assert_eq!(expected, text.len() as u64);
        assert_eq!(line_bytes(0, u64::MAX), 21);
    }
}
