//! Calibration of `history` on generated series (docs/REGRESS.md): 60 runs
//! of one timer with log-normal run-to-run noise, now and then an outlier
//! run (all 15 % slower), and two injected steps of a few times the noise,
//! the second up or down. A step counts as found when a change point lies
//! within one run of it; any other change point is false.
//!
//! The quick test runs in a few seconds in a debug build; the `#[ignore]`d
//! one prints the rates over more trials and noise levels (the figures of
//! docs/REGRESS.md):
//! `cargo test --release --lib history::calibration -- --ignored --nocapture`.

use super::change_points::{Options, change_points};
use crate::test_rng::Xorshift;

const RUNS: usize = 60;
const OUTLIER_RATE: f64 = 0.05;
const OUTLIER_FACTOR: f64 = 1.15;

/// One series: steps at `at` (first run after each) by the factors given.
fn series(rng: &mut Xorshift, noise: f64, steps: &[(usize, f64)]) -> Vec<f64> {
    (0..RUNS)
        .map(|i| {
            let level: f64 = steps.iter().filter(|(a, _)| i >= *a).map(|(_, f)| 1.0 + f).product();
            let outlier = if rng.uniform() < OUTLIER_RATE { OUTLIER_FACTOR } else { 1.0 };
            level * (noise * rng.normal()).exp() * outlier
        })
        .collect()
}

struct Rates {
    /// Share of series with both steps found.
    both_found: f64,
    /// False change points per series with two steps.
    false_per_series: f64,
    /// Change points per series without steps.
    flat_false_per_series: f64,
}

/// `trials` series with steps of `size` × `noise` (the first up, the
/// second up or down) at random places, and as many without steps.
fn rates(seed: u64, trials: usize, noise: f64, size: f64) -> Rates {
    let mut rng = Xorshift::new(seed);
    let options = Options::default();
    let (mut both, mut false_cps, mut flat_cps) = (0, 0, 0);
    for _ in 0..trials {
        let a = 15 + rng.below(10) as usize;
        let b = 35 + rng.below(10) as usize;
        let step = size * noise;
        let second = if rng.below(2) == 0 { step } else { -step };
        let s = series(&mut rng, noise, &[(a, step), (b, second)]);
        let cps = change_points(&s, &options);
        let near = |t: usize| cps.iter().any(|c| c.index.abs_diff(t) <= 1);
        both += usize::from(near(a) && near(b));
        false_cps += cps
            .iter()
            .filter(|c| c.index.abs_diff(a) > 1 && c.index.abs_diff(b) > 1)
            .count();
        flat_cps += change_points(&series(&mut rng, noise, &[]), &options).len();
    }
    let t = trials as f64;
    Rates {
        both_found: both as f64 / t,
        false_per_series: false_cps as f64 / t,
        flat_false_per_series: flat_cps as f64 / t,
    }
}

#[test]
fn steps_of_five_times_the_noise_are_found_within_a_run() {
    for (seed, noise) in [(0x5eed_0001, 0.01), (0x5eed_0002, 0.03), (0x5eed_0003, 0.05)] {
        let r = rates(seed, 150, noise, 5.0);
        assert!(r.both_found >= 0.90, "noise {noise}: both found in {:.3}", r.both_found);
        assert!(r.false_per_series <= 0.10, "noise {noise}: {:.3} false", r.false_per_series);
        assert!(r.flat_false_per_series <= 0.05, "noise {noise}: {:.3} false without steps", r.flat_false_per_series);
    }
}

#[test]
#[ignore = "prints the calibration table of docs/REGRESS.md (release build: a few seconds)"]
fn calibration_table() {
    println!("| noise | step | both steps found (±1 run) | false change points per series | without steps |");
    println!("|---|---|---|---|---|");
    for noise in [0.01, 0.02, 0.03, 0.05] {
        for size in [3.0, 4.0, 5.0] {
            let r = rates(0x5eed_1000 + (noise * 100.0) as u64, 2000, noise, size);
            println!(
                "| {:.0} % | {:.0} % ({size}×) | {:.1} % | {:.3} | {:.3} |",
                noise * 100.0,
                noise * size * 100.0,
                r.both_found * 100.0,
                r.false_per_series,
                r.flat_false_per_series
            );
        }
    }
}
