//! Java's layout of a double (`Double.toString`), for byte parity with the
//! Java tlog dump.

use super::printf::stack_fmt;

/// Java's `Double.toString` appended to `out`: the shortest decimal that
/// reads back to `x`,
/// plain between 10⁻³ and 10⁷, else `d.dddE<exp>`; when the shortest has one
/// digit Java prints the closest one- or two-digit decimal (`4.9E-324`).
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
mod tests {
    use super::write_java_double;

    fn java_double(x: f64) -> String {
        let mut v = Vec::new();
        write_java_double(&mut v, x);
        String::from_utf8(v).unwrap()
    }

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
}
