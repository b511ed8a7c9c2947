//! Chrome Trace Event JSON (Perfetto, chrome://tracing), streamed: each
//! event is written as it is read, so a trace of any size never sits in
//! memory. Times are microseconds; `pid` is the process, `tid` 0 the call
//! track, `tid` 1 the region track and `tid` 2 the communication track,
//! with flow events from each send to its receive.

use std::io::{self, Write};

use serde::Serialize;

use crate::analysis::regions::Regions;
use crate::analysis::trace_summary::for_each_call;
use crate::error::Warning;
use crate::formats::blprof::commdata::{is_recv, is_send};
use crate::formats::blprof::database::Database;

/// What to export.
#[derive(Debug, Clone, Default)]
pub struct ChromeOptions {
    /// Only events overlapping `[t0, t1]` seconds.
    pub window: (f64, f64),
    /// Only these processes (`None`: all).
    pub procs: Option<Vec<usize>>,
    /// Drop calls (and communication calls) shorter than this many seconds;
    /// instants count as 0 s long.
    pub min_dur: f64,
    /// Communication calls and message flows (when the database has a comm
    /// profile).
    pub comm: bool,
}

impl ChromeOptions {
    /// Everything: no window, every process, every call, comm included.
    pub fn all() -> Self {
        ChromeOptions {
            window: (f64::NEG_INFINITY, f64::INFINITY),
            procs: None,
            min_dur: 0.0,
            comm: true,
        }
    }

    pub fn wants_proc(&self, p: usize) -> bool {
        self.procs.as_ref().is_none_or(|v| v.contains(&p))
    }
}

/// What [`write_blprof_trace`] wrote.
#[derive(Debug, Default)]
pub struct ExportStats {
    /// All events, metadata and flow events included.
    pub events: u64,
    /// Communication calls and instants.
    pub comm_events: u64,
    /// Messages drawn as flows (each an `s` and an `f` event).
    pub flows: u64,
    pub warnings: Vec<Warning>,
}

/// Track (`tid`) of the calls, the regions and the communication calls.
pub const TID_CALLS: u32 = 0;
pub const TID_REGIONS: u32 = 1;
pub const TID_COMM: u32 = 2;

/// Bytes per event in the written JSON, measured on the fixtures (calls
/// carry their times as args; comm events do not).
const CALL_EVENT_BYTES: u64 = 190;
const COMM_EVENT_BYTES: u64 = 100;

/// An estimate of what an export would write, from the block headers
/// alone (no data read): records of the blocks whose time range meets the
/// window, of the selected processes. An upper bound for the calls (they
/// ignore `--min-dur`), an approximation for comm (one event per record:
/// calls take two records, messages add two flow events).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ExportEstimate {
    pub events: u64,
    pub bytes: u64,
}

pub fn estimate_export(db: &Database, opts: &ChromeOptions) -> ExportEstimate {
    let (w0, w1) = opts.window;
    let mut call_events = 0u64;
    for p in db
        .trace_index()
        .procs
        .iter()
        .filter(|p| opts.wants_proc(p.proc))
    {
        // `timeMinMax` is cumulative: a block's calls start between the
        // previous block's max and its own.
        let mut prev_max = f64::NEG_INFINITY;
        for b in &p.blocks {
            let keep = match b.time_min_max {
                Some((_, max)) => {
                    let k = max >= w0 && prev_max <= w1;
                    prev_max = max;
                    k
                }
                None => true,
            };
            if keep {
                // Counts come from headers: saturate rather than overflow.
                call_events = call_events.saturating_add(b.ntrace.saturating_add(b.nrss / 2));
            }
        }
    }
    let mut comm_events = 0u64;
    if opts.comm {
        let sel = crate::analysis::comm_select::CommSelection {
            window: opts.window,
            procs: None,
        };
        for p in db
            .comm_index()
            .procs
            .iter()
            .filter(|p| opts.wants_proc(p.proc))
        {
            comm_events = sel
                .blocks(p)
                .fold(comm_events, |n, b| n.saturating_add(b.ncomm));
        }
    }
    ExportEstimate {
        events: call_events.saturating_add(comm_events),
        bytes: call_events
            .saturating_mul(CALL_EVENT_BYTES)
            .saturating_add(comm_events.saturating_mul(COMM_EVENT_BYTES)),
    }
}

#[derive(Serialize)]
struct Event<'a> {
    name: &'a str,
    ph: &'static str,
    ts: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    pid: usize,
    tid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    cat: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<Args>,
}

#[derive(Serialize)]
struct Args {
    #[serde(skip_serializing_if = "Option::is_none")]
    inclusive_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exclusive_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    depth: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

struct EventWriter<'w> {
    w: &'w mut dyn Write,
    first: bool,
    count: u64,
}

impl EventWriter<'_> {
    fn event(&mut self, e: &impl Serialize) -> io::Result<()> {
        self.w.write_all(if self.first { b"\n" } else { b",\n" })?;
        self.first = false;
        serde_json::to_writer(&mut *self.w, e).map_err(super::json::io_error)?;
        self.count += 1;
        Ok(())
    }
}

fn overlaps(window: (f64, f64), start: f64, end: f64) -> bool {
    end >= window.0 && start <= window.1
}

fn metadata(
    out: &mut EventWriter<'_>,
    what: &'static str,
    pid: usize,
    tid: u32,
    name: String,
) -> io::Result<()> {
    out.event(&Event {
        name: what,
        ph: "M",
        ts: 0.0,
        dur: None,
        pid,
        tid,
        cat: None,
        args: Some(Args {
            inclusive_s: None,
            exclusive_s: None,
            depth: None,
            name: Some(name),
        }),
    })
}

/// A flow event: `s` on the send, `f` (bound to the enclosing slice,
/// `bp: "e"`) on the receive, joined by `id`.
#[derive(Serialize)]
struct FlowEvent {
    name: &'static str,
    cat: &'static str,
    ph: &'static str,
    id: u64,
    ts: f64,
    pid: usize,
    tid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    bp: Option<&'static str>,
    args: FlowArgs,
}

#[derive(Serialize)]
struct FlowArgs {
    from: usize,
    to: usize,
    tag: i32,
    bytes: i32,
    /// The times of the send and the receive records (seconds).
    send_time_s: f64,
    recv_time_s: f64,
}

/// The message ends to place: (process, bits of the record time) → the
/// middle of the call slice that record starts or ends (NaN until that
/// slice is written).
type Slices = rustc_hash::FxHashMap<(usize, u64), f64>;

/// Writes `{"traceEvents":[…],"displayTimeUnit":"ms"}` for `db`: per
/// process (`pid`) its calls (`tid` 0), its regions (`tid` 1, when
/// `regions` is given) and, with `opts.comm`, its communication calls
/// (`tid` 2: `X` from the before- to the after-record, `i` for instants),
/// then one flow (`s` → `f`, `cat` "message") per message paired by
/// [`crate::analysis::comm_pairs`] whose two ends are both exported.
/// Streamed process by process; the pairing holds the message ends of the
/// window in memory.
pub fn write_blprof_trace(
    w: &mut dyn Write,
    db: &Database,
    regions: Option<&Regions>,
    opts: &ChromeOptions,
) -> io::Result<ExportStats> {
    use std::collections::BTreeSet;
    w.write_all(b"{\"traceEvents\":[")?;
    let mut out = EventWriter {
        w,
        first: true,
        count: 0,
    };
    let mut stats = ExportStats::default();
    let warnings = std::sync::Mutex::new(Vec::new());
    let traces: std::collections::BTreeMap<usize, &crate::formats::blprof::database::ProcTrace> =
        db.trace_index()
            .procs
            .iter()
            .filter(|p| opts.wants_proc(p.proc))
            .map(|p| (p.proc, p))
            .collect();
    let comms: std::collections::BTreeMap<usize, &crate::formats::blprof::database::ProcComm> =
        if opts.comm {
            db.comm_index()
                .procs
                .iter()
                .filter(|p| opts.wants_proc(p.proc))
                .map(|p| (p.proc, p))
                .collect()
        } else {
            Default::default()
        };
    let procs: BTreeSet<usize> = traces.keys().chain(comms.keys()).copied().collect();
    // Messages first (their ends are read again below, as calls): the
    // record of a message end is the first or last record of its call, so
    // the calls written fill in where the flow ends go. Only the ends of
    // exported messages are held.
    let mut slices: Slices = Default::default();
    let pairs = if opts.comm && !comms.is_empty() {
        let sel = crate::analysis::comm_select::CommSelection {
            window: opts.window,
            procs: None,
        };
        // Only the exported messages are kept as they stream by.
        let mut pairs = Vec::new();
        let (_, w) = crate::analysis::comm_pairs::pair_messages(db, &sel, &mut |m| {
            if comms.contains_key(&m.from)
                && comms.contains_key(&m.to)
                && m.send_time.is_finite()
                && m.recv_time.is_finite()
            {
                pairs.push(m.clone());
            }
        });
        stats.warnings.extend(w);
        pairs.shrink_to_fit();
        slices.reserve(2 * pairs.len());
        for m in &pairs {
            slices.insert((m.from, m.send_time.to_bits()), f64::NAN);
            slices.insert((m.to, m.recv_time.to_bits()), f64::NAN);
        }
        pairs
    } else {
        Vec::new()
    };
    for &proc in &procs {
        metadata(&mut out, "process_name", proc, 0, format!("process {proc}"))?;
        if let Some(p) = traces.get(&proc) {
            metadata(&mut out, "thread_name", proc, TID_CALLS, "calls".into())?;
            let mut err = None;
            for_each_call(db, p, &warnings, |c| {
                if err.is_some()
                    || c.inclusive < opts.min_dur
                    || !overlaps(opts.window, c.start, c.end())
                {
                    return;
                }
                let name = p.functions.name(c.fnum as i64).unwrap_or("?");
                let e = Event {
                    name,
                    ph: "X",
                    ts: c.start * 1e6,
                    dur: Some(c.inclusive.max(0.0) * 1e6),
                    pid: p.proc,
                    tid: TID_CALLS,
                    cat: Some("call"),
                    args: Some(Args {
                        inclusive_s: Some(c.inclusive),
                        exclusive_s: Some(c.exclusive),
                        depth: Some(c.depth),
                        name: None,
                    }),
                };
                if let Err(e) = out.event(&e) {
                    err = Some(e);
                }
            });
            if let Some(e) = err {
                return Err(e);
            }
        }
        if let Some(r) = regions.and_then(|r| r.proc(proc).map(|x| (r, x))) {
            let (regions, r) = r;
            metadata(&mut out, "thread_name", proc, TID_REGIONS, "regions".into())?;
            for (n, ranges) in &r.ranges {
                let name = regions.name(*n);
                for range in ranges
                    .iter()
                    .filter(|x| overlaps(opts.window, x.start, x.stop))
                {
                    out.event(&Event {
                        name: &name,
                        ph: "X",
                        ts: range.start * 1e6,
                        dur: Some(range.len() * 1e6),
                        pid: proc,
                        tid: TID_REGIONS,
                        cat: Some("region"),
                        args: None,
                    })?;
                }
            }
        }
        if let Some(p) = comms.get(&proc) {
            metadata(&mut out, "thread_name", proc, TID_COMM, "comm".into())?;
            let before = out.count;
            let w = comm_events(&mut out, db, p, TID_COMM, opts, Some(&mut slices))?;
            stats.comm_events += out.count - before;
            stats.warnings.extend(w);
        }
    }
    {
        // A flow end sits in the middle of its call's slice, so that
        // viewers bind it to that slice (a time on the slice's edge is
        // ambiguous); the record times are in `args`. Without the slice
        // (an instant, or a call below --min-dur) the record time is used,
        // and with --min-dur the message is left out.
        let at = |proc: usize, t: f64| -> Option<f64> {
            match slices.get(&(proc, t.to_bits())) {
                Some(&mid) if !mid.is_nan() => Some(mid),
                _ => (opts.min_dur <= 0.0).then_some(t),
            }
        };
        for m in &pairs {
            let (Some(ts_send), Some(ts_recv)) = (at(m.from, m.send_time), at(m.to, m.recv_time))
            else {
                continue;
            };
            stats.flows += 1;
            let args = || FlowArgs {
                from: m.from,
                to: m.to,
                tag: m.tag,
                bytes: m.size,
                send_time_s: m.send_time,
                recv_time_s: m.recv_time,
            };
            for (ph, ts, pid, bp) in [
                ("s", ts_send, m.from, None),
                ("f", ts_recv, m.to, Some("e")),
            ] {
                out.event(&FlowEvent {
                    name: "message",
                    cat: "message",
                    ph,
                    id: stats.flows,
                    ts: ts * 1e6,
                    pid,
                    tid: TID_COMM,
                    bp,
                    args: args(),
                })?;
            }
        }
    }
    stats.events = out.count;
    out.w.write_all(b"\n],\"displayTimeUnit\":\"ms\"}\n")?;
    let mut all = warnings.into_inner().unwrap_or_else(|p| p.into_inner());
    all.append(&mut stats.warnings);
    stats.warnings = all;
    Ok(stats)
}

/// The communication calls of process `p` overlapping the window and at
/// least `min_dur` long, on track `tid`; the sends and receives written
/// fill in the middles of the message ends in `slices` when given.
fn comm_events(
    out: &mut EventWriter<'_>,
    db: &Database,
    p: &crate::formats::blprof::database::ProcComm,
    tid: u32,
    opts: &ChromeOptions,
    mut slices: Option<&mut Slices>,
) -> io::Result<Vec<Warning>> {
    let mut failed: Option<io::Error> = None;
    let w = crate::analysis::comm_timeline::proc_calls(db, p, opts.window, &mut |c| {
        if failed.is_some() || c.end - c.start < opts.min_dur {
            return;
        }
        if let Some(k) = slices.as_deref_mut()
            && !c.instant
            && (is_send(c.kind) || is_recv(c.kind))
        {
            let mid = 0.5 * (c.start + c.end);
            for t in [c.start, c.end] {
                if let Some(slot) = k.get_mut(&(p.proc, t.to_bits())) {
                    *slot = mid;
                }
            }
        }
        let r = out.event(&Event {
            name: c.name,
            ph: if c.instant { "i" } else { "X" },
            ts: c.start * 1e6,
            dur: (!c.instant).then(|| (c.end - c.start).max(0.0) * 1e6),
            pid: p.proc,
            tid,
            cat: Some("comm"),
            args: None,
        });
        if let Err(e) = r {
            failed = Some(e);
        }
    });
    match failed {
        Some(e) => Err(e),
        None => Ok(w),
    }
}

/// Chrome trace of a tlog file: an `X` event per matched IN/OUT interval and
/// an `i` event per single event, `pid` = process; returns the event count.
pub fn write_tlog_trace(
    w: &mut dyn Write,
    t: &crate::tlog::TlogFile,
    names: &crate::tlog::summary::EventNames,
) -> io::Result<u64> {
    use crate::tlog::EventKind;
    w.write_all(b"{\"traceEvents\":[")?;
    let mut out = EventWriter {
        w,
        first: true,
        count: 0,
    };
    for p in t.procs() {
        let pid = p as usize;
        let mut open: Vec<(u8, f64)> = Vec::new();
        for (_, r) in t.proc_events(p) {
            if !r.time.is_finite() {
                continue;
            }
            match EventKind::of(r.kind) {
                EventKind::In(k) => open.push((k, r.time)),
                EventKind::Out(k) => {
                    if let Some(j) = open.iter().rposition(|o| o.0 == k) {
                        let (_, t0) = open.remove(j);
                        let name = names.pair(k);
                        out.event(&Event {
                            name: &name,
                            ph: "X",
                            ts: t0 * 1e6,
                            dur: Some((r.time - t0).max(0.0) * 1e6),
                            pid,
                            tid: 0,
                            cat: Some("interval"),
                            args: None,
                        })?;
                    }
                }
                EventKind::Single(k) => {
                    let name = names.single(k);
                    out.event(&Event {
                        name: &name,
                        ph: "i",
                        ts: r.time * 1e6,
                        dur: None,
                        pid,
                        tid: 0,
                        cat: Some("single"),
                        args: None,
                    })?;
                }
                EventKind::Start | EventKind::End | EventKind::Unknown(_) => {}
            }
        }
    }
    let count = out.count;
    out.w.write_all(b"\n],\"displayTimeUnit\":\"ms\"}\n")?;
    Ok(count)
}

/// Writes the communication calls of `db` overlapping `window` (one track
/// per process, `X` for calls, `i` for instants), streamed process by
/// process; returns the number of events and any warnings.
pub fn write_comm_trace(
    w: &mut dyn Write,
    db: &Database,
    window: (f64, f64),
) -> io::Result<(u64, Vec<Warning>)> {
    w.write_all(b"{\"traceEvents\":[")?;
    let mut out = EventWriter {
        w,
        first: true,
        count: 0,
    };
    let mut warnings = Vec::new();
    let opts = ChromeOptions {
        window,
        ..ChromeOptions::all()
    };
    for p in &db.comm_index().procs {
        warnings.extend(comm_events(&mut out, db, p, 0, &opts, None)?);
    }
    let count = out.count;
    out.w.write_all(b"\n],\"displayTimeUnit\":\"ms\"}\n")?;
    Ok((count, warnings))
}
