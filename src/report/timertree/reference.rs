//! The Fortran reference's write layout of a timer tree (`write_timer_tree`).
//!
//! One line per timer in pre-order: `depth × indent` blanks, the name exactly
//! as given, `:`, the time in `ES12.5`. The blank before a positive time is
//! the sign column of `ES12.5`, not a separator. The instrumentation API's
//! `write` (`timer_tree::write`) and `tree show` both write it from here.

use std::io::{self, Write};

use crate::model::calltree::{CallTree, NodeId};
use crate::model::timertree::Timing;
use crate::report::numfmt::fortran::{Precision, es12_5};
use crate::report::numfmt::padding::TreeIndent;

/// Why a tree has no subtree to write; the reference asserts in both cases.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoSubtree {
    #[error("the timer tree is empty")]
    Empty,
    /// Handle k is the k-th timer in pre-order, from 1 (node id k).
    #[error("no timer has handle {handle}: the tree has {count} timer(s)")]
    BadHandle { handle: u32, count: usize },
}

/// The node to write from: the root, or the timer with `handle`.
pub fn subtree_top(tree: &CallTree<Timing>, handle: Option<u32>) -> Result<NodeId, NoSubtree> {
    if tree.is_empty() {
        return Err(NoSubtree::Empty);
    }
    match handle {
        None => Ok(tree.root()),
        Some(h) if h != 0 && tree.contains(NodeId(h)) => Ok(NodeId(h)),
        Some(handle) => Err(NoSubtree::BadHandle {
            handle,
            count: tree.len(),
        }),
    }
}

/// Writes the subtree under `top` (from [`subtree_top`]), `top` at depth 0.
pub fn write_reference(
    w: &mut dyn Write,
    tree: &CallTree<Timing>,
    top: NodeId,
    indent: usize,
    precision: Precision,
) -> io::Result<()> {
    for (id, depth) in tree.preorder_from(top) {
        let seconds = precision.apply(tree.node(id).metrics.seconds);
        writeln!(
            w,
            "{}{}:{}",
            TreeIndent::with_blanks(depth, indent),
            tree.name(id),
            es12_5(seconds)
        )?;
    }
    Ok(())
}
