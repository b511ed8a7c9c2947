//! Numbers for people, by the README's output rules: times and bytes
//! with their unit (`12.35 ms`, `346.3 KiB`), percentages, and never a zero
//! that is not zero (`<0.01`, `0.0012`). Every table, text and HTML report
//! for people formats its numbers here.

use super::padding::Blanks;
use super::printf::c_g;
// `%.Nf` is the fixed-decimals layout of the reports for people too
// (imbalance ratios, time ranges), so they find it beside the others.
pub use super::printf::fixed;

/// `%.Ne` as Rust writes it: scientific notation with `decimals` digits
/// after the point (`1.234e-7`).
pub fn scientific(x: f64, decimals: usize) -> String {
    format!("{x:.decimals$e}")
}

/// A time for people: 4 significant digits in the unit that suits the value
/// (`1.234 s`, `12.35 ms`, `456.7 µs`, `3.200 ns`), so a timer that ran
/// never reads as zero; exact zero is `0`. The unit takes two characters
/// (`s ` is padded) so right-aligned numbers line up.
pub fn duration(x: f64) -> String {
    let mut s = String::new();
    write_duration(&mut s, x);
    s
}

/// [`duration`] written at the end of `w`, right-aligned to `width`
/// characters: the lines of big trees, without a `String` per number.
pub fn write_duration_right(w: &mut String, x: f64, width: usize) {
    // The blanks first, from the length the parts give: no counting and
    // moving of what was written (four numbers a line).
    if x == 0.0 {
        Blanks(width.saturating_sub(ZERO.len())).push_to(w);
        w.push_str(ZERO);
        return;
    }
    match duration_parts(x) {
        Some(parts) => parts.write_right(w, width),
        None => {
            let start = w.len();
            write_duration(w, x);
            super::padding::align_right(w, start, width);
        }
    }
}

/// [`duration`] of exact zero.
const ZERO: &str = "0   ";

/// [`duration`] written at the end of `w` (a table's cell, without a
/// `String` of its own).
pub fn write_duration(w: &mut String, x: f64) {
    if x == 0.0 {
        w.push_str(ZERO);
    } else if !x.is_finite() {
        // Writing into a String cannot fail.
        let _ = std::fmt::Write::write_fmt(w, format_args!("{x} s "));
    } else if let Some(parts) = duration_parts(x) {
        parts.write(w);
    } else {
        w.push_str(&duration_by_formatting(x));
    }
}

/// Powers of ten exact in an f64.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// ⌊log10 a⌋ or one less, for a normal positive `a`: its binary exponent
/// times log10 2 (78913 / 2^18, close enough for any f64 exponent),
/// rounded down.
fn decimal_exponent_estimate(a: f64) -> i32 {
    let binary = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    (binary * 78913) >> 18
}

/// `a · 10^k` (`|k| ≤ 22`) in one correctly rounded operation.
fn times_pow10(a: f64, k: i32) -> f64 {
    let p = POW10[k.unsigned_abs() as usize];
    if k >= 0 { a * p } else { a / p }
}

/// The integer nearest `w` when `w` is far from a tie (rounding errors of
/// a few operations cannot then change which integer it is).
fn clearly_nearest(w: f64) -> Option<f64> {
    let n = round_small(w);
    ((w - n).abs() < 0.25).then_some(n)
}

/// `w.round()` for `0 <= w < 2^52` by a conversion, which truncates:
/// `w + 0.5` is exact there (its ulp is at most 0.5). `round` is a library
/// call on x86-64, and a tree's text rounds twice per number.
fn round_small(w: f64) -> f64 {
    (w + 0.5) as u64 as f64
}

/// [`duration_parts`] written out, for the test that compares it with
/// [`duration_by_formatting`].
#[cfg(test)]
fn duration_by_arithmetic(x: f64) -> Option<String> {
    let mut s = String::new();
    duration_parts(x)?.write(&mut s);
    Some(s)
}

/// A duration decided by [`duration_parts`]: `digits` with `decimals` of
/// them after the point, then the unit (two characters).
struct DurationParts {
    negative: bool,
    digits: u64,
    decimals: usize,
    unit: &'static str,
}

impl DurationParts {
    fn write(&self, w: &mut String) {
        let mut buf = itoa::Buffer::new();
        self.write_digits(w, buf.format(self.digits));
    }

    /// [`Self::write`] right-aligned to `width` characters.
    fn write_right(&self, w: &mut String, width: usize) {
        if let Some(text) = self.four_digits_right(width, &mut [0; SHORT]) {
            w.push_str(text);
            return;
        }
        let mut buf = itoa::Buffer::new();
        let digits = buf.format(self.digits);
        // The sign, the digits, the point, the blank and the unit's two
        // characters (`µ` is one character of two bytes).
        let chars = usize::from(self.negative) + digits.len() + usize::from(self.decimals > 0) + 3;
        Blanks(width.saturating_sub(chars)).push_to(w);
        self.write_digits(w, digits);
    }

    /// [`Self::write_right`] of 4 digits (every duration below 10^4 s)
    /// laid out in `buf`, blanks included, to be pushed at once: a tree's
    /// lines have four numbers each, and a push per part (and the digits
    /// through `itoa`) cost more than finding them. `None` for more
    /// digits or more blanks than `buf` holds.
    fn four_digits_right<'b>(&self, width: usize, buf: &'b mut [u8; SHORT]) -> Option<&'b str> {
        let n = u32::try_from(self.digits).ok().filter(|n| (1000..10000).contains(n))?;
        let point = usize::from(self.decimals > 0);
        // The sign, the digits, the point, the blank and the unit's two
        // characters (`µ` is one character of two bytes).
        let chars = usize::from(self.negative) + 4 + point + 3;
        let blanks = width.saturating_sub(chars);
        let len = blanks + chars - 2 + self.unit.len();
        if len > SHORT || self.decimals > 3 {
            return None;
        }
        buf[..blanks].fill(b' ');
        let mut at = blanks;
        if self.negative {
            buf[at] = b'-';
            at += 1;
        }
        let digits = [n / 1000, n / 100 % 10, n / 10 % 10, n % 10].map(|d| b'0' + d as u8);
        let int = 4 - self.decimals;
        buf[at..at + int].copy_from_slice(&digits[..int]);
        at += int;
        if point > 0 {
            buf[at] = b'.';
            buf[at + 1..at + 1 + self.decimals].copy_from_slice(&digits[int..]);
            at += 1 + self.decimals;
        }
        buf[at] = b' ';
        at += 1;
        buf[at..at + self.unit.len()].copy_from_slice(self.unit.as_bytes());
        std::str::from_utf8(&buf[..at + self.unit.len()]).ok()
    }

    /// The number of `digits` (those of `self.digits`) and the unit.
    fn write_digits(&self, w: &mut String, digits: &str) {
        let (int, frac) = digits.split_at(digits.len() - self.decimals);
        if self.negative {
            w.push('-');
        }
        w.push_str(int);
        if self.decimals > 0 {
            w.push('.');
        }
        w.push_str(frac);
        w.push(' ');
        w.push_str(self.unit);
    }
}

/// Bytes of [`DurationParts::four_digits_right`]'s text: a column of a
/// tree's lines (10 characters) and room to spare.
const SHORT: usize = 24;

/// What [`duration_by_formatting`] writes, found with a few float
/// operations instead of two exact decimal conversions and a parse (a
/// tree's text writes four times per node): `None` where they cannot
/// decide it (below a nanosecond, above 10^14 s, within a hair of a
/// rounding tie above 10^4 s), and the formatting does it. The test
/// `arithmetic_durations_equal_formatted_ones` compares the two.
fn duration_parts(x: f64) -> Option<DurationParts> {
    let a = x.abs();
    if !(1e-9..1e14).contains(&a) {
        return None;
    }
    // `{x:.3e}`: digits n (1000..=9999) and exponent e, a ≈ n · 10^(e-3).
    // e starts as ⌊log10 a⌋ or one less, from a's binary exponent (no
    // logarithm: a tree's text has four times a line); the steps below
    // correct it.
    let mut e = decimal_exponent_estimate(a);
    let mut y = times_pow10(a, 3 - e);
    if y < 1000.0 {
        e -= 1;
        y = times_pow10(a, 3 - e);
    } else if y >= 10000.0 {
        e += 1;
        y = times_pow10(a, 3 - e);
    }
    // y is within 1e-12 of a · 10^(3-e). Near a tie (…5) the exact value
    // decides: a · 10^k (k ≥ 0) is y + err exactly, so the sign of
    // (y - tie) + err is the side of the tie it is on, and an exact tie
    // goes to the even digit, as the formatting rounds. After a division
    // (a ≥ 10^4 s) the formatting decides.
    // y is positive and small: conversions instead of library calls.
    let below = y as u64;
    let mut n = round_small(y);
    if ((y - below as f64) - 0.5).abs() < 1e-6 {
        if e > 3 {
            return None;
        }
        let err = a.mul_add(POW10[(3 - e) as usize], -y);
        let side = (y - (below as f64 + 0.5)) + err;
        n = if side > 0.0 || (side == 0.0 && below % 2 == 1) {
            below as f64 + 1.0
        } else {
            below as f64
        };
    }
    if !(1000.0..=10000.0).contains(&n) {
        return None;
    }
    if n == 10000.0 {
        n = 1000.0;
        e += 1;
    }
    // From a nanosecond to 9999 s the 4 digits are n and the unit and the
    // point follow from e alone (12.35 ms: n = 1235, e = -2), with no
    // float operation left: the value parsed back lies in [10^e, 10^(e+1))
    // and is n at 3 decimals of 10^e.
    if let Some((unit, shift)) = match e {
        0..=3 => Some(("s ", e)),
        -3..=-1 => Some(("ms", e + 3)),
        -6..=-4 => Some(("µs", e + 6)),
        -9..=-7 => Some(("ns", e + 9)),
        _ => None,
    } {
        return Some(DurationParts {
            negative: x < 0.0,
            digits: n as u64,
            decimals: (3 - shift) as usize,
            unit,
        });
    }
    // What parsing `{x:.3e}` gives: n and 10^(e-3) are exact, so one
    // division or product is the correctly rounded value.
    let r = times_pow10(n, e - 3);
    let (scale, unit) = if r >= 1.0 {
        (0, "s ")
    } else if r >= 1e-3 {
        (3, "ms")
    } else if r >= 1e-6 {
        (6, "µs")
    } else if r >= 1e-9 {
        (9, "ns")
    } else {
        return None;
    };
    let v = r * POW10[scale];
    let decimals: usize = match v {
        v if v >= 1000.0 => 0,
        v if v >= 100.0 => 1,
        v if v >= 10.0 => 2,
        _ => 3,
    };
    // `{v:.decimals$}`: v is within a few rounding errors of a decimal
    // with at most `decimals` places, so v · 10^decimals is near an integer.
    let digits = clearly_nearest(v * POW10[decimals])?;
    if digits < POW10[decimals] || digits >= 9.0e15 {
        return None;
    }
    Some(DurationParts {
        negative: x < 0.0,
        digits: digits as u64,
        decimals,
        unit,
    })
}

/// [`duration`] of a finite value that is not zero, by decimal formatting.
fn duration_by_formatting(x: f64) -> String {
    // Rounded to 4 significant digits first, so the unit is chosen for the
    // printed value (0.99996 s is `1.000 s`, not `1000 ms`).
    let r: f64 = format!("{x:.3e}").parse().unwrap_or(x);
    let a = r.abs();
    let (scale, unit) = if a >= 1.0 {
        (1.0, "s ")
    } else if a >= 1e-3 {
        (1e3, "ms")
    } else if a >= 1e-6 {
        (1e6, "µs")
    } else if a >= 1e-9 {
        (1e9, "ns")
    } else {
        // Below a nanosecond: no clock measures it; shown, not hidden.
        return format!("{r:.3e} s ");
    };
    let v = r * scale;
    let decimals = match v.abs() {
        v if v >= 1000.0 => 0,
        v if v >= 100.0 => 1,
        v if v >= 10.0 => 2,
        _ => 3,
    };
    format!("{v:.decimals$} {unit}")
}

/// `fixed(x, decimals)` for ratios and percentages, but never a zero that
/// is not zero: exact zero is `0`, and a value that would read `0.00` has
/// 2 significant digits instead (`0.0012`).
pub fn fixed_not_zero(x: f64, decimals: usize) -> String {
    if x == 0.0 {
        return "0".to_owned();
    }
    let s = fixed(x, decimals);
    if x.is_finite() && !s.bytes().any(|b| b.is_ascii_digit() && b != b'0') {
        c_g(x, 2)
    } else {
        s
    }
}

/// A percentage with 1 decimal; a share that is not zero never reads as
/// `0.0`: under 0.05 % it is `<0.1`.
pub fn percent1(x: f64) -> String {
    if x > 0.0 && x < 0.05 {
        return "<0.1".to_owned();
    }
    fixed(x, 1)
}

/// A time in a sentence or a cell of its own (HTML): [`duration`] without
/// the blank that aligns units in text columns.
pub fn duration_text(x: f64) -> String {
    let mut s = duration(x);
    s.truncate(s.trim_end().len());
    s
}

/// Seconds with enough decimals (at least 4) to tell apart values `step`
/// seconds apart: labels of histogram bins.
pub fn seconds_apart(x: f64, step: f64) -> String {
    let decimals = if step > 0.0 && step.is_finite() {
        ((-step.log10()).ceil() as i64 + 1).clamp(4, 12) as usize
    } else {
        4
    };
    fixed(x, decimals)
}

/// A time with its unit, as [`duration_text`], with more decimals where
/// they are needed to tell it from a value `step` seconds away: labels of
/// histogram bins, whose neighbours may differ past the 4th digit.
pub fn duration_apart(x: f64, step: f64) -> String {
    let plain = duration_text(x);
    // Exact zero (`0`), not finite, below a nanosecond (`1.234e-10 s`)
    // or no step to resolve: as it is.
    if x == 0.0 || !x.is_finite() || !(step > 0.0 && step.is_finite()) || plain.contains('e') {
        return plain;
    }
    let Some((number, unit)) = plain.split_once(' ') else {
        return plain;
    };
    let scale = match unit {
        "s" => 1.0,
        "ms" => 1e3,
        "µs" => 1e6,
        "ns" => 1e9,
        _ => return plain,
    };
    let shown = number.split_once('.').map_or(0, |(_, d)| d.len());
    // One digit past the step's first, as `seconds_apart`.
    let needed = ((-(step * scale).log10()).ceil() as i64 + 1).clamp(0, 12) as usize;
    if needed <= shown {
        return plain;
    }
    format!("{} {unit}", fixed(x * scale, needed))
}

/// A percentage with 2 decimals; a share that is not zero never reads as
/// `0.00`: under 0.005 % it is `<0.01`.
pub fn percent(x: f64) -> String {
    if x > 0.0 && x < 0.005 {
        return "<0.01".to_owned();
    }
    fixed(x, 2)
}

/// A byte count in human units (KiB, MiB, GiB) with one decimal.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_never_read_as_zero_unless_zero() {
        assert_eq!(fixed_not_zero(0.0, 2), "0");
        assert_eq!(fixed_not_zero(0.65, 2), "0.65");
        assert_eq!(fixed_not_zero(0.0012, 2), "0.0012");
        assert_eq!(fixed_not_zero(-0.00001, 1), "-1e-05");
        assert_eq!(fixed_not_zero(100.0, 1), "100.0");
    }

    /// The arithmetic finds what the formatting writes, wherever it
    /// decides: on random values over every unit, on values next to the
    /// ties of 4 digits and to the units' bounds, and it decides nearly
    /// all of them.
    #[test]
    fn decimal_exponent_estimates_are_the_floor_or_one_less() {
        let mut rng = crate::synth::SplitMix64::new(9);
        for _ in 0..100_000 {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let a = 10f64.powf(-10.0 + 25.0 * u);
            for a in [a, a.next_up(), a.next_down()] {
                let e = decimal_exponent_estimate(a);
                let exact = a.log10().floor() as i32;
                assert!(e == exact || e + 1 == exact, "{a:e}: {e} vs {exact}");
            }
        }
        for k in -9..15 {
            let p = 10f64.powi(k);
            for a in [p, p.next_down(), p.next_up()] {
                let e = decimal_exponent_estimate(a);
                assert!((e..=e + 1).contains(&(a.log10().floor() as i32)), "{a:e}");
            }
        }
    }

    #[test]
    fn arithmetic_durations_equal_formatted_ones() {
        let mut rng = crate::synth::SplitMix64::new(3);
        let mut values = Vec::new();
        for _ in 0..100_000 {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            values.push(10f64.powf(-11.0 + 27.0 * u));
            // n.5 · 10^k and n · 10^k, a few ulps either side.
            let n = 1000 + rng.next_u64() % 9000;
            let k = (rng.next_u64() % 26) as i32 - 13;
            for base in [(n as f64 + 0.5) * 10f64.powi(k), n as f64 * 10f64.powi(k)] {
                let mut v = base;
                for _ in 0..3 {
                    v = v.next_down();
                }
                for _ in 0..7 {
                    values.push(v);
                    v = v.next_up();
                }
            }
        }
        for bound in [1e-9, 1e-6, 1e-3, 1.0, 10.0, 100.0, 1000.0, 1e14] {
            for scale in [1.0, 0.9995, 0.99995, 9.9995, 99.995, 999.95] {
                values.push(bound * scale);
            }
        }
        for &v in &values {
            for x in [v, -v] {
                if let Some(fast) = duration_by_arithmetic(x) {
                    assert_eq!(fast, duration_by_formatting(x), "{x:e}");
                }
            }
        }
        // Exact ties and near ties below 10^4 s are decided.
        for x in [1234.5, 1.2345e-5, 7.0625e-6, 1.2345e-5f64.next_up()] {
            assert!(duration_by_arithmetic(x).is_some(), "{x:e}");
        }
        // Random values from 1 ns to 10^14 s: nearly all decided.
        let (mut inside, mut decided) = (0, 0);
        for _ in 0..100_000 {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let x = 10f64.powf(-8.9 + 22.8 * u);
            inside += 1;
            decided += usize::from(duration_by_arithmetic(x).is_some());
        }
        assert!(decided * 1000 > inside * 999, "{decided} of {inside}");
    }

    /// Right-aligned durations are `{:>width$}` of [`duration`], whether
    /// the arithmetic or the formatting decides them, in narrow and wide
    /// columns.
    #[test]
    fn right_aligned_durations_are_padded_durations() {
        let mut rng = crate::synth::SplitMix64::new(11);
        let mut values = vec![0.0, -0.0, 2e-12, 1234.5, -0.0033, 0.99996, 1e15, f64::NAN];
        values.push(f64::NEG_INFINITY);
        for _ in 0..20_000 {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let x = 10f64.powf(-11.0 + 27.0 * u);
            values.extend([x, -x]);
            // Next to the ties of 4 digits and to 10^k (where the unit or
            // the point moves: 999.95 µs is `1.000 ms`).
            let n = 1000 + rng.next_u64() % 9000;
            let k = (rng.next_u64() % 20) as i32 - 13;
            for base in [(n as f64 + 0.5) * 10f64.powi(k), 10f64.powi(k + 3)] {
                values.extend([base.next_down(), base, base.next_up()]);
            }
        }
        for x in [999.95e-6, 9.9995e-4, 0.99995, 9999.5, 1e-9, 0.9999e-9, 1e4] {
            values.extend([x, -x]);
        }
        for &x in &values {
            for width in [0, 7, 10, 14] {
                let mut w = String::from("ab");
                write_duration_right(&mut w, x, width);
                assert_eq!(w, format!("ab{:>width$}", duration(x)), "{x:e} in {width}");
            }
        }
    }

    #[test]
    fn durations_have_four_significant_digits_and_a_unit() {
        assert_eq!(duration(1.23456), "1.235 s ");
        assert_eq!(duration(1234.5), "1234 s ");
        assert_eq!(duration(0.0123456), "12.35 ms");
        assert_eq!(duration(4.5678e-4), "456.8 µs");
        assert_eq!(duration(3.2e-9), "3.200 ns");
        assert_eq!(duration(-0.0033), "-3.300 ms");
        // The unit of the rounded value.
        assert_eq!(duration(0.99996), "1.000 s ");
        assert_eq!(duration(9.99996e-4), "1.000 ms");
        assert_eq!(duration(0.0), "0   ");
        assert_eq!(duration(2e-12), "2.000e-12 s ");
        assert_eq!(duration(f64::NAN), "NaN s ");
        // Nothing that ran reads as zero.
        for e in -12..4 {
            let x = 1.7 * 10f64.powi(e);
            assert!(duration(x).chars().any(|c| ('1'..='9').contains(&c)), "{x}");
        }
    }

    #[test]
    fn formats() {
        assert_eq!(percent(21.6149), "21.61");
        assert_eq!(percent(0.0), "0.00");
        assert_eq!(percent(0.0049), "<0.01");
        assert_eq!(percent(0.005), "0.01");
        assert_eq!(percent1(0.0), "0.0");
        assert_eq!(percent1(0.049), "<0.1");
        assert_eq!(percent1(12.34), "12.3");
        assert_eq!(seconds_apart(0.00123, 0.01), "0.0012");
        assert_eq!(seconds_apart(0.0000123, 0.000001), "0.0000123");
        // Neighbouring bins 1 µs apart near 1.2 ms: 4 digits would print
        // both as 1.200 ms.
        assert_eq!(duration_apart(0.0012, 1e-6), "1.2000 ms");
        assert_eq!(duration_apart(0.001201, 1e-6), "1.2010 ms");
        assert_eq!(duration_apart(0.0012, 1e-5), "1.200 ms");
        assert_eq!(duration_apart(2.5e-6, 1.0), "2.500 µs");
        assert_eq!(duration_apart(0.0, 1e-9), "0");
        assert_eq!(duration_apart(1234.5, 1e-3), "1234.5000 s");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(354_635), "346.3 KiB");
    }
}
