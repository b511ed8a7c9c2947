//! Reading the JSON file form: `{"tree": [...], "name": [...], "time": [...]}`.
//!
//! Times are numbers (parsed to the nearest f64) or the strings `"NaN"`,
//! `"Infinity"`, `"-Infinity"`, which JSON numbers cannot express. Names may
//! carry the reference's blank padding; [`Serialized::to_call_tree`] trims it.

use std::fmt;
use std::path::Path;

use serde::de::{self, Deserializer, Visitor};

use crate::error::{Error, Location, Result};
use crate::model::timertree::Serialized;

#[derive(serde::Deserialize)]
struct Wire {
    tree: Vec<i64>,
    name: Vec<String>,
    time: Vec<WireTime>,
}

/// A time as a JSON number or one of the special-value strings.
pub(crate) struct WireTime(pub f64);

impl<'de> serde::Deserialize<'de> for WireTime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(TimeVisitor)
    }
}

struct TimeVisitor;

impl Visitor<'_> for TimeVisitor {
    type Value = WireTime;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(r#"a number or one of "NaN", "Infinity", "-Infinity""#)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<WireTime, E> {
        Ok(WireTime(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<WireTime, E> {
        Ok(WireTime(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<WireTime, E> {
        Ok(WireTime(v as f64))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<WireTime, E> {
        special_value(v)
            .map(WireTime)
            .ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
    }
}

/// The special values' spellings, shared by the JSON and XML forms.
pub(crate) fn special_value(s: &str) -> Option<f64> {
    match s {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// Reads the JSON form; `path` only names the file in errors.
pub fn read_json(bytes: &[u8], path: &Path) -> Result<Serialized> {
    let wire: Wire = serde_json::from_slice(bytes).map_err(|e| {
        let location = if e.line() > 0 {
            Location::line(path, e.line())
        } else {
            Location::file(path)
        };
        Error::syntax(
            location,
            format!("not a serialized timer tree in JSON: {e}"),
        )
    })?;
    Ok(Serialized {
        tree: wire.tree,
        name: wire.name,
        time: wire.time.into_iter().map(|t| t.0).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_parse_to_the_nearest_f64() {
        // Needs serde_json's float_roundtrip: its default parser is off by
        // one ulp here, which changes the binary32 value the goldens print.
        let bytes = br#"{"tree": [1, 1], "name": ["A"], "time": [0.010015728883445263]}"#;
        let s = read_json(bytes, Path::new("x.json")).unwrap();
        assert_eq!(s.time[0].to_bits(), 0.010015728883445263f64.to_bits());
    }

    #[test]
    fn malformed_json_is_a_located_error() {
        let p = Path::new("bad.json");
        for (input, needle) in [
            (
                &b"{\"tree\": [1, 1],\n \"name\": [\"A\"],\n \"time\": [\"fast\"]}"[..],
                "bad.json:3",
            ),
            (
                b"{\"tree\": [1e400], \"name\": [], \"time\": []}",
                "bad.json:1",
            ),
            (
                b"{\"tree\": [1, 1], \"name\": [\"A\"]}",
                "missing field `time`",
            ),
            (b"[", "bad.json"),
            (
                b"{\"tree\": [99999999999999999999], \"name\": [], \"time\": []}",
                "bad.json:1",
            ),
        ] {
            let e = read_json(input, p).unwrap_err().to_string();
            assert!(e.contains(needle), "{e}");
        }
    }
}
