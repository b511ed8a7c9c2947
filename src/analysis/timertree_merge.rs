//! Merging timer trees of several processes or runs by path.
//!
//! Timers with the same path of names (`A/C/B`) are one node of the merged
//! tree, whatever their handles; children appear in the order first seen,
//! file by file:
//!
//! ```text
//! rank0: A ─┬─ B         rank1: A ── C        merged: A ─┬─ B   (1 file)
//!           └─ C                                          └─ C   (2 files)
//! ```
//! Per node: the number of files that have it, min / avg / max / sum over
//! those files, and which file holds the min and the max. A file without the
//! node does not count as 0: `files` says how many had it.
//!
//! NaN times propagate into sum and avg, and are skipped by min and max
//! unless every value is NaN.

use crate::model::calltree::CallTree;
use crate::model::timertree::Timing;

/// The spread of one timer's seconds over the merged files.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spread {
    /// Files that have this timer.
    pub files: usize,
    pub min: f64,
    pub max: f64,
    pub sum: f64,
    /// Index (in merge order) of the first file with the minimum.
    pub min_file: usize,
    /// Index (in merge order) of the first file with the maximum.
    pub max_file: usize,
}

impl Spread {
    /// Mean over the files that have the timer.
    pub fn avg(&self) -> f64 {
        if self.files == 0 {
            0.0
        } else {
            self.sum / self.files as f64
        }
    }

    fn add(&mut self, file: usize, x: f64) {
        if self.files == 0 || x < self.min || (self.min.is_nan() && !x.is_nan()) {
            self.min = x;
            self.min_file = file;
        }
        if self.files == 0 || x > self.max || (self.max.is_nan() && !x.is_nan()) {
            self.max = x;
            self.max_file = file;
        }
        self.sum += x;
        self.files += 1;
    }
}

/// Merges `trees` (in the given order: file indices are positions here).
pub fn merge_trees<'a>(trees: impl IntoIterator<Item = &'a CallTree<Timing>>) -> CallTree<Spread> {
    let mut merged: CallTree<Spread> = CallTree::new();
    for (file, tree) in trees.into_iter().enumerate() {
        merged.merge_with(tree, |spread, timing| spread.add(file, timing.seconds));
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(entries: &[(&[&str], f64)]) -> CallTree<Timing> {
        let mut t: CallTree<Timing> = CallTree::new();
        for (path, s) in entries {
            let id = t.node_at_path(path);
            t.node_mut(id).metrics.seconds = *s;
        }
        t
    }

    #[test]
    fn merges_by_path_with_spread_and_owner_of_max() {
        let a = tree(&[(&["A"], 4.0), (&["A", "B"], 1.0), (&["A", "C"], 2.0)]);
        let b = tree(&[(&["A"], 6.0), (&["A", "C"], 5.0), (&["D"], 0.5)]);
        let m = merge_trees([&a, &b]);
        assert_eq!(m.len(), 4);
        let order: Vec<String> = m
            .preorder()
            .iter()
            .map(|&(id, _)| m.path(id).join("/"))
            .collect();
        assert_eq!(order, ["A", "A/B", "A/C", "D"]);
        let c = m.node(m.find_path(&["A", "C"]).unwrap()).metrics;
        assert_eq!(
            (c.files, c.min, c.max, c.sum, c.avg()),
            (2, 2.0, 5.0, 7.0, 3.5)
        );
        assert_eq!((c.min_file, c.max_file), (0, 1));
        let d = m.node(m.find_path(&["D"]).unwrap()).metrics;
        assert_eq!((d.files, d.max_file, d.avg()), (1, 1, 0.5));
    }

    #[test]
    fn nan_is_skipped_by_min_max_but_poisons_sum() {
        let a = tree(&[(&["A"], f64::NAN)]);
        let b = tree(&[(&["A"], 3.0)]);
        let m = merge_trees([&a, &b]);
        let s = m.node(m.find_path(&["A"]).unwrap()).metrics;
        assert_eq!((s.min, s.max, s.min_file, s.max_file), (3.0, 3.0, 1, 1));
        assert!(s.sum.is_nan());
    }
}
