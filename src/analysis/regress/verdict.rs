//! From a timer's numbers to a word a CI job can act on: `slower`,
//! `faster`, `unchanged`, or `noisy` ("too noisy to tell"), and for the
//! last how many runs would tell.
//!
//! A change is only called when it is both beyond the noise floor
//! (`--min-change`) and significant after the correction for the number of
//! timers (q < `--alpha`); "unchanged" needs the whole 95 % interval inside
//! the floor (or a significant change smaller than the floor). Whatever is
//! neither is too noisy to tell.
//!
//! With one run per side, run-to-run noise is unknown: the spread over
//! processes says how steady the processes of one run were, not how two
//! runs of the same code differ, so no change is ever called `slower` or
//! `faster` on it (docs/REGRESS.md).

use serde::Serialize;

/// The verdict on one timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Slower beyond the floor, q < alpha.
    Slower,
    /// Faster beyond the floor, q < alpha.
    Faster,
    /// No change beyond the floor.
    Unchanged,
    /// Too noisy to tell.
    Noisy,
}

impl Verdict {
    /// Its name in JSON and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Slower => "slower",
            Verdict::Faster => "faster",
            Verdict::Unchanged => "unchanged",
            Verdict::Noisy => "noisy",
        }
    }

    /// Its words for people.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Noisy => "too noisy to tell",
            v => v.name(),
        }
    }
}

/// Where the spread behind p and the interval comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Evidence {
    /// Several runs per side: run-to-run noise, the real question.
    Runs,
    /// One run per side, its processes as the samples: no run-to-run noise.
    Processes,
    /// One run per side and nothing to measure a spread by.
    None,
}

/// The thresholds of a verdict.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// The noise floor: relative changes smaller than this are no change.
    pub min_change: f64,
    /// The q below which a change is significant.
    pub alpha: f64,
}

/// What the verdict looks at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    /// The relative change; `None` when the base is 0 s.
    pub change: Option<f64>,
    /// Its 95 % interval (relative).
    pub ci: Option<(f64, f64)>,
    /// The q-value, where there is one.
    pub q: Option<f64>,
    /// new median − base median, for the direction when `change` is `None`.
    pub direction: f64,
}

/// The verdict on `f` under `t`, given where the spread came from.
pub fn verdict(f: &Figures, t: &Thresholds, evidence: Evidence) -> Verdict {
    // A change from 0 s is beyond any floor.
    let change = f
        .change
        .unwrap_or(if f.direction > 0.0 { f64::INFINITY } else { 0.0 });
    let beyond = change.abs() >= t.min_change;
    let within = |(lo, hi): (f64, f64)| lo > -t.min_change && hi < t.min_change;
    let significant = f.q.is_some_and(|q| q < t.alpha);
    if evidence == Evidence::Runs && significant && beyond {
        return if change > 0.0 {
            Verdict::Slower
        } else {
            Verdict::Faster
        };
    }
    let quiet = match (evidence, f.ci) {
        (_, Some(ci)) => within(ci) && !beyond,
        // Nothing measures the spread: the floor alone says "no change".
        (Evidence::None, None) => !beyond,
        (_, None) => false,
    };
    if quiet || (evidence == Evidence::Runs && significant && !beyond) {
        Verdict::Unchanged
    } else {
        Verdict::Noisy
    }
}

/// Runs per side that would likely tell, for a `noisy` verdict with
/// `runs` per side now: enough for an interval (4) and for the exact test
/// to reach `alpha` over `timers` timers, and the interval shrunk (as
/// 1/√runs) to the floor's width.
pub fn runs_needed(f: &Figures, t: &Thresholds, runs: usize, timers: usize) -> usize {
    let mut need = runs.max(runs_for_significance(t.alpha, timers));
    if let (Some(change), Some((lo, hi))) = (f.change, f.ci) {
        let half = (hi - change).max(change - lo);
        if half > 0.0 && runs > 0 {
            let scale = (half / t.min_change).powi(2);
            if scale.is_finite() {
                need = need.max((runs as f64 * scale).ceil().min(1e6) as usize);
            }
        }
    }
    need.max(runs + 1)
}

/// The fewest runs per side (k) at which one changed timer among
/// `timers` can be significant at all: the smallest p of k vs k runs,
/// 2 / C(2k, k), at most alpha / timers (Benjamini–Hochberg's bar for a
/// lone discovery). At least 4, for a 95 % interval.
pub fn runs_for_significance(alpha: f64, timers: usize) -> usize {
    let mut k = 4;
    while k < 64 && 2.0 / binomial(2 * k, k) > alpha / timers.max(1) as f64 {
        k += 1;
    }
    k
}

fn binomial(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Thresholds = Thresholds {
        min_change: 0.02,
        alpha: 0.05,
    };

    fn fig(change: f64, ci: Option<(f64, f64)>, q: Option<f64>) -> Figures {
        Figures {
            change: Some(change),
            ci,
            q,
            direction: change,
        }
    }

    #[test]
    fn significant_changes_beyond_the_floor_are_called() {
        let f = fig(0.05, Some((0.03, 0.07)), Some(0.001));
        assert_eq!(verdict(&f, &T, Evidence::Runs), Verdict::Slower);
        let f = fig(-0.05, Some((-0.07, -0.03)), Some(0.001));
        assert_eq!(verdict(&f, &T, Evidence::Runs), Verdict::Faster);
    }

    #[test]
    fn small_or_unproven_changes_are_not() {
        // Significant but under the floor.
        let f = fig(0.01, Some((0.005, 0.03)), Some(0.001));
        assert_eq!(verdict(&f, &T, Evidence::Runs), Verdict::Unchanged);
        // Tight interval around zero.
        let f = fig(0.001, Some((-0.01, 0.01)), Some(0.8));
        assert_eq!(verdict(&f, &T, Evidence::Runs), Verdict::Unchanged);
        // Wide interval: cannot tell.
        let f = fig(0.04, Some((-0.02, 0.1)), Some(0.3));
        assert_eq!(verdict(&f, &T, Evidence::Runs), Verdict::Noisy);
        // No interval (too few runs).
        let f = fig(0.0, None, Some(1.0));
        assert_eq!(verdict(&f, &T, Evidence::Runs), Verdict::Noisy);
    }

    #[test]
    fn one_run_per_side_never_claims_a_change() {
        let f = fig(0.5, Some((0.4, 0.6)), Some(1e-9));
        assert_eq!(verdict(&f, &T, Evidence::Processes), Verdict::Noisy);
        let f = fig(0.001, Some((-0.005, 0.005)), Some(0.9));
        assert_eq!(verdict(&f, &T, Evidence::Processes), Verdict::Unchanged);
        let f = fig(0.5, None, None);
        assert_eq!(verdict(&f, &T, Evidence::None), Verdict::Noisy);
        let f = fig(0.01, None, None);
        assert_eq!(verdict(&f, &T, Evidence::None), Verdict::Unchanged);
    }

    #[test]
    fn a_timer_new_in_the_new_runs_is_beyond_any_floor() {
        let f = Figures {
            change: None,
            ci: None,
            q: Some(0.001),
            direction: 1.0,
        };
        assert_eq!(verdict(&f, &T, Evidence::Runs), Verdict::Slower);
    }

    #[test]
    fn runs_needed_grows_with_the_interval() {
        let f = fig(0.0, Some((-0.04, 0.04)), Some(0.9));
        // Twice the floor's width: four times the runs.
        assert_eq!(runs_needed(&f, &T, 8, 1), 32);
        // Too few runs for an interval at all: at least 4, and more for many timers.
        let none = fig(0.0, None, Some(1.0));
        assert_eq!(runs_needed(&none, &T, 2, 1), 4);
        assert!(runs_needed(&none, &T, 2, 1000) >= 8);
        // 2/C(16, 8) = 1.6e-4 ≤ 0.05/20 = 2.5e-3, but 2/C(14, 7) = 5.8e-4 too;
        // 2/C(12, 6) = 2.2e-3 ≤ 2.5e-3 < 2/C(10, 5) = 7.9e-3.
        assert_eq!(runs_for_significance(0.05, 20), 6);
        // 1000 timers: 5e-5 needs C(2k, k) ≥ 40,000: C(18, 9) = 48,620.
        assert_eq!(runs_for_significance(0.05, 1000), 9);
        assert_eq!(runs_for_significance(0.05, 1), 4);
    }
}
