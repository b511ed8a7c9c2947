//! A bl_prof database as a Chrome trace: calls, regions, communication
//! calls and message flows, in the order and places
//! [`crate::analysis::timeline_events`] gives them.

use std::io::{self, Write};

use crate::analysis::comm::scope::CommScope;
use crate::analysis::comm::select::CommSelection;
use crate::analysis::regions::Regions;
use crate::analysis::timeline_events::calls::CallFilter;
use crate::analysis::timeline_events::messages::{MessageEnds, NO_SLOT, end_keys, for_each_flow};
use crate::analysis::timeline_events::regions::{RegionOrder, laned_regions};
use crate::analysis::timeline_events::{Processes, shift};
use crate::error::Warning;
use crate::formats::blprof::database::Database;
use crate::formats::blprof::walk::BlockSelection;

use super::format::{Context, Item, MetaName, REGION_TRACKS, meta, region_tid};
use super::json::{EventWriter, json_str};
use super::sink::{Batches, Sink};
use super::{ChromeOptions, ExportStats, TID_CALLS, TID_COMM};

/// Writes `{"traceEvents":[…],"displayTimeUnit":"ms"}` for `db`: per
/// process (`pid`) its calls (`tid` 0), its regions (`tid` 1, when
/// `regions` is given) and, with `opts.comm`, its communication calls
/// (`tid` 2: `X` from the before- to the after-record, `i` for instants),
/// then one flow (`s` → `f`, `cat` "message") per message paired by
/// [`crate::analysis::comm::pairs`] whose two ends are both exported.
///
/// Streamed: records are read in order and formatted in parallel tasks
/// written in order (the same bytes for any thread count). Messages are
/// paired twice, streamed both times
/// ([`crate::analysis::timeline_events::messages`]).
pub fn write_blprof_trace(
    w: &mut dyn Write,
    db: &Database,
    regions: Option<&Regions>,
    opts: &ChromeOptions,
) -> io::Result<ExportStats> {
    let out = EventWriter::new(w)?;
    let mut stats = ExportStats::default();
    let mut warnings = Vec::new();
    let procs = Processes::new(db, opts.procs.as_deref(), opts.window, opts.comm);
    let sel = CommSelection {
        window: opts.window,
        procs: None,
    };
    let clocks = opts.clocks.as_ref();
    // Names as JSON strings, once.
    let names = procs
        .procs
        .iter()
        .map(|p| {
            procs
                .traces
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
    let order = regions.map(RegionOrder::new).unwrap_or_default();
    let region_names = match regions {
        Some(r) => order
            .numbers
            .iter()
            .map(|&n| json_str(&r.name(n)))
            .collect(),
        None => Vec::new(),
    };
    let ctx = Context {
        names,
        region_names,
    };
    let mut sink = Sink::new(out, ctx);
    // A process's name, calls and regions (they need no message ends).
    let mut head = |sink: &mut Sink<'_>, ends: &MessageEnds, proc: usize| -> io::Result<()> {
        let slot = procs.slot(proc).unwrap_or(NO_SLOT);
        sink.items(&[meta(proc, 0, MetaName::Process)], ends)?;
        if let Some(p) = procs.traces.get(&proc) {
            sink.items(&[meta(proc, TID_CALLS, MetaName::Track("calls"))], ends)?;
            let filter = CallFilter {
                window: opts.window,
                min_dur: opts.min_dur,
                shift: shift(clocks, proc),
            };
            sink.calls(*p, slot, (&filter, opts.call_args), &mut warnings)?;
        }
        if let Some(r) = regions.and_then(|r| r.proc(proc)) {
            let (lanes, slices) = laned_regions(r, &order, opts.window, shift(clocks, proc));
            let mut items: Vec<Item> = (0..lanes)
                .map(|lane| {
                    meta(
                        proc,
                        region_tid(lane),
                        MetaName::Track(REGION_TRACKS[lane as usize]),
                    )
                })
                .collect();
            items.extend(slices.iter().map(|s| Item::Region {
                pid: proc,
                tid: region_tid(s.lane),
                name: s.name,
                start: s.start,
                stop: s.stop,
            }));
            sink.items(&items, ends)?;
        }
        Ok(())
    };
    // The messages' ends first (their records are read again below, as
    // calls): paired in a task of its own while the first process's calls
    // are written.
    let no_ends = MessageEnds::default();
    let mut keys = Default::default();
    let mut written = Ok(());
    rayon::in_place_scope(|s| {
        s.spawn(|_| keys = end_keys(db, &procs, &sel, clocks));
        if let Some(&first) = procs.procs.first() {
            written = head(&mut sink, &no_ends, first);
        }
    });
    written?;
    let (keys, mut pair_warnings) = keys;
    stats.warnings.append(&mut pair_warnings);
    let mut ends = MessageEnds::new(keys);
    for (i, &proc) in procs.procs.iter().enumerate() {
        if i > 0 {
            head(&mut sink, &ends, proc)?;
        }
        if let Some(p) = procs.comms.get(&proc) {
            let slot = procs.slot(proc).unwrap_or(NO_SLOT);
            sink.items(&[meta(proc, TID_COMM, MetaName::Track("comm"))], &ends)?;
            let w = sink.comm(
                *p,
                (TID_COMM, slot),
                opts.min_dur,
                shift(clocks, proc),
                None,
                &mut ends,
            )?;
            stats.warnings.extend(w);
        }
    }
    stats.comm_events = sink.comm_events;
    if procs.pairs() {
        // Every slice is written: the flow ends are known.
        let mut batches = Batches::new(&mut sink, &ends);
        stats.flows = for_each_flow(db, &procs, &sel, clocks, opts.min_dur, &ends, |f| {
            batches.push(Item::Flow(f))
        });
        batches.finish()?;
    }
    stats.events = sink.out.finish()?;
    warnings.append(&mut stats.warnings);
    stats.warnings = warnings;
    Ok(stats)
}

/// Writes the communication calls of `db` overlapping `scope`'s window
/// (one track per process, `X` for calls, `i` for instants) on its clocks,
/// streamed process by process; with a region filter only the calls
/// entered inside their process's ranges. Returns the number of events and
/// any warnings.
pub fn write_comm_trace(
    w: &mut dyn Write,
    db: &Database,
    scope: &CommScope,
) -> io::Result<(u64, Vec<Warning>)> {
    let (clocks, ranges) = (scope.clocks(), scope.ranges());
    let out = EventWriter::new(w)?;
    let sel = BlockSelection {
        window: scope.window(),
        procs: None,
    };
    let mut sink = Sink::new(out, Context::default());
    let mut ends = MessageEnds::default();
    let mut warnings = Vec::new();
    for p in db.comm_blocks(&sel).procs() {
        let proc = p.proc().proc;
        sink.items(
            &[
                meta(proc, 0, MetaName::Process),
                meta(proc, 0, MetaName::Track("comm")),
            ],
            &ends,
        )?;
        let shift = clocks.offset(proc);
        let inside = ranges.map(|r| r.of(proc));
        let min_dur = ChromeOptions::all().min_dur;
        warnings.extend(sink.comm(p, (0, NO_SLOT), min_dur, shift, inside, &mut ends)?);
    }
    Ok((sink.out.finish()?, warnings))
}
