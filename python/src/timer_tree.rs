//! The table of a timer-tree file.

use profparse::CallTree;

use crate::arrow_stream::Built;
use crate::tree_table::{TreeRows, tree_table};

/// `calltree()` of a timer tree: one row per timer with no rank, its
/// inclusive seconds the file's, its exclusive seconds those minus its
/// children's (as `tree show --layout table`), its calls the starts when
/// the tree recorded them (0 from a file).
pub(crate) fn timer_calltree(
    tree: &CallTree<profparse::Timing>,
    path: &str,
    rank: Option<usize>,
) -> Built {
    if rank.is_some() {
        return Err(profparse::Error::NotFound(format!(
            "{path}: a timer-tree file holds one tree, of no particular rank: no tree of one rank"
        )));
    }
    let metrics: CallTree = tree.map(|id, t| {
        let children: f64 = tree
            .node(id)
            .children()
            .iter()
            .map(|&c| tree.node(c).metrics.seconds)
            .sum();
        profparse::Metrics {
            calls: t.calls,
            inclusive: t.seconds,
            exclusive: t.seconds - children,
        }
    });
    let mut rows = TreeRows::default();
    rows.push_tree(None, &metrics, false);
    Ok((tree_table(vec![rows]), Vec::new()))
}
