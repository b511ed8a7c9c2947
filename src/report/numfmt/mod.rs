//! Number formatting in one place, so every report prints numbers alike.

/// `%.Nf`: fixed notation with `decimals` digits after the point.
pub fn fixed(x: f64, decimals: usize) -> String {
    format!("{x:.decimals$}")
}

/// `%.Ne` as Rust writes it: scientific notation with `decimals` digits
/// after the point (`1.234e-7`).
pub fn scientific(x: f64, decimals: usize) -> String {
    format!("{x:.decimals$e}")
}

/// Seconds as the reference tables print them (fixed, 4 decimals).
pub fn seconds(x: f64) -> String {
    fixed(x, 4)
}

/// A time for people: 4 significant digits in the unit that suits the value
/// (`1.234 s`, `12.35 ms`, `456.7 µs`, `3.200 ns`), so a timer that ran
/// never reads as zero; exact zero is `0`. The unit takes two characters
/// (`s ` is padded) so right-aligned numbers line up.
pub fn duration(x: f64) -> String {
    if x == 0.0 {
        return "0   ".to_owned();
    }
    if !x.is_finite() {
        return format!("{x} s ");
    }
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

/// Right-aligns `s` in `width` characters (never truncates, like printf).
pub fn right(s: &str, width: usize) -> String {
    format!("{}{s}", Blanks(width.saturating_sub(s.chars().count())))
}

/// `n` blanks. Widths that come from the data (a depth times an indent, a
/// name's length) go through this, not through a format width: `{:n$}`
/// panics past 65,535.
#[derive(Debug, Clone, Copy)]
pub struct Blanks(pub usize);

impl std::fmt::Display for Blanks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const CHUNK: &str = "                                                                ";
        let mut left = self.0;
        while left > 0 {
            let n = left.min(CHUNK.len());
            f.write_str(&CHUNK[..n])?;
            left -= n;
        }
        Ok(())
    }
}

/// Levels of indent at most in the text trees (real call trees nest a few
/// dozen deep): deeper lines stay at this indent and say their depth, so a
/// tree thousands deep does not grow with the square of its depth.
pub const MAX_TREE_INDENT: usize = 256;

/// A tree line's indent: `blanks_per_level` blanks per level; past
/// [`MAX_TREE_INDENT`] levels, those levels' blanks and `[depth N] `
/// (nothing at zero blanks per level: such lines show no depth at all).
#[derive(Debug, Clone, Copy)]
pub struct TreeIndent {
    pub depth: usize,
    pub blanks_per_level: usize,
    /// Levels indented at most (deeper lines say their depth).
    pub max_levels: usize,
}

impl TreeIndent {
    /// Two blanks per level, the text trees' indent.
    pub fn new(depth: usize) -> Self {
        TreeIndent::with_blanks(depth, 2)
    }

    /// `blanks_per_level` blanks per level, up to [`MAX_TREE_INDENT`].
    pub fn with_blanks(depth: usize, blanks_per_level: usize) -> Self {
        TreeIndent {
            depth,
            blanks_per_level,
            max_levels: MAX_TREE_INDENT,
        }
    }

    /// The indent within `room` characters: fewer levels indented (the
    /// rest said by `[depth N]`) when the whole indent would not fit.
    pub fn within(self, room: usize) -> Self {
        if self.width() <= room || self.blanks_per_level == 0 {
            return self;
        }
        let marker = format!("[depth {}] ", self.depth).len();
        let levels = room.saturating_sub(marker) / self.blanks_per_level;
        TreeIndent {
            max_levels: levels.min(self.max_levels),
            ..self
        }
    }

    /// Characters written.
    pub fn width(&self) -> usize {
        let levels = self.depth.min(self.max_levels);
        let marker = if self.depth > self.max_levels && self.blanks_per_level > 0 {
            format!("[depth {}] ", self.depth).len()
        } else {
            0
        };
        levels.saturating_mul(self.blanks_per_level) + marker
    }
}

impl std::fmt::Display for TreeIndent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let levels = self.depth.min(self.max_levels);
        write!(
            f,
            "{}",
            Blanks(levels.saturating_mul(self.blanks_per_level))
        )?;
        if self.depth > self.max_levels && self.blanks_per_level > 0 {
            write!(f, "[depth {}] ", self.depth)?;
        }
        Ok(())
    }
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
        assert_eq!(seconds(0.01081), "0.0108");
        assert_eq!(seconds(0.0), "0.0000");
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
        assert_eq!(right("ab", 4), "  ab");
        assert_eq!(right("abcdef", 4), "abcdef");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(354_635), "346.3 KiB");
    }
}

/// Formats into a stack buffer (no allocation on hot paths).
fn stack_fmt<'b>(buf: &'b mut [u8; 128], args: std::fmt::Arguments<'_>) -> &'b str {
    use std::io::Write;
    let mut cur = &mut buf[..];
    let _ = cur.write_fmt(args);
    let n = 128 - cur.len();
    std::str::from_utf8(&buf[..n]).unwrap_or("")
}

/// C's `%.<prec>g`: `prec` significant digits, trailing zeros removed,
/// exponent form when the exponent is < -4 or ≥ prec (at least two
/// exponent digits), as printf and C++ streams print.
pub fn c_g(x: f64, prec: usize) -> String {
    let mut v = Vec::with_capacity(24);
    write_c_g(&mut v, x, prec);
    String::from_utf8(v).unwrap_or_default()
}

/// [`c_g`] appended to `out`.
pub fn write_c_g(out: &mut Vec<u8>, x: f64, prec: usize) {
    if x.is_nan() {
        out.extend_from_slice(if x.is_sign_negative() {
            b"-nan"
        } else {
            b"nan"
        });
        return;
    }
    if x.is_infinite() {
        out.extend_from_slice(if x < 0.0 { b"-inf" } else { b"inf" });
        return;
    }
    let prec = prec.clamp(1, 40);
    if x == 0.0 {
        out.extend_from_slice(if x.is_sign_negative() { b"-0" } else { b"0" });
        return;
    }
    if !write_c_g_fast(out, x, prec) {
        write_c_g_exact(out, x, prec);
    }
}

/// [`write_c_g`] through the general exact decimal conversion.
fn write_c_g_exact(out: &mut Vec<u8>, x: f64, prec: usize) {
    // Rounding to `prec` digits first decides the exponent (9.99995 → 1e+01).
    let mut buf = [0u8; 128];
    let e_form = stack_fmt(&mut buf, format_args!("{:.*e}", prec - 1, x));
    let (mantissa, exp) = e_form.split_once('e').unwrap_or((e_form, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= prec as i32 {
        out.extend_from_slice(trim_fraction(mantissa).as_bytes());
        out.push(b'e');
        out.push(if exp < 0 { b'-' } else { b'+' });
        let a = exp.unsigned_abs();
        if a < 10 {
            out.push(b'0');
        }
        let mut b2 = [0u8; 128];
        out.extend_from_slice(stack_fmt(&mut b2, format_args!("{a}")).as_bytes());
    } else {
        // Fixed notation with prec-1-exp decimals has the same prec
        // significant digits: place the point in the digits already rounded.
        if x < 0.0 {
            out.push(b'-');
        }
        let mut dbuf = [0u8; 48];
        let mut nd = 0;
        for b in mantissa.bytes().filter(u8::is_ascii_digit) {
            if nd < dbuf.len() {
                dbuf[nd] = b;
                nd += 1;
            }
        }
        let digits = &dbuf[..nd];
        let start = out.len();
        if exp >= 0 {
            let int_len = exp as usize + 1;
            out.extend_from_slice(&digits[..int_len.min(digits.len())]);
            if digits.len() > int_len {
                out.push(b'.');
                out.extend_from_slice(&digits[int_len..]);
            }
        } else {
            out.extend_from_slice(b"0.");
            for _ in 0..(-exp - 1) {
                out.push(b'0');
            }
            out.extend_from_slice(digits);
        }
        if out[start..].contains(&b'.') {
            while out.last() == Some(&b'0') {
                out.pop();
            }
            if out.last() == Some(&b'.') {
                out.pop();
            }
        }
    }
}

/// Exact powers of ten as f64 (10^0 ..= 10^22 are representable).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `%g` without the general decimal conversion, for the common case: the
/// double is m·2^e exactly, so its value scaled by 10^k (k ≤ 22) to `prec`
/// integer digits is m·10^k / 2^-e, which fits in 128 bits and is rounded
/// exactly (half to even, as printf does). Values that do not fit (huge,
/// tiny, more than 17 digits) return false: the general path decides.
fn write_c_g_fast(out: &mut Vec<u8>, x: f64, prec: usize) -> bool {
    if prec > 17 {
        return false;
    }
    let a = x.abs();
    let bits = a.to_bits();
    let (mant, bin_exp) = match (bits >> 52) as i32 {
        0 => (bits & ((1 << 52) - 1), -1074),
        b => ((bits & ((1 << 52) - 1)) | (1 << 52), b - 1075),
    };
    if bin_exp >= 0 || mant == 0 {
        return false;
    }
    // Decimal exponent estimate, corrected below from the digits.
    let mut e = if a >= 1.0 {
        match POW10[..16].iter().rposition(|&p| a >= p) {
            Some(e) => e as i32,
            None => return false,
        }
    } else {
        let mut e = -1;
        let mut scaled = a * 10.0;
        while scaled < 1.0 {
            e -= 1;
            scaled *= 10.0;
            if e < -30 {
                return false;
            }
        }
        e
    };
    let low = 10u128.pow(prec as u32 - 1);
    let top = low * 10;
    let shift = (-bin_exp) as u32;
    let mut n = 0u128;
    let mut settled = false;
    for _ in 0..2 {
        let k = prec as i32 - 1 - e;
        if !(0..=22).contains(&k) || shift >= 128 {
            return false;
        }
        let scaled = mant as u128 * 10u128.pow(k as u32);
        let (q, r) = (scaled >> shift, scaled & ((1u128 << shift) - 1));
        let half = 1u128 << (shift - 1);
        n = q + u128::from(r > half || (r == half && q & 1 == 1));
        // The truncated digits say whether the exponent was right; rounding
        // up to 10^prec is right (it carries into the exponent below).
        if q < low {
            e -= 1;
        } else if q >= top {
            e += 1;
        } else {
            settled = true;
            break;
        }
    }
    if !settled {
        return false;
    }
    if n == top {
        n = low;
        e += 1;
    }
    if !(low..top).contains(&n) {
        return false;
    }
    let exp = e;
    let n = n as u64;
    let mut ibuf = itoa::Buffer::new();
    let digits = ibuf.format(n).as_bytes();
    // Significant digits without trailing zeros.
    let sig = digits.len() - digits.iter().rev().take_while(|&&d| d == b'0').count();
    if x < 0.0 {
        out.push(b'-');
    }
    if exp < -4 || exp >= prec as i32 {
        out.push(digits[0]);
        if sig > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..sig]);
        }
        out.push(b'e');
        out.push(if exp < 0 { b'-' } else { b'+' });
        let ea = exp.unsigned_abs();
        if ea < 10 {
            out.push(b'0');
        }
        out.extend_from_slice(itoa::Buffer::new().format(ea).as_bytes());
    } else if exp >= 0 {
        let int_len = exp as usize + 1;
        out.extend_from_slice(&digits[..int_len]);
        if sig > int_len {
            out.push(b'.');
            out.extend_from_slice(&digits[int_len..sig]);
        }
    } else {
        out.extend_from_slice(b"0.");
        for _ in 0..(-exp - 1) {
            out.push(b'0');
        }
        out.extend_from_slice(&digits[..sig]);
    }
    true
}

fn trim_fraction(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// Java's `Double.toString`: the shortest decimal that reads back to `x`,
/// plain between 10⁻³ and 10⁷, else `d.dddE<exp>`; when the shortest has one
/// digit Java prints the closest one- or two-digit decimal (`4.9E-324`).
pub fn java_double(x: f64) -> String {
    let mut v = Vec::with_capacity(24);
    write_java_double(&mut v, x);
    String::from_utf8(v).unwrap_or_default()
}

/// [`java_double`] appended to `out`.
pub fn write_java_double(out: &mut Vec<u8>, x: f64) {
    if x.is_nan() {
        out.extend_from_slice(b"NaN");
        return;
    }
    if x.is_infinite() {
        out.extend_from_slice(if x > 0.0 { b"Infinity" } else { b"-Infinity" });
        return;
    }
    if x == 0.0 {
        out.extend_from_slice(if x.is_sign_negative() {
            b"-0.0"
        } else {
            b"0.0"
        });
        return;
    }
    if x < 0.0 {
        out.push(b'-');
    }
    let a = x.abs();
    // Digits (no point) and decimal exponent of the shortest round-trip form.
    let mut buf = [0u8; 128];
    let mut digits = [0u8; 40];
    let mut nd = 0usize;
    let mut exp: i32 = 0;
    let parse = |s: &str, digits: &mut [u8; 40], nd: &mut usize, exp: &mut i32| {
        let (m, e) = s.split_once('e').unwrap_or((s, "0"));
        *nd = 0;
        for b in m.bytes().filter(u8::is_ascii_digit) {
            if *nd < 40 {
                digits[*nd] = b;
                *nd += 1;
            }
        }
        *exp = e.parse().unwrap_or(0);
    };
    parse(
        stack_fmt(&mut buf, format_args!("{a:e}")),
        &mut digits,
        &mut nd,
        &mut exp,
    );
    if nd == 1 {
        let mut b2 = [0u8; 128];
        parse(
            stack_fmt(&mut b2, format_args!("{a:.1e}")),
            &mut digits,
            &mut nd,
            &mut exp,
        );
        while nd > 1 && digits[nd - 1] == b'0' {
            nd -= 1;
        }
    }
    let d = &digits[..nd];
    if (1e-3..1e7).contains(&a) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            for i in 0..int_len {
                out.push(*d.get(i).unwrap_or(&b'0'));
            }
            out.push(b'.');
            if nd > int_len {
                out.extend_from_slice(&d[int_len..]);
            } else {
                out.push(b'0');
            }
        } else {
            out.extend_from_slice(b"0.");
            for _ in 0..(-exp - 1) {
                out.push(b'0');
            }
            out.extend_from_slice(d);
        }
    } else {
        out.push(d[0]);
        out.push(b'.');
        if nd > 1 {
            out.extend_from_slice(&d[1..]);
        } else {
            out.push(b'0');
        }
        out.push(b'E');
        let mut b2 = [0u8; 128];
        out.extend_from_slice(stack_fmt(&mut b2, format_args!("{exp}")).as_bytes());
    }
}

#[cfg(test)]
mod java_tests {
    use super::{c_g, java_double};

    #[test]
    fn like_java() {
        for (x, s) in [
            (6e-6, "6.0E-6"),
            (2.76e-4, "2.76E-4"),
            (0.6001409999999999, "0.6001409999999999"),
            (12.001606, "12.001606"),
            (1e7, "1.0E7"),
            (9999999.0, "9999999.0"),
            (0.00099999, "9.9999E-4"),
            (0.001, "0.001"),
            (1e-4, "1.0E-4"),
            (1.5e-7, "1.5E-7"),
            (1e16, "1.0E16"),
            (9007199254740992.0, "9.007199254740992E15"),
            (1e21, "1.0E21"),
            (1.23456789e8, "1.23456789E8"),
            (5e-324, "4.9E-324"),
            (2.2250738585072014e-308, "2.2250738585072014E-308"),
            (-0.0, "-0.0"),
            (100.0, "100.0"),
            (-3.5, "-3.5"),
            (1e-300, "1.0E-300"),
            (123456.5, "123456.5"),
            (9999999.999, "9999999.999"),
        ] {
            assert_eq!(java_double(x), s, "{x:e}");
        }
        assert_eq!(java_double(f64::NAN), "NaN");
        assert_eq!(java_double(f64::NEG_INFINITY), "-Infinity");
    }

    #[test]
    fn c_g_six_digits() {
        for (x, s) in [
            (6e-6, "6e-06"),
            (2.76e-4, "0.000276"),
            (4.000407, "4.00041"),
            (1e7, "1e+07"),
            (9999999.999, "1e+07"),
            (123456.5, "123456"),
            (1234567.0, "1.23457e+06"),
            (0.00099999, "0.00099999"),
            (12345.678, "12345.7"),
            (9007199254740992.0, "9.0072e+15"),
            (5e-324, "4.94066e-324"),
            (1e300, "1e+300"),
            (-0.0, "-0"),
            (999999.5, "1e+06"),
        ] {
            assert_eq!(c_g(x, 6), s, "{x:e}");
        }
        // Exact binary ties round half to even, as glibc's printf does.
        for (x, p, s) in [
            (0.125, 2, "0.12"),
            (0.375, 2, "0.38"),
            (2.5, 1, "2"),
            (3.5, 1, "4"),
            (0.30000000000000004, 16, "0.3000000000000000"),
            (0.1, 17, "0.10000000000000001"),
        ] {
            let s = s.trim_end_matches('0').trim_end_matches('.');
            assert_eq!(c_g(x, p), s, "{x:e} at {p}");
        }
    }

    /// The fast path agrees with the exact conversion, including near
    /// decimal halves and power-of-ten boundaries.
    #[test]
    fn fast_path_matches_exact() {
        let mut rng = crate::synth::SplitMix64::new(7);
        let mut fast = Vec::new();
        let mut exact = Vec::new();
        for i in 0..400_000u64 {
            let bits = rng.next_u64();
            let x = match i % 4 {
                0 => f64::from_bits(bits),
                1 => {
                    (bits >> 11) as f64 / (1u64 << 53) as f64 * 10f64.powi((bits % 30) as i32 - 12)
                }
                // Decimal halves at every precision, and their neighbours.
                2 => {
                    let v = ((bits >> 20) % 2_000_000) as f64 + 0.5;
                    let v = v / 10f64.powi((bits % 9) as i32);
                    f64::from_bits(v.to_bits().wrapping_add(bits % 3).wrapping_sub(1))
                }
                _ => 10f64.powi((bits % 40) as i32 - 20) * (1.0 - (bits % 5) as f64 * 1e-16),
            };
            if !x.is_finite() || x == 0.0 {
                continue;
            }
            for prec in [1, 3, 6, 10, 15, 16, 17] {
                fast.clear();
                exact.clear();
                if super::write_c_g_fast(&mut fast, x, prec) {
                    super::write_c_g_exact(&mut exact, x, prec);
                    assert_eq!(
                        std::str::from_utf8(&fast).unwrap(),
                        std::str::from_utf8(&exact).unwrap(),
                        "{x:e} prec {prec}"
                    );
                }
            }
        }
    }
}

/// Seconds as TinyProfiler prints them: 4 significant digits, shortest form
/// (`10.71`, `0.07857`, `3.296e-05`).
pub fn sig4(x: f64) -> String {
    c_g(x, 4)
}

/// Bytes as TinyProfiler prints them: an integer of at most 4 digits and a
/// unit (`1665 B`, `8192 KiB`): 10000 or more is divided by 1024 (integer
/// division) and moves to the next unit.
pub fn tiny_bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let (mut v, mut u) = (n, 0);
    while v >= 10000 && u + 1 < UNITS.len() {
        v /= 1024;
        u += 1;
    }
    format!("{v} {:>3}", UNITS[u])
}

/// A time as text: the shortest decimal that reads back to the same f64, or
/// a special value's name.
pub fn time_text(x: f64) -> String {
    if x.is_nan() {
        "NaN".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else {
        // serde_json prints finite f64 as shortest round-trip decimals.
        serde_json::Number::from_f64(x).map_or_else(|| x.to_string(), |n| n.to_string())
    }
}

// Fortran `ES` edit descriptors (the timer-tree layouts).

/// Which value the `ES` formatters round.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Precision {
    /// The f64 seconds as they are.
    #[default]
    F64,
    /// The nearest binary32 first, as the Fortran reference stores times:
    /// byte parity with its output for times that are not already binary32.
    Binary32,
}

impl Precision {
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Precision::F64 => x,
            Precision::Binary32 => x as f32 as f64,
        }
    }
}

/// Fortran `ES12.5`: ` d.dddddE±dd`, sign column included, specials
/// right-justified. Rounds the exact binary value to 6 significant digits,
/// ties to even (as gfortran does).
///
/// Binary32 never needs a three-digit exponent; f64 may. Fortran would drop
/// the `E` (`1.00000+100`); we keep it and widen the field to 13 characters.
pub fn es12_5(x: f64) -> String {
    fortran_es(x, 5, 12, true)
}

/// Fortran `ES9.3` (Truchas' summary): `d.dddE±dd` with no sign column, so
/// every finite negative value, −0.0 included, is `*********`. Three-digit
/// exponents widen the field, as in [`es12_5`].
pub fn es9_3(x: f64) -> String {
    fortran_es(x, 3, 9, false)
}

fn fortran_es(x: f64, digits: usize, width: usize, sign_column: bool) -> String {
    let body = if x.is_nan() {
        "NaN".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else if x.is_sign_negative() && !sign_column {
        // No room for the sign: Fortran fills the field with asterisks.
        return "*".repeat(width);
    } else {
        let sign = match (x.is_sign_negative(), sign_column) {
            (true, _) => "-",
            (false, true) => " ",
            (false, false) => "",
        };
        // Rust's exact formatting is correctly rounded, ties to even, like
        // gfortran; only the exponent's spelling differs ("e-2" vs "E-02").
        let text = format!("{:.*e}", digits, x.abs());
        let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let exp_sign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{mantissa}E{exp_sign}{:02}", exp.unsigned_abs())
    };
    format!(
        "{}{body}",
        Blanks(width.saturating_sub(body.chars().count()))
    )
}

#[cfg(test)]
mod fortran_tests {
    use super::*;

    /// The binary32 nearest to a decimal, as the reference would store it.
    fn f32v(decimal: &str) -> f64 {
        decimal.parse::<f32>().map(f64::from).unwrap_or(f64::NAN)
    }

    #[test]
    fn es12_5_plain_values() {
        assert_eq!(es12_5(0.04899999871850014), " 4.90000E-02");
        assert_eq!(es12_5(1.0), " 1.00000E+00");
        assert_eq!(es12_5(1e-7), " 1.00000E-07");
        assert_eq!(es12_5(-1.5), "-1.50000E+00");
        assert_eq!(es12_5(10.0), " 1.00000E+01");
    }

    #[test]
    fn es12_5_rounding_edges() {
        // Exact binary tie: to even.
        assert_eq!(es12_5(0.0009765625), " 9.76562E-04");
        assert_eq!(es12_5(f32v("0.123456789")), " 1.23457E-01");
        // Rolls over into the exponent.
        assert_eq!(es12_5(f32v("9.999995")), " 1.00000E+01");
        // Same decimal, different binary value, different result.
        assert_eq!(es12_5(f32v("1.234565")), " 1.23457E+00");
        assert_eq!(es12_5(1.234565), " 1.23456E+00");
        assert_eq!(es12_5(Precision::Binary32.apply(1.234565)), " 1.23457E+00");
        assert_eq!(es12_5(f32v("99999.5")), " 9.99995E+04");
    }

    #[test]
    fn es12_5_zero_and_specials() {
        assert_eq!(es12_5(0.0), " 0.00000E+00");
        assert_eq!(es12_5(-0.0), "-0.00000E+00");
        assert_eq!(es12_5(f64::NAN), "         NaN");
        assert_eq!(es12_5(f64::INFINITY), "    Infinity");
        assert_eq!(es12_5(f64::NEG_INFINITY), "   -Infinity");
    }

    #[test]
    fn es12_5_exponent_extremes() {
        assert_eq!(es12_5(f64::from(f32::MAX)), " 3.40282E+38");
        assert_eq!(es12_5(f64::from(f32::MIN_POSITIVE)), " 1.17549E-38");
        assert_eq!(es12_5(f32v("1e-40")), " 9.99995E-41");
        // Three-digit exponents (f64 only) keep the E and widen the field.
        assert_eq!(es12_5(1e100), " 1.00000E+100");
        assert_eq!(es12_5(-2.5e-300), "-2.50000E-300");
        assert_eq!(es12_5(f64::MAX), " 1.79769E+308");
        assert_eq!(es12_5(5e-324), " 4.94066E-324");
        assert_eq!(es12_5(9.999995e99), " 9.99999E+99");
        assert_eq!(es12_5(9.9999951e99), " 1.00000E+100");
    }

    #[test]
    fn es9_3_truchas_values() {
        assert_eq!(es9_3(f32v("0.049")), "4.900E-02");
        assert_eq!(es9_3(f32v("99999.5")), "1.000E+05");
        assert_eq!(es9_3(f64::from(f32::MAX)), "3.403E+38");
        assert_eq!(es9_3(f32v("1e-40")), "1.000E-40");
        assert_eq!(es9_3(0.0), "0.000E+00");
        assert_eq!(es9_3(-0.0), "*********");
        assert_eq!(es9_3(-1.0), "*********");
        assert_eq!(es9_3(f64::NAN), "      NaN");
        assert_eq!(es9_3(f64::INFINITY), " Infinity");
        assert_eq!(es9_3(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(es9_3(1e100), "1.000E+100");
    }
}
