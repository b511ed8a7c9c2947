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

/// Java's `Double.toString`: the shortest decimal that reads back to `x`,
/// plain between 10⁻³ and 10⁷, else `d.dddE<exp>`; when the shortest has one
/// digit Java prints the closest one- or two-digit decimal (`4.9E-324`).
pub fn java_double(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.to_owned();
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let a = x.abs();
    let split = |s: String| -> (String, i32) {
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        (m.replace('.', ""), e.parse().unwrap_or(0))
    };
    let (mut digits, mut exp) = split(format!("{a:e}"));
    if digits.len() == 1 {
        let (d2, e2) = split(format!("{a:.1e}"));
        digits = d2.trim_end_matches('0').to_owned();
        if digits.is_empty() {
            digits = "0".to_owned();
        }
        exp = e2;
    }
    if (1e-3..1e7).contains(&a) {
        let body = if exp >= 0 {
            let int_len = exp as usize + 1;
            let mut d = digits.clone();
            while d.len() < int_len {
                d.push('0');
            }
            let (i, f) = d.split_at(int_len);
            format!("{i}.{}", if f.is_empty() { "0" } else { f })
        } else {
            format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1);
        format!(
            "{sign}{first}.{}E{exp}",
            if rest.is_empty() { "0" } else { rest }
        )
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
    }
}
