//! Ordered parallel formatting: tasks (a run of a trace block's calls, a
//! batch of a process's comm calls, a run of items) are formatted in
//! parallel a group at a time and their texts written in task order, so
//! the output is the same for any thread count and memory stays at one
//! group of texts.

use std::cell::RefCell;
use std::io;

use crate::analysis::ranges::RangeList;
use crate::analysis::timeline_events::calls::{CallFilter, for_each_call_block, runs};
use crate::analysis::timeline_events::comm::CommSlices;
use crate::analysis::timeline_events::messages::MessageEnds;
use crate::error::{Location, Warning};
use crate::formats::blprof::walk::{CommProcWalk, TraceProcWalk};
use crate::parallel::Ordered;

use super::CallArgs;
use super::format::{Context, Formatted, Item, format_calls, format_comm, format_item};
use super::json::EventWriter;

/// Records per formatting task (about 3 MB of JSON).
pub(super) const TASK: usize = 16 * 1024;

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
/// order; the middles of message-end slices they found are noted in the
/// same order (the last written wins, as in one pass).
pub(super) struct Sink<'w> {
    pub(super) out: EventWriter<'w>,
    ctx: Context,
    ordered: Ordered,
    pub(super) comm_events: u64,
    /// Text buffers to reuse.
    spare: Vec<Vec<u8>>,
}

impl<'w> Sink<'w> {
    pub(super) fn new(out: EventWriter<'w>, ctx: Context) -> Self {
        Sink {
            out,
            ctx,
            ordered: Ordered::per_thread(2),
            comm_events: 0,
            spare: Vec::new(),
        }
    }

    /// Items, `TASK` per task.
    pub(super) fn items(&mut self, items: &[Item], ends: &MessageEnds) -> io::Result<()> {
        let Sink {
            out,
            ctx,
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
    /// at least `min_dur` long, on track `tid`. The next batch of calls is
    /// read, and the last one written, while one is formatted.
    pub(super) fn comm(
        &mut self,
        p: CommProcWalk<'_>,
        (tid, slot): (u32, u32),
        min_dur: f64,
        // Seconds to subtract from this process's times (its clock offset).
        shift: f64,
        // A region filter's ranges of this process: only calls entered
        // inside are written (`None`: all).
        inside: Option<&RangeList>,
        ends: &mut MessageEnds,
    ) -> io::Result<Vec<Warning>> {
        let pid = p.proc().proc;
        let mut calls = CommSlices::new(p, TASK, min_dur, shift, inside);
        let Sink {
            out,
            ordered,
            comm_events,
            spare,
            ..
        } = self;
        let MessageEnds { keys, mids } = ends;
        format_in_order(
            ordered.overlapped(),
            spare,
            &mut calls,
            |task, o| format_comm(&task, (pid, tid, slot), keys, o),
            |d, ()| {
                for &(s, i, mid) in &d.mids {
                    mids.set(s, i, mid);
                }
                *comm_events += d.comm;
                out.write(&d.text, d.events)
            },
        )?;
        Ok(calls.into_warnings())
    }

    /// The calls of process `p` (`slot` in the names) that `filter` shows,
    /// block by block, in tasks of `TASK` records; unreadable blocks are
    /// warnings.
    pub(super) fn calls(
        &mut self,
        p: TraceProcWalk<'_>,
        slot: u32,
        (filter, args): (&CallFilter, CallArgs),
        warnings: &mut Vec<Warning>,
    ) -> io::Result<()> {
        let pid = p.proc().proc;
        // Calls whose function the table lacks (a block read from the
        // wrong offset decodes to such numbers): one warning per process.
        let mut unknown = 0u64;
        let mut first_unknown: Option<Location> = None;
        let Sink {
            out,
            ctx,
            ordered,
            comm_events,
            spare,
        } = self;
        for_each_call_block(p, warnings, |mapped| {
            let block = mapped.records();
            format_in_order(
                *ordered,
                spare,
                runs(block.calls_len(), TASK),
                |r, o| {
                    let end = r.end;
                    format_calls(&block, r, (pid, slot), (filter, args), ctx, o);
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
            )
        })?;
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
pub(super) struct Batches<'s, 'w, 'e> {
    sink: &'s mut Sink<'w>,
    ends: &'e MessageEnds,
    items: Vec<Item>,
    /// The first write error; later items are dropped.
    failed: Option<io::Error>,
}

impl<'s, 'w, 'e> Batches<'s, 'w, 'e> {
    pub(super) fn new(sink: &'s mut Sink<'w>, ends: &'e MessageEnds) -> Self {
        let n = TASK * sink.ordered.window_len();
        Batches {
            sink,
            ends,
            items: Vec::with_capacity(n),
            failed: None,
        }
    }

    pub(super) fn push(&mut self, x: Item) {
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
            && let Err(e) = self.sink.items(&self.items, self.ends)
        {
            self.failed = Some(e);
        }
        self.items.clear();
    }

    /// Writes what is left.
    pub(super) fn finish(mut self) -> io::Result<()> {
        self.write();
        match self.failed.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
