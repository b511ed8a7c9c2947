//! `tlog summary` as a [`Report`]: per process and event kind, then each
//! kind over processes. Times in seconds with the tlog clock's microsecond
//! resolution.

use serde::Serialize;

use crate::analysis::tlog_summary::{AcrossStats, KindStats, ProcSummary, Summary};
use crate::report::Report;
use crate::report::document::{Column, Document, Table};
use crate::report::numfmt::human::{duration, fixed};

/// `tlog summary`'s report.
pub struct TlogSummaryReport<'a> {
    /// The trace file as the user named it.
    pub file: String,
    pub nprocs: usize,
    pub events: u64,
    pub summary: &'a Summary,
    /// The opening scan's and the summary's warnings, listed in the JSON.
    pub warnings: Vec<String>,
}

/// The JSON of `tlog summary` (docs/JSON.md).
#[derive(Serialize)]
pub struct TlogSummaryWire<'a> {
    file: &'a str,
    nprocs: usize,
    events: u64,
    processes: &'a [ProcSummary],
    across: &'a [AcrossStats],
    warnings: &'a [String],
}

/// A time stamp in seconds with microsecond resolution (the tlog clock's),
/// with its unit like every time for people.
fn us(v: f64) -> String {
    format!("{} s", fixed(v, 6))
}

fn opt_us(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), us)
}

/// The rows of one process: one per event kind (the process's own columns
/// on the first only), then a line of unmatched events if there are any.
fn proc_rows(p: &ProcSummary) -> impl Iterator<Item = Vec<String>> + '_ {
    let kinds = p.kinds.iter().enumerate().map(move |(i, k)| {
        let mut row = if i == 0 {
            vec![
                p.proc.to_string(),
                p.events.to_string(),
                opt_us(p.start),
                opt_us(p.end),
            ]
        } else {
            vec![String::new(); 4]
        };
        row.extend(kind_cells(k));
        row
    });
    let u = &p.unmatched;
    // The text runs on from the process column, past the columns after it.
    let unmatched = (u.ins + u.out + u.crossed > 0).then(|| {
        vec![
            String::new(),
            format!(
                "unmatched: {} IN, {} OUT, {} crossed",
                u.ins, u.out, u.crossed
            ),
        ]
    });
    kinds.chain(unmatched)
}

fn kind_cells(k: &KindStats) -> Vec<String> {
    if k.role == "interval" {
        vec![
            k.name.clone(),
            k.count.to_string(),
            duration(k.total),
            duration(k.min),
            duration(k.avg),
            duration(k.max),
        ]
    } else {
        // A single event has a count only; the empty total keeps the
        // line's width.
        vec![
            format!("{} (single)", k.name),
            k.count.to_string(),
            String::new(),
        ]
    }
}

impl Report for TlogSummaryReport<'_> {
    type Wire<'w>
        = TlogSummaryWire<'w>
    where
        Self: 'w;

    fn wire(&self) -> TlogSummaryWire<'_> {
        TlogSummaryWire {
            file: &self.file,
            nprocs: self.nprocs,
            events: self.events,
            processes: &self.summary.procs,
            across: &self.summary.across,
            warnings: &self.warnings,
        }
    }

    fn document(&self) -> Document<'_> {
        let s = self.summary;
        let mut doc = Document::new();
        doc.line(format!(
            "{}: {} processes, {} events; start and end: first and last event.\n",
            self.file, self.nprocs, self.events
        ))
        .table(Table::new(
            vec![
                Column::right("proc", 5),
                Column::right("events", 9),
                Column::right("start", 14).droppable(4),
                Column::right("end", 14).droppable(4),
                Column::left("kind", 12).after("  "),
                Column::right("count", 8),
                Column::right("total", 10),
                Column::right("min", 10).droppable(3),
                Column::right("avg", 10),
                Column::right("max", 10).droppable(2),
            ],
            s.procs.iter().flat_map(proc_rows),
        ))
        .line("\nOver processes: intervals by their total time per process,")
        .line("single events by their count per process")
        .table(Table::new(
            vec![
                Column::left("kind", 18),
                Column::right("procs", 6).droppable(3),
                Column::right("min", 10).droppable(2),
                Column::right("avg", 10),
                Column::right("max", 10),
                Column::right("max proc", 9).droppable(1),
            ],
            s.across.iter().map(|a| {
                let value = |v: f64| {
                    if a.role == "interval" {
                        duration(v)
                    } else {
                        fixed(v, 1)
                    }
                };
                vec![
                    a.name.clone(),
                    a.procs.to_string(),
                    value(a.min),
                    value(a.avg),
                    value(a.max),
                    a.max_proc.to_string(),
                ]
            }),
        ));
        doc
    }
}
