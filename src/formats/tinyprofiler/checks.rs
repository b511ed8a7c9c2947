//! What no TinyProfiler writes: the numbers a report prints are times,
//! shares and counts over ranks, so a negative or non-finite time, a
//! minimum over the maximum, an average outside them or a share outside
//! 0..100 % is damage (an edited or garbled log), an error at its line
//! rather than a report that silently computes with it.

use std::path::Path;

use super::lines::invalid;
use crate::error::Result;
use crate::model::tinyprofiler::Spread;

/// Slack for the printed rounding: the report prints 4 significant digits
/// (and rounding is monotonic, so min <= avg <= max holds after it); the
/// slack only keeps a hand-edited last digit from being called damage.
const ROUNDING: f64 = 1e-3;

/// Whether `a <= b` once printing is allowed for.
fn at_most(a: f64, b: f64) -> bool {
    a <= b + ROUNDING * b.abs().max(a.abs())
}

/// Times over ranks (`what` names them in the message): finite, not
/// negative, min <= avg <= max.
pub(super) fn times(path: &Path, line: usize, what: &str, s: Spread<f64>) -> Result<()> {
    for (name, v) in [("min", s.min), ("avg", s.avg), ("max", s.max)] {
        if !v.is_finite() || v < 0.0 {
            return Err(invalid(
                path,
                line,
                format!("{what}: {name} {v} is not a time (finite, not negative)"),
            ));
        }
    }
    spread(path, line, what, s.min, s.avg, s.max)
}

/// Byte counts over ranks: min <= avg <= max.
pub(super) fn sizes(path: &Path, line: usize, what: &str, s: Spread<u64>) -> Result<()> {
    spread(path, line, what, s.min as f64, s.avg as f64, s.max as f64)
}

fn spread(path: &Path, line: usize, what: &str, min: f64, avg: f64, max: f64) -> Result<()> {
    if at_most(min, avg) && at_most(avg, max) {
        return Ok(());
    }
    Err(invalid(
        path,
        line,
        format!("{what}: min {min}, avg {avg}, max {max} (the average lies outside min..max)"),
    ))
}

/// A `Max %` column: a share of the total time, 0..100 %.
pub(super) fn percent(path: &Path, line: usize, p: f64) -> Result<()> {
    // 100.00% is printed for the outermost timer; rounding may add 0.005.
    if p.is_finite() && (0.0..=100.01).contains(&p) {
        return Ok(());
    }
    Err(invalid(
        path,
        line,
        format!("Max % {p}% is not a share of the total time (0..100 %)"),
    ))
}

/// A run's rank count: at least one.
pub(super) fn ranks(path: &Path, line: usize, n: u64) -> Result<()> {
    if n > 0 {
        return Ok(());
    }
    Err(invalid(
        path,
        line,
        "a run of 0 MPI processes (a run has at least one rank)",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("job.out")
    }

    fn s(min: f64, avg: f64, max: f64) -> Spread<f64> {
        Spread { min, avg, max }
    }

    #[test]
    fn times_are_finite_not_negative_and_ordered() {
        assert!(times(p(), 1, "t", s(0.0, 1.0, 2.0)).is_ok());
        // Equal after printing: 4 digits each.
        assert!(times(p(), 1, "t", s(9.98, 9.98, 9.98)).is_ok());
        for bad in [
            s(-1.0, 1.0, 2.0),
            s(0.0, f64::NAN, 2.0),
            s(0.0, 1.0, f64::INFINITY),
            s(3.0, 1.0, 2.0),
            s(0.0, 3.0, 2.0),
        ] {
            let e = times(p(), 7, "t", bad).unwrap_err().to_string();
            assert!(e.contains("job.out") && e.contains('7'), "{e}");
        }
    }

    #[test]
    fn shares_and_ranks() {
        assert!(percent(p(), 1, 100.0).is_ok() && percent(p(), 1, 0.0).is_ok());
        for bad in [-0.5, 100.5, f64::NAN] {
            assert!(percent(p(), 1, bad).is_err(), "{bad}");
        }
        assert!(ranks(p(), 1, 1).is_ok() && ranks(p(), 1, 0).is_err());
        assert!(
            sizes(
                p(),
                1,
                "m",
                Spread {
                    min: 1,
                    avg: 2,
                    max: 3
                }
            )
            .is_ok()
        );
        assert!(
            sizes(
                p(),
                1,
                "m",
                Spread {
                    min: 3,
                    avg: 2,
                    max: 3
                }
            )
            .is_err()
        );
    }
}
