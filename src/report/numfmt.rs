//! Number formatting in one place, so every report prints numbers alike.

/// `%.Nf`: fixed notation with `decimals` digits after the point.
pub fn fixed(x: f64, decimals: usize) -> String {
    format!("{x:.decimals$}")
}

/// Seconds as the reference tables print them (fixed, 4 decimals).
pub fn seconds(x: f64) -> String {
    fixed(x, 4)
}

/// A percentage with 2 decimals.
pub fn percent(x: f64) -> String {
    fixed(x, 2)
}

/// Right-aligns `s` in `width` characters (never truncates, like printf).
pub fn right(s: &str, width: usize) -> String {
    format!("{s:>width$}")
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
    fn formats() {
        assert_eq!(seconds(0.01081), "0.0108");
        assert_eq!(seconds(0.0), "0.0000");
        assert_eq!(percent(21.6149), "21.61");
        assert_eq!(right("ab", 4), "  ab");
        assert_eq!(right("abcdef", 4), "abcdef");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(354_635), "346.3 KiB");
    }
}

/// C's `%.<prec>g`: `prec` significant digits, trailing zeros removed,
/// exponent form when the exponent is < -4 or ≥ prec (at least two
/// exponent digits), as printf and C++ streams print.
pub fn c_g(x: f64, prec: usize) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.to_owned();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.to_owned();
    }
    let prec = prec.max(1);
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    // Rounding to `prec` digits first decides the exponent (9.99995 → 1e+01).
    let e_form = format!("{:.*e}", prec - 1, x);
    let (mantissa, exp) = e_form.split_once('e').unwrap_or((&e_form, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= prec as i32 {
        let m = trim_fraction(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (prec as i32 - 1 - exp).max(0) as usize;
        trim_fraction(&format!("{x:.decimals$}")).to_owned()
    }
}

fn trim_fraction(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod c_g_tests {
    use super::c_g;

    #[test]
    fn like_printf() {
        assert_eq!(c_g(2.733300000012928e-05, 16), "2.733300000012928e-05");
        assert_eq!(c_g(0.002488704000000008, 16), "0.002488704000000008");
        assert_eq!(c_g(0.032572979, 16), "0.032572979");
        assert_eq!(c_g(1.0, 16), "1");
        assert_eq!(c_g(100000.0, 6), "100000");
        assert_eq!(c_g(1000000.0, 6), "1e+06");
        assert_eq!(c_g(0.0001, 6), "0.0001");
        assert_eq!(c_g(0.00001, 6), "1e-05");
        assert_eq!(c_g(9.999995, 6), "10");
        assert_eq!(c_g(-1.5e-300, 6), "-1.5e-300");
        assert_eq!(c_g(123456789.0, 10), "123456789");
        assert_eq!(c_g(0.0, 6), "0");
        assert_eq!(c_g(f64::INFINITY, 6), "inf");
    }
}
