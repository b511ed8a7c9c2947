//! Writing the JSON file form (read by `formats::timertree::json`): one
//! array per line, times as shortest round-trip decimals or the strings
//! `"NaN"`, `"Infinity"`, `"-Infinity"`.

use std::io::{self, Write};

use crate::model::timertree::Serialized;
use crate::report::numfmt::round_trip::time_text;

/// Writes the JSON form, one array per line (the fixtures' shape).
pub fn write_json(w: &mut dyn Write, s: &Serialized) -> io::Result<()> {
    let join = |items: Vec<String>| items.join(", ");
    let tree = join(s.tree.iter().map(|v| v.to_string()).collect());
    let names = join(s.name.iter().map(|n| quote(n)).collect());
    let times = join(
        s.time
            .iter()
            .map(|&t| {
                let text = time_text(t);
                if t.is_finite() { text } else { quote(&text) }
            })
            .collect(),
    );
    writeln!(w, "{{")?;
    writeln!(w, "  \"tree\": [{tree}],")?;
    writeln!(w, "  \"name\": [{names}],")?;
    writeln!(w, "  \"time\": [{times}]")?;
    writeln!(w, "}}")
}

fn quote(s: &str) -> String {
    // Serializing a &str cannot fail; the fallback is never used.
    serde_json::to_string(s).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::formats::timertree::json::read_json;

    #[test]
    fn specials_and_negative_zero_round_trip() {
        let s = Serialized {
            tree: vec![1, 2, 2, 3, 3, 4, 4, 1],
            name: vec!["a\"b".into(), "nan".into(), "inf".into(), "nz".into()],
            time: vec![f64::INFINITY, f64::NAN, f64::NEG_INFINITY, -0.0],
        };
        let mut out = Vec::new();
        write_json(&mut out, &s).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(r#""time": ["Infinity", "NaN", "-Infinity", -0.0]"#),
            "{text}"
        );
        let back = read_json(text.as_bytes(), Path::new("x.json")).unwrap();
        assert_eq!(back.tree, s.tree);
        assert_eq!(back.name, s.name);
        assert_eq!(back.time[0], f64::INFINITY);
        assert!(back.time[1].is_nan());
        assert_eq!(back.time[2], f64::NEG_INFINITY);
        assert!(back.time[3] == 0.0 && back.time[3].is_sign_negative());
    }
}
