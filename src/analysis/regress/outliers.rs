//! Outlier runs: a run whose timers are all off together (a busy node, a
//! slow file system) tells nothing about the code, and one such run among
//! eight costs the rank test most of its power (it takes the place of a
//! normal run at the end of the order). Each run's shared factor is the
//! median over timers of its ratio to the group's median run; a run whose
//! factor is far from its group's (more than [`OUTLIER_SPREADS`] robust
//! standard deviations, and beyond the noise floor) is left out, and named
//! in the output.
//!
//! Only a minority of a group is ever left out, only in groups of 3 runs
//! or more, and only with at least [`MIN_TIMERS`] timers (with fewer the
//! "shared" factor would be one timer's own value).

use super::samples::Series;
use super::stats::median;

/// How far from its group's shared factor a run's must be, in robust
/// standard deviations (1.4826 × the median absolute deviation).
pub const OUTLIER_SPREADS: f64 = 5.0;

/// The fewest timers a run needs for its shared factor to mean anything.
pub const MIN_TIMERS: usize = 3;

/// One run left out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OutlierRun {
    /// Its index in its group.
    pub index: usize,
    /// Its shared factor relative to its group's median run, as a
    /// fraction (+0.15: all timers 15 % slower).
    pub factor: f64,
}

/// The outlier runs of one group, `values(s)` giving a timer's values in
/// that group; `floor` is the noise floor (a relative change).
pub fn outlier_runs(
    series: &[Series],
    runs: usize,
    values: impl Fn(&Series) -> &[f64],
    floor: f64,
) -> Vec<OutlierRun> {
    if runs < 3 {
        return Vec::new();
    }
    // Per run, the logs of its timers' ratios to the timers' medians.
    let mut logs: Vec<Vec<f64>> = vec![Vec::new(); runs];
    let mut timers = 0;
    for s in series {
        let v = values(s);
        let med = median(v);
        if med <= 0.0 || v.len() != runs || v.iter().any(|&x| x <= 0.0 || !x.is_finite()) {
            continue;
        }
        timers += 1;
        for (r, &x) in v.iter().enumerate() {
            logs[r].push((x / med).ln());
        }
    }
    if timers < MIN_TIMERS {
        return Vec::new();
    }
    let factors: Vec<f64> = logs.iter().map(|l| median(l)).collect();
    let center = median(&factors);
    let deviations: Vec<f64> = factors.iter().map(|f| (f - center).abs()).collect();
    let spread = 1.4826 * median(&deviations);
    let limit = (OUTLIER_SPREADS * spread).max((1.0 + floor).ln());
    let out: Vec<OutlierRun> = factors
        .iter()
        .enumerate()
        .filter(|&(_, f)| (f - center).abs() > limit)
        .map(|(index, f)| OutlierRun {
            index,
            factor: (f - center).exp() - 1.0,
        })
        .collect();
    // Leaving out a majority would be choosing which runs count.
    if 2 * out.len() < runs { out } else { Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(runs: &[f64], timers: usize) -> Vec<Series> {
        (0..timers)
            .map(|t| Series {
                path: vec![format!("t{t}")],
                // Timer-specific wiggle so the runs are not all equal.
                base: runs
                    .iter()
                    .enumerate()
                    .map(|(r, f)| f * (1.0 + 0.001 * ((r * 7 + t * 3) % 5) as f64))
                    .collect(),
                new: Vec::new(),
            })
            .collect()
    }

    #[test]
    fn a_run_slow_in_every_timer_is_left_out() {
        let s = series(&[1.0, 1.002, 0.999, 1.15, 1.001, 0.998], 10);
        let out = outlier_runs(&s, 6, |s| &s.base, 0.02);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].index, 3);
        assert!((out[0].factor - 0.15).abs() < 0.01, "{out:?}");
    }

    #[test]
    fn ordinary_spread_and_small_groups_keep_every_run() {
        let s = series(&[1.0, 1.01, 0.99, 1.005, 0.995, 1.0], 10);
        assert!(outlier_runs(&s, 6, |s| &s.base, 0.02).is_empty());
        let s = series(&[1.0, 1.5], 10);
        assert!(outlier_runs(&s, 2, |s| &s.base, 0.02).is_empty());
        // One timer: its own noise, not a run's.
        let s = series(&[1.0, 1.002, 0.999, 1.15, 1.001, 0.998], 1);
        assert!(outlier_runs(&s, 6, |s| &s.base, 0.02).is_empty());
    }
}
