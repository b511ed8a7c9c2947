//! The events of a timeline of a bl_prof database (the Chrome export), in
//! the order they are written: per process, in process order, its calls
//! ([`calls`]), its regions on lanes ([`regions`]) and its communication
//! calls ([`comm`]); then one flow per message whose two ends are both
//! shown ([`messages`]). [`count`] sizes a timeline from the block headers
//! alone.
//!
//! Everything here decides which records become events, where they sit
//! and in which order; the exporter only formats them. The walks hand out
//! runs of records for the exporter to format in parallel and write in
//! order, so nothing is collected that a streamed export did not hold.
//!
//! With `--align-clocks`, every time of a process is shown minus its clock
//! offset ([`shift`]), while the window selects on the processes' own
//! clocks.

pub mod calls;
pub mod comm;
pub mod count;
pub mod messages;
pub mod regions;

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap;

use crate::analysis::comm::clocks::ClockOffsets;
use crate::analysis::comm::pairs::Pair;
use crate::formats::blprof::database::Database;
use crate::formats::blprof::walk::{BlockSelection, CommProcWalk, TraceProcWalk};

/// Whether `[start, end]` meets `window`.
pub fn overlaps(window: (f64, f64), start: f64, end: f64) -> bool {
    end >= window.0 && start <= window.1
}

/// Seconds to subtract from process `p`'s times: its clock offset (`None`:
/// each process's own clock, nothing).
pub fn shift(clocks: Option<&ClockOffsets>, p: usize) -> f64 {
    clocks.map_or(0.0, |c| c.offset(p))
}

/// The processes of a timeline: those with call traces and, when comm is
/// shown, those with comm blocks meeting the window, among the selected.
/// A process's slot is its position in [`Processes::procs`].
pub struct Processes<'a> {
    pub traces: BTreeMap<usize, TraceProcWalk<'a>>,
    /// Empty when comm is not shown.
    pub comms: BTreeMap<usize, CommProcWalk<'a>>,
    /// Every process shown, in order.
    pub procs: Vec<usize>,
    slot_of: FxHashMap<usize, u32>,
}

impl<'a> Processes<'a> {
    /// The processes `procs` (`None`: all) of `db`; comm blocks (with
    /// `comm`) those whose time range meets `window`.
    pub fn new(
        db: &'a Database,
        procs: Option<&'a [usize]>,
        window: (f64, f64),
        comm: bool,
    ) -> Self {
        let traces: BTreeMap<usize, TraceProcWalk<'a>> = db
            .trace_blocks(procs)
            .procs()
            .map(|p| (p.proc().proc, p))
            .collect();
        let comms: BTreeMap<usize, CommProcWalk<'a>> = if comm {
            let sel = BlockSelection { window, procs };
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
        let slot_of = procs
            .iter()
            .enumerate()
            .filter_map(|(i, &p)| Some((p, u32::try_from(i).ok()?)))
            .collect();
        Processes {
            traces,
            comms,
            procs,
            slot_of,
        }
    }

    /// The slot of process `p`, if shown.
    pub fn slot(&self, p: usize) -> Option<u32> {
        self.slot_of.get(&p).copied()
    }

    /// Whether messages are drawn: comm is shown and some process has it.
    pub fn pairs(&self) -> bool {
        !self.comms.is_empty()
    }

    /// Whether message `m` is drawn: both its ends are shown processes with
    /// comm, both its times finite.
    pub fn shows(&self, m: &Pair) -> bool {
        self.comms.contains_key(&m.from)
            && self.comms.contains_key(&m.to)
            && m.send_time.is_finite()
            && m.recv_time.is_finite()
    }
}
