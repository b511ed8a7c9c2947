//! Analyses checked against each other on every fixture database: the
//! trace timelines against the call tree, the grouped send matrix against
//! the full one.

use super::db;

fn trace_timeline_accounts_for_every_outermost_call(name: &str) {
    use crate::analysis::calltree::call_tree;
    use crate::analysis::trace_summary::Selection;
    use crate::analysis::trace_timeline::{trace_span, trace_timeline, whole_trace_timeline};
    use crate::formats::blprof::Database;

    let db = Database::open(db(name)).unwrap();
    let (span, w) = trace_span(&db);
    assert!(w.is_empty(), "{name}: {w:?}");
    let span = span.unwrap();
    let (first, _) = trace_timeline(&db, span, 500);
    let (t, w) = whole_trace_timeline(&db, 500);
    assert!(w.is_empty(), "{name}: {w:?}");
    let t = t.unwrap();
    // Widened only when a call ended after the first span (flush: a
    // call open across a flush ends after the last block's calls).
    assert_eq!(t.span.1 > span.1, first.latest_end > span.1, "{name}");
    assert_eq!(t.span.1 > span.1, name == "flush", "{name}");
    assert!(t.latest_end <= t.span.1);
    // The span holds every call, so each function's outermost seconds
    // are the inclusive seconds of its top-level node in the call tree.
    let (tree, _, _) = call_tree(&db, &Selection { ranges: None }, None);
    for &c in tree.node(tree.root()).children() {
        let f = t.names.iter().position(|n| n == tree.name(c)).unwrap();
        let want = tree.node(c).metrics.total.inclusive;
        assert!(
            (t.totals[f] - want).abs() <= 1e-9 * want.max(1.0),
            "{name}: {}: {} vs {want}",
            tree.name(c),
            t.totals[f]
        );
    }
    // Bars are ordered, disjoint runs of columns.
    for row in &t.rows {
        for pair in row.bars.windows(2) {
            assert!(pair[0].last < pair[1].first, "{name}: {pair:?}");
        }
        for b in &row.bars {
            assert!(b.first <= b.last && (b.last as usize) < t.columns);
            assert!((0.0..=1.0).contains(&b.busy));
        }
    }
    // Each outermost call starts in exactly one bar, or hides under a
    // function with more time in its first column.
    let calls: u64 = t.rows.iter().flat_map(|r| &r.bars).map(|b| b.calls).sum();
    let outermost: u64 = tree
        .node(tree.root())
        .children()
        .iter()
        .map(|&c| tree.node(c).metrics.total.calls)
        .sum();
    assert!(
        calls > 0 && calls <= outermost,
        "{name}: {calls} > {outermost}"
    );
}

database_tests!(trace_timeline_accounts_for_every_outermost_call);

/// The report's timeline of each depth holds, per function, the inclusive
/// seconds of the call tree's nodes at that depth; bars split where a call
/// starts, so amrlevel8's 20 time steps per process (back to back, one
/// function) are 20 bars at depth 0.
fn trace_timeline_of_each_depth_holds_that_depths_calls(name: &str) {
    use crate::analysis::calltree::call_tree;
    use crate::analysis::trace_summary::Selection;
    use crate::analysis::trace_timeline::whole_trace_timelines;
    use crate::formats::blprof::Database;

    let db = Database::open(db(name)).unwrap();
    let (levels, w) = whole_trace_timelines(&db, 500, 4);
    assert!(w.is_empty(), "{name}: {w:?}");
    assert_eq!(levels.len(), 4);
    let (tree, _, _) = call_tree(&db, &Selection { ranges: None }, None);
    // Inclusive seconds per (depth, name), walked with a stack.
    let mut want: std::collections::BTreeMap<(usize, String), f64> = Default::default();
    let mut stack: Vec<_> = tree
        .node(tree.root())
        .children()
        .iter()
        .map(|&c| (c, 0))
        .collect();
    while let Some((id, depth)) = stack.pop() {
        if depth < 4 {
            *want.entry((depth, tree.name(id).to_owned())).or_default() +=
                tree.node(id).metrics.total.inclusive;
            stack.extend(tree.node(id).children().iter().map(|&c| (c, depth + 1)));
        }
    }
    for (d, t) in levels.iter().enumerate() {
        for (f, n) in t.names.iter().enumerate() {
            let w = want.get(&(d, n.clone())).copied().unwrap_or(0.0);
            assert!(
                (t.totals[f] - w).abs() <= 1e-9 * w.max(1.0),
                "{name} depth {d}: {n}: {} vs {w}",
                t.totals[f]
            );
        }
        assert_eq!(t.span, levels[0].span);
    }
    if name == "amrlevel8" {
        for row in &levels[0].rows {
            assert!(row.bars.len() >= 20, "proc {}: {:?}", row.proc, row.bars);
        }
    }
}

database_tests!(trace_timeline_of_each_depth_holds_that_depths_calls);

fn grouped_send_matrix_sums_the_full_one(name: &str) {
    use crate::analysis::comm::select::CommSelection;
    use crate::analysis::comm::sync::{SendMatrixGroups, send_matrix, send_matrix_groups};
    use crate::formats::blprof::Database;

    let db = Database::open(db(name)).unwrap();
    let (full, _) = send_matrix(&db, &crate::analysis::comm::scope::CommScope::everything());
    for max_cells in [1, 2, 3, 256] {
        let (g, w) = send_matrix_groups(&db, &CommSelection::all(), max_cells);
        assert!(w.is_empty(), "{name}: {w:?}");
        assert_eq!(
            g,
            SendMatrixGroups::from_matrix(&full, max_cells),
            "{name} {max_cells}"
        );
        assert!(g.bytes.len() <= max_cells);
    }
}

database_tests!(grouped_send_matrix_sums_the_full_one);
