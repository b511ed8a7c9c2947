//! Times in machine outputs (CSV, JSON, XML, Parquet strings): the
//! shortest decimal that reads back to the same f64, so nothing is lost.

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

#[cfg(test)]
mod tests {
    use super::time_text;

    #[test]
    fn shortest_round_trip() {
        assert_eq!(time_text(0.1), "0.1");
        assert_eq!(time_text(1.0), "1.0");
        assert_eq!(time_text(f64::NAN), "NaN");
        assert_eq!(time_text(f64::NEG_INFINITY), "-Infinity");
    }
}
