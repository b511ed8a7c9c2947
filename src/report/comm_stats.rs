//! The communication reports (`comm stats|barriers|matrix|pairs|check`) as
//! [`Report`] values. Message pairs in JSON and CSV are streamed while they
//! are paired: [`PairStream`] formats them in the pairing's parallel tasks.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use crate::analysis::comm_check::CheckReport;
use crate::analysis::comm_pairs::{Pair, PairReport};
use crate::analysis::comm_stats::CommStats;
use crate::analysis::comm_sync::{BarrierReport, Route, SendMatrix, SendMatrixGroups};
use crate::analysis::filter::FilterNames;
use crate::formats::blprof::CommHeader;
use crate::report::Report;
use crate::report::document::{Column, Document, Table};
use crate::report::numfmt::{duration, fixed, scientific};

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

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
        doc.line("").table(Table::new(
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
            s.procs.iter().map(|p| {
                vec![
                    p.proc.to_string(),
                    p.records.to_string(),
                    p.calls.to_string(),
                    p.sends.to_string(),
                    p.bytes_sent.to_string(),
                    p.barriers.to_string(),
                    p.name_tags.to_string(),
                    p.host.as_deref().unwrap_or("-").to_owned(),
                ]
            }),
        ));
        doc
    }
}

/// `comm barriers`: wait per barrier and per process.
pub struct BarriersReport<'a>(pub &'a BarrierReport);

impl Report for BarriersReport<'_> {
    type Wire<'w>
        = &'w BarrierReport
    where
        Self: 'w;

    fn wire(&self) -> &BarrierReport {
        self.0
    }

    fn document(&self) -> Document<'_> {
        let r = self.0;
        let mut doc = Document::new();
        region_line(&mut doc, r.region_filter.as_ref());
        if let Some(p) = r.clocks_aligned_to {
            doc.line(format!(
                "Times on process {p}'s clock (--align-clocks; comm clocks): last in = latest arrival"
            ))
            .line("");
        }
        doc.table(Table::new(
            vec![
                Column::right("Barrier", 7),
                Column::left("Name", 36).after("  "),
                Column::right("Procs", 6),
                Column::right("Wait total", 12),
                Column::right("Wait max", 12),
                Column::right("Last in", 10),
            ],
            r.barriers.iter().map(|b| {
                vec![
                    b.number.to_string(),
                    b.name.to_string(),
                    b.procs.len().to_string(),
                    duration(b.wait_total),
                    duration(b.wait_max),
                    opt(b.last_arrival),
                ]
            }),
        ));
        doc.line("").table(Table::new(
            vec![
                Column::right("Proc", 5),
                Column::right("Barriers", 9),
                Column::right("Wait", 12),
                Column::right("Last arrivals", 14),
            ],
            r.procs.iter().map(|p| {
                vec![
                    p.proc.to_string(),
                    p.barriers.to_string(),
                    duration(p.wait),
                    p.last_arrivals.to_string(),
                ]
            }),
        ));
        if !r.reductions.is_empty() {
            reductions_section(&mut doc, r);
        }
        doc
    }
}

/// The all-reductions (types 1–4), which wait like barriers: one row per
/// reduction type (there is one reduction per call, thousands in a run),
/// then the waits per process.
fn reductions_section<'a>(doc: &mut Document<'a>, r: &'a BarrierReport) {
    // Per type: reductions, wait total, wait max.
    let mut by_name: BTreeMap<&str, (usize, f64, f64)> = BTreeMap::new();
    for b in &r.reductions {
        let e = by_name.entry(b.name.as_str()).or_default();
        e.0 += 1;
        e.1 += b.wait_total;
        e.2 = e.2.max(b.wait_max);
    }
    doc.line("")
        .line("All-reductions (each process waits at an all-reduction as at a barrier)")
        .table(Table::new(
            vec![
                Column::left("Reduction", 14),
                Column::right("Calls", 9),
                Column::right("Wait total", 12),
                Column::right("Wait max", 12),
            ],
            by_name.into_iter().map(|(name, (n, total, max))| {
                vec![
                    name.to_owned(),
                    n.to_string(),
                    duration(total),
                    duration(max),
                ]
            }),
        ));
    doc.line("").table(Table::new(
        vec![
            Column::right("Proc", 5),
            Column::right("Reductions", 11),
            Column::right("Wait", 12),
            Column::right("Last arrivals", 14),
        ],
        r.reduction_procs.iter().map(|p| {
            vec![
                p.proc.to_string(),
                p.barriers.to_string(),
                duration(p.wait),
                p.last_arrivals.to_string(),
            ]
        }),
    ));
}

/// `comm matrix`: messages and bytes per sender × receiver.
pub struct MatrixReport<'a>(pub &'a SendMatrix);

/// Cells per side of the matrix tables: one per process up to this many
/// processes, groups of consecutive processes beyond (a wider grid does
/// not fit a terminal; `--format csv` and `--svg` show every route).
pub const MATRIX_TABLE_CELLS: usize = 8;

/// Routes listed under a grouped matrix table.
const BUSIEST_ROUTES: usize = 20;

/// One matrix of `g` as a table: a column of senders, one column per
/// receiver; a group of processes is labelled by its first process.
fn grid(group: usize, values: Vec<Vec<u64>>, header: bool) -> Table<'static> {
    let mut columns = vec![Column::right("", 6)];
    columns.extend((0..values.len()).map(|to| Column::right((to * group).to_string(), 8)));
    let rows = values.into_iter().enumerate().map(move |(from, row)| {
        let mut cells = Vec::with_capacity(row.len() + 1);
        cells.push((from * group).to_string());
        cells.extend(row.iter().map(u64::to_string));
        cells
    });
    let table = Table::new(columns, rows);
    if header { table } else { table.headless() }
}

impl Report for MatrixReport<'_> {
    type Wire<'w>
        = &'w SendMatrix
    where
        Self: 'w;

    fn wire(&self) -> &SendMatrix {
        self.0
    }

    fn document(&self) -> Document<'_> {
        let m = self.0;
        let g = SendMatrixGroups::from_matrix(m, MATRIX_TABLE_CELLS);
        let mut doc = Document::new();
        region_line(&mut doc, m.region_filter.as_ref());
        if g.group > 1 {
            doc.line(format!(
                "{} processes, {} consecutive ones per cell, labelled by the first \
                 (--format csv lists every sender and receiver)",
                m.nprocs, g.group
            ));
        }
        doc.line("Messages (rows: sender, columns: receiver)")
            .table(grid(g.group, g.messages, true))
            .line("\nBytes")
            .table(grid(g.group, g.bytes, false));
        if g.group > 1 && !m.routes.is_empty() {
            let mut busiest: Vec<&Route> = m.routes.iter().collect();
            busiest.sort_by_key(|r| (std::cmp::Reverse(r.bytes), r.from, r.to));
            busiest.truncate(BUSIEST_ROUTES);
            let rows = busiest.into_iter().map(|r| {
                vec![
                    r.from.to_string(),
                    r.to.to_string(),
                    r.messages.to_string(),
                    r.bytes.to_string(),
                ]
            });
            doc.line(format!(
                "\nBusiest routes (by bytes; {} of {})",
                m.routes.len().min(BUSIEST_ROUTES),
                m.routes.len()
            ))
            .table(Table::new(
                vec![
                    Column::right("from", 6),
                    Column::right("to", 6),
                    Column::right("messages", 8),
                    Column::right("bytes", 8),
                ],
                rows,
            ));
        }
        doc
    }

    /// One row per sender and receiver that exchanged messages.
    fn csv(&self) -> Option<Table<'_>> {
        let rows = self.0.routes.iter().map(|r| {
            vec![
                r.from.to_string(),
                r.to.to_string(),
                r.messages.to_string(),
                r.bytes.to_string(),
            ]
        });
        Some(Table::new(
            ["from", "to", "messages", "bytes"]
                .into_iter()
                .map(|h| Column::left(h, 0))
                .collect(),
            rows,
        ))
    }
}

/// `comm check`: what was checked and the problems found.
pub struct CheckReportView<'a> {
    /// The database as the user named it.
    pub database: String,
    pub check: &'a CheckReport,
}

impl Report for CheckReportView<'_> {
    type Wire<'w>
        = &'w CheckReport
    where
        Self: 'w;

    fn wire(&self) -> &CheckReport {
        self.check
    }

    fn document(&self) -> Document<'_> {
        let r = self.check;
        let mut doc = Document::new();
        doc.line(format!(
            "{}: checked {} processes, {} blocks, {} records, {} barriers, {} name tags",
            self.database, r.procs, r.blocks, r.records, r.barriers, r.name_tags
        ));
        if r.problems.is_empty() {
            doc.line("clean");
        } else {
            doc.line(format!("{} problem(s):", r.problems.len()));
            for p in &r.problems {
                doc.item(p.to_string());
            }
        }
        doc
    }
}

/// `comm pairs` in a table: per route, then the unmatched ends.
pub struct PairsReport<'a>(pub &'a PairReport);

impl Report for PairsReport<'_> {
    type Wire<'w>
        = &'w PairReport
    where
        Self: 'w;

    fn wire(&self) -> &PairReport {
        self.0
    }

    fn document(&self) -> Document<'_> {
        let r = self.0;
        let mut doc = Document::new();
        region_line(&mut doc, r.region_filter.as_ref());
        doc.line(format!(
            "{} messages paired; {} sends and {} receives unmatched.",
            r.paired,
            r.unmatched_sends.len(),
            r.unmatched_recvs.len()
        ))
        .line(match r.clocks_aligned_to {
            Some(p) => format!("Times on process {p}'s clock (--align-clocks; comm clocks)."),
            None => {
                "Latencies mix two processes' clocks: compare them per pair of processes.".into()
            }
        })
        .line("Latency runs to the receive's record (a nonblocking receive's post);")
        .line("to done, to the wait that returned its status (docs/COMM.md).\n")
        .table(Table::new(
            vec![
                Column::right("From", 5),
                Column::right("To", 5),
                Column::right("Messages", 9),
                Column::right("Bytes", 12).droppable(1),
                Column::right("Mean latency", 13),
                Column::right("Max latency", 13).droppable(2),
                Column::right("Mean to done", 13),
                Column::right("Max to done", 13).droppable(3),
            ],
            r.routes.iter().map(|x| {
                vec![
                    x.from.to_string(),
                    x.to.to_string(),
                    x.messages.to_string(),
                    x.bytes.to_string(),
                    duration(x.latency_mean),
                    duration(x.latency_max),
                    x.completion_latency_mean
                        .map_or_else(|| "-".to_owned(), duration),
                    x.completion_latency_max
                        .map_or_else(|| "-".to_owned(), duration),
                ]
            }),
        ));
        for (title, list) in [
            ("Unmatched sends", &r.unmatched_sends),
            ("Unmatched receives", &r.unmatched_recvs),
        ] {
            if list.is_empty() {
                continue;
            }
            doc.line(format!("\n{title} (first 20 of {}):", list.len()));
            for e in list.iter().take(20) {
                doc.line(format!(
                    "  proc {} {} peer {} tag {} size {} at {}",
                    e.proc,
                    e.kind,
                    e.peer,
                    e.tag,
                    e.size,
                    fixed(e.time, 9)
                ));
            }
        }
        doc
    }
}

/// Emptied text buffers for reuse by the parallel formatting tasks of
/// [`PairStream`]: new ones would be page-faulted in again for every task.
#[derive(Default)]
struct BufferPool(std::sync::Mutex<Vec<Vec<u8>>>);

impl BufferPool {
    fn take(&self) -> Vec<u8> {
        self.0
            .lock()
            .ok()
            .and_then(|mut v| v.pop())
            .unwrap_or_default()
    }

    fn give(&self, mut buf: Vec<u8>) {
        buf.clear();
        if let Ok(mut v) = self.0.lock() {
            v.push(buf);
        }
    }
}

/// Pairs formatted by one task, and the task's first error.
pub enum PairChunk {
    Json {
        text: Vec<u8>,
        error: Option<io::Error>,
    },
    Csv {
        /// Boxed: a CSV writer is ten times a JSON chunk's size.
        csv: Box<csv::Writer<Vec<u8>>>,
        error: Option<io::Error>,
    },
}

impl PairChunk {
    /// Formats one pair at the end of the chunk.
    pub fn add(&mut self, p: &Pair) {
        match self {
            PairChunk::Json { text, error } => {
                text.extend_from_slice(b",\n    ");
                if let Err(e) = serde_json::to_writer(&mut *text, p) {
                    error.get_or_insert(crate::report::render::json::io_error(e));
                }
            }
            PairChunk::Csv { csv, error } => {
                let r = csv.serialize((
                    p.from,
                    p.to,
                    p.tag,
                    p.size,
                    p.send_time,
                    p.recv_time,
                    p.latency,
                    p.completed_time,
                    p.latency_to_completion,
                ));
                if let Err(e) = r {
                    error.get_or_insert(crate::report::render::csv::csv_io_error(e));
                }
            }
        }
    }
}

/// Makes the chunks of a [`PairStream`] (shared by the pairing's tasks).
pub struct PairChunks {
    csv: bool,
    pool: BufferPool,
}

impl PairChunks {
    /// Chunks for `format`: [`Format::Csv`](crate::report::Format::Csv) gives CSV
    /// rows, anything else JSON.
    pub fn new(format: crate::report::Format) -> Self {
        PairChunks {
            csv: format == crate::report::Format::Csv,
            pool: BufferPool::default(),
        }
    }

    /// An empty chunk for one task.
    pub fn chunk(&self) -> PairChunk {
        if self.csv {
            PairChunk::Csv {
                csv: Box::new(
                    csv::WriterBuilder::new()
                        .has_headers(false)
                        .from_writer(self.pool.take()),
                ),
                error: None,
            }
        } else {
            PairChunk::Json {
                text: self.pool.take(),
                error: None,
            }
        }
    }
}

/// `comm pairs --format json|csv`: every matched message, written in
/// order as the pairing's tasks hand their chunks over (millions of pairs
/// never sit in memory), then the rest of the report. The first error
/// stops the writing and is returned by [`PairStream::finish`].
pub struct PairStream<'w> {
    out: &'w mut dyn Write,
    chunks: &'w PairChunks,
    /// No pair written yet (the first one takes no comma).
    first: bool,
    failed: Option<io::Error>,
}

impl<'w> PairStream<'w> {
    /// Writes the head (the JSON object's opening, or the CSV header).
    pub fn begin(out: &'w mut dyn Write, chunks: &'w PairChunks) -> Self {
        let mut stream = PairStream {
            out,
            chunks,
            first: true,
            failed: None,
        };
        if chunks.csv {
            let mut c = csv::Writer::from_writer(&mut *stream.out);
            let head = c
                .write_record([
                    "from",
                    "to",
                    "tag",
                    "size",
                    "send_time",
                    "recv_time",
                    "latency",
                    "completed_time",
                    "latency_to_completion",
                ])
                .map_err(crate::report::render::csv::csv_io_error)
                .and_then(|()| c.flush());
            drop(c);
            stream.keep(head);
        } else {
            let head = stream.out.write_all(b"{\n  \"pairs\": [");
            stream.keep(head);
        }
        stream
    }

    fn keep(&mut self, r: io::Result<()>) {
        if let Err(e) = r {
            self.failed.get_or_insert(e);
        }
    }

    /// Writes one task's chunk (the chunks come in order).
    pub fn write(&mut self, chunk: PairChunk) {
        match chunk {
            PairChunk::Json { text, error } => {
                let mut bytes = text.as_slice();
                if self.first && !bytes.is_empty() {
                    bytes = &bytes[1..];
                    self.first = false;
                }
                self.keep(error.map_or(Ok(()), Err));
                let r = self.out.write_all(bytes);
                self.keep(r);
                self.chunks.pool.give(text);
            }
            PairChunk::Csv { csv, error } => {
                self.keep(error.map_or(Ok(()), Err));
                match csv.into_inner() {
                    Ok(text) => {
                        let r = self.out.write_all(&text);
                        self.keep(r);
                        self.chunks.pool.give(text);
                    }
                    Err(e) => self.keep(Err(e.into_error())),
                }
            }
        }
    }

    /// Writes the tail (for JSON, the report's other fields, pretty) and
    /// returns the first error met.
    pub fn finish(mut self, report: &PairReport) -> io::Result<()> {
        if !self.chunks.csv {
            let r = self.out.write_all(b"\n  ]");
            self.keep(r);
            if let Ok(serde_json::Value::Object(m)) = serde_json::to_value(report) {
                for (k, v) in m {
                    let text = serde_json::to_string_pretty(&v).unwrap_or_default();
                    let r = write!(self.out, ",\n  \"{k}\": {}", text.replace('\n', "\n  "));
                    self.keep(r);
                }
            }
            let r = self.out.write_all(b"\n}\n");
            self.keep(r);
        }
        self.failed.map_or(Ok(()), Err)
    }
}
