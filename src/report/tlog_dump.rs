//! Event dumps: the three reference layouts byte for byte, and JSON / CSV.
//!
//! Large files are formatted in parallel, in fixed chunks of records written
//! in order, so the output is the same for any thread count and memory stays
//! at a few chunks.

use std::io::{self, Write};

use rayon::prelude::*;
use serde::Serialize;

use crate::formats::tlog::{EventKind, Record, TlogFile};
use crate::report::numfmt::java::write_java_double;
use crate::report::numfmt::printf::write_c_g;

/// Dump layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DumpStyle {
    /// Java `tlogDump`: file order, `type=..,id=..,arg1=..,arg2=..,time=..`.
    TlogDump,
    /// C `tlog_dump F N`: grouped by process, `-------` headers, `%g` times.
    TlogDumpC {
        /// Processes to list (the `N` of C `tlog_dump F N`).
        nodes: usize,
    },
    /// The format document's sample program.
    Sample {
        /// Processes to list (the `N` of C `tlog_dump F N`).
        nodes: usize,
    },
}

/// A section heading of the per-process layouts with a six-digit process
/// number (`-------\nTlog exec profile dump: 123456, #data=…\n`).
const HEADING_BYTES: u64 = 48;

impl DumpStyle {
    /// Bytes per event of this layout in `format` (JSON and CSV carry more
    /// fields): a dump's size is estimated before anything is written.
    fn bytes_per_event(self, format: crate::report::Format) -> u64 {
        match (format, self) {
            (crate::report::Format::Text, DumpStyle::TlogDump) => 45,
            (crate::report::Format::Text, _) => 60,
            _ => 160,
        }
    }

    /// The bytes a dump of `t` in `format` writes, about: its events, and
    /// in text one section heading per process up to `--nodes` (a billion
    /// nodes are a billion headings, events or not).
    pub fn estimated_bytes(self, t: &TlogFile, format: crate::report::Format) -> u64 {
        let events = t
            .total_events()
            .saturating_mul(self.bytes_per_event(format));
        let headings = match (format, self) {
            (
                crate::report::Format::Text,
                DumpStyle::TlogDumpC { nodes } | DumpStyle::Sample { nodes },
            ) => (nodes as u64).saturating_mul(HEADING_BYTES),
            _ => 0,
        };
        events.saturating_add(headings)
    }

    /// The blocks a text dump reads, for progress: file order reads every
    /// block once; per-process sections read each process's blocks (twice
    /// in a damaged file: a counting pass first).
    pub fn blocks_read(self, t: &TlogFile) -> u64 {
        match self {
            DumpStyle::TlogDump => t.blocks() as u64,
            _ => t.process_blocks() * (1 + u64::from(!t.warnings().is_empty())),
        }
    }
}

// Integers through `itoa`: this is the hot loop of a dump of millions of events.
fn java_line(out: &mut Vec<u8>, r: &Record) {
    let mut b = itoa::Buffer::new();
    out.extend_from_slice(b"type=");
    out.extend_from_slice(b.format(r.kind).as_bytes());
    out.extend_from_slice(b",id=");
    out.extend_from_slice(b.format(r.proc as i16).as_bytes());
    out.extend_from_slice(b",arg1=");
    out.extend_from_slice(b.format(r.arg1).as_bytes());
    out.extend_from_slice(b",arg2=");
    out.extend_from_slice(b.format(r.arg2).as_bytes());
    out.extend_from_slice(b",time=");
    write_java_double(out, r.time);
    out.push(b'\n');
}

fn c_line(out: &mut Vec<u8>, i: u64, r: &Record) {
    let mut b = itoa::Buffer::new();
    out.extend_from_slice(b.format(i).as_bytes());
    out.extend_from_slice(b":proc_id=");
    out.extend_from_slice(b.format(r.proc).as_bytes());
    out.extend_from_slice(b", log_type=");
    out.extend_from_slice(b.format(r.kind).as_bytes());
    out.extend_from_slice(b", time=");
    write_c_g(out, r.time, 6);
    out.push(b'\n');
}

/// Blocks per parallel task (64 K records).
const BLOCKS_PER_TASK: usize = 256;

/// Calls `f` for each event of `blocks` (in order), reading runs of
/// consecutive blocks at once into `buf`.
fn for_each_event(t: &TlogFile, blocks: &[usize], buf: &mut Vec<u8>, mut f: impl FnMut(&Record)) {
    let mut i = 0;
    while i < blocks.len() {
        let mut j = i + 1;
        while j < blocks.len() && blocks[j] == blocks[j - 1] + 1 {
            j += 1;
        }
        for raw in t
            .read_blocks(blocks[i], j - i, buf)
            .chunks_exact(crate::formats::tlog::RECORD)
        {
            let r = Record::decode(raw);
            if !r.is_padding() {
                f(&r);
            }
        }
        i = j;
    }
}

/// Formats the events of `blocks` (only those of `only`, if given) in
/// parallel tasks of consecutive blocks, written in order: decoding and
/// formatting both run in the workers. `line` gets each event's index among
/// the selected events.
fn write_blocks(
    w: &mut dyn Write,
    t: &TlogFile,
    blocks: &[usize],
    only: Option<u16>,
    line: impl Fn(&mut Vec<u8>, u64, &Record) + Sync,
) -> io::Result<()> {
    // In a file without warnings a process's blocks are full but its last
    // (padding only ends a process's run): no counting pass is needed.
    let regular = only.filter(|_| t.warnings().is_empty()).and_then(|p| {
        let last = *blocks.last()?;
        let before = (blocks.len() as u64 - 1) * crate::formats::tlog::RECORDS_PER_BLOCK as u64;
        Some((last, t.events_of(p).checked_sub(before)?))
    });
    let keep = |r: &Record| only.is_none_or(|p| r.proc == p);
    // A window of tasks is counted (when needed), then formatted.
    let ordered = crate::parallel::Ordered::per_thread(16);
    let group = BLOCKS_PER_TASK * ordered.window_len();
    let mut base = 0u64;
    let tasks = blocks.chunks(group).flat_map(|blocks| {
        let tasks: Vec<&[usize]> = blocks.chunks(BLOCKS_PER_TASK).collect();
        // Event counts first, so that each task knows its first index.
        let counts: Vec<u64> = if let Some((last, in_last)) = regular {
            tasks
                .iter()
                .map(|task| {
                    task.iter()
                        .map(|&b| {
                            if b == last {
                                in_last
                            } else {
                                crate::formats::tlog::RECORDS_PER_BLOCK as u64
                            }
                        })
                        .sum()
                })
                .collect()
        } else if only.is_some() {
            tasks
                .par_iter()
                .map(|task| {
                    let mut n = 0u64;
                    let mut buf = Vec::new();
                    for_each_event(t, task, &mut buf, |r| n += keep(r) as u64);
                    n
                })
                .collect()
        } else {
            vec![0; tasks.len()]
        };
        let mut starts = Vec::with_capacity(tasks.len());
        for c in &counts {
            starts.push(base);
            base += c;
        }
        tasks.into_iter().zip(starts)
    });
    ordered.run(
        tasks,
        |(task, start)| {
            let mut out = Vec::with_capacity(task.len() * 64 * 48);
            let mut i = start;
            let mut buf = Vec::new();
            for_each_event(t, task, &mut buf, |r| {
                if keep(r) {
                    line(&mut out, i, r);
                    i += 1;
                }
            });
            out
        },
        |b| w.write_all(&b),
    )
}

/// Writes the dump of `t` in `style`.
pub fn write_dump(w: &mut dyn Write, t: &TlogFile, style: DumpStyle) -> io::Result<()> {
    match style {
        DumpStyle::TlogDump => {
            let all: Vec<usize> = (0..t.blocks()).collect();
            write_blocks(w, t, &all, None, |o, _, r| java_line(o, r))
        }
        DumpStyle::TlogDumpC { nodes } | DumpStyle::Sample { nodes } => {
            let sample = matches!(style, DumpStyle::Sample { .. });
            for n in 0..nodes {
                let p = u16::try_from(n).ok();
                let count = p.map_or(0, |p| t.events_of(p));
                if sample {
                    writeln!(w, "--- Tlog exec profile dump: proc={n}, #data={count}")?;
                } else {
                    writeln!(w, "-------\nTlog exec profile dump: {n}, #data={count}")?;
                }
                let Some(p) = p else { continue };
                let blocks: Vec<usize> = t.proc_blocks(p).iter().map(|&b| b as usize).collect();
                write_blocks(w, t, &blocks, Some(p), c_line)?;
            }
            Ok(())
        }
    }
}

/// One event as JSON / CSV: unsigned process, named kind, pair number.
#[derive(Serialize)]
pub struct EventJson {
    pub offset: usize,
    pub proc: u16,
    #[serde(rename = "type")]
    pub kind: i8,
    pub role: &'static str,
    /// Pair (IN/OUT) or single-event number 1..9.
    pub number: Option<u8>,
    pub arg1: i8,
    pub arg2: i32,
    /// `null` when not finite (JSON has no NaN or infinity).
    pub time: Option<f64>,
}

pub fn event_json(offset: usize, r: &Record) -> EventJson {
    let (role, number) = match EventKind::of(r.kind) {
        EventKind::Start => ("start", None),
        EventKind::End => ("end", None),
        EventKind::In(k) => ("in", Some(k)),
        EventKind::Out(k) => ("out", Some(k)),
        EventKind::Single(k) => ("single", Some(k)),
        EventKind::Unknown(_) => ("unknown", None),
    };
    EventJson {
        offset,
        proc: r.proc,
        kind: r.kind,
        role,
        number,
        arg1: r.arg1,
        arg2: r.arg2,
        time: r.time.is_finite().then_some(r.time),
    }
}

/// `{"events":[…]}`, one event per line, streamed.
pub fn write_json(w: &mut dyn Write, t: &TlogFile) -> io::Result<()> {
    w.write_all(b"{\"events\":[")?;
    for (i, (off, r)) in t.iter().enumerate() {
        w.write_all(if i == 0 { b"\n" } else { b",\n" })?;
        serde_json::to_writer(&mut *w, &event_json(off, &r))
            .map_err(crate::report::renderers::json::io_error)?;
    }
    w.write_all(b"\n]}\n")
}

/// `offset,proc,type,role,number,arg1,arg2,time` per event (times in full precision).
pub fn write_csv(w: &mut dyn Write, t: &TlogFile) -> io::Result<()> {
    let mut out = csv::Writer::from_writer(w);
    out.write_record([
        "offset", "proc", "type", "role", "number", "arg1", "arg2", "time",
    ])
    .map_err(crate::report::renderers::csv::csv_io_error)?;
    for (off, r) in t.iter() {
        let e = event_json(off, &r);
        out.write_record([
            off.to_string(),
            r.proc.to_string(),
            r.kind.to_string(),
            e.role.to_owned(),
            e.number.map(|n| n.to_string()).unwrap_or_default(),
            r.arg1.to_string(),
            r.arg2.to_string(),
            r.time.to_string(),
        ])
        .map_err(crate::report::renderers::csv::csv_io_error)?;
    }
    out.flush()
}
