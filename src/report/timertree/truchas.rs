//! Truchas' "TIMING SUMMARY" layout of a timer tree.
//!
//! ```text
//!
//! TIMING SUMMARY
//! --------------
//!   4.503E-02 --- A
//!     1.002E-02 --- B
//!
//! ```
//! Two blanks per level, starting with two at the top level; the time in
//! `ES9.3` (negative times overflow to `*********`, as in Truchas); the name
//! without trailing blanks.

use std::io::{self, Write};

use crate::model::calltree::CallTree;
use crate::model::timertree::Timing;
use crate::report::numfmt::fortran::{Precision, es9_3};
use crate::report::numfmt::padding::TreeIndent;

pub fn write_truchas(
    w: &mut dyn Write,
    tree: &CallTree<Timing>,
    precision: Precision,
) -> io::Result<()> {
    writeln!(w)?;
    writeln!(w, "TIMING SUMMARY")?;
    writeln!(w, "--------------")?;
    for (id, depth) in tree.preorder() {
        let seconds = precision.apply(tree.node(id).metrics.seconds);
        writeln!(
            w,
            "{}{} --- {}",
            TreeIndent::new(depth + 1),
            es9_3(seconds),
            tree.name(id).trim_end_matches(' ')
        )?;
    }
    writeln!(w)
}
