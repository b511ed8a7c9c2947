//! TinyProfiler's number layouts (AMReX's job-log tables), for reports
//! that reproduce or extend them.

use super::printf::c_g;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_tinyprofiler() {
        assert_eq!(sig4(10.7134), "10.71");
        assert_eq!(sig4(0.078571), "0.07857");
        assert_eq!(sig4(3.2961e-5), "3.296e-05");
        assert_eq!(tiny_bytes(1665), "1665   B");
        assert_eq!(tiny_bytes(8192 * 1024), "8192 KiB");
        assert_eq!(tiny_bytes(10_000), "9 KiB");
    }
}
