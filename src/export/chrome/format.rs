//! The events of a database's trace as JSON text: calls, communication
//! calls, region slices, metadata and message flows, each formatted into a
//! task's buffer (the tasks run in parallel; `sink` writes them in order).

use crate::analysis::timeline_events::calls::CallFilter;
use crate::analysis::timeline_events::comm::CommSlice;
use crate::analysis::timeline_events::messages::{EndKeys, Flow, MessageEnds};
use crate::formats::blprof::commdata::func_name;
use crate::formats::blprof::trace::{CallRecord, TraceBlock};

use super::json::{put_event, put_f64, put_int, put_metadata, put_str, put_us};
use super::{CallArgs, TID_COMM, TID_REGIONS};

/// A process or track name.
#[derive(Clone, Copy)]
pub(super) enum MetaName {
    /// `process N`.
    Process,
    Track(&'static str),
}

/// What one event (two for a flow) is made of, when not formatted straight
/// from the records.
pub(super) enum Item {
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
    Flow(Flow),
}

/// The region tracks' names, one per lane
/// ([`crate::analysis::timeline_events::regions`]).
pub(super) const REGION_TRACKS: [&str; 8] = [
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
pub(super) fn region_tid(lane: u32) -> u32 {
    if lane == 0 {
        TID_REGIONS
    } else {
        TID_COMM + lane
    }
}

/// A metadata event naming process `pid` (`process N`) or its track `tid`.
pub(super) fn meta(pid: usize, tid: u32, name: MetaName) -> Item {
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

/// What formatting reads besides the records.
#[derive(Default)]
pub(super) struct Context {
    /// Function names per process slot, as JSON strings.
    pub(super) names: Vec<rustc_hash::FxHashMap<i32, Box<[u8]>>>,
    pub(super) region_names: Vec<Box<[u8]>>,
}

/// What a task made: its text, its events, its comm events and the middles
/// of the message-end slices it wrote (slot, index, middle), in order.
#[derive(Default)]
pub(super) struct Formatted {
    pub(super) text: Vec<u8>,
    pub(super) events: u64,
    pub(super) comm: u64,
    /// Calls written as `"?"`: their function is not in the process's table.
    pub(super) unknown_functions: u64,
    pub(super) mids: Vec<(u32, u32, f64)>,
}

/// A call (its start already shifted): an `X` with `args` as asked.
/// Returns false when its function is not in the process's table (written
/// as `"?"`).
fn format_call(
    o: &mut Vec<u8>,
    ctx: &Context,
    (pid, slot): (usize, u32),
    args: CallArgs,
    c: &CallRecord,
) -> bool {
    let known = ctx.names.get(slot as usize).and_then(|n| n.get(&c.fnum));
    let name: &[u8] = known.map_or(b"\"?\"", |n| n);
    let start = c.start;
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

/// Formats the calls `range` of `block` that `filter` shows.
pub(super) fn format_calls(
    block: &TraceBlock,
    range: std::ops::Range<usize>,
    (pid, slot): (usize, u32),
    (filter, args): (&CallFilter, CallArgs),
    ctx: &Context,
    out: &mut Formatted,
) {
    out.text.reserve(range.len() * 256);
    filter.for_each(block, range, |c| {
        if !format_call(&mut out.text, ctx, (pid, slot), args, c) {
            out.unknown_functions += 1;
        }
        out.events += 1;
    });
}

/// Communication calls of process `pid` on track `tid`; a send or receive
/// notes the middle of its slice for the message ends of `slot` it starts
/// or ends.
pub(super) fn format_comm(
    calls: &[CommSlice],
    (pid, tid, slot): (usize, u32, u32),
    keys: &EndKeys,
    out: &mut Formatted,
) {
    out.text.reserve(calls.len() * 100);
    for c in calls {
        keys.ends_in(slot, c, |s, i, mid| out.mids.push((s, i, mid)));
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
fn format_flow(o: &mut Vec<u8>, m: &Flow, ends: &MessageEnds) {
    let (ts_send, ts_recv) = m.ends(ends);
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

pub(super) fn format_item(x: &Item, ctx: &Context, ends: &MessageEnds, out: &mut Formatted) {
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
