//! A modern table of a timer tree, beyond the reference's layouts: per timer
//! its inclusive seconds (the timer's own total), exclusive seconds (minus
//! its children's totals), the share of its parent (of the sum of the
//! top-level timers for those), and the number of starts when known.
//!
//! ```text
//! A  ██████████████████████  inclusive 49 ms
//!    ├ B ████                10 ms ┐
//!    └ C ████████            19 ms ┴ exclusive of A = 49 − 10 − 19 = 20 ms
//! ```

use std::io::{self, Write};

use crate::model::calltree::CallTree;
use crate::model::timertree::Timing;
use crate::report::numfmt::{Blanks, Precision, es12_5};

pub fn write_table(
    w: &mut dyn Write,
    tree: &CallTree<Timing>,
    precision: Precision,
) -> io::Result<()> {
    let seconds = |id| precision.apply(tree.node(id).metrics.seconds);
    let children_sum = |id| {
        tree.node(id)
            .children()
            .iter()
            .map(|&c| seconds(c))
            .sum::<f64>()
    };
    let top_total = children_sum(tree.root());
    // Trees read from files do not record starts; leave the column out then.
    let with_calls = tree
        .preorder()
        .iter()
        .any(|&(id, _)| tree.node(id).metrics.calls > 0);
    let rows: Vec<(String, f64, f64, f64, u64)> = tree
        .preorder()
        .into_iter()
        .map(|(id, depth)| {
            let inclusive = seconds(id);
            let parent_total = match tree.node(id).parent() {
                Some(p) if p != tree.root() => seconds(p),
                _ => top_total,
            };
            let label = format!(
                "{}{}",
                Blanks(2 * depth),
                crate::report::escape::visible(tree.name(id))
            );
            let share = 100.0 * inclusive / parent_total;
            (
                label,
                inclusive,
                inclusive - children_sum(id),
                share,
                tree.node(id).metrics.calls,
            )
        })
        .collect();
    let width = rows
        .iter()
        .map(|r| r.0.chars().count())
        .chain([5])
        .max()
        .unwrap_or(5);
    write!(
        w,
        "timer{}  {:>12} {:>12} {:>8}",
        Blanks(width - 5),
        "inclusive",
        "exclusive",
        "% parent"
    )?;
    if with_calls {
        write!(w, " {:>10}", "calls")?;
    }
    writeln!(w)?;
    for (label, inclusive, exclusive, share, calls) in rows {
        let pad = width - label.chars().count();
        let share = if share.is_finite() {
            format!("{share:.1}")
        } else {
            "-".to_owned()
        };
        write!(
            w,
            "{label}{}  {:>12} {:>12} {share:>8}",
            Blanks(pad),
            es12_5(inclusive),
            es12_5(exclusive)
        )?;
        if with_calls {
            write!(w, " {calls:>10}")?;
        }
        writeln!(w)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclusive_time_and_shares() {
        let mut t: CallTree<Timing> = CallTree::new();
        for (path, s, calls) in [
            (&["A"][..], 4.0, 1),
            (&["A", "B"], 1.0, 3),
            (&["C"], 1.0, 2),
        ] {
            let id = t.node_at_path(path);
            t.node_mut(id).metrics = Timing { seconds: s, calls };
        }
        let mut out = Vec::new();
        write_table(&mut out, &t, Precision::F64).unwrap();
        let text = String::from_utf8(out).unwrap();
        let expected = "\
timer     inclusive    exclusive % parent      calls
A       4.00000E+00  3.00000E+00     80.0          1
  B     1.00000E+00  1.00000E+00     25.0          3
C       1.00000E+00  1.00000E+00     20.0          2
";
        assert_eq!(text, expected);
    }
}
