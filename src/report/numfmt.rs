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
