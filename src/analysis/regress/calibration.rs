//! Calibration of `regress` on generated families of runs (docs/REGRESS.md):
//! how often it cries wolf when nothing changed (A/A), and how often it
//! finds a real 3 % slowdown.
//!
//! A family is a set of runs of one job with `TIMERS` timers. Each timer
//! has its own run-to-run noise (log-normal); every run also has a factor
//! shared by all its timers (a busy node slows everything), and now and
//! then a run is an outlier (all timers 15 % slower). A shift multiplies
//! one timer in the new runs. The statistics are fed directly
//! ([`compare_series`]), not through files.
//!
//! The quick tests run in a few seconds in a debug build; the `#[ignore]`d
//! one prints the rates over many more trials (the figures of
//! docs/REGRESS.md):
//! `cargo test --release --lib regress::calibration -- --ignored --nocapture`.

use super::samples::Series;
use super::verdict::Verdict;
use super::{RegressOptions, compare_series};
use crate::test_rng::Xorshift;

/// Timers per run.
const TIMERS: usize = 20;
/// Chance that a run is an outlier.
const OUTLIER_RATE: f64 = 0.05;
/// How much slower an outlier run is.
const OUTLIER_FACTOR: f64 = 1.15;

/// Normal deviates from the fixed-seed generator (Box–Muller).
struct Noise(Xorshift);

impl Noise {
    fn uniform(&mut self) -> f64 {
        // 53 random bits in (0, 1).
        ((self.0.next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// The noise of a family: per timer its own relative noise, and the
/// shared per-run noise.
struct Family {
    /// Relative run-to-run noise of each timer (log-normal σ).
    own: Vec<f64>,
    /// σ of the factor a run applies to all its timers.
    shared: f64,
    /// Each timer's typical seconds.
    seconds: Vec<f64>,
}

impl Family {
    /// Noise levels spread over 1–5 % per timer (total), a third of it shared.
    fn varied(rng: &mut Noise) -> Family {
        let total: Vec<f64> = (0..TIMERS).map(|_| 0.01 + 0.04 * rng.uniform()).collect();
        Family::with(rng, total)
    }

    /// Every timer at `level` noise in all.
    fn uniform(rng: &mut Noise, level: f64) -> Family {
        Family::with(rng, vec![level; TIMERS])
    }

    fn with(rng: &mut Noise, total: Vec<f64>) -> Family {
        let low = total.iter().copied().fold(f64::INFINITY, f64::min);
        // Shared part: at most a third of the smallest timer's noise (in
        // variance), so that each timer's total is as asked.
        let shared = low / 3.0_f64.sqrt();
        let own = total
            .iter()
            .map(|t| (t * t - shared * shared).sqrt())
            .collect();
        let seconds = (0..TIMERS)
            .map(|_| 10f64.powf(-3.0 + 4.0 * rng.uniform()))
            .collect();
        Family {
            own,
            shared,
            seconds,
        }
    }

    /// One run: every timer's seconds; `shift` multiplies timer 0.
    fn run(&self, rng: &mut Noise, shift: f64) -> Vec<f64> {
        let mut common = (self.shared * rng.normal()).exp();
        if rng.uniform() < OUTLIER_RATE {
            common *= OUTLIER_FACTOR;
        }
        (0..TIMERS)
            .map(|t| {
                let s = if t == 0 { shift } else { 1.0 };
                self.seconds[t] * s * common * (self.own[t] * rng.normal()).exp()
            })
            .collect()
    }

    /// `m` base and `n` new runs lined up per timer.
    fn compare(&self, rng: &mut Noise, m: usize, n: usize, shift: f64) -> Vec<Series> {
        let base: Vec<Vec<f64>> = (0..m).map(|_| self.run(rng, 1.0)).collect();
        let new: Vec<Vec<f64>> = (0..n).map(|_| self.run(rng, shift)).collect();
        (0..TIMERS)
            .map(|t| Series {
                path: vec![format!("timer{t}")],
                base: base.iter().map(|r| r[t]).collect(),
                new: new.iter().map(|r| r[t]).collect(),
            })
            .collect()
    }
}

/// Over `trials` comparisons: the share that flagged any timer slower, and
/// the share where timer 0 was found slower while no other timer was.
struct Rates {
    any_slower: f64,
    found: f64,
    others_flagged: f64,
}

fn rates(seed: u64, trials: usize, m: usize, shift: Option<f64>) -> Rates {
    let mut rng = Noise(Xorshift::new(seed));
    let opts = RegressOptions::default();
    let (mut any, mut found, mut others) = (0, 0, 0);
    for _ in 0..trials {
        let family = match shift {
            None => Family::varied(&mut rng),
            Some(_) => Family::uniform(&mut rng, 0.01),
        };
        let series = family.compare(&mut rng, m, m, shift.unwrap_or(1.0));
        let r = compare_series(&series, m, m, &opts);
        let slower = |name: &str| {
            r.timers
                .iter()
                .any(|t| t.path[0] == name && t.verdict == Verdict::Slower)
        };
        any += usize::from(r.any_slower());
        found += usize::from(slower("timer0"));
        let other = r
            .timers
            .iter()
            .any(|t| t.path[0] != "timer0" && t.verdict != Verdict::Unchanged && t.verdict != Verdict::Noisy);
        others += usize::from(other);
    }
    let share = |k: usize| k as f64 / trials as f64;
    Rates {
        any_slower: share(any),
        found: share(found),
        others_flagged: share(others),
    }
}

#[test]
fn a_a_comparisons_rarely_report_a_regression() {
    // 300 comparisons of 8 vs 8 runs, 20 timers each: at a true rate of
    // 5 % the count would exceed 15 about half the time.
    for (seed, m) in [(0x5eed_00a1, 8), (0x5eed_00a2, 5)] {
        let r = rates(seed, 300, m, None);
        assert!(
            r.any_slower <= 0.05,
            "{m} vs {m}: {:.1} % of A/A comparisons flagged a regression",
            100.0 * r.any_slower
        );
    }
}

#[test]
fn a_3_percent_slowdown_at_1_percent_noise_is_found() {
    let r = rates(0x5eed_00b1, 200, 8, Some(1.03));
    assert!(r.found >= 0.9, "found in {:.1} %", 100.0 * r.found);
    assert!(
        r.others_flagged <= 0.05,
        "other timers flagged in {:.1} % of trials",
        100.0 * r.others_flagged
    );
}

#[test]
fn without_the_correction_a_a_would_cry_wolf() {
    // The same A/A families judged timer by timer at p < alpha and no
    // floor: the family-wise rate the q-values and the floor bring down.
    let mut rng = Noise(Xorshift::new(0x5eed_00c1));
    let mut any = 0;
    let trials = 100;
    for _ in 0..trials {
        let family = Family::varied(&mut rng);
        let series = family.compare(&mut rng, 8, 8, 1.0);
        let r = compare_series(&series, 8, 8, &RegressOptions::default());
        any += usize::from(r.timers.iter().any(|t| t.p.is_some_and(|p| p < 0.05)));
    }
    assert!(any as f64 / trials as f64 > 0.3, "{any} of {trials}");
}

/// The figures of docs/REGRESS.md, over many trials (minutes in debug,
/// seconds in release).
#[test]
#[ignore]
fn print_calibration_figures() {
    for m in [3, 5, 8, 12] {
        let r = rates(0xca1_0001, 2000, m, None);
        println!(
            "A/A {m} vs {m}, 20 timers, 1-5 % noise: any regression reported in {:.2} % of 2000 comparisons",
            100.0 * r.any_slower
        );
    }
    for (m, shift) in [(5, 1.03), (8, 1.03), (8, 1.05), (12, 1.03)] {
        let r = rates(0xca1_0002, 2000, m, Some(shift));
        println!(
            "{m} vs {m}, one timer +{:.0} % at 1 % noise: found in {:.2} %, other timers flagged in {:.2} % of 2000 trials",
            100.0 * (shift - 1.0),
            100.0 * r.found,
            100.0 * r.others_flagged
        );
    }
}
