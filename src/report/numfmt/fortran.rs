//! Fortran `ES` edit descriptors: the timer tree's `write` layouts
//! (`ES12.5` of the reference tree report, `ES9.3` of Truchas' summary),
//! rounded as gfortran rounds.

use super::padding::Blanks;

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
    /// `x` as this precision stores it.
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
mod tests {
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
