//! Each run's figure per timer, lined up over the runs of both groups:
//! what the statistics of [`super::stats`] compare.
//!
//! A timer is keyed by name (the function table of a database or a
//! TinyProfiler log; a call tree's nodes summed per name) or, with
//! `--paths`, by call path. Per run the figure is what `diff` shows: the
//! average over processes. A timer missing from a run counts 0 s there (it
//! was not called), so a timer that appears or disappears is compared too.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use crate::analysis::diff::Metric;
use crate::analysis::diff_input::Side;
use crate::model::calltree::{CallTree, Metrics};

/// How timers are told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Key {
    /// By name: functions, or tree nodes summed per name.
    #[default]
    Name,
    /// By call path (inputs with a call-path tree).
    Path,
}

/// One timer's figures: one value per run in each group.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The name, or the call path from the outermost call down.
    pub path: Vec<String>,
    /// One value per base run, in the order the runs were given.
    pub base: Vec<f64>,
    /// One value per new run.
    pub new: Vec<f64>,
}

/// With `--paths`, call paths deeper than this are left out (and counted):
/// every path is kept whole, so a tree thousands deep would hold the
/// square of its depth in names.
pub const MAX_PATH_LEVELS: usize = 64;

/// One run's figure per timer (name or path), and the nodes left out for
/// being deeper than [`MAX_PATH_LEVELS`].
pub type RunFigures = (Vec<(Vec<String>, f64)>, usize);

/// Why a run has no figures to compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// `--paths` on a run without a call-path tree (a TinyProfiler log, a
    /// database without call traces).
    NoPaths,
    /// The run has neither a function table nor a tree.
    Nothing,
}

/// The figures of one run by timer.
pub fn run_figures(side: &Side, key: Key, metric: Metric) -> Result<RunFigures, Missing> {
    match key {
        Key::Path => {
            let tree = side.tree.as_ref().ok_or(Missing::NoPaths)?;
            let nodes = tree.preorder();
            let kept: Vec<_> = nodes
                .iter()
                .filter(|&&(_, depth)| depth < MAX_PATH_LEVELS)
                .map(|&(id, _)| {
                    let path = tree.path(id).into_iter().map(str::to_owned).collect();
                    (path, metric.of(&tree.node(id).metrics))
                })
                .collect();
            let cut = nodes.len() - kept.len();
            Ok((kept, cut))
        }
        Key::Name => {
            if let Some(f) = &side.functions {
                // A one-level tree: its nodes are the functions.
                let values = f
                    .preorder()
                    .into_iter()
                    .map(|(id, _)| (vec![f.name(id).to_owned()], metric.of(&f.node(id).metrics)))
                    .collect();
                Ok((values, 0))
            } else {
                let tree = side.tree.as_ref().ok_or(Missing::Nothing)?;
                let values = by_name(tree, metric)
                    .into_iter()
                    .map(|(name, v)| (vec![name.to_owned()], v))
                    .collect();
                Ok((values, 0))
            }
        }
    }
}

/// A tree's figure per name: exclusive seconds summed over every node of
/// the name; inclusive seconds summed over its outermost nodes only (a
/// recursive call's time is inside its caller's already); calls summed.
fn by_name(tree: &CallTree<Metrics>, metric: Metric) -> BTreeMap<&str, f64> {
    let mut out: BTreeMap<&str, f64> = BTreeMap::new();
    // The names on the path to the current node, and how often each occurs.
    let mut stack: Vec<&str> = Vec::new();
    let mut open: FxHashMap<&str, usize> = FxHashMap::default();
    for (id, depth) in tree.preorder() {
        while stack.len() > depth {
            if let Some(n) = stack.pop()
                && let Some(c) = open.get_mut(n)
            {
                *c -= 1;
            }
        }
        let name = tree.name(id);
        let nested = open.get(name).is_some_and(|&c| c > 0);
        let m = &tree.node(id).metrics;
        let add = match metric {
            Metric::Inclusive if nested => 0.0,
            _ => metric.of(m),
        };
        *out.entry(name).or_default() += add;
        stack.push(name);
        *open.entry(name).or_default() += 1;
    }
    out
}

/// Lines up the runs' figures: one [`Series`] per timer seen in any run,
/// 0 where a run lacks it, in the order of the timers' names (paths).
pub fn line_up(base: &[Vec<(Vec<String>, f64)>], new: &[Vec<(Vec<String>, f64)>]) -> Vec<Series> {
    let (m, n) = (base.len(), new.len());
    let mut timers: BTreeMap<&[String], Series> = BTreeMap::new();
    let groups = base.iter().map(|r| (r, false)).chain(new.iter().map(|r| (r, true)));
    let (mut bi, mut ni) = (0, 0);
    for (run, is_new) in groups {
        let slot = if is_new { &mut ni } else { &mut bi };
        for (path, v) in run {
            let s = timers.entry(path.as_slice()).or_insert_with(|| Series {
                path: path.clone(),
                base: vec![0.0; m],
                new: vec![0.0; n],
            });
            let to = if is_new { &mut s.new } else { &mut s.base };
            // The same name twice in one table (damaged data): summed.
            to[*slot] += v;
        }
        *slot += 1;
    }
    timers.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(nodes: &[(&[&str], f64, f64)]) -> CallTree<Metrics> {
        let mut t: CallTree<Metrics> = CallTree::new();
        for (path, incl, excl) in nodes {
            let id = t.node_at_path(path);
            t.node_mut(id).metrics = Metrics {
                calls: 1,
                inclusive: *incl,
                exclusive: *excl,
            };
        }
        t
    }

    #[test]
    fn names_sum_exclusive_everywhere_and_inclusive_outermost() {
        let t = tree(&[
            (&["main"], 10.0, 2.0),
            (&["main", "f"], 6.0, 3.0),
            (&["main", "f", "f"], 3.0, 3.0),
            (&["main", "g"], 2.0, 1.0),
            (&["main", "g", "f"], 1.0, 1.0),
        ]);
        let ex = by_name(&t, Metric::Exclusive);
        assert_eq!(ex["f"], 7.0);
        let inc = by_name(&t, Metric::Inclusive);
        // main>f (6) and main>g>f (1); main>f>f is inside main>f.
        assert_eq!((inc["f"], inc["main"], inc["g"]), (7.0, 10.0, 2.0));
    }

    #[test]
    fn runs_line_up_with_zeros_for_missing_timers() {
        let run = |xs: &[(&str, f64)]| -> Vec<(Vec<String>, f64)> {
            xs.iter().map(|(k, v)| (vec![(*k).to_owned()], *v)).collect()
        };
        let base = [run(&[("a", 1.0), ("b", 2.0)]), run(&[("a", 1.1)])];
        let new = [run(&[("a", 1.2), ("c", 5.0)])];
        let s = line_up(&base, &new);
        let got: Vec<(&str, &[f64], &[f64])> = s
            .iter()
            .map(|s| (s.path[0].as_str(), s.base.as_slice(), s.new.as_slice()))
            .collect();
        assert_eq!(
            got,
            [
                ("a", &[1.0, 1.1][..], &[1.2][..]),
                ("b", &[2.0, 0.0][..], &[0.0][..]),
                ("c", &[0.0, 0.0][..], &[5.0][..]),
            ]
        );
    }
}
