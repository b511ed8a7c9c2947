//! Change points of one timer's series over runs: where its time stepped
//! up or down and stayed there (`profparse history`).
//!
//! The method is Hunter's (Fleming et al., "Hunter: Using Change Point
//! Detection to Hunt for Performance Regressions", ICPE 2023; Apache
//! Otava), with a rank test in place of Student's t:
//!
//! 1. **Split.** Windows of [`Options::window`] runs slide by half a
//!    window. In each, E-Divisive (Matteson & James) proposes the split
//!    that most separates the runs before from the runs after, by the
//!    energy distance of their values; the split is kept when the runs on
//!    its two sides differ by the rank-sum test at a loose level (10 × the
//!    final one), and the pieces are split again, until a proposal fails.
//! 2. **Merge.** Over the whole series, each kept point is tested again
//!    between its neighbours; the weakest (largest p, then smallest step)
//!    goes while it fails [`Options::alpha`] or its step is under
//!    [`Options::min_change`], and its neighbours are tested again.
//!
//! Why a rank test: run times have outlier runs (a busy node, a slow file
//! system). Student's t on a window with one outlier run can call a step
//! where there is none, and misses steps when an outlier inflates the
//! spread; the rank-sum test sees only the order of the values, and needs
//! several runs on each side before it can call anything (one run alone
//! can never reach p < 0.04 however far it lies), which is what a step,
//! as opposed to an outlier, is.

use crate::analysis::regress::stats::{median, rank_sum_p};

/// What counts as a change point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Largest p of a change point's rank-sum test between its neighbours,
    /// in a series of one window; a longer series divides it among its
    /// windows.
    pub alpha: f64,
    /// Smallest step, as a fraction of the median before it.
    pub min_change: f64,
    /// Runs in one window of the split step.
    pub window: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            alpha: 0.001,
            min_change: 0.02,
            window: 50,
        }
    }
}

/// A step in the series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChangePoint {
    /// The first run after the step.
    pub index: usize,
    /// The median after the step over the median before it, minus 1 (the
    /// runs up to the neighbouring change points); infinite when the
    /// timer appears (from 0 s).
    pub change: f64,
    /// The rank-sum test's p of the runs before against the runs after.
    pub p: f64,
}

/// The change points of `series` (one value per run, in run order), in
/// order. Values that are not finite are left out of the tests (a run
/// that did not record the timer), their indices kept.
pub fn change_points(series: &[f64], options: &Options) -> Vec<ChangePoint> {
    // A long series is looked at window after window: each is a chance of
    // a false step, so the level is divided among them (Bonferroni), and a
    // history of 1,000 runs cries wolf no more often than one of 50.
    let windows = series.len() as f64 / options.window.max(4) as f64;
    let options = &Options {
        alpha: options.alpha / windows.max(1.0),
        ..*options
    };
    let weak = split(series, options);
    merge(series, weak, options)
}

/// The loose level of the split step: as Hunter's, 10 × the final one
/// (at most 0.05), so that the merge step has candidates to judge.
fn loose(alpha: f64) -> f64 {
    (alpha * 10.0).min(0.05).max(alpha)
}

fn split(series: &[f64], options: &Options) -> Vec<usize> {
    let window = options.window.max(4);
    let step = window / 2;
    let mut found: Vec<usize> = Vec::new();
    let mut start = 0;
    while start < series.len() {
        let end = (start + window).min(series.len());
        let new = divide(&series[start..end], loose(options.alpha));
        let last = new.last().map_or(0, |&i| start + i);
        for i in new {
            if !found.contains(&(start + i)) {
                found.push(start + i);
            }
        }
        if end == series.len() {
            break;
        }
        start = last.max(start + step);
    }
    found.sort_unstable();
    found
}

/// E-Divisive on one window: splits while the best proposal's sides differ
/// at `level`. Returns the split points (first index after each), sorted.
fn divide(values: &[f64], level: f64) -> Vec<usize> {
    let energy = Energy::new(&ranks(values));
    let mut points: Vec<usize> = Vec::new();
    loop {
        let mut bounds = vec![0];
        bounds.extend(&points);
        bounds.push(values.len());
        let best = bounds
            .windows(2)
            .filter_map(|b| energy.best_split(b[0], b[1]).map(|(at, end, q)| (b[0], at, end, q)))
            .max_by(|a, b| a.3.total_cmp(&b.3));
        // The runs the split separates: those before it in its piece
        // against those after it up to the cut that made it stand out
        // (beyond the cut may lie the next step back).
        let Some((from, at, to, _)) = best else {
            return points;
        };
        if test(&values[from..at], &values[at..to]) >= level {
            return points;
        }
        points.push(at);
        points.sort_unstable();
    }
}

/// The rank-sum p of two pieces, their non-finite values left out (1 when
/// a side has none).
fn test(before: &[f64], after: &[f64]) -> f64 {
    let (a, b) = (finite(before), finite(after));
    if a.is_empty() || b.is_empty() {
        return 1.0;
    }
    rank_sum_p(&a, &b)
}

fn merge(series: &[f64], mut points: Vec<usize>, options: &Options) -> Vec<ChangePoint> {
    let judge = |points: &mut [usize], k: usize| -> ChangePoint {
        let from = if k == 0 { 0 } else { points[k - 1] };
        let to = points.get(k + 1).copied().unwrap_or(series.len());
        // The windows placed the step by what stood out in them; between
        // its neighbours it is where the ranks before and after differ most.
        // (The sides' medians move with the split: a few rounds settle it.)
        for _ in 0..4 {
            let at = points[k] - from;
            let moved = sharpest_split(&series[from..to], at).unwrap_or(at);
            if moved == at {
                break;
            }
            points[k] = from + moved;
        }
        let at = points[k];
        let (before, after) = (&series[from..at], &series[at..to]);
        ChangePoint {
            index: at,
            change: relative_change(before, after),
            p: test(before, after),
        }
    };
    let mut judged: Vec<ChangePoint> = Vec::with_capacity(points.len());
    for k in 0..points.len() {
        judged.push(judge(&mut points, k));
    }
    loop {
        let weakest = judged
            .iter()
            .enumerate()
            .filter(|(_, c)| c.p >= options.alpha)
            .max_by(|a, b| a.1.p.total_cmp(&b.1.p))
            .or_else(|| {
                judged
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.change.is_nan() || c.change.abs() < options.min_change)
                    .min_by(|a, b| a.1.change.abs().total_cmp(&b.1.change.abs()))
            })
            .map(|(k, _)| k);
        let Some(k) = weakest else {
            return judged;
        };
        points.remove(k);
        judged.remove(k);
        // The neighbours now reach over the removed point.
        for n in [k.wrapping_sub(1), k] {
            if n < points.len() {
                judged[n] = judge(&mut points, n);
            }
        }
    }
}

/// The finite values of `xs`: a run without the timer's figure counts in
/// no test and no median.
fn finite(xs: &[f64]) -> Vec<f64> {
    xs.iter().copied().filter(|x| x.is_finite()).collect()
}

/// The median of the finite values of `xs` (the level of a stretch of
/// runs); NaN when there are none.
pub fn level(xs: &[f64]) -> f64 {
    let finite = finite(xs);
    if finite.is_empty() { f64::NAN } else { median(&finite) }
}

/// The median of `after` over that of `before`, minus 1 (finite values
/// only): infinite for a timer that appears (from a median of 0 s), NaN
/// when a side has no value or both medians are 0.
fn relative_change(before: &[f64], after: &[f64]) -> f64 {
    let (base, now) = (level(before), level(after));
    if base.is_nan() || now.is_nan() {
        return f64::NAN;
    }
    match (base == 0.0, now == 0.0) {
        (true, true) => f64::NAN,
        (true, false) => f64::INFINITY,
        _ => now / base - 1.0,
    }
}

/// E-Divisive's divergence of the runs of a window: for a piece
/// `[from, to)` split at `at` and cut at `end` (`from < at < end <= to`),
/// with X the runs in `[from, at)` (n of them) and Y those in `[at, end)`
/// (m):
///
/// Q = 2/(m+n) Σ|X−Y| − 2m/((m+n)(n−1)) Σ_{i<k}|Xi−Xk| − 2n/((m+n)(m−1)) Σ_{j<k}|Yj−Yk|
///
/// (a term with a zero denominator counts 0, as in Otava). Sums of
/// distances over index rectangles come from a 2-D prefix sum of the
/// distance matrix: O(w²) memory and time per window, O(1) per (at, end).
struct Energy {
    /// `sum[i * (w + 1) + j]`: Σ |v_a − v_b| over a < i, b < j.
    sum: Vec<f64>,
    width: usize,
}

impl Energy {
    fn new(values: &[f64]) -> Energy {
        let w = values.len();
        let width = w + 1;
        let mut sum = vec![0.0; width * width];
        for i in 0..w {
            let mut row = 0.0;
            for j in 0..w {
                let (a, b) = (values[i], values[j]);
                // A run without the timer is as far from nothing as can be:
                // it adds no distance (its piece is judged by the rest).
                let d = if a.is_finite() && b.is_finite() { (a - b).abs() } else { 0.0 };
                row += d;
                sum[(i + 1) * width + j + 1] = sum[i * width + j + 1] + row;
            }
        }
        Energy { sum, width }
    }

    /// Σ |v_a − v_b| over a in [a0, a1), b in [b0, b1).
    fn rect(&self, a0: usize, a1: usize, b0: usize, b1: usize) -> f64 {
        let s = |i: usize, j: usize| self.sum[i * self.width + j];
        s(a1, b1) - s(a0, b1) - s(a1, b0) + s(a0, b0)
    }

    /// The split `at` of `[from, to)` and the cut `end` with the largest Q,
    /// and that Q; `None` for a piece of fewer than 2 runs.
    fn best_split(&self, from: usize, to: usize) -> Option<(usize, usize, f64)> {
        let mut best: Option<(usize, usize, f64)> = None;
        for at in from + 1..to {
            let n = (at - from) as f64;
            let within_x = self.rect(from, at, from, at) / 2.0;
            for end in at + 1..=to {
                let m = (end - at) as f64;
                let cross = self.rect(from, at, at, end);
                let within_y = self.rect(at, end, at, end) / 2.0;
                let x_term = if n > 1.0 { 2.0 * m / ((m + n) * (n - 1.0)) * within_x } else { 0.0 };
                let y_term = if m > 1.0 { 2.0 * n / ((m + n) * (m - 1.0)) * within_y } else { 0.0 };
                let q = 2.0 / (m + n) * cross - x_term - y_term;
                if best.is_none_or(|(_, _, b)| q > b) {
                    best = Some((at, end, q));
                }
            }
        }
        best
    }
}

/// The ranks of `values` (1 = the smallest; ties share their mean rank;
/// non-finite values stay non-finite).
fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).filter(|&i| values[i].is_finite()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut out = vec![f64::NAN; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        for &o in &order[i..=j] {
            out[o] = (i + j + 2) as f64 / 2.0;
        }
        i = j + 1;
    }
    out
}

/// Where the step between the levels of `values[..at]` and `values[at..]`
/// fits best: the split that minimises the squared distances of the
/// values to their side's median, each capped at 3 robust standard
/// deviations, so that an outlier run beside the step weighs the same on
/// either side and cannot drag it. `None` when a side has no finite value.
fn sharpest_split(values: &[f64], at: usize) -> Option<usize> {
    let (low, high) = (level(&values[..at]), level(&values[at..]));
    if low.is_nan() || high.is_nan() {
        return None;
    }
    let residuals: Vec<f64> = values[..at]
        .iter()
        .map(|x| (x - low).abs())
        .chain(values[at..].iter().map(|x| (x - high).abs()))
        .filter(|r| r.is_finite())
        .collect();
    let cap = (3.0 * 1.4826 * median(&residuals)).max(f64::MIN_POSITIVE).powi(2);
    let loss = |x: f64, level: f64| if x.is_finite() { (x - level).powi(2).min(cap) } else { 0.0 };
    // cost(t) = Σ_{i<t} loss(x_i, low) + Σ_{i≥t} loss(x_i, high), by
    // moving t one value at a time.
    let mut cost: f64 = values.iter().map(|&x| loss(x, high)).sum();
    let mut best = (at, f64::INFINITY);
    for (i, &x) in values.iter().enumerate().take(values.len() - 1) {
        cost += loss(x, low) - loss(x, high);
        // Ties go to the split the windows found, then to the earlier.
        let t = i + 1;
        if cost < best.1 - 1e-12 * cost.abs() || (cost <= best.1 && t == at) {
            best = (t, cost);
        }
    }
    Some(best.0)
}


#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed wobble of ±1.5 %: noise without a generator.
    fn wobble(i: usize) -> f64 {
        1.0 + 0.003 * (((i * 7919) % 11) as f64 - 5.0)
    }

    fn steps(n: usize, at: &[(usize, f64)]) -> Vec<f64> {
        (0..n)
            .map(|i| {
                let level: f64 = at.iter().filter(|(a, _)| i >= *a).map(|(_, f)| 1.0 + f).product();
                level * wobble(i)
            })
            .collect()
    }

    #[test]
    fn two_steps_are_found_where_they_are() {
        let s = steps(60, &[(20, 0.10), (41, -0.08)]);
        let cps = change_points(&s, &Options::default());
        let at: Vec<usize> = cps.iter().map(|c| c.index).collect();
        assert_eq!(at, [20, 41], "{cps:?}");
        assert!((cps[0].change - 0.10).abs() < 0.02 && (cps[1].change + 0.08).abs() < 0.02);
        assert!(cps.iter().all(|c| c.p < 0.001));
    }

    #[test]
    fn a_step_in_a_long_series_crosses_windows() {
        // Steps every 70 runs: each lies across window boundaries somewhere.
        let s = steps(300, &[(70, 0.1), (140, 0.1), (210, -0.15)]);
        let at: Vec<usize> = change_points(&s, &Options::default()).iter().map(|c| c.index).collect();
        assert_eq!(at, [70, 140, 210]);
    }

    #[test]
    fn outlier_runs_are_not_steps() {
        let mut s = steps(60, &[]);
        for i in [5, 6, 30, 59] {
            s[i] *= 1.5;
        }
        assert_eq!(change_points(&s, &Options::default()), []);
    }

    #[test]
    fn an_outlier_beside_a_step_does_not_move_it() {
        let mut s = steps(60, &[(30, 0.1)]);
        s[28] *= 1.3; // before the step, higher than the level after it
        let at: Vec<usize> = change_points(&s, &Options::default()).iter().map(|c| c.index).collect();
        assert_eq!(at, [30]);
    }

    #[test]
    fn steps_under_the_floor_are_not_called() {
        // A steady timer (±0.5 %): the 1.5 % step is plain to see.
        let s: Vec<f64> = (0..60)
            .map(|i| if i >= 30 { 1.015 } else { 1.0 } * (1.0 + (wobble(i) - 1.0) / 3.0))
            .collect();
        let none = change_points(&s, &Options::default());
        assert_eq!(none, [], "a 1.5 % step under the 2 % floor");
        let fine = Options { min_change: 0.01, ..Options::default() };
        let cps = change_points(&s, &fine);
        assert_eq!(cps.len(), 1, "{cps:?}");
        assert_eq!(cps[0].index, 30);
    }

    #[test]
    fn short_constant_and_gappy_series_give_an_answer() {
        let o = Options::default();
        for n in 0..6 {
            assert_eq!(change_points(&vec![1.0; n], &o), []);
        }
        assert_eq!(change_points(&[f64::NAN; 30], &o), []);
        let mut s = steps(60, &[(30, 0.2)]);
        s[10] = f64::NAN;
        s[45] = f64::INFINITY;
        let at: Vec<usize> = change_points(&s, &o).iter().map(|c| c.index).collect();
        assert_eq!(at, [30]);
    }

    #[test]
    fn a_timer_that_appears_is_a_step_from_nothing() {
        let mut s = steps(40, &[]);
        for x in &mut s[..20] {
            *x = 0.0;
        }
        let cps = change_points(&s, &Options::default());
        assert_eq!(cps.len(), 1);
        assert_eq!(cps[0].index, 20);
        assert_eq!(cps[0].change, f64::INFINITY, "{cps:?}");
    }
}
