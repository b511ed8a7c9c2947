//! `info` as a [`Report`]: what a database holds, part by part.

use serde::Serialize;

use crate::analysis::info::DatabaseInfo;
use crate::error::Warning;
use crate::report::Report;
use crate::report::document::{Document, FitRule};
use crate::report::numfmt::human::{bytes as _bytes, fixed, scientific};
use crate::report::renderers::table::{new_table, opt_num};

pub struct InfoReport<'a> {
    pub info: &'a DatabaseInfo,
    /// Listed in the JSON.
    pub warnings: &'a [Warning],
}

impl Report for InfoReport<'_> {
    type Wire<'w>
        = InfoJson<'w>
    where
        Self: 'w;

    fn wire(&self) -> InfoJson<'_> {
        InfoJson {
            info: self.info,
            warnings: self.warnings.iter().map(|w| w.to_string()).collect(),
        }
    }

    fn document(&self) -> Document<'_> {
        info_document(self.info)
    }
}

/// The JSON of `info`.
#[derive(Serialize)]
pub struct InfoJson<'a> {
    #[serde(flatten)]
    pub info: &'a DatabaseInfo,
    pub warnings: Vec<String>,
}

/// Names listed in one cell of `info` before the rest is counted.
const MAX_LISTED_NAMES: usize = 12;

/// `info`: one key/value table per part.
pub fn info_document(info: &DatabaseInfo) -> Document<'static> {
    let span = |s: Option<(f64, f64)>| {
        s.map_or_else(
            || "-".to_owned(),
            |(a, b)| format!("{} .. {} s", fixed(a, 6), fixed(b, 6)),
        )
    };
    let mm = |m: Option<crate::analysis::info::MinMax>| {
        m.map_or_else(
            || "-".to_owned(),
            |m| {
                if m.min == m.max {
                    m.min.to_string()
                } else {
                    format!("{} .. {}", m.min, m.max)
                }
            },
        )
    };
    let parts: Vec<&str> = info
        .parts
        .iter()
        .map(|p| match p {
            crate::formats::blprof::Part::Base => "base",
            crate::formats::blprof::Part::Trace => "trace",
            crate::formats::blprof::Part::Comm => "comm",
        })
        .collect();
    let mut doc = Document::new();
    doc.line(format!("Database   {}", info.dir))
        .line(format!("Processes  {}", opt_num(info.nprocs)))
        .line(format!("NOutFiles  {}", opt_num(info.nfiles)))
        .line(format!("Parts      {}", parts.join(", ")));
    let mut section = |title: &str, rows: Vec<(&str, String)>| {
        let mut t = new_table(vec![title, ""]);
        for (k, v) in rows {
            t.add_row(vec![k.to_owned(), v]);
        }
        // Long lists (functions, regions) are the values: those shorten.
        let rule = FitRule {
            shrink: Some(1),
            drop_ranks: Vec::new(),
        };
        doc.line("").fitted_by(t, rule);
    };
    if let Some(b) = &info.base {
        section(
            "Base profile (bl_prof_H)",
            vec![
                ("version", opt_num(b.version)),
                ("processes with a block", b.procs_with_block.to_string()),
                (
                    "processes without a block",
                    if b.procs_without_block.is_empty() {
                        "none".into()
                    } else {
                        b.procs_without_block
                            .iter()
                            .map(|p| p.to_string())
                            .collect::<Vec<_>>()
                            .join(" ")
                    },
                ),
                ("data files", b.data_files.to_string()),
                ("functions", b.functions.len().to_string()),
                ("records (procs × functions)", b.records.to_string()),
                (
                    "calcEndTime",
                    b.calc_end_time
                        .map_or_else(|| "-".into(), |t| format!("{t} s")),
                ),
            ],
        );
    }
    if let Some(t) = &info.trace {
        section(
            "Call traces (bl_call_stats_H)",
            vec![
                ("version", opt_num(t.version)),
                ("per-file headers", t.header_files.to_string()),
                ("data files", t.data_files.to_string()),
                ("processes", t.procs.to_string()),
                ("blocks", t.blocks.to_string()),
                ("blocks per process", mm(t.blocks_per_proc)),
                ("call records", t.call_records.to_string()),
                ("region records", t.region_records.to_string()),
                ("functions", t.functions.to_string()),
                (
                    "regions",
                    format!(
                        "{}: {}",
                        t.regions.len(),
                        crate::report::layout::names::summarise(&t.regions, MAX_LISTED_NAMES)
                    ),
                ),
                ("call start times", span(t.time_span)),
            ],
        );
    }
    if let Some(c) = &info.comm {
        section(
            "Communication (bl_comm_prof_H)",
            vec![
                ("version", opt_num(c.version)),
                (
                    "record size",
                    format!("{} bytes ({:?})", c.record_size, c.real).to_lowercase(),
                ),
                ("per-file headers", c.header_files.to_string()),
                ("data files", c.data_files.to_string()),
                ("processes", c.procs.to_string()),
                ("blocks", format!("{} ({} empty)", c.blocks, c.empty_blocks)),
                ("blocks per process", mm(c.blocks_per_proc)),
                (
                    "records",
                    format!(
                        "{} ({})",
                        c.records,
                        _bytes(c.records.saturating_mul(c.record_size))
                    ),
                ),
                ("barriers", c.barriers.to_string()),
                (
                    "name tags",
                    format!("{} ({} names)", c.name_tags, c.name_tag_names),
                ),
                ("time span", span(c.time_span)),
                (
                    "finest / max level",
                    format!("{} / {}", opt_num(c.finest_level), opt_num(c.max_level)),
                ),
                ("hosts", c.hosts.join(", ")),
                (
                    "timer read cost",
                    c.timer_time
                        .map_or_else(|| "-".into(), |t| format!("{} s", scientific(t, 3))),
                ),
            ],
        );
    }
    doc
}
