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

use crate::model::calltree::CallTree;
use crate::model::timertree::Timing;
use crate::report::document::{Column, Table};
use crate::report::escape::visible;
use crate::report::numfmt::fortran::Precision;
use crate::report::numfmt::human::{duration, percent1};
use crate::report::numfmt::padding::TreeIndent;

/// The table of `tree`: one row per timer in pre-order, names indented two
/// blanks per level.
pub fn timer_table(tree: &CallTree<Timing>, precision: Precision) -> Table<'_> {
    let seconds = move |id| precision.apply(tree.node(id).metrics.seconds);
    let children_sum = move |id| {
        tree.node(id)
            .children()
            .iter()
            .map(|&c| seconds(c))
            .sum::<f64>()
    };
    let top_total = children_sum(tree.root());
    let order = tree.preorder();
    // Trees read from files do not record starts; leave the column out then.
    let with_calls = order.iter().any(|&(id, _)| tree.node(id).metrics.calls > 0);
    let width = order
        .iter()
        .map(|&(id, depth)| {
            TreeIndent::new(depth).to_string().len() + visible(tree.name(id)).chars().count()
        })
        .chain(["timer".len()])
        .max()
        .unwrap_or(0);
    let mut columns = vec![
        Column::left("timer", width),
        Column::right("inclusive", 10).after("  "),
        Column::right("exclusive", 10),
        Column::right("% parent", 8),
    ];
    if with_calls {
        columns.push(Column::right("calls", 10));
    }
    let rows = order.into_iter().map(move |(id, depth)| {
        let inclusive = seconds(id);
        let parent_total = match tree.node(id).parent() {
            Some(p) if p != tree.root() => seconds(p),
            _ => top_total,
        };
        let share = 100.0 * inclusive / parent_total;
        let mut row = vec![
            format!("{}{}", TreeIndent::new(depth), visible(tree.name(id))),
            duration(inclusive),
            duration(inclusive - children_sum(id)),
            if share.is_finite() {
                percent1(share)
            } else {
                "-".to_owned()
            },
        ];
        if with_calls {
            row.push(tree.node(id).metrics.calls.to_string());
        }
        row
    });
    Table::new(columns, rows)
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
        let mut doc = crate::report::Document::new();
        doc.table(timer_table(&t, Precision::F64));
        crate::report::renderers::text::write_document(&mut out, doc, None).unwrap();
        let text = String::from_utf8(out).unwrap();
        let expected = "\
timer   inclusive  exclusive % parent      calls
A        4.000 s    3.000 s      80.0          1
  B      1.000 s    1.000 s      25.0          3
C        1.000 s    1.000 s      20.0          2
";
        assert_eq!(text, expected);
    }
}
