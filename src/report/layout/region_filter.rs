//! The line a table of communication records starts with under a region
//! filter (`comm stats|time|waits --region`): shared by those reports.

use crate::analysis::filter::FilterNames;
use crate::report::document::Document;

/// The line a comm table starts with under a region filter (none without
/// one, so unfiltered tables stay as they were).
pub(crate) fn region_line(doc: &mut Document<'_>, f: Option<&FilterNames>) {
    let Some(f) = f else { return };
    let mut parts = Vec::new();
    if !f.include_all {
        parts.push(format!("inside {}", f.include.join(", ")));
    }
    if !f.exclude.is_empty() {
        parts.push(format!("outside {}", f.exclude.join(", ")));
    }
    doc.line(format!(
        "Region filter: only records {} (each process's own ranges)",
        parts.join(" and ")
    ));
}
