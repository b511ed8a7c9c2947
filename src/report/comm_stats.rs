//! `comm stats` as a [`Report`]: totals of the communication records, per
//! MPI function type and per process ([`crate::analysis::comm::stats`]).

use serde::Serialize;

use crate::analysis::comm::stats::CommStats;
use crate::formats::blprof::CommHeader;
use crate::report::Report;
use crate::report::document::{Column, Document, Table};
use crate::report::layout::region_filter::region_line;
use crate::report::numfmt::human::{fixed, scientific};

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

/// `comm stats`: totals, per MPI function type and per process.
pub struct CommStatsReport<'a> {
    /// The database as the user named it.
    pub database: String,
    /// The global comm header (`bl_comm_prof_H`), when it was read.
    pub header: Option<&'a CommHeader>,
    pub stats: &'a CommStats,
    /// The analysis's warnings, listed in the JSON.
    pub warnings: Vec<String>,
}

/// The JSON of `comm stats` (docs/JSON.md).
#[derive(Serialize)]
pub struct CommStatsWire<'a> {
    database: &'a str,
    version: Option<i64>,
    record_size: u64,
    #[serde(flatten)]
    stats: &'a CommStats,
    warnings: &'a [String],
}

impl CommStatsReport<'_> {
    /// Bytes per record: the header's, or the usual 24 without one.
    fn record_size(&self) -> u64 {
        self.header.map_or(24, CommHeader::record_size)
    }
}

impl Report for CommStatsReport<'_> {
    type Wire<'w>
        = CommStatsWire<'w>
    where
        Self: 'w;

    fn wire(&self) -> CommStatsWire<'_> {
        CommStatsWire {
            database: &self.database,
            version: self.header.and_then(|h| h.version),
            record_size: self.record_size(),
            stats: self.stats,
            warnings: &self.warnings,
        }
    }

    fn document(&self) -> Document<'_> {
        let (s, g) = (self.stats, self.header);
        let mut doc = Document::new();
        doc.line(format!(
            "{}: communication of {} processes",
            self.database, s.nprocs
        ));
        region_line(&mut doc, s.region_filter.as_ref());
        doc.line(format!(
            "CommProfVersion {}   CommStatsSize {}   FinestLevel {}   MaxLevel {}",
            opt(g.and_then(|h| h.version)),
            self.record_size(),
            opt(g.and_then(|h| h.finest_level)),
            opt(g.and_then(|h| h.max_level))
        ))
        .line(format!(
            "Records {}   Bytes sent {}   Message sizes {} .. {} bytes",
            s.nrecords,
            s.bytes_sent,
            opt(s.msg_size_min),
            opt(s.msg_size_max)
        ));
        doc.line(match (s.time_min, s.time_max) {
            (Some(a), Some(b)) => format!("Time span {} .. {} s", fixed(a, 9), fixed(b, 9)),
            _ => "Time span -".to_owned(),
        });
        if let Some(t) = s.timer_time {
            doc.line(format!("Average timer read {} s", scientific(t, 3)));
        }
        doc.line("").table(Table::new(
            vec![
                Column::left("Function", 14),
                Column::right("#", 4),
                Column::right("Calls", 10),
                Column::right("Records", 10),
                Column::right("Bytes sent", 14),
            ],
            s.by_type.iter().map(|t| {
                vec![
                    t.name.to_string(),
                    t.number.to_string(),
                    t.calls.to_string(),
                    t.records.to_string(),
                    t.bytes.to_string(),
                ]
            }),
        ));
        doc.line("").table(Table::filled(
            vec![
                Column::right("Proc", 5),
                Column::right("Records", 10),
                Column::right("Calls", 10),
                Column::right("Sends", 8),
                Column::right("Bytes sent", 12),
                Column::right("Barriers", 9),
                Column::right("NameTags", 9),
                Column::left("Host", 0).after("  "),
            ],
            s.procs.iter(),
            |p, cells| {
                cells
                    .int(p.proc)
                    .int(p.records)
                    .int(p.calls)
                    .int(p.sends)
                    .int(p.bytes_sent)
                    .int(p.barriers)
                    .int(p.name_tags)
                    .text(p.host.as_deref().unwrap_or("-"));
            },
        ));
        doc
    }
}
