//! `regions` as a [`Report`]: count and time per region over processes,
//! and one process's ranges.

use super::Report;
use super::document::Document;
use super::json::{RegionsJson, regions_json};
use super::table::{TableStyle, proc_ranges_table, regions_table};
use crate::analysis::regions::{ProcRegions, RegionStats};
use crate::error::Warning;

pub struct RegionsReport<'a> {
    /// The database as the user named it.
    pub database: String,
    pub stats: &'a [RegionStats],
    /// Processes with call traces.
    pub nprocs: usize,
    /// The process whose ranges are listed (`--proc`).
    pub proc: Option<&'a ProcRegions>,
    /// A region's name from its number.
    pub names: &'a dyn Fn(i32) -> String,
    /// Listed in the JSON.
    pub warnings: Vec<Warning>,
    pub style: TableStyle,
}

impl Report for RegionsReport<'_> {
    type Wire<'w>
        = RegionsJson<'w>
    where
        Self: 'w;

    fn wire(&self) -> RegionsJson<'_> {
        regions_json(self.stats, self.proc, self.names, &self.warnings)
    }

    fn document(&self) -> Document<'_> {
        let mut doc = Document::new();
        doc.line(format!(
            "{}: {} regions over {} processes; times in seconds.\n",
            self.database,
            self.stats.len(),
            self.nprocs
        ))
        .fitted(regions_table(self.stats, self.style));
        if let Some(p) = self.proc {
            doc.line("")
                .line(format!("Ranges of process {}", p.proc))
                .fitted(proc_ranges_table(p, self.names, self.style));
        }
        doc
    }
}
