//! The messages a timeline draws as flows, and where their ends go.
//!
//! Messages are paired twice, streamed both times. The first pairing
//! ([`end_keys`]) notes the record times of the ends of the messages shown
//! (16 bytes per end, held); as the communication calls are written, the
//! middle of the call slice each end starts or ends is filled in
//! ([`EndKeys::ends_in`], [`EndMids::set`]). The second pairing
//! ([`for_each_flow`]) numbers the flows once every slice is known: a flow
//! end sits in the middle of its call's slice, so that viewers bind it to
//! that slice (a time on the slice's edge is ambiguous); without the slice
//! (an instant, or a call below the minimum duration) the record time is
//! used, and with a minimum duration the message is left out.

use rayon::prelude::*;

use crate::analysis::comm::clocks::ClockOffsets;
use crate::analysis::comm::pairs::pair_messages;
use crate::analysis::comm::select::CommSelection;
use crate::error::Warning;
use crate::formats::blprof::commdata::{is_recv, is_send};
use crate::formats::blprof::database::Database;

use super::comm::CommSlice;
use super::{Processes, shift};

/// The slot of a process whose message ends are not tracked.
pub const NO_SLOT: u32 = u32::MAX;

/// Per process slot, the record times (as bits, sorted, shifted) of the
/// ends of its messages shown.
#[derive(Default)]
pub struct EndKeys(Vec<Vec<u64>>);

impl EndKeys {
    /// Where the message end of process `slot` at record time `t` is:
    /// (slot, index).
    pub fn find(&self, slot: u32, t: f64) -> Option<(u32, u32)> {
        let i = self
            .0
            .get(slot as usize)?
            .binary_search(&t.to_bits())
            .ok()?;
        Some((slot, u32::try_from(i).ok()?))
    }

    /// The message ends that the communication call `c` of process `slot`
    /// holds (a send or receive starts or ends with one), with the middle
    /// of its slice: `f(slot, index, middle)`.
    #[inline]
    pub fn ends_in(&self, slot: u32, c: &CommSlice, mut f: impl FnMut(u32, u32, f64)) {
        if slot != NO_SLOT && !c.instant && (is_send(c.kind) || is_recv(c.kind)) {
            let mid = 0.5 * (c.start + c.end);
            for t in [c.start, c.end] {
                if let Some((s, i)) = self.find(slot, t) {
                    f(s, i, mid);
                }
            }
        }
    }
}

/// Per process slot and message end, the middle of the call slice it
/// starts or ends (NaN until that slice is written).
#[derive(Default)]
pub struct EndMids(Vec<Vec<f64>>);

impl EndMids {
    /// Notes where end `index` of `slot` goes (the last noted wins, as in
    /// one pass).
    pub fn set(&mut self, slot: u32, index: u32, mid: f64) {
        if let Some(m) = self
            .0
            .get_mut(slot as usize)
            .and_then(|v| v.get_mut(index as usize))
        {
            *m = mid;
        }
    }
}

/// The message ends of a timeline and where they go.
#[derive(Default)]
pub struct MessageEnds {
    pub keys: EndKeys,
    pub mids: EndMids,
}

impl MessageEnds {
    /// Ends at `keys`, none placed yet.
    pub fn new(keys: EndKeys) -> Self {
        let mids = EndMids(keys.0.iter().map(|k| vec![f64::NAN; k.len()]).collect());
        MessageEnds { keys, mids }
    }

    /// Where the message end of process `slot` at record time `t` goes,
    /// once its slice is written.
    pub fn mid(&self, slot: u32, t: f64) -> Option<f64> {
        let (s, i) = self.keys.find(slot, t)?;
        let m = *self.mids.0.get(s as usize)?.get(i as usize)?;
        (!m.is_nan()).then_some(m)
    }
}

/// The first pairing: the ends of the messages shown, per process slot,
/// and the pairing's warnings. Nothing when no messages are drawn.
pub fn end_keys(
    db: &Database,
    procs: &Processes<'_>,
    sel: &CommSelection<'_>,
    clocks: Option<&ClockOffsets>,
) -> (EndKeys, Vec<Warning>) {
    let mut keys: Vec<Vec<u64>> = vec![Vec::new(); procs.procs.len()];
    if !procs.pairs() {
        return (EndKeys(keys), Vec::new());
    }
    let (_, warnings) = pair_messages(db, sel, &mut |m| {
        if !procs.shows(m) {
            return;
        }
        for (p, t) in [(m.from, m.send_time), (m.to, m.recv_time)] {
            if let Some(k) = procs.slot(p).and_then(|s| keys.get_mut(s as usize)) {
                // As the comm calls are written: shifted.
                k.push((t - shift(clocks, p)).to_bits());
            }
        }
    });
    keys.par_iter_mut().for_each(|k| {
        k.sort_unstable();
        k.dedup();
        k.shrink_to_fit();
    });
    (EndKeys(keys), warnings)
}

/// A message drawn as a flow.
#[derive(Debug, Clone, Copy)]
pub struct Flow {
    /// Flow number (1, 2, …).
    pub id: u64,
    pub from: usize,
    pub to: usize,
    /// Slots of `from` and `to`.
    pub from_slot: u32,
    pub to_slot: u32,
    pub tag: i32,
    pub size: i32,
    /// Record times, shifted.
    pub send_time: f64,
    pub recv_time: f64,
    /// Where the two ends go, when already looked up (with a minimum
    /// duration); else [`Flow::ends`] finds them.
    pub ts: Option<(f64, f64)>,
}

impl Flow {
    /// Where the two ends go: the middles of their slices, else the record
    /// times.
    pub fn ends(&self, ends: &MessageEnds) -> (f64, f64) {
        self.ts.unwrap_or_else(|| {
            (
                ends.mid(self.from_slot, self.send_time)
                    .unwrap_or(self.send_time),
                ends.mid(self.to_slot, self.recv_time)
                    .unwrap_or(self.recv_time),
            )
        })
    }
}

/// The second pairing, once every slice is written: each message shown as
/// a numbered [`Flow`], in the pairing's order; with `min_dur` above zero,
/// messages whose ends have no slice are left out. Returns the number of
/// flows. (The first pairing warned already.)
pub fn for_each_flow(
    db: &Database,
    procs: &Processes<'_>,
    sel: &CommSelection<'_>,
    clocks: Option<&ClockOffsets>,
    min_dur: f64,
    ends: &MessageEnds,
    mut emit: impl FnMut(Flow),
) -> u64 {
    let mut flows = 0u64;
    let _ = pair_messages(db, sel, &mut |m| {
        if !procs.shows(m) {
            return;
        }
        let (Some(from_slot), Some(to_slot)) = (procs.slot(m.from), procs.slot(m.to)) else {
            return;
        };
        let (send_time, recv_time) = (
            m.send_time - shift(clocks, m.from),
            m.recv_time - shift(clocks, m.to),
        );
        // Whether a message is left out must be known here, where the
        // flows are numbered.
        let ts = if min_dur > 0.0 {
            match (ends.mid(from_slot, send_time), ends.mid(to_slot, recv_time)) {
                (Some(s), Some(r)) => Some((s, r)),
                _ => return,
            }
        } else {
            None
        };
        flows += 1;
        emit(Flow {
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
        });
    });
    flows
}
