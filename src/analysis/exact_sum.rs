//! A sum of seconds that is the same in any order of its terms: fixed
//! point in units of 2⁻⁶⁴ s, so that parallel parts can be added up in
//! whatever order they finish and a mean comes out the same to the bit.
//!
//! Times from `MPI_Wtime` and differences of them are multiples of far
//! coarser units than 2⁻⁶⁴ s, so every term is taken exactly and the sum
//! is rounded once, when it is read. Terms of 2⁴⁰ s (35,000 years) or more,
//! or not finite, can only come from damaged data: they are summed as
//! floats instead (in the order they come).

/// 2⁶⁴ as a float: a term's scale to fixed point.
const SCALE: f64 = 18_446_744_073_709_551_616.0;
/// Terms at least this large are not taken in fixed point.
const LARGEST: f64 = (1u64 << 40) as f64;

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ExactSum {
    fixed: i128,
    /// The terms the fixed point cannot hold (and a sum past its range).
    float: f64,
    /// Whether any term was summed as a float.
    inexact: bool,
}

impl ExactSum {
    pub const ZERO: ExactSum = ExactSum {
        fixed: 0,
        float: 0.0,
        inexact: false,
    };

    pub fn add(&mut self, x: f64) {
        if x.abs() < LARGEST {
            // Exact: a power-of-two scale, then the bits below 2⁻⁶⁴ s
            // (none in practice) cut off.
            let term = (x * SCALE) as i128;
            match self.fixed.checked_add(term) {
                Some(s) => self.fixed = s,
                None => self.add_float(x),
            }
        } else {
            self.add_float(x);
        }
    }

    fn add_float(&mut self, x: f64) {
        self.float += x;
        self.inexact = true;
    }

    /// Adds another sum's terms.
    pub fn merge(&mut self, other: &ExactSum) {
        match self.fixed.checked_add(other.fixed) {
            Some(s) => self.fixed = s,
            None => self.add_float(other.fixed as f64 / SCALE),
        }
        if other.inexact {
            self.add_float(other.float);
        }
    }

    /// The sum, rounded once (`i128 as f64` rounds to nearest).
    pub fn value(&self) -> f64 {
        let fixed = self.fixed as f64 / SCALE;
        if self.inexact {
            fixed + self.float
        } else {
            fixed
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_sum_in_any_order() {
        // Latencies of a real shape: differences of times near 1e4 s, of
        // both signs and very different sizes.
        let mut terms: Vec<f64> = (0..10_000u32)
            .map(|i| {
                let t = 12_345.678 + f64::from(i) * 1e-3;
                let other = t + f64::from(i % 97) * 1.3e-5 - 7e-4;
                other - t
            })
            .chain([1e-9, -3.5, 1e3, 2.0f64.powi(-50)])
            .collect();
        let sum = |terms: &[f64]| {
            let mut s = ExactSum::default();
            terms.iter().for_each(|&x| s.add(x));
            s
        };
        let forward = sum(&terms);
        terms.reverse();
        let backward = sum(&terms);
        assert_eq!(forward.value().to_bits(), backward.value().to_bits());
        // In parts merged in another order, too.
        let (a, b) = terms.split_at(3_333);
        let mut parts = sum(b);
        parts.merge(&sum(a));
        assert_eq!(parts.value().to_bits(), forward.value().to_bits());
        // Where plain floats depend on the order.
        let (a, b) = ([1e3, 1e-17, -1e3], [1e3, -1e3, 1e-17]);
        let naive = |terms: &[f64]| terms.iter().sum::<f64>();
        assert_ne!(naive(&a), naive(&b));
        assert_eq!(sum(&a).value().to_bits(), sum(&b).value().to_bits());
    }

    #[test]
    fn exact_where_floats_round() {
        let mut s = ExactSum::default();
        for x in [1e3, 1e-17, -1e3] {
            s.add(x);
        }
        // Plain floats give 0 (the small term is lost, then the big ones
        // cancel); the fixed point keeps it (to 2⁻⁶⁴ s).
        assert_eq!(1e3 + 1e-17 - 1e3, 0.0);
        assert!((s.value() - 1e-17).abs() < 1e-19, "{}", s.value());
    }

    #[test]
    fn damaged_terms_are_summed_as_floats() {
        let mut s = ExactSum::default();
        s.add(1.5);
        s.add(1e300);
        assert_eq!(s.value(), 1e300);
        s.add(f64::NAN);
        assert!(s.value().is_nan());
        let mut t = ExactSum::default();
        t.add(f64::INFINITY);
        t.add(2.0);
        assert_eq!(t.value(), f64::INFINITY);
        // A fixed-point sum past its range goes on as floats.
        let mut u = ExactSum::default();
        for _ in 0..(1 << 24) {
            u.add(1e12);
        }
        assert!((u.value() - 1e12 * f64::from(1 << 24)).abs() < 1e16);
        let mut v = ExactSum::default();
        v.merge(&u);
        v.merge(&u);
        assert!((v.value() - 2e12 * f64::from(1 << 24)).abs() < 1e16);
    }
}
