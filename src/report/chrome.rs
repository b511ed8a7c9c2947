//! Chrome Trace Event JSON (Perfetto, chrome://tracing), streamed: each
//! event is written as it is read, so a trace of any size never sits in
//! memory. Times are microseconds; `pid` is the process, `tid` 0 the call
//! track and `tid` 1 the region track.

use std::io::{self, Write};

use serde::Serialize;

use crate::analysis::regions::Regions;
use crate::analysis::trace_summary::for_each_call;
use crate::error::Warning;
use crate::formats::blprof::database::Database;

/// What to export.
#[derive(Debug, Clone, Copy)]
pub struct ChromeOptions {
    /// Only events overlapping `[t0, t1]` seconds.
    pub window: (f64, f64),
    /// Only this process.
    pub proc: Option<usize>,
    /// Drop calls shorter than this many seconds.
    pub min_dur: f64,
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
    fn event(&mut self, e: &Event<'_>) -> io::Result<()> {
        self.w.write_all(if self.first { b"\n" } else { b",\n" })?;
        self.first = false;
        serde_json::to_writer(&mut *self.w, e).map_err(io::Error::other)?;
        self.count += 1;
        Ok(())
    }
}

fn overlaps(window: (f64, f64), start: f64, end: f64) -> bool {
    end >= window.0 && start <= window.1
}

/// Writes `{"traceEvents":[…],"displayTimeUnit":"ms"}` for the call traces
/// and regions of `db`; returns the number of events and any warnings.
pub fn write_blprof_trace(
    w: &mut dyn Write,
    db: &Database,
    regions: &Regions,
    opts: &ChromeOptions,
) -> io::Result<(u64, Vec<Warning>)> {
    w.write_all(b"{\"traceEvents\":[")?;
    let mut out = EventWriter {
        w,
        first: true,
        count: 0,
    };
    let warnings = std::sync::Mutex::new(Vec::new());
    for p in &db.trace_index().procs {
        if opts.proc.is_some_and(|x| x != p.proc) {
            continue;
        }
        out.event(&Event {
            name: "process_name",
            ph: "M",
            ts: 0.0,
            dur: None,
            pid: p.proc,
            tid: 0,
            cat: None,
            args: Some(Args {
                inclusive_s: None,
                exclusive_s: None,
                depth: None,
                name: Some(format!("process {}", p.proc)),
            }),
        })?;
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
                tid: 0,
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
        if let Some(r) = regions.proc(p.proc) {
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
                        pid: p.proc,
                        tid: 1,
                        cat: Some("region"),
                        args: None,
                    })?;
                }
            }
        }
    }
    let count = out.count;
    out.w.write_all(b"\n],\"displayTimeUnit\":\"ms\"}\n")?;
    Ok((
        count,
        warnings.into_inner().unwrap_or_else(|p| p.into_inner()),
    ))
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
    let mut failed: Option<io::Error> = None;
    for p in &db.comm_index().procs {
        let w = crate::analysis::comm_timeline::proc_calls(db, p, window, &mut |c| {
            if failed.is_some() {
                return;
            }
            let r = out.event(&Event {
                name: c.name,
                ph: if c.instant { "i" } else { "X" },
                ts: c.start * 1e6,
                dur: (!c.instant).then(|| (c.end - c.start).max(0.0) * 1e6),
                pid: p.proc,
                tid: 0,
                cat: Some("comm"),
                args: None,
            });
            if let Err(e) = r {
                failed = Some(e);
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        warnings.extend(w);
    }
    let count = out.count;
    out.w.write_all(b"\n],\"displayTimeUnit\":\"ms\"}\n")?;
    Ok((count, warnings))
}
