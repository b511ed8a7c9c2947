//! A bl_prof database as a Chrome trace: calls, regions, communication
//! calls and message flows.

use std::cell::RefCell;
use std::io::{self, Write};

use rayon::prelude::*;

use crate::analysis::comm_clocks::ClockOffsets;
use crate::analysis::comm_select::ProcRanges;
use crate::analysis::comm_timeline::{CommCall, ProcCalls};
use crate::analysis::ranges::RangeList;
use crate::analysis::regions::Regions;
use crate::error::{Location, Warning};
use crate::formats::blprof::commdata::{func_name, is_recv, is_send};
use crate::formats::blprof::database::Database;
use crate::formats::blprof::trace::{CallRecord, TraceBlock};
use crate::formats::blprof::walk::{BlockSelection, CommProcWalk, Skipped, TraceProcWalk};
use crate::parallel::Ordered;

use super::json::{
    EventWriter, json_str, put_event, put_f64, put_int, put_metadata, put_str, put_us,
};
use super::{CallArgs, ChromeOptions, ExportStats, TID_CALLS, TID_COMM, TID_REGIONS};

fn overlaps(window: (f64, f64), start: f64, end: f64) -> bool {
    end >= window.0 && start <= window.1
}

// Ordered parallel formatting: tasks (a range of a trace block's calls, a
// slice of a comm block's calls, a run of flows) are formatted in parallel a
// group at a time and their texts written in task order, so the output is
// the same for any thread count and memory stays at one group of texts.

/// Records per formatting task (about 3 MB of JSON).
const TASK: usize = 16 * 1024;

/// A process or track name.
#[derive(Clone, Copy)]
enum MetaName {
    /// `process N`.
    Process,
    Track(&'static str),
}

/// An exported message: both ends among the exported processes.
#[derive(Clone, Copy)]
struct FlowMsg {
    /// Flow number (1, 2, …).
    id: u64,
    from: usize,
    to: usize,
    /// Positions of `from` and `to` in [`Ends`].
    from_slot: u32,
    to_slot: u32,
    tag: i32,
    size: i32,
    send_time: f64,
    recv_time: f64,
    /// Where the two ends go, when already looked up.
    ts: Option<(f64, f64)>,
}

/// A communication call (its name is its type's).
#[derive(Clone, Copy)]
struct CommEv {
    start: f64,
    end: f64,
    kind: i32,
    instant: bool,
}

/// What one event (two for a flow) is made of, when not formatted straight
/// from the records.
enum Item {
    Meta {
        what: &'static str,
        pid: usize,
        tid: u32,
        name: MetaName,
    },
    Region {
        pid: usize,
        tid: u32,
        /// Position of the name in [`Context::region_names`].
        name: u32,
        start: f64,
        stop: f64,
    },
    Flow(FlowMsg),
}

const NO_SLOT: u32 = u32::MAX;

/// The region tracks' names: regions that overlap without nesting (a
/// region started in one and stopped after it) go on a track of their
/// own, at most this many per process.
const REGION_TRACKS: [&str; 8] = [
    "regions",
    "regions 2",
    "regions 3",
    "regions 4",
    "regions 5",
    "regions 6",
    "regions 7",
    "regions 8",
];

/// The track of region lane `lane`: the region track, then tracks after
/// the communication track.
fn region_tid(lane: u32) -> u32 {
    if lane == 0 {
        TID_REGIONS
    } else {
        TID_COMM + lane
    }
}

/// A lane per range (ranges sorted by start, longest first) such that the
/// ranges of a lane nest or follow each other, as slices of one track
/// must: each range goes to the first lane where it fits inside the
/// innermost range still open, or where nothing is open. Ranges that fit
/// nowhere after the last lane go there anyway (damaged data; the viewer
/// then draws them as best it can).
fn region_lanes(ranges: impl Iterator<Item = (f64, f64)>) -> Vec<u32> {
    let mut open: Vec<Vec<f64>> = Vec::new(); // per lane, the open ranges' stops
    let mut lanes = Vec::new();
    for (start, stop) in ranges {
        for stops in open.iter_mut() {
            while stops.last().is_some_and(|&z| z <= start) {
                stops.pop();
            }
        }
        let fits = |stops: &Vec<f64>| stops.last().is_none_or(|&z| stop <= z);
        let lane = match open.iter().position(fits) {
            Some(l) => l,
            None if open.len() < REGION_TRACKS.len() => {
                open.push(Vec::new());
                open.len() - 1
            }
            None => open.len() - 1,
        };
        open[lane].push(stop);
        lanes.push(lane as u32);
    }
    lanes
}

/// Per exported process (by slot), the record times (as bits, sorted) of
/// the ends of its exported messages, and the middle of the call slice each
/// starts or ends (NaN until that slice is written): 16 bytes per end.
#[derive(Default)]
struct Ends {
    keys: Vec<Vec<u64>>,
    mids: Vec<Vec<f64>>,
}

impl Ends {
    fn mid(&self, slot: u32, t: f64) -> Option<f64> {
        let (s, i) = find_end(&self.keys, slot, t)?;
        let m = *self.mids.get(s as usize)?.get(i as usize)?;
        (!m.is_nan()).then_some(m)
    }
}

/// Where the message end of process `slot` at record time `t` is in
/// [`Ends`] (its keys).
fn find_end(keys: &[Vec<u64>], slot: u32, t: f64) -> Option<(u32, u32)> {
    let i = keys.get(slot as usize)?.binary_search(&t.to_bits()).ok()?;
    Some((slot, u32::try_from(i).ok()?))
}

/// What formatting reads besides the records.
#[derive(Default)]
struct Context {
    /// Function names per process slot, as JSON strings.
    names: Vec<rustc_hash::FxHashMap<i32, Box<[u8]>>>,
    region_names: Vec<Box<[u8]>>,
}

/// What a task made: its text, its events, its comm events and the middles
/// of the message-end slices it wrote (slot, index, middle), in order.
#[derive(Default)]
struct Formatted {
    text: Vec<u8>,
    events: u64,
    comm: u64,
    /// Calls written as `"?"`: their function is not in the process's table.
    unknown_functions: u64,
    mids: Vec<(u32, u32, f64)>,
}

/// A call: an `X` with `args` as asked. Returns false when its function is
/// not in the process's table (written as `"?"`).
fn format_call(
    o: &mut Vec<u8>,
    ctx: &Context,
    (pid, slot): (usize, u32),
    args: CallArgs,
    c: &CallRecord,
    shift: f64,
) -> bool {
    let known = ctx.names.get(slot as usize).and_then(|n| n.get(&c.fnum));
    let name: &[u8] = known.map_or(b"\"?\"", |n| n);
    let start = c.start - shift;
    o.extend_from_slice(b",\n{\"name\":");
    o.extend_from_slice(name);
    o.extend_from_slice(b",\"ph\":\"X\",\"ts\":");
    put_us(o, start);
    o.extend_from_slice(b",\"dur\":");
    // From the rounded ends, as every slice's (`put_event`).
    let ns = ((start + c.inclusive.max(0.0)) * 1e9).round() - (start * 1e9).round();
    put_f64(o, ns.max(0.0) / 1e3);
    o.extend_from_slice(b",\"pid\":");
    put_int(o, pid);
    o.extend_from_slice(b",\"tid\":0,\"cat\":\"call\"");
    match args {
        CallArgs::None => {}
        CallArgs::Summary => {
            o.extend_from_slice(b",\"args\":{\"depth\":");
            put_int(o, c.depth);
            o.push(b'}');
        }
        CallArgs::All => {
            o.extend_from_slice(b",\"args\":{\"inclusive_s\":");
            put_f64(o, c.inclusive);
            o.extend_from_slice(b",\"exclusive_s\":");
            put_f64(o, c.exclusive);
            o.extend_from_slice(b",\"depth\":");
            put_int(o, c.depth);
            o.push(b'}');
        }
    }
    o.push(b'}');
    known.is_some()
}

/// Formats calls `range` of `block` (sentinels, calls shorter than
/// `--min-dur` and outside the window left out).
fn format_calls(
    block: &TraceBlock,
    range: std::ops::Range<usize>,
    (pid, slot): (usize, u32),
    opts: &ChromeOptions,
    shift: f64,
    ctx: &Context,
    out: &mut Formatted,
) {
    out.text.reserve(range.len() * 256);
    for i in range {
        let c = block.call(i);
        if c.is_sentinel() || c.inclusive < opts.min_dur || !overlaps(opts.window, c.start, c.end())
        {
            continue;
        }
        if !format_call(&mut out.text, ctx, (pid, slot), opts.call_args, &c, shift) {
            out.unknown_functions += 1;
        }
        out.events += 1;
    }
}

/// Communication calls of process `pid` on track `tid`; a send or receive
/// notes the middle of its slice for the message ends of `slot` it starts
/// or ends.
fn format_comm(
    calls: &[CommEv],
    (pid, tid, slot): (usize, u32, u32),
    keys: &[Vec<u64>],
    out: &mut Formatted,
) {
    out.text.reserve(calls.len() * 100);
    for c in calls {
        if slot != NO_SLOT && !c.instant && (is_send(c.kind) || is_recv(c.kind)) {
            let mid = 0.5 * (c.start + c.end);
            for t in [c.start, c.end] {
                if let Some((s, i)) = find_end(keys, slot, t) {
                    out.mids.push((s, i, mid));
                }
            }
        }
        let name = func_name(c.kind).unwrap_or("?");
        let o = &mut out.text;
        o.extend_from_slice(b",\n{\"name\":");
        put_str(o, name);
        if c.instant {
            o.extend_from_slice(b",\"ph\":\"i\",\"ts\":");
            put_us(o, c.start);
        } else {
            o.extend_from_slice(b",\"ph\":\"X\",\"ts\":");
            put_us(o, c.start);
            o.extend_from_slice(b",\"dur\":");
            put_us(o, (c.end - c.start).max(0.0));
        }
        o.extend_from_slice(b",\"pid\":");
        put_int(o, pid);
        o.extend_from_slice(b",\"tid\":");
        put_int(o, tid);
        o.extend_from_slice(b",\"cat\":\"comm\"}");
    }
    out.events += calls.len() as u64;
    out.comm += calls.len() as u64;
}

/// A message: `s` on the sender, `f` bound to the enclosing slice on the
/// receiver.
fn format_flow(o: &mut Vec<u8>, m: &FlowMsg, ends: &Ends) {
    let (ts_send, ts_recv) = m.ts.unwrap_or_else(|| {
        (
            ends.mid(m.from_slot, m.send_time).unwrap_or(m.send_time),
            ends.mid(m.to_slot, m.recv_time).unwrap_or(m.recv_time),
        )
    });
    for (ph, ts, pid, bp) in [(b's', ts_send, m.from, false), (b'f', ts_recv, m.to, true)] {
        o.extend_from_slice(b",\n{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"");
        o.push(ph);
        o.extend_from_slice(b"\",\"id\":");
        put_int(o, m.id);
        o.extend_from_slice(b",\"ts\":");
        put_us(o, ts);
        o.extend_from_slice(b",\"pid\":");
        put_int(o, pid);
        o.extend_from_slice(b",\"tid\":");
        put_int(o, TID_COMM);
        if bp {
            o.extend_from_slice(b",\"bp\":\"e\"");
        }
        o.extend_from_slice(b",\"args\":{\"from\":");
        put_int(o, m.from);
        o.extend_from_slice(b",\"to\":");
        put_int(o, m.to);
        o.extend_from_slice(b",\"tag\":");
        put_int(o, m.tag);
        o.extend_from_slice(b",\"bytes\":");
        put_int(o, m.size);
        o.extend_from_slice(b",\"send_time_s\":");
        put_f64(o, m.send_time);
        o.extend_from_slice(b",\"recv_time_s\":");
        put_f64(o, m.recv_time);
        o.extend_from_slice(b"}}");
    }
}

fn format_item(x: &Item, ctx: &Context, ends: &Ends, out: &mut Formatted) {
    let o = &mut out.text;
    match x {
        Item::Meta {
            what,
            pid,
            tid,
            name,
        } => {
            let name = match name {
                MetaName::Process => std::borrow::Cow::Owned(format!("process {pid}")),
                MetaName::Track(t) => std::borrow::Cow::Borrowed(*t),
            };
            put_metadata(o, what, *pid, *tid, &name);
            out.events += 1;
        }
        Item::Region {
            pid,
            tid,
            name,
            start,
            stop,
        } => {
            let name: &[u8] = ctx.region_names.get(*name as usize).map_or(b"\"?\"", |n| n);
            let len = (stop - start).max(0.0);
            put_event(o, name, "X", *start, Some(len), *pid, *tid, "region");
            out.events += 1;
        }
        Item::Flow(m) => {
            format_flow(o, m, ends);
            out.events += 2;
        }
    }
}

/// Formats `tasks` in parallel, a window at a time, and hands the results
/// to `write` in order (with what `format` returned besides the text).
/// Each task formats into the buffer of an earlier one: `spare` keeps them
/// from one call to the next (no page faults for every window).
fn format_in_order<T: Send, X: Send>(
    ordered: Ordered,
    spare: &mut Vec<Vec<u8>>,
    tasks: impl IntoIterator<Item = T>,
    format: impl Fn(T, &mut Formatted) -> X + Sync,
    mut write: impl FnMut(&Formatted, X) -> io::Result<()>,
) -> io::Result<()> {
    let buffers = RefCell::new(std::mem::take(spare));
    let written = ordered.run(
        tasks
            .into_iter()
            .map(|t| (t, buffers.borrow_mut().pop().unwrap_or_default())),
        |(t, text)| {
            let mut out = Formatted {
                text,
                ..Default::default()
            };
            let x = format(t, &mut out);
            (out, x)
        },
        |(out, x)| {
            write(&out, x)?;
            let mut text = out.text;
            text.clear();
            buffers.borrow_mut().push(text);
            Ok(())
        },
    );
    *spare = buffers.into_inner();
    // Keep what one window needs, not more.
    spare.truncate(ordered.window_len());
    written
}

/// Formats tasks in parallel, a window at a time, and writes their texts in
/// order; the middles of message-end slices they found are applied in the
/// same order (the last written wins, as in one pass).
struct Sink<'w> {
    out: EventWriter<'w>,
    ctx: Context,
    ends: Ends,
    ordered: Ordered,
    comm_events: u64,
    /// Text buffers to reuse.
    spare: Vec<Vec<u8>>,
}

impl<'w> Sink<'w> {
    fn new(out: EventWriter<'w>, ctx: Context, ends: Ends) -> Self {
        Sink {
            out,
            ctx,
            ends,
            ordered: Ordered::per_thread(2),
            comm_events: 0,
            spare: Vec::new(),
        }
    }

    /// Items, `TASK` per task.
    fn items(&mut self, items: &[Item]) -> io::Result<()> {
        let Sink {
            out,
            ctx,
            ends,
            ordered,
            comm_events,
            spare,
        } = self;
        format_in_order(
            *ordered,
            spare,
            items.chunks(TASK),
            |items, o| {
                o.text.reserve(items.len() * 120);
                for x in items {
                    format_item(x, ctx, ends, o);
                }
            },
            |d, ()| {
                *comm_events += d.comm;
                out.write(&d.text, d.events)
            },
        )
    }

    /// The communication calls of process `p` overlapping the window and
    /// at least `min_dur` long, on track `tid`. The next window of calls is
    /// read, and the last one written, while one is formatted.
    fn comm(
        &mut self,
        p: CommProcWalk<'_>,
        (tid, slot): (u32, u32),
        min_dur: f64,
        // Seconds to subtract from this process's times (its clock offset).
        shift: f64,
        // A region filter's ranges of this process: only calls entered
        // inside are written (`None`: all).
        inside: Option<&RangeList>,
    ) -> io::Result<Vec<Warning>> {
        let pid = p.proc().proc;
        let mut calls = ProcCalls::new(p);
        let Sink {
            out,
            ends,
            ordered,
            comm_events,
            spare,
            ..
        } = self;
        let (keys, mids) = (&ends.keys, &mut ends.mids);
        // Tasks of about `TASK` calls.
        let tasks = std::iter::from_fn(|| {
            let mut task = Vec::with_capacity(TASK + 2);
            calls.next_calls(TASK, |c: CommCall| {
                let keep = c.end - c.start >= min_dur && inside.is_none_or(|r| r.contains(c.start));
                if keep {
                    task.push(CommEv {
                        start: c.start - shift,
                        end: c.end - shift,
                        kind: c.kind,
                        instant: c.instant,
                    });
                }
                keep
            });
            (!task.is_empty()).then_some(task)
        });
        format_in_order(
            ordered.overlapped(),
            spare,
            tasks,
            |task, o| format_comm(&task, (pid, tid, slot), keys, o),
            |d, ()| {
                for &(s, i, mid) in &d.mids {
                    if let Some(m) = mids.get_mut(s as usize).and_then(|v| v.get_mut(i as usize)) {
                        *m = mid;
                    }
                }
                *comm_events += d.comm;
                out.write(&d.text, d.events)
            },
        )?;
        Ok(calls.into_warnings())
    }

    /// The calls of process `p` (`slot` in the names) overlapping the
    /// window and at least `min_dur` long, block by block, in tasks of
    /// `TASK` records; unreadable blocks are warnings.
    fn calls(
        &mut self,
        p: TraceProcWalk<'_>,
        slot: u32,
        opts: &ChromeOptions,
        // Seconds to subtract from this process's times (its clock offset).
        shift: f64,
        warnings: &mut Vec<Warning>,
    ) -> io::Result<()> {
        let pid = p.proc().proc;
        // Calls whose function the table lacks (a block read from the
        // wrong offset decodes to such numbers): one warning per process.
        let mut unknown = 0u64;
        let mut first_unknown: Option<Location> = None;
        for mapped in p.mapped_blocks(Skipped::TraceBlock) {
            let mapped = match mapped {
                Ok(m) => m,
                Err(w) => {
                    warnings.push(w);
                    continue;
                }
            };
            let block = mapped.records();
            let n = block.calls_len();
            let Sink {
                out,
                ctx,
                ordered,
                comm_events,
                spare,
                ..
            } = self;
            format_in_order(
                *ordered,
                spare,
                (0..n).step_by(TASK).map(|a| a..n.min(a + TASK)),
                |r, o| {
                    let end = r.end;
                    format_calls(&block, r, (pid, slot), opts, shift, ctx, o);
                    end
                },
                |d, end| {
                    *comm_events += d.comm;
                    if d.unknown_functions > 0 && first_unknown.is_none() {
                        let b = mapped.block();
                        first_unknown = Some(Location::line(&b.header, b.line));
                    }
                    unknown += d.unknown_functions;
                    out.write(&d.text, d.events)?;
                    // Streamed: what is written need not stay resident.
                    mapped.release_calls_before(end);
                    Ok(())
                },
            )?;
        }
        if let Some(at) = first_unknown {
            warnings.push(Warning::new(
                at,
                format!(
                    "process {pid}: {unknown} call record(s) with a function number not in its fName table, named \"?\" (a block misread? `profparse check` names each)"
                ),
            ));
        }
        Ok(())
    }
}

/// Items collected in order as a callback produces them, formatted a group
/// of tasks at a time (the flows, streamed by the pairing).
struct Batches<'s, 'w> {
    sink: &'s mut Sink<'w>,
    items: Vec<Item>,
    /// The first write error; later items are dropped.
    failed: Option<io::Error>,
}

impl<'s, 'w> Batches<'s, 'w> {
    fn new(sink: &'s mut Sink<'w>) -> Self {
        let n = TASK * sink.ordered.window_len();
        Batches {
            sink,
            items: Vec::with_capacity(n),
            failed: None,
        }
    }

    fn push(&mut self, x: Item) {
        if self.failed.is_some() {
            return;
        }
        self.items.push(x);
        if self.items.len() >= TASK * self.sink.ordered.window_len() {
            self.write();
        }
    }

    fn write(&mut self) {
        if self.failed.is_none()
            && let Err(e) = self.sink.items(&self.items)
        {
            self.failed = Some(e);
        }
        self.items.clear();
    }

    /// Writes what is left.
    fn finish(mut self) -> io::Result<()> {
        self.write();
        match self.failed.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Writes `{"traceEvents":[…],"displayTimeUnit":"ms"}` for `db`: per
/// process (`pid`) its calls (`tid` 0), its regions (`tid` 1, when
/// `regions` is given) and, with `opts.comm`, its communication calls
/// (`tid` 2: `X` from the before- to the after-record, `i` for instants),
/// then one flow (`s` → `f`, `cat` "message") per message paired by
/// [`crate::analysis::comm_pairs`] whose two ends are both exported.
///
/// Streamed: records are read in order and formatted in parallel tasks
/// written in order (the same bytes for any thread count). Messages are
/// paired twice, streamed both times: first for the record times of their
/// ends (held, 16 bytes each, with the middle of the call slice each
/// starts or ends filled in as the comm calls are written), then as the
/// flows are written.
pub fn write_blprof_trace(
    w: &mut dyn Write,
    db: &Database,
    regions: Option<&Regions>,
    opts: &ChromeOptions,
) -> io::Result<ExportStats> {
    use std::collections::{BTreeMap, BTreeSet};
    let out = EventWriter::new(w)?;
    let mut stats = ExportStats::default();
    let mut warnings = Vec::new();
    let traces: BTreeMap<usize, TraceProcWalk<'_>> = db
        .trace_blocks(opts.procs.as_deref())
        .procs()
        .map(|p| (p.proc().proc, p))
        .collect();
    let comms: BTreeMap<usize, CommProcWalk<'_>> = if opts.comm {
        let sel = BlockSelection {
            window: opts.window,
            procs: opts.procs.as_deref(),
        };
        db.comm_blocks(&sel)
            .procs()
            .map(|p| (p.proc().proc, p))
            .collect()
    } else {
        Default::default()
    };
    let procs: Vec<usize> = traces
        .keys()
        .chain(comms.keys())
        .copied()
        .collect::<BTreeSet<usize>>()
        .into_iter()
        .collect();
    let slot_of: rustc_hash::FxHashMap<usize, u32> = procs
        .iter()
        .enumerate()
        .filter_map(|(i, &p)| Some((p, u32::try_from(i).ok()?)))
        .collect();
    let sel = crate::analysis::comm_select::CommSelection {
        window: opts.window,
        procs: None,
    };
    let pairing = opts.comm && !comms.is_empty();
    // Seconds to subtract from process `p`'s times (`--align-clocks`).
    let shift = |p: usize| opts.clocks.as_ref().map_or(0.0, |c| c.offset(p));
    // The exported messages: both ends exported, both times finite.
    let exported = |m: &crate::analysis::comm_pairs::Pair| {
        comms.contains_key(&m.from)
            && comms.contains_key(&m.to)
            && m.send_time.is_finite()
            && m.recv_time.is_finite()
    };
    // Messages first (their ends are read again below, as calls): the
    // record of a message end is the first or last record of its call, so
    // the calls written fill in where the flow ends go. Paired in a task of
    // its own while the first process's calls are written (they need no
    // message ends).
    let mut keys: Vec<Vec<u64>> = vec![Vec::new(); procs.len()];
    let mut pair_warnings = Vec::new();
    let collect_ends = |keys: &mut Vec<Vec<u64>>, warnings: &mut Vec<Warning>| {
        if !pairing {
            return;
        }
        let (_, w) = crate::analysis::comm_pairs::pair_messages(db, &sel, &mut |m| {
            if !exported(m) {
                return;
            }
            for (p, t) in [(m.from, m.send_time), (m.to, m.recv_time)] {
                if let Some(k) = slot_of.get(&p).and_then(|&s| keys.get_mut(s as usize)) {
                    // As the comm calls are written: shifted.
                    k.push((t - shift(p)).to_bits());
                }
            }
        });
        warnings.extend(w);
        keys.par_iter_mut().for_each(|k| {
            k.sort_unstable();
            k.dedup();
            k.shrink_to_fit();
        });
    };
    // Names as JSON strings, once.
    let names = procs
        .iter()
        .map(|p| {
            traces
                .get(p)
                .map(|t| {
                    t.proc()
                        .functions
                        .entries
                        .iter()
                        .filter_map(|(n, name)| Some((i32::try_from(*n).ok()?, json_str(name))))
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    let mut region_slot: BTreeMap<i32, u32> = Default::default();
    let mut region_names = Vec::new();
    if let Some(r) = regions {
        for p in &r.procs {
            for &n in p.ranges.keys() {
                if let std::collections::btree_map::Entry::Vacant(e) = region_slot.entry(n)
                    && let Ok(i) = u32::try_from(region_names.len())
                {
                    e.insert(i);
                    region_names.push(json_str(&r.name(n)));
                }
            }
        }
    }
    let ctx = Context {
        names,
        region_names,
    };
    let mut sink = Sink::new(out, ctx, Ends::default());
    // A process's name, calls and regions.
    let mut head = |sink: &mut Sink<'_>, proc: usize| -> io::Result<()> {
        let slot = slot_of.get(&proc).copied().unwrap_or(NO_SLOT);
        sink.items(&[meta(proc, 0, MetaName::Process)])?;
        if let Some(p) = traces.get(&proc) {
            sink.items(&[meta(proc, TID_CALLS, MetaName::Track("calls"))])?;
            sink.calls(*p, slot, opts, shift(proc), &mut warnings)?;
        }
        if let Some(r) = regions.and_then(|r| r.proc(proc)) {
            let mut ranges: Vec<(f64, f64, u32)> = Vec::new();
            for (n, list) in &r.ranges {
                let name = region_slot.get(n).copied().unwrap_or(u32::MAX);
                ranges.extend(
                    list.iter()
                        .filter(|x| overlaps(opts.window, x.start, x.stop))
                        .map(|x| (x.start, x.stop, name)),
                );
            }
            ranges.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
            let lanes = region_lanes(ranges.iter().map(|&(a, z, _)| (a, z)));
            let used = lanes.iter().copied().max().map_or(0, |l| l + 1);
            let mut items: Vec<Item> = (0..used.max(1))
                .map(|lane| {
                    meta(
                        proc,
                        region_tid(lane),
                        MetaName::Track(REGION_TRACKS[lane as usize]),
                    )
                })
                .collect();
            items.extend(
                ranges
                    .iter()
                    .zip(&lanes)
                    .map(|(&(start, stop, name), &lane)| Item::Region {
                        pid: proc,
                        tid: region_tid(lane),
                        name,
                        start: start - shift(proc),
                        stop: stop - shift(proc),
                    }),
            );
            sink.items(&items)?;
        }
        Ok(())
    };
    let mut written = Ok(());
    rayon::in_place_scope(|s| {
        s.spawn(|_| collect_ends(&mut keys, &mut pair_warnings));
        if let Some(&first) = procs.first() {
            written = head(&mut sink, first);
        }
    });
    written?;
    stats.warnings.append(&mut pair_warnings);
    sink.ends = Ends {
        mids: keys.iter().map(|k| vec![f64::NAN; k.len()]).collect(),
        keys,
    };
    for (i, &proc) in procs.iter().enumerate() {
        if i > 0 {
            head(&mut sink, proc)?;
        }
        if let Some(p) = comms.get(&proc) {
            let slot = slot_of.get(&proc).copied().unwrap_or(NO_SLOT);
            sink.items(&[meta(proc, TID_COMM, MetaName::Track("comm"))])?;
            let w = sink.comm(*p, (TID_COMM, slot), opts.min_dur, shift(proc), None)?;
            stats.warnings.extend(w);
        }
    }
    stats.comm_events = sink.comm_events;
    if pairing {
        // Every slice is written: the flow ends are known. A flow end sits
        // in the middle of its call's slice, so that viewers bind it to
        // that slice (a time on the slice's edge is ambiguous); the record
        // times are in `args`. Without the slice (an instant, or a call
        // below --min-dur) the record time is used, and with --min-dur the
        // message is left out.
        let mut flows = 0u64;
        let mut batches = Batches::new(&mut sink);
        // The first pairing warned already.
        let _ = crate::analysis::comm_pairs::pair_messages(db, &sel, &mut |m| {
            if !exported(m) {
                return;
            }
            let (Some(&from_slot), Some(&to_slot)) = (slot_of.get(&m.from), slot_of.get(&m.to))
            else {
                return;
            };
            let (send_time, recv_time) = (m.send_time - shift(m.from), m.recv_time - shift(m.to));
            // Whether a message is left out must be known here, where the
            // flows are numbered.
            let ts = if opts.min_dur > 0.0 {
                let ends = &batches.sink.ends;
                match (ends.mid(from_slot, send_time), ends.mid(to_slot, recv_time)) {
                    (Some(s), Some(r)) => Some((s, r)),
                    _ => return,
                }
            } else {
                None
            };
            flows += 1;
            batches.push(Item::Flow(FlowMsg {
                id: flows,
                from: m.from,
                to: m.to,
                from_slot,
                to_slot,
                tag: m.tag,
                size: m.size,
                send_time,
                recv_time,
                ts,
            }));
        });
        batches.finish()?;
        stats.flows = flows;
    }
    stats.events = sink.out.finish()?;
    warnings.append(&mut stats.warnings);
    stats.warnings = warnings;
    Ok(stats)
}

/// A metadata event naming process `pid` (`process N`) or its track `tid`.
fn meta(pid: usize, tid: u32, name: MetaName) -> Item {
    Item::Meta {
        what: if matches!(name, MetaName::Process) {
            "process_name"
        } else {
            "thread_name"
        },
        pid,
        tid,
        name,
    }
}

/// Writes the communication calls of `db` overlapping `window` (one track
/// per process, `X` for calls, `i` for instants), streamed process by
/// process; with `ranges` (a region filter's) only the calls entered
/// inside their process's ranges. Returns the number of events and any
/// warnings.
pub fn write_comm_trace(
    w: &mut dyn Write,
    db: &Database,
    window: (f64, f64),
    clocks: &ClockOffsets,
    ranges: Option<&ProcRanges>,
) -> io::Result<(u64, Vec<Warning>)> {
    let out = EventWriter::new(w)?;
    let sel = BlockSelection {
        window,
        procs: None,
    };
    let mut sink = Sink::new(out, Context::default(), Ends::default());
    let mut warnings = Vec::new();
    for p in db.comm_blocks(&sel).procs() {
        let proc = p.proc().proc;
        sink.items(&[
            meta(proc, 0, MetaName::Process),
            meta(proc, 0, MetaName::Track("comm")),
        ])?;
        let shift = clocks.offset(proc);
        let inside = ranges.map(|r| r.of(proc));
        warnings.extend(sink.comm(p, (0, NO_SLOT), ChromeOptions::all().min_dur, shift, inside)?);
    }
    Ok((sink.out.finish()?, warnings))
}

#[cfg(test)]
mod tests {
    use super::region_lanes;

    #[test]
    fn regions_that_overlap_without_nesting_get_a_lane_of_their_own() {
        // A ⊃ B, then C starts inside A and stops after it; D follows A;
        // E touches D's end.
        let ranges = [
            (0.0, 10.0),  // A
            (1.0, 2.0),   // B inside A
            (5.0, 15.0),  // C: overlaps A's end
            (10.0, 12.0), // D: after A
            (12.0, 13.0), // E: touches D
        ];
        assert_eq!(region_lanes(ranges.into_iter()), [0, 0, 1, 0, 0]);
    }

    #[test]
    fn lanes_are_bounded() {
        // Every range starts inside the previous one and stops after it.
        let ranges = (0..100).map(|i| (i as f64, i as f64 + 1.5));
        let lanes = region_lanes(ranges);
        assert!(
            lanes
                .iter()
                .all(|&l| (l as usize) < super::REGION_TRACKS.len())
        );
        assert_eq!(&lanes[..3], [0, 1, 0]);
    }
}
