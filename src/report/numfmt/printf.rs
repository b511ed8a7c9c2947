//! C `printf` layouts of a double, for byte parity with tools written in
//! C and C++ (amrprofparser's reports and call traces, the C tlog dump):
//! `%.Nf`, `%Ns` and `%.<prec>g`, including glibc's rounding of exact
//! binary ties to even.

use super::padding::Blanks;

/// `%.Nf`: fixed notation with `decimals` digits after the point.
pub fn fixed(x: f64, decimals: usize) -> String {
    format!("{x:.decimals$}")
}

/// Right-aligns `s` in `width` characters (never truncates, like printf).
pub fn right(s: &str, width: usize) -> String {
    format!("{}{s}", Blanks(width.saturating_sub(s.chars().count())))
}

/// Formats into a stack buffer (no allocation on hot paths); [`super::java`]
/// builds its digits with it too.
pub(super) fn stack_fmt<'b>(buf: &'b mut [u8; 128], args: std::fmt::Arguments<'_>) -> &'b str {
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

#[cfg(test)]
mod tests {
    use super::{c_g, right};

    #[test]
    fn right_aligns_without_truncating() {
        assert_eq!(right("ab", 4), "  ab");
        assert_eq!(right("abcdef", 4), "abcdef");
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
