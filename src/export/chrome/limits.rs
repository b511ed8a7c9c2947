//! What trace viewers load (docs/TRACES.md): chrome://tracing about 1 M
//! events or 256 MB of JSON, Perfetto (ui.perfetto.dev) about 1 GB. The
//! words said before an export that will exceed them, and after one that
//! did although the estimate did not say so.

use super::ExportEstimate;

const MANY_EVENTS: u64 = 1_000_000;
const CHROME_BYTES: u64 = 256 << 20;
const PERFETTO_BYTES: u64 = 1 << 30;

const ADVICE: &str = "narrow it with --time T0,T1, --proc N, --min-dur SECONDS or --no-comm";

/// Megabytes, for messages.
fn mb(bytes: u64) -> String {
    format!("{:.0} MB", bytes as f64 / (1u64 << 20) as f64)
}

fn too_big(events: u64, bytes: u64) -> bool {
    events > MANY_EVENTS || bytes > CHROME_BYTES
}

/// The estimate in words, for `-v`.
pub fn describe_estimate(estimate: &ExportEstimate) -> String {
    format!(
        "estimate: about {} events, {}",
        estimate.events,
        mb(estimate.bytes)
    )
}

/// The warning before writing, when the estimate exceeds what
/// chrome://tracing loads.
pub fn before_export(estimate: &ExportEstimate) -> Option<String> {
    if !too_big(estimate.events, estimate.bytes) {
        return None;
    }
    let perfetto = if estimate.bytes > PERFETTO_BYTES {
        "more than Perfetto's about 1 GB too"
    } else {
        "Perfetto (ui.perfetto.dev) loads up to about 1 GB"
    };
    Some(format!(
        "the export will hold about {} events ({}): more than chrome://tracing loads (about 1 M events or 256 MB); {perfetto}; {ADVICE}",
        estimate.events,
        mb(estimate.bytes)
    ))
}

/// The warning after writing `events` in `bytes`, when the export exceeds
/// what chrome://tracing loads and [`before_export`] said nothing.
pub fn after_export(estimate: &ExportEstimate, events: u64, bytes: u64) -> Option<String> {
    if before_export(estimate).is_some() || !too_big(events, bytes) {
        return None;
    }
    Some(format!(
        "{events} events, {}: chrome://tracing loads about 1 M events or 256 MB, Perfetto about 1 GB; {ADVICE}",
        mb(bytes)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_warning_before_or_after_never_both() {
        let small = ExportEstimate {
            events: 10,
            bytes: 1000,
        };
        let big = ExportEstimate {
            events: 2_000_000,
            bytes: 300 << 20,
        };
        assert_eq!(before_export(&small), None);
        assert!(
            before_export(&big)
                .unwrap()
                .contains("Perfetto (ui.perfetto.dev) loads")
        );
        let huge = ExportEstimate {
            events: 1,
            bytes: 2 << 30,
        };
        assert!(
            before_export(&huge)
                .unwrap()
                .contains("more than Perfetto's")
        );
        // The estimate was low but the export is not: said after.
        assert!(
            after_export(&small, 2_000_000, 1000)
                .unwrap()
                .starts_with("2000000 events, 0 MB")
        );
        assert_eq!(after_export(&big, 2_000_000, 300 << 20), None);
        assert_eq!(after_export(&small, 10, 1000), None);
    }
}
