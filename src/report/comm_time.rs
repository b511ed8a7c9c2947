//! `comm time`: MPI time per call type, per process, per call path and
//! region, and message sizes, as a [`Report`]. The JSON is its own wire
//! type (docs/JSON.md), apart from the analysis's structs.

use serde::Serialize;

use crate::analysis::comm::attribution::{PathTime, RegionTime};
use crate::analysis::comm::time::{MpiTime, TypeTime, bucket_bounds};
use crate::analysis::filter::FilterNames;
use crate::report::Report;
use crate::report::document::{Column, Document, Table};
use crate::report::layout::path_tree::tree_lines;
use crate::report::numfmt::human::{duration, percent, write_duration};

/// `comm time` of one database.
pub struct MpiTimeReport<'a> {
    /// The database as the user named it.
    pub database: String,
    pub time: &'a MpiTime,
    /// Call-path rows shown in the table (JSON and CSV have all).
    pub top: usize,
    /// The analysis's warnings, listed in the JSON.
    pub warnings: Vec<String>,
    /// The region filter applied (`None`: none, and no JSON key).
    pub region_filter: Option<FilterNames>,
}

/// 100 · part / whole, or `-` when the whole is nothing.
fn pct(part: f64, whole: f64) -> String {
    if whole > 0.0 {
        percent(100.0 * part / whole)
    } else {
        "-".to_owned()
    }
}

fn share(part: f64, whole: f64) -> Option<f64> {
    (whole > 0.0).then(|| part / whole)
}

#[derive(Serialize)]
pub struct SizeWire {
    min: u64,
    max: u64,
    calls: u64,
}

#[derive(Serialize)]
pub struct TypeWire<'a> {
    #[serde(rename = "type")]
    name: &'a str,
    number: i32,
    calls: u64,
    seconds: f64,
    share_of_mpi: Option<f64>,
    min: f64,
    avg: f64,
    max: f64,
    min_proc: usize,
    max_proc: usize,
    sizes: Vec<SizeWire>,
}

#[derive(Serialize)]
pub struct ProcTypeWire<'a> {
    #[serde(rename = "type")]
    name: &'a str,
    number: i32,
    calls: u64,
    seconds: f64,
}

#[derive(Serialize)]
pub struct ProcWire<'a> {
    proc: usize,
    calls: u64,
    seconds: f64,
    traced: f64,
    share: Option<f64>,
    by_type: Vec<ProcTypeWire<'a>>,
}

#[derive(Serialize)]
pub struct PathWire<'a> {
    path: &'a [String],
    #[serde(rename = "type")]
    name: &'a str,
    number: i32,
    calls: u64,
    seconds: f64,
}

#[derive(Serialize)]
pub struct RegionWire<'a> {
    region: &'a str,
    number: i32,
    calls: u64,
    seconds: f64,
}

/// The JSON of `comm time` (docs/JSON.md).
#[derive(Serialize)]
pub struct MpiTimeWire<'a> {
    database: &'a str,
    nprocs: usize,
    calls: u64,
    seconds: f64,
    traced: f64,
    share: Option<f64>,
    by_type: Vec<TypeWire<'a>>,
    procs: Vec<ProcWire<'a>>,
    paths: Option<Vec<PathWire<'a>>>,
    regions: Option<Vec<RegionWire<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    region_filter: Option<&'a FilterNames>,
    warnings: &'a [String],
}

fn type_name(t: &MpiTime, number: i32) -> &str {
    t.by_type
        .iter()
        .find(|x| x.number == number)
        .map_or("?", |x| x.name.as_str())
}

fn sizes(t: &TypeTime) -> impl Iterator<Item = SizeWire> + '_ {
    t.sizes
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(k, &calls)| {
            let (min, max) = bucket_bounds(k);
            SizeWire { min, max, calls }
        })
}

impl Report for MpiTimeReport<'_> {
    type Wire<'w>
        = MpiTimeWire<'w>
    where
        Self: 'w;

    fn wire(&self) -> MpiTimeWire<'_> {
        let t = self.time;
        let attribution = t.attribution.as_ref();
        MpiTimeWire {
            database: &self.database,
            nprocs: t.procs.len(),
            calls: t.calls,
            seconds: t.seconds,
            traced: t.traced,
            share: share(t.seconds, t.traced),
            by_type: t
                .by_type
                .iter()
                .map(|x| TypeWire {
                    name: &x.name,
                    number: x.number,
                    calls: x.calls,
                    seconds: x.seconds,
                    share_of_mpi: share(x.seconds, t.seconds),
                    min: x.min,
                    avg: x.avg,
                    max: x.max,
                    min_proc: x.min_proc,
                    max_proc: x.max_proc,
                    sizes: sizes(x).collect(),
                })
                .collect(),
            procs: t
                .procs
                .iter()
                .map(|p| ProcWire {
                    proc: p.proc,
                    calls: p.calls,
                    seconds: p.seconds,
                    traced: p.traced,
                    share: p.share(),
                    by_type: p
                        .by_type
                        .iter()
                        .map(|&(number, calls, seconds)| ProcTypeWire {
                            name: type_name(t, number),
                            number,
                            calls,
                            seconds,
                        })
                        .collect(),
                })
                .collect(),
            paths: attribution.and_then(|a| a.paths.as_ref()).map(|v| {
                v.iter()
                    .map(|p: &PathTime| PathWire {
                        path: &p.path,
                        name: &p.name,
                        number: p.number,
                        calls: p.calls,
                        seconds: p.seconds,
                    })
                    .collect()
            }),
            regions: attribution.and_then(|a| a.regions.as_ref()).map(|v| {
                v.iter()
                    .map(|r: &RegionTime| RegionWire {
                        region: &r.name,
                        number: r.number,
                        calls: r.calls,
                        seconds: r.seconds,
                    })
                    .collect()
            }),
            region_filter: self.region_filter.as_ref(),
            warnings: &self.warnings,
        }
    }

    fn document(&self) -> Document<'_> {
        let t = self.time;
        let mut doc = Document::new();
        doc.line(format!(
            "{}: MPI time of {} processes",
            self.database,
            t.procs.len()
        ));
        crate::report::layout::region_filter::region_line(&mut doc, self.region_filter.as_ref());
        doc.line(format!(
            "{} in {} calls: {} % of {} traced (the processes' spans)",
            duration(t.seconds),
            t.calls,
            pct(t.seconds, t.traced),
            duration(t.traced)
        ));
        doc.line("")
            .line("By call type (Min/Avg/Max over processes)");
        doc.table(Table::new(
            vec![
                Column::left("Function", 14),
                Column::right("#", 3).droppable(5),
                Column::right("Calls", 10),
                Column::right("Time", 12),
                Column::right("% MPI", 7),
                Column::right("Min", 11).droppable(3),
                Column::right("Avg", 11).droppable(2),
                Column::right("Max", 11),
                Column::right("MaxProc", 7).droppable(4),
            ],
            t.by_type.iter().map(move |x| {
                vec![
                    x.name.clone(),
                    x.number.to_string(),
                    x.calls.to_string(),
                    duration(x.seconds),
                    pct(x.seconds, t.seconds),
                    duration(x.min),
                    duration(x.avg),
                    duration(x.max),
                    x.max_proc.to_string(),
                ]
            }),
        ));
        doc.line("").line("By process");
        doc.table(Table::filled(
            vec![
                Column::right("Proc", 5),
                Column::right("Calls", 10),
                Column::right("MPI", 12),
                Column::right("Traced", 12),
                Column::right("MPI %", 7),
            ],
            t.procs.iter(),
            |p, cells| {
                cells.int(p.proc).int(p.calls);
                write_duration(cells.next(), p.seconds);
                write_duration(cells.next(), p.traced);
                cells.text(&pct(p.seconds, p.traced));
            },
        ));
        doc.line("")
            .line("Message sizes (calls per size in bytes, types with a size)");
        doc.table(Table::new(
            vec![
                Column::left("Function", 14),
                Column::right("Bytes from", 12),
                Column::right("to", 12),
                Column::right("Calls", 10),
                Column::right("% calls", 8),
            ],
            t.by_type.iter().flat_map(|x| {
                sizes(x).map(move |s| {
                    vec![
                        x.name.clone(),
                        s.min.to_string(),
                        s.max.to_string(),
                        s.calls.to_string(),
                        pct(s.calls as f64, x.calls as f64),
                    ]
                })
            }),
        ));
        if let Some(paths) = t.attribution.as_ref().and_then(|a| a.paths.as_ref()) {
            let shown = &paths[..paths.len().min(self.top)];
            // As a tree: a flat path cut to the column printed different
            // paths alike (they differ in the middle).
            let frames: Vec<&[String]> = shown.iter().map(|p| p.path.as_slice()).collect();
            let weight: Vec<f64> = shown.iter().map(|p| p.seconds).collect();
            let lines = tree_lines(&frames, &weight);
            // One width for every name: the tree's column stays aligned.
            let function_width = shown.iter().map(|p| p.name.chars().count()).max();
            let function_width = function_width.unwrap_or(0).max("Function".len());
            doc.line("").prose(format!(
                "Call paths (innermost timed call open at the MPI call's entry), top {} of {}, \
                 as a tree, heaviest first",
                shown.len(),
                paths.len()
            ));
            doc.table(Table::new(
                vec![
                    Column::right("Time", 11),
                    Column::right("% MPI", 6),
                    Column::right("Calls", 9),
                    Column::left("Function", function_width),
                    Column::left("Call path", 0).after("  "),
                ],
                lines.into_iter().map(move |l| {
                    let frame = l.frame_text();
                    match l.row.map(|i| &shown[i]) {
                        Some(p) => vec![
                            duration(p.seconds),
                            pct(p.seconds, t.seconds),
                            p.calls.to_string(),
                            p.name.clone(),
                            frame,
                        ],
                        None => vec![String::new(); 4].into_iter().chain([frame]).collect(),
                    }
                }),
            ));
        }
        if let Some(regions) = t.attribution.as_ref().and_then(|a| a.regions.as_ref()) {
            doc.line("")
                .line("Regions (MPI calls entered inside each region; regions nest)");
            doc.table(Table::new(
                vec![
                    Column::left("Region", 40),
                    Column::right("Calls", 10),
                    Column::right("Time", 12),
                    Column::right("% MPI", 7),
                ],
                regions.iter().map(move |r| {
                    vec![
                        r.name.clone(),
                        r.calls.to_string(),
                        duration(r.seconds),
                        pct(r.seconds, t.seconds),
                    ]
                }),
            ));
        }
        doc
    }

    /// One row per process and call type: every figure of the table is a
    /// sum of these.
    fn csv(&self) -> Option<Table<'_>> {
        let t = self.time;
        let rows = t.procs.iter().flat_map(move |p| {
            p.by_type.iter().map(move |&(number, calls, seconds)| {
                vec![
                    p.proc.to_string(),
                    type_name(t, number).to_owned(),
                    number.to_string(),
                    calls.to_string(),
                    seconds.to_string(),
                    p.traced.to_string(),
                ]
            })
        });
        Some(Table::new(
            ["proc", "type", "number", "calls", "seconds", "traced"]
                .into_iter()
                .map(|h| Column::left(h, 0))
                .collect(),
            rows,
        ))
    }
}
