//! The reference write layout.
//!
//! One line per timer in pre-order: `depth × indent` blanks, the name exactly
//! as given, `:`, the time in `ES12.5`. The blank before a positive time is
//! the sign column of `ES12.5`, not a separator. The Fortran `ES` formatting
//! is [`report::numfmt::es12_5`](crate::report::numfmt::es12_5).

use std::io::Write;

use crate::model::calltree::CallTree;
use crate::model::timertree::Timing;
use crate::report::numfmt::{Blanks, Precision, es12_5};

use super::tree::{Handle, TimerError};

/// Options of the reference write layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOptions {
    /// Blanks per nesting level.
    pub indent: usize,
    /// Only this timer's subtree, its root at depth 0.
    pub handle: Option<Handle>,
    pub precision: Precision,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            indent: 2,
            handle: None,
            precision: Precision::F64,
        }
    }
}

/// Writes `tree` in the reference layout. An empty tree and a handle that
/// names no timer are errors, as in the reference (which asserts).
pub fn write_tree(
    w: &mut dyn Write,
    tree: &CallTree<Timing>,
    opts: &WriteOptions,
) -> Result<(), TimerError> {
    if tree.is_empty() {
        return Err(TimerError::Empty);
    }
    let top = match opts.handle {
        None => tree.root(),
        Some(h) if h.get() != 0 && tree.contains(h.node()) => h.node(),
        Some(h) => {
            return Err(TimerError::BadHandle {
                handle: h.get(),
                count: tree.len(),
            });
        }
    };
    for (id, depth) in tree.preorder_from(top) {
        let seconds = opts.precision.apply(tree.node(id).metrics.seconds);
        writeln!(
            w,
            "{}{}:{}",
            Blanks(depth.saturating_mul(opts.indent)),
            tree.name(id),
            es12_5(seconds)
        )?;
    }
    Ok(())
}
