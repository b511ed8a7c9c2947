//! `regions` as a [`Report`]: count and time per region over processes,
//! and one process's ranges.

use comfy_table::{Cell, Table};
use serde::Serialize;

use crate::analysis::regions::{ProcRegions, RegionStats};
use crate::error::Warning;
use crate::report::Report;
use crate::report::document::{Document, FitRule};
use crate::report::numfmt::human::{duration, fixed};
use crate::report::renderers::json::{note_texts, warning_texts};
use crate::report::renderers::table::{new_table, opt_num, right_align_from};

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

#[derive(Serialize)]
struct ProcRange {
    region: String,
    number: i32,
    start: f64,
    stop: f64,
}

/// The JSON of `regions`.
#[derive(Serialize)]
pub struct RegionsJson<'a> {
    regions: &'a [crate::analysis::regions::RegionStats],
    proc: Option<usize>,
    ranges: Option<Vec<ProcRange>>,
    warnings: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
}

/// The JSON of `regions`, with the ranges of `proc` in time order.
pub fn regions_json<'a>(
    stats: &'a [crate::analysis::regions::RegionStats],
    proc: Option<&crate::analysis::regions::ProcRegions>,
    names: &dyn Fn(i32) -> String,
    warnings: &[Warning],
) -> RegionsJson<'a> {
    let ranges = proc.map(|p| {
        let mut v: Vec<ProcRange> = p
            .ranges
            .iter()
            .flat_map(|(n, rs)| {
                rs.iter().map(move |r| ProcRange {
                    region: names(*n),
                    number: *n,
                    start: r.start,
                    stop: r.stop,
                })
            })
            .collect();
        v.sort_by(|a, b| a.start.total_cmp(&b.start));
        v
    });
    RegionsJson {
        regions: stats,
        proc: proc.map(|p| p.proc),
        ranges,
        warnings: warning_texts(warnings),
        notes: note_texts(warnings),
    }
}

/// `regions`: one row per region.
pub fn regions_table(stats: &[crate::analysis::regions::RegionStats]) -> Table {
    let mut t = new_table(vec![
        "Region", "Number", "Ranges", "Total", "Min", "Avg", "Max", "Max proc",
    ]);
    for s in stats {
        t.add_row(vec![
            Cell::new(&s.name),
            Cell::new(s.number),
            Cell::new(s.count),
            Cell::new(duration(s.total)),
            Cell::new(duration(s.min)),
            Cell::new(duration(s.avg)),
            Cell::new(duration(s.max)),
            Cell::new(opt_num(s.max_proc)),
        ]);
    }
    right_align_from(&mut t, 1);
    t
}

/// `regions --proc N`: the process's ranges in time order.
pub fn proc_ranges_table(
    p: &crate::analysis::regions::ProcRegions,
    names: &dyn Fn(i32) -> String,
) -> Table {
    let mut rows: Vec<(f64, f64, i32)> = p
        .ranges
        .iter()
        .flat_map(|(n, rs)| rs.iter().map(move |r| (r.start, r.stop, *n)))
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut t = new_table(vec!["Region", "Start s", "Stop s", "Length"]);
    for (a, b, n) in rows {
        t.add_row(vec![
            Cell::new(names(n)),
            Cell::new(fixed(a, 6)),
            Cell::new(fixed(b, 6)),
            Cell::new(duration(b - a)),
        ]);
    }
    right_align_from(&mut t, 1);
    t
}
