//! `history`: each timer's time over a series of runs of one job, and the
//! steps in it ([`change_points`]): "FillPatch became 7 % slower from run
//! 31 on, and this is not noise".
//!
//! Pure: no I/O. The command loads the runs (as `regress` does, one
//! figure per timer and run: [`crate::analysis::regress::samples`]) and
//! renders the result ([`crate::report::history`]).

pub mod change_points;
#[cfg(test)]
mod calibration;

use std::collections::BTreeMap;

use rayon::prelude::*;

use change_points::{ChangePoint, Options, change_points};

/// One timer over the runs.
#[derive(Debug, Clone, PartialEq)]
pub struct TimerHistory {
    /// The name, or the call path from the outermost call down.
    pub path: Vec<String>,
    /// One value per run, in run order; 0 where a run lacks the timer (it
    /// was not called), as `regress` counts it.
    pub values: Vec<f64>,
    /// The steps, in run order.
    pub change_points: Vec<ChangePoint>,
}

/// The timers of a series of runs.
#[derive(Debug, Clone, PartialEq)]
pub struct History {
    /// What counted as a step.
    pub options: Options,
    /// Runs in the series.
    pub runs: usize,
    /// Every timer seen in any run: those with steps first, then by the
    /// time summed over the runs, largest first.
    pub timers: Vec<TimerHistory>,
}

/// The change points of every timer of `runs` (each run's figure per
/// timer, in run order), in parallel over timers.
pub fn history(runs: &[Vec<(Vec<String>, f64)>], options: &Options) -> History {
    let mut timers: Vec<TimerHistory> = by_timer(runs)
        .into_par_iter()
        .map(|(path, values)| TimerHistory {
            change_points: change_points(&values, options),
            path,
            values,
        })
        .collect();
    let total = |t: &TimerHistory| t.values.iter().sum::<f64>();
    timers.sort_by(|a, b| {
        // `false < true`: the timers with steps first.
        (a.change_points.is_empty().cmp(&b.change_points.is_empty()))
            .then_with(|| total(b).total_cmp(&total(a)))
            .then_with(|| a.path.cmp(&b.path))
    });
    History {
        options: *options,
        runs: runs.len(),
        timers,
    }
}

/// Lines up the runs' figures: one series per timer seen in any run, 0
/// where a run lacks it, in the order of the timers' names (paths).
pub fn by_timer(runs: &[Vec<(Vec<String>, f64)>]) -> Vec<(Vec<String>, Vec<f64>)> {
    let mut timers: BTreeMap<&[String], Vec<f64>> = BTreeMap::new();
    for (i, run) in runs.iter().enumerate() {
        for (path, v) in run {
            let values = timers
                .entry(path.as_slice())
                .or_insert_with(|| vec![0.0; runs.len()]);
            // The same name twice in one table (damaged data): summed.
            values[i] += v;
        }
    }
    timers
        .into_iter()
        .map(|(path, values)| (path.to_vec(), values))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(xs: &[(&str, f64)]) -> Vec<(Vec<String>, f64)> {
        xs.iter().map(|(k, v)| (vec![(*k).to_owned()], *v)).collect()
    }

    #[test]
    fn timers_line_up_with_zeros_where_a_run_lacks_them() {
        let runs = [run(&[("b", 2.0), ("a", 1.0)]), run(&[("a", 1.5), ("a", 0.5)])];
        assert_eq!(
            by_timer(&runs),
            [
                (vec!["a".to_owned()], vec![1.0, 2.0]),
                (vec!["b".to_owned()], vec![2.0, 0.0]),
            ]
        );
    }

    #[test]
    fn a_stepping_timer_comes_first_with_its_step() {
        // 40 runs: "big" steady at 10 s, "small" 1 s stepping to 1.2 s at run 20.
        let wobble = |i: usize| 1.0 + 0.003 * ((i * 7919) % 11) as f64;
        let runs: Vec<_> = (0..40)
            .map(|i| {
                let step = if i >= 20 { 1.2 } else { 1.0 };
                run(&[("big", 10.0 * wobble(i)), ("small", step * wobble(i + 3))])
            })
            .collect();
        let h = history(&runs, &Options::default());
        assert_eq!(h.runs, 40);
        assert_eq!(h.timers[0].path, ["small"]);
        let cps = &h.timers[0].change_points;
        assert_eq!(cps.len(), 1, "{cps:?}");
        assert_eq!(cps[0].index, 20);
        assert!((cps[0].change - 0.2).abs() < 0.01, "{cps:?}");
        assert!(cps[0].p < 1e-6);
        assert_eq!(h.timers[1].path, ["big"]);
        assert!(h.timers[1].change_points.is_empty());
    }
}
