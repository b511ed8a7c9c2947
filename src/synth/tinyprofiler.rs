//! A generator of AMReX job logs holding one TinyProfiler report: runs of
//! one synthetic job with run-to-run noise and chosen timers made slower,
//! for `regress` (tests, benchmarks, calibration by hand).
//!
//! The job's timers and their typical seconds depend only on the number of
//! timers, so every log written with the same `timers` is a run of the
//! same job; the run's noise comes from its `seed`: a factor shared by all
//! its timers (a third of the variance) and each timer's own.

use std::io::{self, Write};

use super::SplitMix64;
use crate::report::numfmt::printf::c_g;

/// What to generate.
#[derive(Debug, Clone)]
pub struct TinyProfilerConfig {
    /// Timers in the report (`Timer0000::run()` …).
    pub timers: u32,
    /// MPI ranks the log says the run had.
    pub ranks: u64,
    /// Relative run-to-run noise of each timer (log-normal σ): 0.01 = 1 %.
    pub noise: f64,
    /// Timers made slower (or faster), by index, and the factor.
    pub shifts: Vec<(u32, f64)>,
    /// The run: the same seed, the same bytes.
    pub seed: u64,
}

/// The name of timer `i`.
pub fn timer_name(i: u32) -> String {
    format!("Timer{i:04}::run()")
}

/// A uniform number in (0, 1).
fn uniform(rng: &mut SplitMix64) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
}

/// A standard normal number (Box–Muller).
fn normal(rng: &mut SplitMix64) -> f64 {
    let (u, v) = (uniform(rng), uniform(rng));
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

impl TinyProfilerConfig {
    /// Each timer's exclusive seconds in this run.
    pub fn seconds(&self) -> Vec<f64> {
        let mut job = SplitMix64::new(0x7195_0000 + u64::from(self.timers));
        let mut run = SplitMix64::new(self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x51);
        let shared = self.noise / 3f64.sqrt();
        let own = self.noise * (2.0f64 / 3.0).sqrt();
        let common = (shared * normal(&mut run)).exp();
        (0..self.timers)
            .map(|i| {
                // From 1 ms to 10 s, the same in every run of the job.
                let typical = 10f64.powf(-3.0 + 4.0 * uniform(&mut job));
                let shift = self
                    .shifts
                    .iter()
                    .filter(|(t, _)| *t == i)
                    .map(|(_, f)| f)
                    .product::<f64>();
                typical * shift * common * (own * normal(&mut run)).exp()
            })
            .collect()
    }

    /// Writes the log.
    pub fn write(&self, w: &mut dyn Write) -> io::Result<()> {
        let secs = self.seconds();
        let total: f64 = secs.iter().sum();
        let rule = "-".repeat(91);
        let spread = |x: f64| {
            format!(
                "{:>10} {:>10} {:>10} {:>6.2}%",
                c_g(0.99 * x, 4),
                c_g(x, 4),
                c_g(1.01 * x, 4),
                100.0 * 1.01 * x / total
            )
        };
        writeln!(
            w,
            "Initializing AMReX (24.10)...\nMPI initialized with {} MPI processes\nAMReX (24.10) initialized\n",
            self.ranks
        )?;
        writeln!(
            w,
            "\nTinyProfiler total time across processes [min...avg...max]: {} ... {} ... {}\n",
            c_g(total, 4),
            c_g(total, 4),
            c_g(total, 4)
        )?;
        for head in ["Excl.", "Incl."] {
            writeln!(w, "{rule}")?;
            writeln!(
                w,
                "{:<40}  {:>6}  {head} Min  {head} Avg  {head} Max   Max %",
                "Name", "NCalls"
            )?;
            writeln!(w, "{rule}")?;
            // Largest first, as TinyProfiler sorts.
            let mut order: Vec<usize> = (0..secs.len()).collect();
            order.sort_by(|&a, &b| secs[b].total_cmp(&secs[a]));
            for i in order {
                writeln!(
                    w,
                    "{:<40}  {:>6} {}",
                    timer_name(i as u32),
                    10,
                    spread(secs[i])
                )?;
            }
            writeln!(w, "{rule}\n")?;
        }
        writeln!(w, "AMReX (24.10) finalized")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_one_job_differ_by_their_noise_and_shifts() {
        let cfg = |seed, shifts| TinyProfilerConfig {
            timers: 50,
            ranks: 2,
            noise: 0.02,
            shifts,
            seed,
        };
        let (a, b) = (cfg(1, vec![]).seconds(), cfg(2, vec![]).seconds());
        let ratio: Vec<f64> = a.iter().zip(&b).map(|(x, y)| y / x).collect();
        assert!(ratio.iter().all(|r| (0.8..1.25).contains(r)), "{ratio:?}");
        assert!(ratio.iter().any(|r| (r - 1.0).abs() > 1e-3));
        let shifted = cfg(1, vec![(7, 1.5)]).seconds();
        assert!((shifted[7] / a[7] - 1.5).abs() < 1e-12);
        assert_eq!(shifted[8], a[8]);
    }

    #[test]
    fn the_log_parses_as_a_tinyprofiler_report() {
        let cfg = TinyProfilerConfig {
            timers: 30,
            ranks: 4,
            noise: 0.01,
            shifts: vec![],
            seed: 3,
        };
        let mut bytes = Vec::new();
        cfg.write(&mut bytes).unwrap();
        let log =
            crate::formats::tinyprofiler::parse(std::path::Path::new("job.log"), &bytes).unwrap();
        let timers = &log.reports[0].tables.timers;
        assert_eq!(timers.len(), 30);
        let secs = cfg.seconds();
        let t7 = timers.iter().find(|t| t.name == timer_name(7)).unwrap();
        assert!((t7.exclusive.avg / secs[7] - 1.0).abs() < 1e-3);
    }
}
