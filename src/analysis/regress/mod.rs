//! `regress`: did the new runs get slower than the base runs, timer by
//! timer, beyond the noise? Two groups of runs of the same job (any input
//! `diff` reads) are lined up per timer ([`samples`]), each timer is
//! tested and its change estimated ([`stats`]), the p-values corrected for
//! the number of timers (Benjamini–Hochberg), and each timer given a
//! [`verdict`]. docs/REGRESS.md explains how to read it and how well it
//! is calibrated; [`calibration`] tests hold it to that.
//!
//! Pure: no I/O. The command loads the runs
//! ([`crate::analysis::diff_input::load_side`]), [`crate::report::regress`]
//! renders the result.

#[cfg(test)]
mod calibration;
pub mod outliers;
pub mod samples;
pub mod stats;
pub mod verdict;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::analysis::diff::Metric;
use crate::analysis::diff_input::Side;
use outliers::{OutlierRun, outlier_runs};
use samples::{Key, Missing, RunFigures, Series, line_up, run_figures};
use stats::{Design, bh_q_values, mean_shift_p, median, rank_sum_p, shift, thinned};
use verdict::{Evidence, Figures, Thresholds, Verdict, runs_needed, verdict};

/// With one run per side, at most this many processes per side stand for
/// the spread (evenly spaced order statistics): the pairwise differences
/// are the square of it.
const MAX_PROCESS_SAMPLES: usize = 200;

/// What to compare and how strictly.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RegressOptions {
    /// Timers by name or by call path.
    pub key: Key,
    /// The figure compared (seconds; exclusive by default).
    pub metric: Metric,
    /// The noise floor and the significance level.
    pub thresholds: Thresholds,
}

impl Default for RegressOptions {
    fn default() -> Self {
        RegressOptions {
            key: Key::Name,
            metric: Metric::Exclusive,
            thresholds: Thresholds {
                min_change: 0.02,
                alpha: 0.05,
            },
        }
    }
}

/// One timer compared.
#[derive(Debug, Clone, PartialEq)]
pub struct TimerResult {
    /// Its name, or its call path from the outermost call down.
    pub path: Vec<String>,
    /// The median over the base runs (of the per-run figure).
    pub base_median: f64,
    /// The median over the new runs.
    pub new_median: f64,
    /// The estimated relative change (Hodges–Lehmann shift over the base
    /// median); `None` when the base median is 0.
    pub change: Option<f64>,
    /// Its 95 % interval; `None` when the runs are too few for one.
    pub ci: Option<(f64, f64)>,
    /// The rank-sum test's two-sided p; `None` without any spread (one run
    /// per side and no processes).
    pub p: Option<f64>,
    /// The Benjamini–Hochberg q over all timers with a p.
    pub q: Option<f64>,
    /// The verdict.
    pub verdict: Verdict,
    /// For `noisy`: runs per side that would likely tell.
    pub runs_needed: Option<usize>,
}

/// The comparison of two groups of runs.
#[derive(Debug, Clone)]
pub struct Regress {
    /// Every timer, slower first, then faster, noisy and unchanged, each
    /// by the size of its change.
    pub timers: Vec<TimerResult>,
    /// Where the spread behind p came from.
    pub evidence: Evidence,
    /// Runs in each group.
    pub base_runs: usize,
    /// Runs in the new group.
    pub new_runs: usize,
    /// The runs of each group (base, new) left out as outliers.
    pub outliers: [Vec<OutlierRun>; 2],
    /// The smallest p these group sizes allow (1 with one run per side).
    pub min_p: f64,
    /// With `--paths`: tree nodes left out for their depth, over all runs
    /// ([`samples::MAX_PATH_LEVELS`]).
    pub paths_cut: usize,
    /// What was asked.
    pub options: RegressOptions,
}

impl Regress {
    /// Whether a timer got slower beyond the floor with q < alpha: the
    /// command's exit code 1.
    pub fn any_slower(&self) -> bool {
        self.timers.iter().any(|t| t.verdict == Verdict::Slower)
    }

    /// How many timers got each verdict: slower, faster, noisy, unchanged.
    pub fn counts(&self) -> [usize; 4] {
        let mut c = [0; 4];
        for t in &self.timers {
            c[rank(t.verdict)] += 1;
        }
        c
    }
}

/// Why two groups cannot be compared.
#[derive(Debug, Clone, PartialEq)]
pub enum RegressError {
    /// A group has no run.
    EmptyGroup(&'static str),
    /// A run (index in its group) lacks what `key` needs.
    Missing {
        /// `"base"` or `"new"`.
        group: &'static str,
        /// The run's index in its group.
        index: usize,
        /// What it lacks.
        what: Missing,
    },
}

/// Compares the `base` runs with the `new` runs.
pub fn regress(
    base: &[Side],
    new: &[Side],
    opts: &RegressOptions,
) -> Result<Regress, RegressError> {
    let figures = |group: &'static str, runs: &[Side]| {
        if runs.is_empty() {
            return Err(RegressError::EmptyGroup(group));
        }
        runs.iter()
            .enumerate()
            .map(|(index, s)| {
                run_figures(s, opts.key, opts.metric).map_err(|what| RegressError::Missing {
                    group,
                    index,
                    what,
                })
            })
            .collect::<Result<Vec<_>, _>>()
    };
    let (base_figures, new_figures) = (figures("base", base)?, figures("new", new)?);
    let paths_cut = base_figures
        .iter()
        .chain(&new_figures)
        .map(|(_, cut)| cut)
        .sum();
    let values = |runs: Vec<RunFigures>| runs.into_iter().map(|(v, _)| v).collect::<Vec<_>>();
    let series = line_up(&values(base_figures), &values(new_figures));
    let one_each = base.len() == 1 && new.len() == 1;
    let processes = match (&base[0].process_functions, &new[0].process_functions) {
        (Some(b), Some(n)) if one_each && opts.key == Key::Name => Some((b, n)),
        _ => None,
    };
    let evidence = match () {
        _ if !one_each => Evidence::Runs,
        _ if processes.is_some() => Evidence::Processes,
        _ => Evidence::None,
    };
    let design = Design::new(base.len(), new.len());
    let timers: Vec<TimerResult> = match processes {
        Some((b, n)) => {
            let (b, n) = (by_name(b), by_name(n));
            series
                .par_iter()
                .map(|s| {
                    let name = s.path.first().map_or("", String::as_str);
                    let (bt, nt) = (b.get(name).copied(), n.get(name).copied());
                    by_processes(s, bt.unwrap_or(&[]), nt.unwrap_or(&[]))
                })
                .collect()
        }
        None if one_each => series
            .par_iter()
            .map(|s| TimerResult {
                p: None,
                ci: None,
                ..by_runs(&design, s)
            })
            .collect(),
        None => {
            let mut r = compare_series(&series, base.len(), new.len(), opts);
            r.paths_cut = paths_cut;
            return Ok(r);
        }
    };
    let mut r = judge(timers, evidence, &design, opts);
    r.paths_cut = paths_cut;
    Ok(r)
}

/// Compares timers already lined up over `m` base and `n` new runs (`m +
/// n` > 2): what [`regress`] does after loading, and what the calibration
/// tests feed directly.
pub fn compare_series(series: &[Series], m: usize, n: usize, opts: &RegressOptions) -> Regress {
    let floor = opts.thresholds.min_change;
    let outliers = [
        outlier_runs(series, m, |s| &s.base, floor),
        outlier_runs(series, n, |s| &s.new, floor),
    ];
    let keep = |values: &[f64], out: &[OutlierRun]| -> Vec<f64> {
        values
            .iter()
            .enumerate()
            .filter(|(i, _)| !out.iter().any(|o| o.index == *i))
            .map(|(_, &v)| v)
            .collect()
    };
    let design = Design::new(m - outliers[0].len(), n - outliers[1].len());
    let timers = series
        .par_iter()
        .map(|s| {
            if outliers.iter().all(Vec::is_empty) {
                return by_runs(&design, s);
            }
            let kept = Series {
                path: s.path.clone(),
                base: keep(&s.base, &outliers[0]),
                new: keep(&s.new, &outliers[1]),
            };
            by_runs(&design, &kept)
        })
        .collect();
    let mut r = judge(timers, Evidence::Runs, &design, opts);
    (r.base_runs, r.new_runs) = (m, n);
    r.outliers = outliers;
    r
}

/// Fills in q-values (over every timer with a p), verdicts and the runs a
/// noisy one needs, and sorts.
fn judge(
    mut timers: Vec<TimerResult>,
    evidence: Evidence,
    design: &Design,
    opts: &RegressOptions,
) -> Regress {
    let tested: Vec<usize> = (0..timers.len())
        .filter(|&i| timers[i].p.is_some())
        .collect();
    let ps: Vec<f64> = tested.iter().filter_map(|&i| timers[i].p).collect();
    for (&i, q) in tested.iter().zip(bh_q_values(&ps)) {
        timers[i].q = Some(q);
    }
    let t = &opts.thresholds;
    let runs = design.m.min(design.n);
    let count = timers.len();
    for r in &mut timers {
        let f = Figures {
            change: r.change,
            ci: r.ci,
            q: r.q,
            direction: r.new_median - r.base_median,
        };
        r.verdict = verdict(&f, t, evidence);
        r.runs_needed = (r.verdict == Verdict::Noisy).then(|| runs_needed(&f, t, runs, count));
    }
    timers.sort_by(|x, y| {
        let size = |r: &TimerResult| r.change.map_or(f64::INFINITY, f64::abs);
        rank(x.verdict)
            .cmp(&rank(y.verdict))
            .then(size(y).total_cmp(&size(x)))
    });
    Regress {
        timers,
        evidence,
        base_runs: design.m,
        new_runs: design.n,
        outliers: [Vec::new(), Vec::new()],
        min_p: design.min_p,
        paths_cut: 0,
        options: *opts,
    }
}

/// The order of verdicts in the output.
fn rank(v: Verdict) -> usize {
    match v {
        Verdict::Slower => 0,
        Verdict::Faster => 1,
        Verdict::Noisy => 2,
        Verdict::Unchanged => 3,
    }
}

/// A timer over runs: medians, the shift and its interval, p. The verdict
/// and q are filled in once every timer has its p.
pub fn by_runs(design: &Design, s: &Series) -> TimerResult {
    let (base_median, new_median) = (median(&s.base), median(&s.new));
    let (shift, ci) = shift(design, &s.base, &s.new);
    let rel = |x: f64| (base_median > 0.0).then(|| x / base_median);
    TimerResult {
        path: s.path.clone(),
        base_median,
        new_median,
        change: rel(shift),
        ci: ci.and_then(|(lo, hi)| Some((rel(lo)?, rel(hi)?))),
        p: Some(mean_shift_p(&s.base, &s.new)),
        q: None,
        verdict: Verdict::Noisy,
        runs_needed: None,
    }
}

/// A run's per-process times by function name.
fn by_name(table: &[(String, Vec<f64>)]) -> FxHashMap<&str, &[f64]> {
    table
        .iter()
        .map(|(name, v)| (name.as_str(), v.as_slice()))
        .collect()
}

/// A timer of a one-against-one comparison, its spread from the processes
/// of each run: the medians and change are the runs' own (averages over
/// processes); p and the interval compare the two runs' processes.
fn by_processes(s: &Series, base: &[f64], new: &[f64]) -> TimerResult {
    let (b, n) = (s.base[0], s.new[0]);
    let mut r = TimerResult {
        path: s.path.clone(),
        base_median: b,
        new_median: n,
        change: (b > 0.0).then(|| (n - b) / b),
        ci: None,
        p: None,
        q: None,
        verdict: Verdict::Noisy,
        runs_needed: None,
    };
    if base.is_empty() || new.is_empty() {
        return r;
    }
    let (base, new) = (
        thinned(base, MAX_PROCESS_SAMPLES),
        thinned(new, MAX_PROCESS_SAMPLES),
    );
    let design = Design::new(base.len(), new.len());
    let (_, ci) = shift(&design, &base, &new);
    r.ci = ci.and_then(|(lo, hi)| (b > 0.0).then(|| (lo / b, hi / b)));
    r.p = Some(rank_sum_p(&base, &new));
    r
}
