//! `regions` as a [`Report`]: count and time per region over processes,
//! and one process's ranges.

use crate::analysis::regions::{ProcRegions, RegionStats};
use crate::error::Warning;
use crate::report::Report;
use crate::report::document::{Document, FitRule};
use crate::report::render::json::{RegionsJson, regions_json};
use crate::report::render::table::{proc_ranges_table, regions_table};

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
            "{}: {} regions over {} processes.\n",
            self.database,
            self.stats.len(),
            self.nprocs
        ))
        .fitted_by(
            regions_table(self.stats),
            // Narrow outputs keep the name, the total, Avg and Max.
            FitRule {
                shrink: Some(0),
                drop_ranks: vec![0, 3, 2, 0, 4, 0, 0, 5],
            },
        );
        if let Some(p) = self.proc {
            doc.line("")
                .line(format!("Ranges of process {}", p.proc))
                .fitted(proc_ranges_table(p, self.names));
        }
        doc
    }
}
