//! The reference write layout, as the instrumentation API offers it (the
//! layout itself lives with the other timer-tree layouts in the report
//! layer, `report::timertree::reference`).

use std::io::Write;

use crate::model::calltree::CallTree;
use crate::model::timertree::Timing;
use crate::report::numfmt::fortran::Precision;
use crate::report::timertree::reference::{NoSubtree, subtree_top, write_reference};

use super::tree::{Handle, TimerError};

/// Options of the reference write layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOptions {
    /// Blanks per nesting level.
    pub indent: usize,
    /// Only this timer's subtree, its root at depth 0.
    pub handle: Option<Handle>,
    /// Seconds as stored, or rounded to binary32 as the Fortran reference stores them.
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
    let top = subtree_top(tree, opts.handle.map(Handle::get)).map_err(|e| match e {
        NoSubtree::Empty => TimerError::Empty,
        NoSubtree::BadHandle { handle, count } => TimerError::BadHandle { handle, count },
    })?;
    write_reference(w, tree, top, opts.indent, opts.precision)?;
    Ok(())
}
