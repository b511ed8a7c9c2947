//! TinyProfiler reports as [`Report`]s: `summary LOG` (timers, regions,
//! memory) and `info LOG` (the runs a log holds); `compare RUN...`, the
//! scaling of several logs ([`compare`]), beside them: all render
//! [`crate::analysis::tinyprofiler`].

pub mod compare;

use serde::Serialize;

use crate::model::tinyprofiler::{
    Log, MemoryTable, Report as TinyReport, Spread, TimerRow, TimerTables,
};
use crate::report::Report;
use crate::report::document::{Column, Document, Table};
use crate::report::numfmt::human::{duration, duration_text, percent};
use crate::report::numfmt::round_trip::time_text;
use crate::report::numfmt::tinyprofiler::tiny_bytes;

/// `summary LOG`: one report of a log.
pub struct TinySummaryReport<'a> {
    /// The log as the user named it.
    pub log: String,
    /// 1-based.
    pub run: usize,
    pub runs: usize,
    pub report: &'a TinyReport,
    /// The memory tables instead of the timer tables (table and CSV).
    pub memory: bool,
    /// Rows kept per table (table format; JSON and CSV keep every row).
    pub top: Option<usize>,
}

/// The JSON of `summary LOG` (docs/JSON.md).
#[derive(Serialize)]
pub struct TinySummaryWire<'a> {
    pub log: &'a str,
    pub kind: &'static str,
    pub run: usize,
    pub runs: usize,
    /// The line of the report's total-time line.
    pub line: usize,
    pub amrex_version: Option<&'a str>,
    pub nprocs: Option<u64>,
    pub total_time: Spread3,
    pub functions: Vec<FunctionWire<'a>>,
    pub other: Option<FunctionWire<'a>>,
    pub regions: Vec<RegionWire<'a>>,
    pub memory: Vec<MemoryWire<'a>>,
    /// Always empty: a report is read whole or not at all.
    pub warnings: Vec<String>,
}

#[derive(Serialize)]
pub struct Spread3 {
    pub min: f64,
    pub avg: f64,
    pub max: f64,
}

impl From<Spread<f64>> for Spread3 {
    fn from(s: Spread<f64>) -> Self {
        Spread3 {
            min: s.min,
            avg: s.avg,
            max: s.max,
        }
    }
}

/// One timer: exclusive seconds as `min`/`avg`/`max`, `percent` the
/// exclusive table's `Max %`.
#[derive(Serialize)]
pub struct FunctionWire<'a> {
    pub name: &'a str,
    pub ncalls: u64,
    pub min: f64,
    pub avg: f64,
    pub max: f64,
    pub inclusive_min: f64,
    pub inclusive_avg: f64,
    pub inclusive_max: f64,
    pub percent: f64,
    pub inclusive_percent: f64,
}

impl<'a> From<&'a TimerRow> for FunctionWire<'a> {
    fn from(r: &'a TimerRow) -> Self {
        FunctionWire {
            name: &r.name,
            ncalls: r.ncalls,
            min: r.exclusive.min,
            avg: r.exclusive.avg,
            max: r.exclusive.max,
            inclusive_min: r.inclusive.min,
            inclusive_avg: r.inclusive.avg,
            inclusive_max: r.inclusive.max,
            percent: r.exclusive_percent,
            inclusive_percent: r.inclusive_percent,
        }
    }
}

#[derive(Serialize)]
pub struct RegionWire<'a> {
    pub name: &'a str,
    pub functions: Vec<FunctionWire<'a>>,
    pub other: Option<FunctionWire<'a>>,
}

#[derive(Serialize)]
pub struct MemoryWire<'a> {
    pub arena: &'a str,
    pub rows: Vec<MemoryRowWire<'a>>,
}

#[derive(Serialize)]
pub struct MemoryRowWire<'a> {
    pub name: &'a str,
    pub nalloc: u64,
    pub nfree: u64,
    pub avg_mem_min: u64,
    pub avg_mem_avg: u64,
    pub avg_mem_max: u64,
    pub max_mem_min: u64,
    pub max_mem_avg: u64,
    pub max_mem_max: u64,
}

fn functions(t: &TimerTables) -> (Vec<FunctionWire<'_>>, Option<FunctionWire<'_>>) {
    (
        t.timers.iter().map(FunctionWire::from).collect(),
        t.other.as_ref().map(FunctionWire::from),
    )
}

fn memory_wire(m: &MemoryTable) -> MemoryWire<'_> {
    MemoryWire {
        arena: &m.arena,
        rows: m
            .rows
            .iter()
            .map(|r| MemoryRowWire {
                name: &r.name,
                nalloc: r.nalloc,
                nfree: r.nfree,
                avg_mem_min: r.avg_mem.min,
                avg_mem_avg: r.avg_mem.avg,
                avg_mem_max: r.avg_mem.max,
                max_mem_min: r.max_mem.min,
                max_mem_avg: r.max_mem.avg,
                max_mem_max: r.max_mem.max,
            })
            .collect(),
    }
}

/// `run 2 of 3, AMReX 24.10, 4 ranks`.
fn describe(run: usize, runs: usize, r: &TinyReport) -> String {
    let mut s = format!("run {run} of {runs}");
    if let Some(v) = &r.amrex_version {
        s.push_str(&format!(", AMReX {v}"));
    }
    match r.nprocs {
        Some(n) => s.push_str(&format!(", {n} rank(s)")),
        None => s.push_str(", ranks unknown"),
    }
    s
}

/// The timers of one table pair: both figures side by side; the first
/// `top` timers, then `Other`.
fn timer_table(t: &TimerTables, top: Option<usize>) -> Table<'_> {
    let kept = &t.timers[..t.timers.len().min(top.unwrap_or(usize::MAX))];
    let width = kept
        .iter()
        .chain(&t.other)
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let num = |h: &str| Column::right(h, 10).after("  ");
    // Narrow outputs keep the averages and maxima.
    let columns = vec![
        Column::left("Name", width),
        Column::right("NCalls", 8).after("  ").droppable(1),
        num("Excl. Min").droppable(5),
        num("Excl. Avg"),
        num("Excl. Max"),
        Column::right("Max %", 7).after("  "),
        num("Incl. Min").droppable(6),
        num("Incl. Avg"),
        num("Incl. Max"),
        Column::right("Max %", 7).after("  ").droppable(4),
    ];
    let rows = kept.iter().chain(&t.other).map(|r| {
        vec![
            r.name.clone(),
            r.ncalls.to_string(),
            duration(r.exclusive.min),
            duration(r.exclusive.avg),
            duration(r.exclusive.max),
            format!("{}%", percent(r.exclusive_percent)),
            duration(r.inclusive.min),
            duration(r.inclusive.avg),
            duration(r.inclusive.max),
            format!("{}%", percent(r.inclusive_percent)),
        ]
    });
    Table::new(columns, rows)
}

fn memory_table(m: &MemoryTable, top: Option<usize>) -> Table<'_> {
    let rows = &m.rows[..m.rows.len().min(top.unwrap_or(usize::MAX))];
    let width = m
        .rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let num = |h: &str| Column::right(h, 10).after("  ");
    let mut columns = vec![
        Column::left("Name", width),
        Column::right("Nalloc", 6).after("  "),
        Column::right("Nfree", 6).after("  ").droppable(3),
    ];
    // Narrow outputs keep the averages and the largest maximum.
    for (h, rank) in [
        ("AvgMem min", 5),
        ("AvgMem avg", 0),
        ("AvgMem max", 2),
        ("MaxMem min", 6),
        ("MaxMem avg", 0),
        ("MaxMem max", 0),
    ] {
        columns.push(num(h).droppable(rank));
    }
    let rows = rows.iter().map(|r| {
        let mut row = vec![r.name.clone(), r.nalloc.to_string(), r.nfree.to_string()];
        for s in [r.avg_mem, r.max_mem] {
            row.extend([tiny_bytes(s.min), tiny_bytes(s.avg), tiny_bytes(s.max)]);
        }
        row
    });
    Table::new(columns, rows)
}

impl Report for TinySummaryReport<'_> {
    type Wire<'w>
        = TinySummaryWire<'w>
    where
        Self: 'w;

    fn wire(&self) -> TinySummaryWire<'_> {
        let r = self.report;
        let (functions, other) = functions(&r.tables);
        TinySummaryWire {
            log: &self.log,
            kind: "tinyprofiler",
            run: self.run,
            runs: self.runs,
            line: r.line,
            amrex_version: r.amrex_version.as_deref(),
            nprocs: r.nprocs,
            total_time: r.total.into(),
            functions,
            other,
            regions: r
                .regions
                .iter()
                .map(|g| {
                    let (functions, other) = self::functions(&g.tables);
                    RegionWire {
                        name: &g.name,
                        functions,
                        other,
                    }
                })
                .collect(),
            memory: r.memory.iter().map(memory_wire).collect(),
            warnings: Vec::new(),
        }
    }

    fn document(&self) -> Document<'_> {
        let r = self.report;
        let mut doc = Document::new();
        doc.line(format!(
            "{}: TinyProfiler report ({}), line {}.",
            self.log,
            describe(self.run, self.runs, r),
            r.line
        ));
        doc.line(format!(
            "Total time over ranks: min {}, avg {}, max {}.",
            duration_text(r.total.min),
            duration_text(r.total.avg),
            duration_text(r.total.max)
        ));
        doc.line("");
        if self.memory {
            if r.memory.is_empty() {
                doc.line("No memory sections (the run had tiny_profiler.memprof_enabled=0).");
            }
            for m in &r.memory {
                doc.line(format!(
                    "{} memory: allocations and frees summed over ranks;",
                    m.arena
                ))
                .line("bytes held (time-weighted average, peak): min/avg/max over ranks");
                doc.table(memory_table(m, self.top)).line("");
            }
            return doc;
        }
        doc.line("Timers by exclusive time: min/avg/max over ranks, NCalls per rank,")
            .line("Max %: the maximum as a share of the total time");
        doc.table(timer_table(&r.tables, self.top)).line("");
        if r.tables.other.is_some() {
            doc.line("Other: timers under tiny_profiler.print_threshold, summed column by column.");
            doc.line("");
        }
        for g in &r.regions {
            doc.line(format!("Region {}: calls made while it was open", g.name));
            doc.table(timer_table(&g.tables, self.top)).line("");
        }
        if !r.memory.is_empty() {
            let arenas: Vec<&str> = r.memory.iter().map(|m| m.arena.as_str()).collect();
            doc.line(format!(
                "Memory sections: {} (summary --memory shows them).",
                arenas.join(", ")
            ));
        }
        doc
    }

    fn csv(&self) -> Option<Table<'_>> {
        let r = self.report;
        if self.memory {
            let columns = [
                "arena",
                "name",
                "nalloc",
                "nfree",
                "avg_mem_min",
                "avg_mem_avg",
                "avg_mem_max",
                "max_mem_min",
                "max_mem_avg",
                "max_mem_max",
            ]
            .map(|h| Column::left(h, 0))
            .to_vec();
            let rows = r.memory.iter().flat_map(|m| {
                m.rows.iter().map(move |x| {
                    vec![
                        m.arena.clone(),
                        x.name.clone(),
                        x.nalloc.to_string(),
                        x.nfree.to_string(),
                        x.avg_mem.min.to_string(),
                        x.avg_mem.avg.to_string(),
                        x.avg_mem.max.to_string(),
                        x.max_mem.min.to_string(),
                        x.max_mem.avg.to_string(),
                        x.max_mem.max.to_string(),
                    ]
                })
            });
            return Some(Table::new(columns, rows));
        }
        let columns = [
            "region",
            "name",
            "other",
            "ncalls",
            "min",
            "avg",
            "max",
            "inclusive_min",
            "inclusive_avg",
            "inclusive_max",
            "percent",
            "inclusive_percent",
        ]
        .map(|h| Column::left(h, 0))
        .to_vec();
        let sections = std::iter::once(("", &r.tables))
            .chain(r.regions.iter().map(|g| (g.name.as_str(), &g.tables)));
        let rows = sections.flat_map(|(region, t)| {
            let rows = t.timers.iter().map(|x| (x, false));
            let other = t.other.iter().map(|x| (x, true));
            rows.chain(other).map(move |(x, folded)| {
                vec![
                    region.to_owned(),
                    x.name.clone(),
                    folded.to_string(),
                    x.ncalls.to_string(),
                    time_text(x.exclusive.min),
                    time_text(x.exclusive.avg),
                    time_text(x.exclusive.max),
                    time_text(x.inclusive.min),
                    time_text(x.inclusive.avg),
                    time_text(x.inclusive.max),
                    time_text(x.exclusive_percent),
                    time_text(x.inclusive_percent),
                ]
            })
        });
        Some(Table::new(columns, rows))
    }
}

/// `info LOG`: the reports a log holds.
pub struct TinyInfoReport<'a> {
    pub log: String,
    pub parsed: &'a Log,
}

#[derive(Serialize)]
pub struct TinyInfoWire<'a> {
    pub log: &'a str,
    pub kind: &'static str,
    pub runs: Vec<RunInfoWire<'a>>,
    pub warnings: Vec<String>,
}

#[derive(Serialize)]
pub struct RunInfoWire<'a> {
    pub run: usize,
    pub line: usize,
    pub amrex_version: Option<&'a str>,
    pub nprocs: Option<u64>,
    pub total_time: Spread3,
    pub timers: usize,
    pub other: bool,
    pub regions: Vec<&'a str>,
    pub memory: Vec<&'a str>,
}

impl Report for TinyInfoReport<'_> {
    type Wire<'w>
        = TinyInfoWire<'w>
    where
        Self: 'w;

    fn wire(&self) -> TinyInfoWire<'_> {
        TinyInfoWire {
            log: &self.log,
            kind: "tinyprofiler",
            runs: self
                .parsed
                .reports
                .iter()
                .enumerate()
                .map(|(i, r)| RunInfoWire {
                    run: i + 1,
                    line: r.line,
                    amrex_version: r.amrex_version.as_deref(),
                    nprocs: r.nprocs,
                    total_time: r.total.into(),
                    timers: r.tables.timers.len(),
                    other: r.tables.other.is_some(),
                    regions: r.regions.iter().map(|g| g.name.as_str()).collect(),
                    memory: r.memory.iter().map(|m| m.arena.as_str()).collect(),
                })
                .collect(),
            warnings: Vec::new(),
        }
    }

    fn document(&self) -> Document<'_> {
        let mut doc = Document::new();
        let n = self.parsed.reports.len();
        doc.line(format!(
            "{}: a job log with {n} TinyProfiler report(s)",
            self.log
        ));
        for (i, r) in self.parsed.reports.iter().enumerate() {
            doc.line("");
            doc.line(format!("Run {} (line {})", i + 1, r.line));
            doc.line(format!(
                "  AMReX version   {}",
                r.amrex_version.as_deref().unwrap_or("unknown")
            ));
            doc.line(format!(
                "  ranks           {}",
                r.nprocs
                    .map_or_else(|| "unknown".to_owned(), |n| n.to_string())
            ));
            doc.line(format!(
                "  total time      {} / {} / {} (min/avg/max)",
                duration_text(r.total.min),
                duration_text(r.total.avg),
                duration_text(r.total.max)
            ));
            doc.line(format!(
                "  timers          {}{}",
                r.tables.timers.len(),
                if r.tables.other.is_some() {
                    " and an Other row (folded timers)"
                } else {
                    ""
                }
            ));
            let list = |v: Vec<&str>| {
                if v.is_empty() {
                    "none".to_owned()
                } else {
                    v.join(", ")
                }
            };
            doc.line(format!(
                "  regions         {}",
                list(r.regions.iter().map(|g| g.name.as_str()).collect())
            ));
            doc.line(format!(
                "  memory          {}",
                list(r.memory.iter().map(|m| m.arena.as_str()).collect())
            ));
        }
        doc
    }
}
